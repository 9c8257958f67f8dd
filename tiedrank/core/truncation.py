"""trec_eval's ``-M``: the first ``depth`` documents of each query in trec_eval's order, cut
before the tie-group table is built (:func:`~tiedrank.core.ties.build_tie_table`)."""
from __future__ import annotations

import numpy as np

from .data import Run
from .rounding import round_scores


def truncate_run(run: Run, depth: int, round: int | None = None) -> Run:
    """The first ``depth`` documents of each query in trec_eval's order (trec_eval ``-M``),
    ranked by the scores rounded to ``round`` decimals when given (so near-ties that
    rounding merges are cut as one tie group; the kept rows keep their own scores).

    Examples
    --------
    >>> import pandas as pd
    >>> run = Run("r", pd.DataFrame({"query": "q", "doc": ["a", "b", "c"], "score": [1.0, 2.0, 1.0]}))
    >>> truncate_run(run, 2).frame["doc"].tolist()   # b first, then c before a (docno descending)
    ['b', 'c']
    """
    frame = run.frame
    score = frame["score"] if round is None else round_scores(frame["score"].to_numpy(), round)
    # trec_eval's order: score descending, then docno descending (by bytes, as strcmp)
    order = frame.assign(_doc=frame["doc"].astype(str).str.encode("utf-8"), _score=score) \
        .sort_values(["query", "_score", "_doc"], ascending=[True, False, False], kind="stable")
    kept = order[order.groupby("query", sort=False).cumcount() < depth]
    return Run(run.name, frame.loc[np.sort(kept.index.to_numpy())].reset_index(drop=True),
               run.source, run.findings)
