"""Runs that share no query with the qrels: the commonest first-upload mistake (a run whose
query ids read ``Z49`` where the qrels say ``q49``). Such a run has nothing to evaluate, so
the dashboard leaves it out of every page and says why, in one message that is the same on
every page (:func:`tiedrank.dashboard.ui.get_context` shows it); no page draws a run that
has no evaluated query.

Streamlit-free. Run names and query ids come from the user's files: they are escaped before
they go into the Markdown of the message.

Examples
--------
>>> import pandas as pd
>>> from tiedrank.core.data import Qrels, Run
>>> qrels = Qrels(pd.DataFrame({"query": ["q1", "q2"], "doc": ["d1", "d1"], "relevance": [1, 0]}))
>>> run = Run("bm25", pd.DataFrame({"query": ["Z1", "Z2"], "doc": ["d1", "d1"], "score": [1.0, 1.0]}))
>>> print(no_shared_query({"bm25": run}, qrels)["bm25"])  # doctest: +NORMALIZE_WHITESPACE
Run **bm25** shares no query with the qrels, so it has nothing to evaluate and is left out of
every page: its 2 query ids (Z1, Z2) are none of the qrels' 2 (q1, q2). Check that the run and
the qrels use the same query ids (a run's Z49 is not the qrels' q49), then upload the
corrected file in the sidebar (**Data → Upload your own**).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from ..core.data import Qrels, Run

SHOWN_IDS = 3
"""Query ids quoted from each side in the message."""


def markdown_text(text: str) -> str:
    """``text`` shown as itself in Markdown (file contents are never markup)."""
    return "".join("\\" + c if c in "\\`*_[]<>#|~$:!{}()+-." else c for c in str(text))


def _examples(ids: Sequence[str]) -> str:
    shown = ", ".join(markdown_text(q) for q in ids[:SHOWN_IDS])
    return shown + (", …" if len(ids) > SHOWN_IDS else "")


def no_shared_query_message(run: str, run_queries: Sequence[str], qrels_queries: Sequence[str]) -> str:
    """The message of a run none of whose query ids is in the qrels (Markdown)."""
    return (f"Run **{markdown_text(run)}** shares no query with the qrels, so it has nothing to "
            f"evaluate and is left out of every page: its {len(run_queries):,} query "
            f"id{'s' if len(run_queries) != 1 else ''} ({_examples(run_queries)}) "
            f"{'are' if len(run_queries) != 1 else 'is'} none of the qrels' "
            f"{len(qrels_queries):,} ({_examples(qrels_queries)}). Check that the run and the "
            "qrels use the same query ids (a run's Z49 is not the qrels' q49), then upload the "
            "corrected file in the sidebar (**Data → Upload your own**).")


def no_shared_query(runs: Mapping[str, Run], qrels: Qrels) -> dict[str, str]:
    """Run name -> :func:`no_shared_query_message`, for each run that shares no query id
    with ``qrels`` (in the order of ``runs``); empty when every run shares one."""
    judged = pd.Index(pd.unique(qrels.frame["query"].astype(str))).sort_values()
    out: dict[str, str] = {}
    for name, run in runs.items():
        ids = pd.Index(pd.unique(run.frame["query"].astype(str)))
        if len(ids) and not ids.isin(judged).any():
            out[name] = no_shared_query_message(name, list(ids.sort_values()), list(judged))
    return out
