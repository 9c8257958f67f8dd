"""Document texts: a corpus file -> {docno: text}, keeping only the docnos asked for.

Formats: TSV (``docno<TAB>text``), JSONL (``{"docno"|"doc_id"|"_id": ..., "text"|"contents"|
"body": ...}``) and Parquet; TSV and JSONL may be gzip-compressed (``.gz``).  Lines are streamed,
so memory is bounded by the documents kept, not by the corpus.
"""
from __future__ import annotations

import gzip
import io
import json
import os
import zlib
from collections.abc import Iterable

from ..core.errors import InputError
from ._json import check_json_record

ID_KEYS = ("docno", "doc_id", "_id", "docid", "id")
TEXT_KEYS = ("text", "contents", "body", "passage")


def _open_lines(data: bytes | str | os.PathLike) -> tuple[io.BufferedIOBase, str]:
    """A binary stream over the (possibly gzip) corpus, and a name for messages."""
    if isinstance(data, (bytes, bytearray)):
        raw, name = io.BytesIO(data), "corpus"
    else:
        raw, name = open(data, "rb"), str(data)  # noqa: SIM115 - returned to the caller
    head = raw.read(2)
    raw.seek(0)
    if head == b"\x1f\x8b":  # gzip magic, whatever the file is called
        return gzip.GzipFile(fileobj=raw), name
    return raw, name


def _parquet(data: bytes | str | os.PathLike, wanted: set[str] | None) -> dict[str, str]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    source = io.BytesIO(data) if isinstance(data, (bytes, bytearray)) else data
    try:
        table = pq.read_table(source)
    except (pa.ArrowException, OSError) as exc:  # a damaged or truncated file, or not Parquet
        raise InputError("the corpus is not a readable Parquet file",
                         source=str(data)[:80] if not isinstance(data, bytes) else "corpus",
                         expected="a complete Parquet file, or the corpus as TSV or JSONL") from exc
    id_col = next((c for c in ID_KEYS if c in table.column_names), None)
    text_col = next((c for c in TEXT_KEYS if c in table.column_names), None)
    if id_col is None or text_col is None:
        raise InputError("the Parquet corpus has no document id or text column",
                         source=str(data)[:80] if not isinstance(data, bytes) else "corpus",
                         expected=f"columns one of {ID_KEYS} and one of {TEXT_KEYS}")
    ids = table.column(id_col).to_pylist()
    texts = table.column(text_col).to_pylist()
    return {str(d): str(t) for d, t in zip(ids, texts)
            if wanted is None or str(d) in wanted}


def _json_record(line: str, name: str, number: int) -> tuple[str, str]:
    check_json_record(line, name, number)
    try:
        record = json.loads(line)
        docno = next(record[k] for k in ID_KEYS if k in record)
        text = next((record[k] for k in TEXT_KEYS if k in record), "")
    except (json.JSONDecodeError, StopIteration, TypeError) as exc:
        raise InputError("this line is not a JSON corpus record", source=name, line=number,
                         text=line[:120],
                         expected='{"docno": "D1", "text": "..."} (or doc_id/_id, contents/body)'
                         ) from exc
    if record.get("title"):
        text = f"{record['title']}. {text}"
    return str(docno), str(text)


def read_corpus(data: bytes | str | os.PathLike | None,
                docnos: Iterable[str] | None = None) -> dict[str, str]:
    """Read document texts, keeping only ``docnos`` (all when None).

    Parameters
    ----------
    data : bytes, path or None
        TSV ``docno<TAB>text``, JSONL or Parquet, optionally gzip-compressed; None gives ``{}``.
    docnos : iterable of str, optional
        The documents to keep; the rest are read and dropped (bounded memory).

    Returns
    -------
    dict
        ``{docno: text}``.

    Examples
    --------
    >>> read_corpus(b"D1\\tthe first passage\\nD2\\tthe second\\n", docnos=["D2"])
    {'D2': 'the second'}
    >>> read_corpus(b'{"doc_id": "7", "contents": "seven"}\\n')
    {'7': 'seven'}
    """
    if data is None:
        return {}
    wanted = None if docnos is None else {str(d) for d in docnos}
    if not isinstance(data, (bytes, bytearray)) and str(data).endswith(".parquet"):
        return _parquet(data, wanted)
    if isinstance(data, (bytes, bytearray)) and bytes(data[:4]) == b"PAR1":
        return _parquet(data, wanted)
    stream, name = _open_lines(data)
    out: dict[str, str] = {}
    with stream:
        try:
            _read_lines(stream, name, wanted, out)
        except (EOFError, gzip.BadGzipFile, zlib.error) as exc:  # gzip: cut short, damaged, bad CRC
            raise InputError("the corpus is not a readable gzip file (it ends early or is "
                             "damaged)", source=name,
                             expected="the complete .gz file, or the corpus uncompressed") from exc
    return out


def _read_lines(stream, name: str, wanted: set[str] | None, out: dict[str, str]) -> None:
    """TSV or JSONL lines of ``stream`` into ``out`` (the documents in ``wanted``, or all)."""
    for number, raw in enumerate(stream, start=1):
        line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        if not line.strip():
            continue
        if line.lstrip().startswith("{"):
            docno, text = _json_record(line, name, number)
        else:
            docno, tab, text = line.partition("\t")
            if not tab:
                raise InputError("this corpus line has no tab", source=name, line=number,
                                 text=line[:120], expected="docno<TAB>text")
        docno = docno.strip()
        if wanted is None or docno in wanted:
            out[docno] = text.strip()
