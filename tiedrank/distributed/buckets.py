"""Split runs and qrels once, by a stable hash of the query id, into buckets of Arrow files.

Every per-query value depends on (run, query, seed) alone (issue 10), so a query can be
evaluated in any bucket, and a bucket holds whole queries: the rows of query ``q`` go to
bucket ``bucket_of(q, N)`` (:func:`tiedrank.core.hashing.bucket_of`) in every run and in the
qrels. Peak memory then follows the bucket, not the file.

Reading is streaming and uses the package's own readers on each block, so parsing, the
checks and their messages are those of :func:`tiedrank.io.read_run` (line numbers are
shifted to the file's), and the scores are the very same float64 bits as a one-pass read:

* TREC text (plain or gzip, detected by the magic bytes): blocks of ``block_bytes`` cut at
  line ends, each parsed by ``read_run`` (pyarrow's CSV parser);
* Parquet: record batches;
* CSV, TSV and JSON lines, bytes and DataFrames: read whole, then split;
* :class:`~tiedrank.core.data.Run` / :class:`~tiedrank.core.data.Qrels` objects: split as they are;
* qrels: read whole by ``read_qrels``, as one pass reads them (whether they are diversity
  qrels is decided from the whole file), then split.

Rows keep their file order inside each bucket (the ``input`` policy depends on it). A
(query, doc) repeated across two blocks is caught when its bucket is loaded
(:func:`load_run`), with the same ``duplicates`` rule; only the rows of queries met in more
than one block are compared there.

Where the time goes (10M lines, ``benchmarks/RESULTS.md``, 2026-11-25): parsing and checking
the text, as in one pass; writing the buckets is a copy of the Arrow buffers into
uncompressed Arrow IPC files, and the next block is parsed on a second thread meanwhile.

Why pyarrow and not DuckDB for the split: DuckDB's CSV reader and its ``hash()`` are fast,
but they would be a second parser (other number parsing, other messages, no line numbers of
ours) and its hash is not promised stable across versions, while bit-identical results need
the package's own parser and a hash fixed forever.
"""
from __future__ import annotations

import gzip
import os
import shutil
import sys
import tempfile
import zlib
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..core.data import Qrels, Run
from ..core.errors import Finding, InputError
from ..evaluation import run_sources, unique_labels
from ..core.hashing import bucket_of_hashes, hash_ids
from ..core.machine import release_unused_memory, usable_cores
from ..core.progress import step
from ..io.duplicates import KEEP_MAX
from ..io.outputs import owned_prefix, sweep_stale, writing

BLOCK_BYTES = 16 << 20
"""Text read per block when streaming a TREC file (decompressed bytes)."""
_HEAD_BYTES = 1 << 16
_GZIP_MAGIC = b"\x1f\x8b"
_PARQUET_MAGIC = b"PAR1"
_STR_DTYPE = pd.StringDtype(storage="pyarrow", na_value=np.nan)  # pandas' "str", as tiedrank.core.data
MARKER = "TIEDRANK_BUCKETS"
"""File written in every bucket directory; a task that cannot see it refuses to run."""
SPILL_PREFIX = "tiedrank-buckets-"
"""How a spill directory's name starts (then its owner: host and process)."""


@dataclass(frozen=True)
class RunPart:
    """One run as split: its display ``name``, ``source``, row count, number of blocks read
    (more than one: duplicates may span blocks), the findings of reading and the queries
    met in more than one block (``spanning``; None: too many to list, check every row)."""

    index: int
    name: str
    source: str
    n_rows: int
    n_blocks: int
    findings: tuple[Finding, ...] = ()
    spanning: tuple[str, ...] | None = ()


@dataclass(frozen=True)
class BucketSet:
    """Runs and qrels split into ``n_buckets`` buckets of Arrow IPC files under ``directory``.

    Layout: ``qrels/b00003.arrow`` and ``run00001/b00003.arrow`` (no file: no rows).
    Plain data (paths and names), so it travels to Dask workers as it is; workers must see
    ``directory`` (a local cluster does; machines need a shared file system).
    """

    directory: str
    n_buckets: int
    runs: tuple[RunPart, ...]
    qrels_source: str
    qrels_findings: tuple[Finding, ...] = field(default_factory=tuple)

    def qrels_path(self, bucket: int) -> Path:
        return _qrels_path(self.directory, bucket)

    def run_path(self, run_index: int, bucket: int) -> Path:
        return _run_path(self.directory, run_index, bucket)


def _qrels_path(directory: str, bucket: int) -> Path:
    return Path(directory, "qrels", f"b{bucket:05d}.arrow")


def _run_path(directory: str, run_index: int, bucket: int) -> Path:
    return Path(directory, f"run{run_index:05d}", f"b{bucket:05d}.arrow")


@contextmanager
def temporary_directory(parent: str | os.PathLike | None = None) -> Iterator[str]:
    """A fresh directory for bucket files, removed on exit, also on error or Ctrl-C; named
    after this host and process, so that the next split sweeps it if SIGKILL (the OOM
    killer) left it (:func:`tiedrank.io.outputs.sweep_stale`)."""
    sweep_stale(tempfile.gettempdir() if parent is None else parent, SPILL_PREFIX)
    path = tempfile.mkdtemp(prefix=owned_prefix(SPILL_PREFIX), dir=parent)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


# ---- reading in blocks ------------------------------------------------------------------
def _open_binary(path: str) -> Any:
    """The file's decompressed byte stream (gzip recognised by its magic bytes)."""
    with open(path, "rb") as handle:
        magic = handle.read(2)
    return gzip.open(path, "rb") if magic == _GZIP_MAGIC else open(path, "rb")


def _head(path: str) -> bytes:
    try:
        with _open_binary(path) as stream:
            return stream.read(_HEAD_BYTES)
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError("corrupt gzip data", source=path, text=str(exc),
                         expected="a complete gzip stream") from None


def _text_blocks(path: str, block_bytes: int) -> Iterator[tuple[bytes, int]]:
    """(block, 1-based number of its first line): whole lines of about ``block_bytes``."""
    line = 1
    carry = b""
    try:
        with _open_binary(path) as stream:
            while True:
                chunk = stream.read(block_bytes)
                if not chunk:
                    break
                data = carry + chunk if carry else chunk
                cut = data.rfind(b"\n") + 1
                if cut == 0:
                    carry = data
                    continue
                yield data[:cut], line
                line += data.count(b"\n", 0, cut)
                carry = data[cut:]
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError("corrupt gzip data", source=path, text=str(exc),
                         expected="a complete gzip stream") from None
    if carry:
        yield carry, line


def _shifted(error: InputError, first_line: int) -> InputError:
    """``error`` with its line number counted from the start of the file."""
    if error.line is None or first_line == 1:
        return error
    return InputError(error.problem, source=error.source, line=error.line + first_line - 1,
                      text=error.text, expected=error.expected, remedy=error.remedy)


def _frames(source: Any, block_bytes: int, options: Mapping[str, Any]
            ) -> Iterator[tuple[Run, int]]:
    """Validated blocks of the run ``source`` as Run objects, with the block count so far."""
    from ..io import detect_format, read_run as reader

    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        fmt = options.get("format") or detect_format(_head(path), path)
        if fmt in ("trec_run", "trec_qrels"):
            count = 0
            for data, first_line in _text_blocks(path, block_bytes):
                if count and not data.strip():
                    continue
                try:
                    part = reader(data, **dict(options, format=fmt), source_name=path)
                except InputError as error:
                    raise _shifted(error, first_line) from None
                count += 1
                if count == 1:
                    options = dict(options, name=part.name)  # the first line's tag names it
                yield part, count
            return
        if fmt == "parquet":
            parquet = pq.ParquetFile(path)
            name = options.get("name") or _own_name(path, options.get("columns"))
            count = 0
            for batch in parquet.iter_batches(batch_size=max(block_bytes // 64, 1 << 16)):
                count += 1
                yield reader(batch.to_pandas(), **dict(options, format=None, name=name),
                             source_name=path), count
            if count == 0:
                yield reader(parquet.read().to_pandas(), **dict(options, format=None),
                             source_name=path), 1
            return
    if isinstance(source, Run):
        yield source, 1
        return
    yield reader(source, **options), 1


MAX_SPANNING = 10_000
"""Queries seen in more than one block that a split lists for the duplicate check of
:func:`load_run`; past this many (a file not grouped by query) every row is checked."""


_DONE = object()


def _read_ahead(blocks: Iterator[Any]) -> Iterator[Any]:
    """The items of ``blocks``, the next one read (parsed and checked) on a second thread
    while the caller writes the current one into the buckets.

    Parsing and writing both spend their time in Arrow and numpy, which release the GIL, so
    on two cores the split takes about the longer of the two rather than their sum. Memory:
    one block more (the one read ahead). With one usable core, or Arrow held to one thread
    (as in the workers of a local Dask cluster: one core each), no thread.
    """
    if usable_cores() < 2 or pa.cpu_count() < 2:
        yield from blocks
        return
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="tiedrank-split") as pool:
        pending = pool.submit(next, blocks, _DONE)
        while (item := pending.result()) is not _DONE:
            pending = pool.submit(next, blocks, _DONE)
            yield item


class _BucketWriter:
    """One Arrow IPC file writer per non-empty bucket of one table, opened on first use.

    Arrow IPC, not Parquet: a bucket file is written once and read once, on the same
    machine or a shared disk, so Parquet's encoding and compression only cost time (on
    10M rows, writing Parquet took as long as parsing the text; IPC is a copy of the
    Arrow buffers, read back without decoding).

    It also notes the queries met in more than one block (by their stable hashes): only
    their rows can hold a (query, doc) repeated across blocks, which each block's own
    check cannot see, so :func:`load_run` checks those rows alone.
    """

    def __init__(self, path_of) -> None:
        self._path_of = path_of
        self._writers: dict[int, tuple[Any, pa.ipc.RecordBatchFileWriter]] = {}
        self._seen = np.zeros(0, dtype=np.uint64)  # sorted hashes of the queries so far
        self._spanning: dict[str, None] = {}
        self._many = False

    @property
    def spanning(self) -> tuple[str, ...] | None:
        """Queries seen in more than one block, in the order met; None when more than
        :data:`MAX_SPANNING` (then every row of a bucket is checked)."""
        return None if self._many else tuple(self._spanning)

    def write(self, frame: pd.DataFrame, buckets: int) -> None:
        if len(frame) == 0:
            return
        table = pa.Table.from_pandas(frame, preserve_index=False).replace_schema_metadata()
        query_code, distinct = pd.factorize(frame["query"])  # hash each query id once
        distinct = np.asarray(distinct, dtype=object)
        hashes = hash_ids(distinct)
        self._note_spanning(distinct, hashes)
        codes = bucket_of_hashes(hashes, buckets)
        if buckets <= np.iinfo(np.uint16).max:
            codes = codes.astype(np.uint16)  # numpy's stable sort is a radix sort on these
        codes = codes[query_code]
        order = np.argsort(codes, kind="stable")  # keeps file order inside each bucket
        sorted_codes = codes[order]
        starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]])
        stops = np.r_[starts[1:], len(order)]
        sorted_table = table.take(pa.array(order))
        for start, stop in zip(starts.tolist(), stops.tolist()):
            b = int(sorted_codes[start])
            entry = self._writers.get(b)
            with writing(self._path_of(b)):  # a full spill directory names the file
                if entry is None:
                    path = self._path_of(b)
                    path.parent.mkdir(parents=True, exist_ok=True)
                    sink = pa.OSFile(str(path), "wb")
                    entry = self._writers[b] = (sink, pa.ipc.new_file(sink, table.schema))
                entry[1].write_table(sorted_table.slice(start, stop - start))

    def _note_spanning(self, distinct: np.ndarray, hashes: np.ndarray) -> None:
        if self._many:
            return
        again = np.isin(hashes, self._seen)  # a hash collision only adds a query to check
        if again.any():
            self._spanning.update(dict.fromkeys(map(str, distinct[again])))
            if len(self._spanning) > MAX_SPANNING:
                self._many, self._spanning, self._seen = True, {}, self._seen[:0]
                return
        self._seen = np.union1d(self._seen, hashes)

    def close(self) -> None:
        for b, (sink, writer) in self._writers.items():
            try:
                with writing(self._path_of(b)):
                    writer.close()
            finally:
                sink.close()
        self._writers.clear()


def run_items(runs: Sequence[Any] | Mapping[str, Any] | Any) -> list[tuple[str | None, Any]]:
    """(name or None, source) of every run, as :func:`tiedrank.evaluate` sees them."""
    items = run_sources(runs)
    if not items:
        raise ValueError("no runs to evaluate")
    return items


def run_names(runs: Sequence[Any] | Mapping[str, Any] | Any,
              columns: Mapping[str, str] | None = None) -> list[tuple[str, Any]]:
    """(display name, source) of every run, the names one pass would give, read from the
    files' first lines only: the random policy's keys include the run name, so every task
    must know it before it reads anything."""
    items = run_items(runs)
    names = [name if name is not None else _own_name(source, columns) for name, source in items]
    return list(zip(unique_labels(names), (source for _, source in items)))


def _own_name(source: Any, columns: Mapping[str, str] | None = None) -> str:
    """The run's name as :func:`tiedrank.io.read_run` gives it (TREC tag of the first line,
    else the file stem without .gz, else "run"), reading only the head of a file."""
    from ..io import detect_format, read_run

    if isinstance(source, Run):
        return source.name
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        head = _head(path)
        if detect_format(head, path) in ("trec_run", "trec_qrels"):
            lines = head[:head.rfind(b"\n") + 1] or head
            return read_run(lines, source_name=path, duplicates="max").name
        base = Path(path).name
        base = base.rsplit(".", 1)[0] if base.lower().endswith((".gz", ".gzip")) else base
        return (base.rsplit(".", 1)[0] if "." in base.lstrip(".") else base) or "run"
    # bytes or a DataFrame: in memory
    return read_run(source, duplicates="max", columns=columns).name


def expected_blocks(source: Any, block_bytes: int) -> int | None:
    """About how many blocks a file is read in (for the progress line; None: not known, for
    compressed files and what is in memory)."""
    if not isinstance(source, (str, os.PathLike)) or not os.path.isfile(source) \
            or os.fspath(source).lower().endswith((".gz", ".gzip")):
        return None
    return max(1, -(-os.path.getsize(source) // block_bytes))


def split_qrels(qrels: Any, n_buckets: int, directory: str, *,
                qrels_format: str | None = None, columns: Mapping[str, str] | None = None
                ) -> tuple[str, tuple[Finding, ...]]:
    """Write the qrels into the buckets; returns (source, findings of reading).

    The qrels are read whole, by :func:`tiedrank.io.read_qrels` as one pass reads them, not
    in blocks: whether they are diversity qrels (a document judged under two second-column
    values of one query) is a property of the whole file, and a block-by-block split that
    decided it from the first block refused, as "duplicate judgement", a file whose first
    such repeat came after it. Qrels are small next to runs (the 50M-row run's: 1.5 MB).
    """
    from ..io import read_qrels

    Path(directory, MARKER).write_text("tiedrank bucket directory\n", encoding="utf-8")
    if not isinstance(qrels, Qrels):
        qrels = read_qrels(qrels, format=qrels_format, columns=columns)
    writer = _BucketWriter(lambda b: _qrels_path(directory, b))
    try:
        # diversity qrels: every judgement, with its subtopic (load_qrels rebuilds them)
        writer.write(qrels.frame if qrels.subtopics is None else qrels.subtopics, n_buckets)
    finally:
        writer.close()
    step(f"splitting {qrels.source} into buckets", 1, 1)
    return qrels.source, qrels.findings


def release_memory() -> None:
    """Hand back to the system the memory a finished split freed.

    Arrow's pool (mimalloc) and glibc's heap keep freed memory for reuse, and the bucket
    tasks that follow a split fragment it rather than reuse it: on one 50M-row run the
    split left 370 MiB resident and the buckets then peaked at 876 to 899 MiB; with the
    split's memory handed back, at 800 to 864 MiB (benchmarks/RESULTS.md, 2026-11-29). Once
    per split, not after each bucket: a bucket reuses its predecessor's memory, and
    handing that back cost about 1 s of page faults over 13 buckets.
    """
    release_unused_memory()  # Arrow's pool, then glibc's heap (where there is glibc)


def check_visible(source: Any) -> None:
    """Refuse, in one message naming the host, a run path that a Dask worker cannot see.

    Workers read the run files themselves, at the paths the client sends (the client has
    read each file's first line). A worker on another machine without the shared file
    system would otherwise fail with a bare "No such file", which reads as if the path given
    to the client were wrong. Outside a Dask worker this does nothing (the reader's own
    message is the right one there).

    Examples
    --------
    >>> check_visible("/no/such/run.txt")  # not in a Dask worker: the reader will say it
    """
    if not isinstance(source, (str, os.PathLike)) or os.path.exists(source):
        return
    distributed = sys.modules.get("distributed")
    if distributed is None:
        return
    try:
        distributed.get_worker()
    except ValueError:  # not in a worker
        return
    raise FileNotFoundError(
        f"run file {os.fspath(source)!r} is not visible on the Dask worker's host "
        f"{os.uname().nodename}: workers read the run files themselves, so they need "
        "them at the same path as the client (a shared file system, or a copy at that "
        "path on every worker)")


def split_run(directory: str, index: int, name: str | None, source: Any, n_buckets: int,
              duplicates: str = "error", block_bytes: int = BLOCK_BYTES,
              run_format: str | None = None, columns: Mapping[str, str] | None = None
              ) -> RunPart:
    """Write one run into the buckets (a task of its own: runs split in parallel on Dask).

    The part's ``name`` is the run's own (TREC tag, file stem or given name); repeated
    names are told apart afterwards by :func:`~tiedrank.evaluation.unique_labels`.
    """
    check_visible(source)
    options = {"format": run_format, "name": name, "duplicates": duplicates,
               "columns": columns}
    if isinstance(source, Run) and name is not None and source.name != name:
        source = replace(source, name=name)
    writer = _BucketWriter(lambda b: _run_path(directory, index, b))
    n_rows, blocks, findings, run_name, run_source = 0, 0, [], None, None
    try:
        for part, blocks in _read_ahead(_frames(source, block_bytes, options)):
            writer.write(part.frame, n_buckets)
            n_rows += len(part.frame)
            findings += part.findings
            run_name, run_source = run_name or part.name, part.source
            step(f"splitting {run_source} into buckets", blocks,
                 expected_blocks(source, block_bytes))
    finally:
        writer.close()
    release_memory()
    step(f"splitting {run_source} into buckets", blocks, blocks)
    return RunPart(index, run_name, run_source, n_rows, blocks, tuple(findings),
                   writer.spanning)


def split(runs: Sequence[Any] | Mapping[str, Any], qrels: Any, n_buckets: int,
          directory: str | os.PathLike, *, duplicates: str = "error",
          block_bytes: int = BLOCK_BYTES, run_format: str | None = None,
          qrels_format: str | None = None, columns: Mapping[str, str] | None = None,
          qrels_columns: Mapping[str, str] | None = None) -> BucketSet:
    """Read every run and the qrels once and write them into ``n_buckets`` buckets.

    Parameters
    ----------
    runs : sequence or mapping of run sources
        Paths (TREC text, gzip, Parquet, CSV, ...), bytes, DataFrames or Run objects; a
        mapping gives the run names. A repeated name becomes ``"name (2)"``, as in
        :func:`tiedrank.evaluate`.
    qrels : path, bytes, DataFrame or Qrels
    n_buckets : int
    directory : path
        Where the buckets go (see :func:`temporary_directory`).
    duplicates : {"error", "max"}
        As :func:`tiedrank.io.read_run`.
    columns, qrels_columns : mapping, optional
        Which columns of tabular run / qrels files hold each field (``columns=`` of
        :func:`tiedrank.io.read_run` / :func:`tiedrank.io.read_qrels`).

    Returns
    -------
    BucketSet
    """
    check_buckets(n_buckets)
    items = run_names(runs, columns)
    directory = os.fspath(directory)
    qrels_part = split_qrels(qrels, n_buckets, directory, qrels_format=qrels_format,
                             columns=qrels_columns)
    parts = [split_run(directory, index, name, source, n_buckets, duplicates=duplicates,
                       block_bytes=block_bytes, run_format=run_format, columns=columns)
             for index, (name, source) in enumerate(items)]
    return bucket_set(directory, n_buckets, parts, qrels_part)


FILES_IN_RESERVE = 64
"""Open files kept for everything but the bucket writers (inputs, Python, Arrow, Dask)."""


def max_buckets() -> int:
    """The most buckets a split may write: one open file writer per bucket, so the
    open-file limit (``ulimit -n``, ``resource.RLIMIT_NOFILE``) less :data:`FILES_IN_RESERVE`."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft == resource.RLIM_INFINITY or soft < 0:
            soft = 1 << 20
    except (ImportError, OSError, ValueError):  # no resource module (Windows): a safe bound
        soft = 512
    return max(1, min(int(soft), 1 << 20) - FILES_IN_RESERVE)


def check_buckets(n_buckets: Any) -> int:
    """``n_buckets`` if it is an integer in [1, :func:`max_buckets`], else the one error form
    (``buckets=`` in Python, ``--buckets`` on the CLI): a split past the open-file limit
    would end in "Too many open files" after reading the inputs."""
    from ..core.validation import Interval, InvalidParameterError

    limit = max_buckets()
    allowed = Interval(int, 1, limit)
    if not allowed.accepts(n_buckets):
        raise InvalidParameterError(
            "buckets", n_buckets, f"{allowed.describe()} (one open file per bucket: the "
            f"open-file limit, ulimit -n, less {FILES_IN_RESERVE})")
    return int(n_buckets)


def bucket_set(directory: str, n_buckets: int, parts: Sequence[RunPart],
               qrels_part: tuple[str, tuple[Finding, ...]]) -> BucketSet:
    """The :class:`BucketSet` of split runs (labelled) and qrels."""
    labels = unique_labels([p.name for p in parts])
    parts = tuple(replace(p, name=label) for p, label in zip(parts, labels))
    return BucketSet(directory, int(n_buckets), parts, *qrels_part)


# ---- loading one bucket -------------------------------------------------------------------
def _read_bucket(path: Path, columns: tuple[str, ...]) -> pd.DataFrame:
    if not path.exists():
        return pd.DataFrame({c: pd.Series([], dtype=_STR_DTYPE if c in ("query", "doc") else
                                          ("int64" if c == "relevance" else "float64"))
                             for c in columns})
    with pa.OSFile(str(path), "rb") as source:
        table = pa.ipc.open_file(source).read_all()
    return table.to_pandas(types_mapper=lambda t: _STR_DTYPE if pa.types.is_string(t) or
                           pa.types.is_large_string(t) else None)


def load_qrels(buckets: BucketSet, bucket: int) -> Qrels:
    """The qrels of one bucket (read and checked whole by the split); diversity qrels
    (bucketed with their subtopics) as :func:`tiedrank.io.read_qrels` reads them."""
    frame = _read_bucket(buckets.qrels_path(bucket), ("query", "doc", "relevance"))
    if "subtopic" in frame.columns:
        from ..io.subtopics import qrels_from_subtopics

        return qrels_from_subtopics(frame, buckets.qrels_source, note=False)
    return Qrels(frame, buckets.qrels_source)


def load_run(buckets: BucketSet, run_index: int, bucket: int, duplicates: str = "error") -> Run:
    """The rows of one run in one bucket, in file order (duplicates across blocks are
    handled here, by ``duplicates``)."""
    from ..io import read_run

    part = buckets.runs[run_index]
    frame = _read_bucket(buckets.run_path(run_index, bucket), ("query", "doc", "score"))
    findings: tuple[Finding, ...] = ()
    if part.n_blocks > 1 and len(frame):
        repeated = _repeated(frame, part.spanning)
        if repeated is not None and duplicates == "error":
            # the two lines were read in different blocks: name the pair (no line numbers)
            row = repeated
            raise InputError("duplicate document within a query", source=part.source,
                             text=f"query {row['query']!r}, doc {row['doc']!r}",
                             expected="each document at most once per query", remedy=KEEP_MAX)
        if repeated is not None:
            checked = read_run(frame, name=part.name, duplicates="max", source_name=part.source)
            frame, findings = checked.frame, checked.findings
    return Run(part.name, frame, part.source, findings)


def _repeated(frame: pd.DataFrame, spanning: tuple[str, ...] | None) -> pd.Series | None:
    """The first row (in file order) whose (query, doc) came before, or None.

    Each block was checked when read, so a repeat needs a query met in two blocks: only the
    rows of the ``spanning`` queries are compared (a few per block boundary in a file
    grouped by query), all rows when the split could not list them (None).
    """
    if spanning is not None:
        if not spanning:
            return None
        frame = frame[frame["query"].isin(spanning)]
    repeated = frame.duplicated(["query", "doc"])
    return frame[repeated].iloc[0] if repeated.any() else None
