"""The public readers: a source in, a validated :class:`~tiedrank.core.data.Run` or
:class:`~tiedrank.core.data.Qrels` out (see :mod:`tiedrank.io` for the formats)."""
from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

import pyarrow as pa

from ..core import progress
from ..core.data import QRELS_COLUMNS, RUN_COLUMNS, Qrels, Run, own_source
from ..core.errors import Finding, InputError
from ..core.machine import release_arrow_memory
from ..core.peers import PEERS
from ..core.validation import Options, validate_params
from ._arrow import to_frame
from ._load import Loaded, load, stem
from ._text import first_line
from .columns import GRADE, SCORE, RawColumns, ValueRule, as_ids, as_values
from .detect import FORMAT_OPTION, choose_format
from .duplicates import DUPLICATE_POLICIES, check_duplicates
from .nested_json import read_nested_json
from .subtopics import frame_subtopics, refuse_subtopics, subtopic_qrels
from .tabular import header_names, read_tabular
from .trec import QRELS_EXPECTED, read_trec
from .trec_stream import stream_trec_run

__all__ = ["list_columns", "read_qrels", "read_run"]


def _returns_memory(reader: Callable[..., Any]) -> Callable[..., Any]:
    """``reader``, then pyarrow's allocator hands the memory it keeps for reuse back to
    the system: the parse's blocks and the reader's temporaries, freed when ``reader``
    returns (7M lines: 280 MB). What is evaluated next is allocated by numpy, which would
    not reuse them, so they would only raise the peak."""
    @functools.wraps(reader)
    def read(*args: Any, **kwargs: Any) -> Any:
        try:
            return reader(*args, **kwargs)
        finally:
            release_arrow_memory()
    return read


@_returns_memory
@validate_params({"format": FORMAT_OPTION, "duplicates": [Options(*DUPLICATE_POLICIES)]})
def read_run(source: Any, *, format: str | None = None, name: str | None = None,
             columns: Mapping[str, str] | None = None, duplicates: str = "error",
             source_name: str | None = None) -> Run:
    """Read a run (a scored ranking per query).

    Parameters
    ----------
    source : path, bytes, binary file-like, DataFrame, Arrow table, or another tool's run
        The run.  File-like objects may be Streamlit ``UploadedFile`` s (``.name`` and
        ``.getvalue()``); ``"-"`` is standard input.  Gzip-compressed input is decompressed
        transparently, and ranx's ``.lz4`` files with the ``lz4`` extra.  Anything that
        exports Arrow (``__arrow_c_stream__``: a polars DataFrame, a pyarrow Table or
        RecordBatchReader, a DuckDB relation) is read as a table, its columns found by
        name as a Parquet file's.  Also a ranx ``Run``, a pytrec_eval dict ``{query: {doc: score}}``,
        an iterable of ``(query_id, doc_id, score)`` tuples (ir_measures ``ScoredDoc``) or
        a PyTerrier frame (``qid, docno, score``): see :mod:`tiedrank.interop.adapters`.
    format : str, optional
        One of :data:`~tiedrank.io.FORMATS` (any letter case); detected with
        :func:`~tiedrank.io.detect_format` when omitted.  A ``"trec_qrels"`` file is read
        as a *label file*: its grade becomes the score.
    name : str, optional
        Run name; default the TREC tag of the first line, else the file stem, else ``"run"``.
    columns : mapping, optional
        For tabular formats, ``{"query": ..., "doc": ..., "score": ...}`` naming the file's
        columns; unmapped roles are found through :data:`~tiedrank.io.ALIASES`.  Ignored
        for TREC files.
    duplicates : {"error", "max"}
        What to do with a document listed twice for one query: raise (as trec_eval does) or
        keep the row with the highest score and record a ``"duplicates_kept_max"`` finding.
    source_name : str, optional
        Name used in messages and ``Run.source`` (default: the path, the file object's
        ``.name``, ``"<bytes>"`` or ``"<DataFrame>"``).

    Returns
    -------
    Run
        ``frame`` has columns query (str), doc (str), score (float64) in file order.

    Raises
    ------
    InputError
        On any unusable input, naming the line and what was expected there.
    InvalidParameterError
        If ``format`` or ``duplicates`` is not one of the allowed values.

    Examples
    --------
    >>> run = read_run(b"q1 Q0 d1 1 2.5 bm25\\nq1 Q0 d2 2 1.0 bm25\\n")
    >>> run.name, run.frame["score"].tolist()
    ('bm25', [2.5, 1.0])
    >>> try:
    ...     read_run(b"q1 Q0 d1 1 2.5 bm25\\n", duplicates="first")
    ... except ValueError as error:
    ...     print(error)
    read_run(): duplicates= must be one of 'error', 'max'; got 'first'
    """
    peer = not own_source(source) and PEERS.is_peer_object(source)
    if peer:  # ranx, pytrec_eval dicts, ir_measures tuples: tiedrank.interop.adapters
        source_name = source_name or _peer_name(source)
        source, peer_name = PEERS.as_table(source, "score")
        name = name or peer_name
    streamed = None if peer else stream_trec_run(source, format, source_name)
    if streamed is not None:  # a large regular TREC run file, never held whole
        loaded, raw, tag = streamed
        fmt = "trec_run"
    else:
        loaded = load(source, source_name)
        loaded.nan_is_missing = not peer  # {'q': {'d': nan}} is a NaN score, as a file's "nan"
        fmt = choose_format(loaded, format)
    if streamed is not None:
        pass
    elif fmt == "trec_run":
        raw, tag = read_trec(loaded, ncols=6, value_col=4, value_type=pa.float64())
    elif fmt == "trec_qrels":
        # A label file (e.g. an LLM judge's grades): the grade is used as a float score.
        raw, tag = read_trec(loaded, ncols=4, value_col=3, value_type=pa.float64())
    elif fmt == "json":  # ranx's Run.save("run.json"): {query: {doc: score}}
        raw, tag = read_nested_json(loaded), None
    else:
        raw, tag = read_tabular(loaded, fmt, ("query", "doc", "score"), columns), None
    release_arrow_memory()  # the parse's blocks (280 MB on 7M lines), before the checks
    table, findings = _typed_table(raw, fmt, loaded, SCORE, duplicates)
    columns = table.columns
    del raw, table  # the frame takes the columns over one by one, each freed then
    run_name = name or tag or stem(loaded.filename) or "run"
    run = Run(name=run_name, frame=to_frame(columns, RUN_COLUMNS), source=loaded.name,
              findings=tuple(findings))
    progress.step(f"read {loaded.name}", 1, 1)  # a large file's "reading" line ends here
    return run


@_returns_memory
@validate_params({"format": FORMAT_OPTION})
def read_qrels(source: Any, *, format: str | None = None,
               columns: Mapping[str, str] | None = None,
               source_name: str | None = None, subtopics: bool | None = None) -> Qrels:
    """Read graded relevance judgements.

    Parameters
    ----------
    source : str, os.PathLike, bytes, binary file-like, pandas.DataFrame or Arrow table
        The judgements (TREC ``qid iter docno grade``, a tabular file, ranx's JSON, Parquet
        or ``.lz4``); gzip is accepted, and anything that exports Arrow (polars, pyarrow,
        DuckDB).
    format : str, optional
        One of :data:`~tiedrank.io.FORMATS` (not ``"trec_run"``); detected when omitted.
    columns : mapping, optional
        For tabular formats, ``{"query": ..., "doc": ..., "relevance": ...}``.
    source_name : str, optional
        Name used in messages and ``Qrels.source``.
    subtopics : bool, optional
        Diversity qrels (ndeval's ``query subtopic docno grade``, the second TREC column a
        subtopic id; :mod:`tiedrank.io.subtopics`): detected when omitted (a document
        judged under two second-column values of one query; a DataFrame's column
        ``subtopic``, ``subtopic_id``, ``iteration`` or ``intent``, as ir_measures and
        PyTerrier hold it); ``True`` reads them so even when no document is judged twice;
        ``False`` never.

    Returns
    -------
    Qrels
        ``frame`` has columns query (str), doc (str), relevance (int64) in file order;
        diversity qrels also ``subtopics`` (query, subtopic, doc, relevance) and in
        ``frame`` each document's largest grade.

    Raises
    ------
    InputError
        Bad input, including a grade that is not an integer and a (query, doc) judged twice.
    InvalidParameterError
        If ``format`` is not one of the allowed values.

    Examples
    --------
    >>> qrels = read_qrels(b"301 0 d1 2\\n301 0 d2 -1\\n")
    >>> qrels.frame["relevance"].tolist()
    [2, -1]
    """
    if not own_source(source) and PEERS.is_peer_object(source):  # ranx Qrels, pytrec_eval dicts, ir_measures / ir_datasets
        source_name = source_name or _peer_name(source)
        source = PEERS.as_table(source, "relevance")[0]
    loaded = load(source, source_name)
    fmt = choose_format(loaded, format)
    if fmt == "trec_run":
        line, text = first_line(loaded.data)
        raise InputError("a TREC run (6 columns) was given where qrels are expected",
                         source=loaded.name, line=line, text=text, expected=QRELS_EXPECTED)
    if fmt == "trec_qrels":
        # Grades are read as text and validated by as_values: pyarrow's integer parser would
        # also accept hexadecimal ("0x10"), which is not a TREC grade.
        raw, _ = read_trec(loaded, ncols=4, value_col=3, value_type=pa.string())
        diversity = subtopic_qrels(raw, loaded, subtopics)
        if diversity is not None:
            progress.step(f"read {loaded.name}", 1, 1)
            return diversity
    elif fmt == "json":  # ranx's Qrels.save("qrels.json"): {query: {doc: grade}}
        raw = read_nested_json(loaded)
    else:
        raw = read_tabular(loaded, fmt, ("query", "doc", "relevance"), columns)
    if fmt != "trec_qrels" and subtopics is not False:  # a frame's subtopic column
        raw = frame_subtopics(raw, loaded)
        if subtopics and raw.second is None:
            raise refuse_subtopics(fmt, loaded.name)
        diversity = subtopic_qrels(raw, loaded, subtopics, trim=True)
        if diversity is not None:
            progress.step(f"read {loaded.name}", 1, 1)
            return diversity
    table, findings = _typed_table(raw, fmt, loaded, GRADE, "error")
    qrels = Qrels(frame=to_frame(table, QRELS_COLUMNS), source=loaded.name,
                  findings=tuple(findings))
    progress.step(f"read {loaded.name}", 1, 1)
    return qrels


@validate_params({"format": FORMAT_OPTION})
def list_columns(source: Any, *, format: str | None = None,
                 source_name: str | None = None) -> list[str]:
    """Column names of a tabular source, e.g. to build a column-mapping form.

    Parameters
    ----------
    source : str, os.PathLike, bytes, binary file-like or pandas.DataFrame
        A CSV, TSV, Parquet or JSON-lines file, or a DataFrame.
    format : str, optional
        Format; detected when omitted.
    source_name : str, optional
        Name used in messages.

    Returns
    -------
    list of str
        The header names (JSON lines: the keys of the first object, then any new keys of
        the next lines up to 1000).  TREC files have no header: ``[]``.

    Examples
    --------
    >>> list_columns(b"qid,docno,bm25\\n301,d1,12.5\\n")
    ['qid', 'docno', 'bm25']
    """
    loaded = load(source, source_name)
    return header_names(loaded, choose_format(loaded, format))


def _typed_table(raw: RawColumns, fmt: str, loaded: Loaded, rule: ValueRule,
                 duplicates: str) -> tuple[pa.Table, list[Finding]]:
    """Type the raw columns (ids, then scores or grades) and check for duplicate rows."""
    trim = not fmt.startswith("trec")  # TREC ids cannot hold blanks; CSV ids may be padded
    query = as_ids(raw.query, "query id", raw.locate, loaded.name, trim)
    doc = as_ids(raw.doc, "document id", raw.locate, loaded.name, trim)
    value = as_values(raw.value, rule, raw.locate, loaded.name)
    value_name = "score" if rule is SCORE else "relevance"
    table = pa.table({"query": query, "doc": doc, value_name: value})
    kind = "run" if rule is SCORE else "qrels"
    return check_duplicates(table, raw.locate, loaded.name, duplicates, kind)


def _peer_name(source: Any) -> str:
    """How messages name another tool's object: ``<ranx.Run 'bm25'>``, ``<dict>``."""
    kind = type(source)
    label = f"{kind.__module__.split('.')[0]}.{kind.__name__}" if kind.__module__ != "builtins" \
        else kind.__name__
    name = getattr(source, "name", None)
    return f"<{label} {name!r}>" if isinstance(name, str) and name else f"<{label}>"
