"""Readers and writers for runs and relevance judgements (qrels).

Every reader returns a validated :class:`~tiedrank.core.data.Run` or :class:`~tiedrank.core.data.Qrels`
(columns, dtypes and row order as documented in :mod:`tiedrank.core.data`) or raises
:class:`~tiedrank.core.errors.InputError` naming the source, the 1-based file line, the offending
line and what was expected.  No row is ever dropped silently, and nothing read is executed
(no pickle, no eval; Parquet and JSON are parsed by pyarrow as plain data).  A ``format=`` or
``duplicates=`` outside the allowed values raises
:class:`~tiedrank.core.validation.InvalidParameterError`.

Accepted formats
----------------
``trec_run``    ``qid Q0 docno rank score tag`` (whitespace separated; rank is ignored)
``trec_qrels``  ``qid iter docno grade`` (integer grades, negative allowed).  Passed to
                :func:`read_run` it is a *label file*: the grade becomes the score.
                Diversity qrels, ndeval's ``qid subtopic docno grade``, are this format
                with the second column a subtopic id: read so when a document is judged
                under two subtopics of a query, or with ``read_qrels(..., subtopics=True)``
                (:mod:`tiedrank.io.subtopics`; ``Qrels.subtopics``)
``csv``/``tsv`` header row required; columns found by name (see ``columns`` / aliases)
``parquet``     columns found by name
``jsonl``       one JSON object per line; keys found by name
``json``        one JSON object ``{query: {doc: value}}``: ranx's ``Run.save("run.json")`` /
                ``Qrels.save("qrels.json")``, a pytrec_eval dict dumped with ``json.dump``

Any of them may be gzip-compressed (detected by the magic bytes, not the extension); ranx's
``.lz4`` files (``Run.save("run.lz4")``: CBOR in LZ4 frames) are read with the optional
``lz4`` and ``cbor2`` packages (``pip install 'tiedrank[lz4]'``), and ranx's Parquet files as
they are (``q_id, doc_id, score``).  In memory: a pandas DataFrame, or anything that exports
an Arrow stream (``__arrow_c_stream__``: a polars DataFrame, a pyarrow Table or
RecordBatchReader, a DuckDB relation), read with the same column mapping and checks.  TREC
files may hold ``#`` comment lines where trec_eval 9.0.8 skips them (runs: a line whose first
non-blank character is ``#``; qrels: one line starting with ``#`` at a time; see
:func:`tiedrank.io._text.blank_comments`).

Modules
-------
``read``        :func:`read_run`, :func:`read_qrels`, :func:`list_columns`
``write``       :func:`write_run`, :func:`write_qrels`
``detect``      :func:`detect_format`, :data:`FORMATS`
``trec``        TREC run and qrels parsing (pyarrow, with a numpy whitespace pass)
``subtopics``   diversity qrels (ndeval's ``query subtopic docno grade``)
``tabular``     CSV, TSV, Parquet, JSON lines and DataFrames
``nested_json`` ranx's JSON runs and qrels (one ``{query: {doc: value}}`` object)
``columns``     :data:`ALIASES`, column mapping, typing of ids, scores and grades
``duplicates``  repeated (query, doc) rows, by a vectorised hash
``groups``      :func:`read_groups` (query -> group mappings)
``queries``     :func:`read_query_text` (query texts)
``corpus``      :func:`read_corpus` (document texts: TSV, JSON lines, Parquet)
``documents``   :func:`query_documents`, :func:`group_documents`, :func:`load_texts`: one
                query's ranked list and tie groups beside its document texts
``_load``, ``_limits``, ``_lz4``, ``_text``, ``_json``, ``_arrow``, ``_parallel``: loading
sources, the input limits, ranx's LZ4 files, text lines, the bounds on JSON (depth, record
size) checked before any parser, Arrow helpers, threads (private; :func:`set_helper_threads`
sizes the last).
"""
from __future__ import annotations

from ._load import InputLimits, SourceNotFound, input_limits, set_input_limits
from ._parallel import set_helper_threads
from .columns import ALIASES
from .detect import FORMATS, detect_format
from .groups import read_groups
from .corpus import read_corpus
from .documents import group_documents, load_texts, query_documents
from .queries import read_query_text
from .read import list_columns, read_qrels, read_run
from .write import write_qrels, write_run

__all__ = [
    "ALIASES",
    "FORMATS",
    "InputLimits",
    "detect_format",
    "input_limits",
    "group_documents",
    "list_columns",
    "load_texts",
    "query_documents",
    "read_corpus",
    "read_groups",
    "read_query_text",
    "read_qrels",
    "read_run",
    "set_helper_threads",
    "set_input_limits",
    "write_qrels",
    "write_run",
]
