"""The runs and the qrels given in the wrong order (ranx's and ir_measures' order is qrels
first): refused at every Python door with a message that says so, before anything is read."""
from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import pandas as pd

from ..core.data import Qrels, Run, exports_arrow, own_source
from ..core.options import EvaluationOptions
from ..core.peers import PEERS


def _role(source: Any) -> str | None:
    """``"run"`` or ``"qrels"`` for another tool's object that says which it is (a ranx
    ``Run``), asked of the peers' socket only for an object that is neither tiedrank's own
    source nor a plain dict, list or tuple (which say nothing of their role)."""
    if own_source(source) or isinstance(source, (Mapping, list, tuple)):
        return None
    return PEERS.peer_role(source)


def check_argument_order(runs: Any, qrels: Any, function: str = "evaluate",
                         options: EvaluationOptions | None = None, files: bool = False) -> None:
    """Refuse ``evaluate(qrels, run)``, ranx's order, with a message that says so.

    Swapped means: a :class:`Qrels` (or a ranx ``Qrels``) given as ``runs``, or a
    :class:`Run` (or a ranx ``Run``) as ``qrels``; or two frames (pandas, polars, pyarrow,
    DuckDB) whose columns say so both ways (``runs`` has a grade column and no score column,
    ``qrels`` a score column and no grade column, with no ``columns=`` mapping); with
    ``files``, a path to a TREC qrels file among the runs and a TREC run as the qrels
    (:func:`files_swapped`; the Python doors ask for it, the CLI words it itself). A label
    run (grades as scores) is a run and passes.

    >>> import pandas as pd
    >>> run = pd.DataFrame({"qid": ["q"], "docno": ["d"], "score": [1.0]})
    >>> qrels = pd.DataFrame({"qid": ["q"], "docno": ["d"], "relevance": [1]})
    >>> check_argument_order(qrels, run)
    Traceback (most recent call last):
    ...
    TypeError: evaluate(): runs= looks like qrels (columns qid, docno, relevance) and qrels= like a run (columns qid, docno, score); did you mean evaluate(run, qrels)? tiedrank's evaluate takes the runs first (ranx's evaluate and ir_measures take the qrels first)
    """
    tail = (f"did you mean {function}(run, qrels)? tiedrank's {function} takes the runs first "
            "(ranx's evaluate and ir_measures take the qrels first)")
    first = runs if not isinstance(runs, (list, tuple)) or len(runs) != 1 else runs[0]
    swapped = files_swapped(runs, qrels) if files else None
    if swapped:
        raise TypeError(f"{function}(): runs= holds a qrels file ({swapped!r}) and qrels= is "
                        f"a run ({os.fspath(qrels)!r}); {tail}")
    if isinstance(first, Qrels) or _role(first) == "qrels":
        raise TypeError(f"{function}(): runs= got qrels ({_what(first)}); {tail}")
    if isinstance(qrels, Run) or _role(qrels) == "run":
        raise TypeError(f"{function}(): qrels= got a run ({_what(qrels)}); {tail}")
    options = options or EvaluationOptions()
    if options.columns or options.qrels_columns:
        return
    run_columns, qrels_columns = _column_names(first), _column_names(qrels)
    if run_columns and qrels_columns and _shape(run_columns) == "qrels" \
            and _shape(qrels_columns) == "run":
        raise TypeError(f"{function}(): runs= looks like qrels (columns "
                        f"{', '.join(run_columns)}) and qrels= like a run (columns "
                        f"{', '.join(qrels_columns)}); {tail}")


def files_swapped(runs: Any, qrels: Any) -> str | None:
    """The path among ``runs`` (one or a list) that is a TREC qrels file when ``qrels`` is a
    path to a TREC run: the two given in the wrong order. None otherwise, and for files that
    cannot be read (the reader then says why). Judged from the first 64 KB of each; a label
    run (qrels-shaped) beside a true qrels file is not a swap.

    >>> files_swapped(["sample_data/trec_eval/qrels.test"], "sample_data/trec_eval/results.test")
    'sample_data/trec_eval/qrels.test'
    >>> files_swapped("sample_data/trec_eval/results.test", "sample_data/trec_eval/qrels.test")
    """
    if _sniffed(qrels) != "trec_run":
        return None
    items = runs if isinstance(runs, (list, tuple)) else [runs]
    return next((os.fspath(r) for r in items if _sniffed(r) == "trec_qrels"), None)


def _sniffed(source: Any) -> str | None:
    from ..io import detect_format  # local: io imports pyarrow.csv

    if not isinstance(source, (str, os.PathLike)) or not os.path.isfile(source):
        return None
    try:
        with open(source, "rb") as handle:
            head = handle.read(1 << 16)
        cut = head.rfind(b"\n") + 1 if head[:2] != b"\x1f\x8b" else len(head)
        return detect_format(head[:cut] or head, os.fspath(source))
    except Exception:  # noqa: BLE001 - a guess only: the reader says what is wrong
        return None


def _what(source: Any) -> str:
    kind = type(source)
    return f"a {kind.__module__.split('.')[0]} {kind.__name__}"


def _column_names(source: Any) -> list[str] | None:
    """The column names of a frame (pandas, or an Arrow exporter that names them)."""
    if not (isinstance(source, pd.DataFrame) or exports_arrow(source)):
        return None
    names = getattr(source, "columns", None)
    names = getattr(source, "column_names", None) if names is None else names
    try:
        return [str(n) for n in names] if names is not None else None
    except TypeError:
        return None


def _shape(columns: list[str]) -> str | None:
    """``"run"``: a score column and no grade column; ``"qrels"``: the other way round."""
    from ..io.columns import ALIASES  # local: io imports pyarrow.csv

    folded = {c.strip().casefold() for c in columns}
    score = bool(folded & set(ALIASES["score"]))
    grade = bool(folded & (set(ALIASES["relevance"]) - set(ALIASES["score"])))
    return "run" if score and not grade else "qrels" if grade and not score else None
