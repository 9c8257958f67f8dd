"""ranx's LZ4 files: ``Run.save("run.lz4")`` and ``Qrels.save("qrels.lz4")``.

ranx (0.3) writes ``{query: {doc: value}}`` as CBOR, compressed into an LZ4 frame that is
written through a second LZ4 frame (``lz4.frame.open(path, "wb").write(lz4.frame.compress(
cbor2.dumps(run)))``); a payload of JSON text is read too. The frames are decompressed in
1 MB steps, never past the input limits (:data:`~tiedrank.io._limits.LIMITS`), and the CBOR
object becomes the JSON text of the same object, which the reader of ranx's JSON files then
checks as any file (:mod:`tiedrank.io.nested_json`): the ``.lz4`` file and the ``.json``
file of one run give the same numbers. CBOR is parsed as plain data (a value that is not a
string, a number or a map, such as a tagged object, is refused), never executed.

The decoded object is bounded by the input: CBOR's shared references (tags 28 and 29) and
string references (tags 25 and 256), which ranx never writes, are refused as they are read
(a chain of 40 of them is 194 bytes and would expand to 2^40 values), and the decoded tree
is then counted before it is written as JSON: a tree read from n bytes holds at most n
values and characters (each takes at least one byte), so more is a reference cycle or an
expansion and is refused, naming the file. The JSON text is then at most a few times the
input.

Both libraries are an optional extra (``pip install 'tiedrank[lz4]'``, or ``pip install lz4
cbor2``); without them the message says so.
"""
from __future__ import annotations

import json
from typing import Any

from ..core.errors import InputError
from ._limits import CHUNK, LIMITS, too_large

LZ4_MAGIC = b"\x04\x22\x4d\x18"  # an LZ4 frame (what the lz4 package and ranx write)

INSTALL = "pip install lz4 cbor2 (or pip install 'tiedrank[lz4]')"
_CBOR_MAP = range(0xA0, 0xDC)  # CBOR major types 5 (a map) and 6 (a tagged value): first byte
_MAX_FRAMES = 4  # ranx nests two frames; more is not a ranx file
_REFERENCE_TAGS = {25: "a string reference", 256: "a string reference namespace",
                   28: "a shared value", 29: "a shared reference"}
_RANX = "a run or qrels saved by ranx (Run.save('run.lz4'))"


def read_lz4(raw: bytes, source: str) -> bytes:
    """The text inside a ranx LZ4 file: JSON ``{query: {doc: value}}`` (from CBOR or JSON).

    Raises
    ------
    InputError
        Without the lz4 (or, for CBOR, cbor2) package, naming ``pip install lz4``; on a
        corrupt or truncated frame, a payload that is neither CBOR nor JSON, or one past
        the input limits.
    """
    frames = 0
    while raw[:4] == LZ4_MAGIC and frames < _MAX_FRAMES:
        raw, frames = _decompress(raw, source), frames + 1
    if raw[:1] and raw[0] in _CBOR_MAP:
        return _cbor_as_json(raw, source)
    if raw.lstrip()[:1] == b"{":
        return raw
    raise InputError("an LZ4 file that holds neither CBOR nor JSON", source=source,
                     expected="a run or qrels saved by ranx (Run.save('run.lz4'))")


def _need(module: str, source: str) -> Any:
    try:
        return __import__(module, fromlist=["_"])
    except ImportError:
        raise InputError(f"reading ranx's LZ4 files needs the {module.split('.')[0]} package, "
                         "which is not installed", source=source,
                         expected=f"{INSTALL}; or save the run as JSON or TREC text "
                                  "(Run.save('run.json'))") from None


def _decompress(raw: bytes, source: str) -> bytes:
    """One LZ4 frame, in steps of at most 1 MB, never past the limits."""
    frame = _need("lz4.frame", source)
    inflater = frame.LZ4FrameDecompressor()
    out = bytearray()
    pending: bytes = raw
    try:
        while not inflater.eof:
            out += inflater.decompress(pending, max_length=CHUNK)
            pending = b""
            if len(out) > LIMITS.max_bytes:
                raise too_large(source, "the decompressed input")
            if len(out) > LIMITS.ratio_floor and len(out) > LIMITS.max_ratio * len(raw):
                raise InputError(
                    f"LZ4 data expands more than {LIMITS.max_ratio} fold (a decompression "
                    f"bomb?): {len(out):,} bytes from {len(raw):,}", source=source,
                    expected="an ordinary LZ4 file of a run or qrels (CLI: --max-input-size "
                             "and --max-ratio raise the limits)")
            if inflater.needs_input and not inflater.eof:
                raise EOFError("the LZ4 frame ends before its end mark")
    except (RuntimeError, EOFError) as exc:  # lz4 raises RuntimeError on corrupt frames
        raise InputError("corrupt LZ4 data", source=source, text=str(exc),
                         expected="a complete LZ4 frame (as ranx's Run.save writes it)") from None
    return bytes(out)


def _cbor_as_json(raw: bytes, source: str) -> bytes:
    cbor2 = _need("cbor2", source)
    refused = {tag: _refuse_tag(tag) for tag in _REFERENCE_TAGS}
    try:
        nested = cbor2.loads(raw, semantic_decoders=refused, strict_hashable_types=True,
                             allow_duplicate_keys=False)
    except Exception as exc:  # noqa: BLE001 - cbor2's errors vary by version and by input
        tag = _reference_tag(exc)
        if tag is not None:
            raise InputError(f"the LZ4 file's CBOR holds {tag} (CBOR tag {tag.tag}), which "
                             "ranx never writes: a few bytes of references can expand "
                             "without bound", source=source,
                             expected=_RANX + "; save the run again with ranx, or as JSON "
                                              "or TREC text") from None
        raise InputError("unreadable CBOR data in the LZ4 file", source=source,
                         text=f"{type(exc).__name__}: {exc}"[:200],
                         expected="a run or qrels saved by ranx (Run.save('run.lz4'))") from None
    if not isinstance(nested, dict) or not all(isinstance(v, dict) for v in nested.values()):
        shown = type(nested).__name__ if not isinstance(nested, dict) else "a map of " + next(
            type(v).__name__ for v in nested.values() if not isinstance(v, dict))
        raise InputError(f"the LZ4 file's object is not {{query: {{doc: value}}}} ({shown})",
                         source=source,
                         expected="a run or qrels saved by ranx (Run.save('run.lz4'))")
    _within_input(nested, len(raw), source)
    try:
        return json.dumps(nested, default=_refuse, allow_nan=True).encode("utf-8")
    except (TypeError, ValueError, RecursionError) as exc:
        raise InputError("the LZ4 file's object is not {query: {doc: value}}", source=source,
                         text=str(exc)[:200],
                         expected="a run or qrels saved by ranx (Run.save('run.lz4'))") from None


def _refuse(value: Any) -> Any:
    """json's hook for what it cannot write: only plain data passes (never a tagged object)."""
    raise TypeError(f"a {type(value).__name__} value ({value!r:.60}), not a string or number")


class _ReferenceTag(Exception):
    def __init__(self, tag: int) -> None:
        super().__init__(_REFERENCE_TAGS[tag])
        self.tag = tag


def _reference_tag(exc: BaseException | None) -> _ReferenceTag | None:
    """The refused reference tag behind cbor2's error (cbor2 wraps what a decoder raises)."""
    for _ in range(8):
        if exc is None or isinstance(exc, _ReferenceTag):
            return exc
        exc = exc.__cause__ or exc.__context__
    return None


def _refuse_tag(tag: int) -> Any:
    def refuse(decoder: Any, *_: Any) -> Any:
        raise _ReferenceTag(tag)
    return refuse


def _within_input(nested: Any, size: int, source: str) -> None:
    """Refuse a decoded object holding more values and characters than its input's bytes.

    Decoded as a tree, every value and every character took at least one input byte, so a
    count past ``size`` means that parts are shared (a reference this reader does not know,
    or a cycle): writing it out would repeat them. Stops as soon as the count passes, so
    the walk costs at most ``size`` steps whatever the object.
    """
    budget = size
    stack: list[Any] = [nested]
    while stack:
        item = stack.pop()
        budget -= 1
        if isinstance(item, dict):
            for key, value in item.items():
                budget -= 1 + (len(key) if isinstance(key, (str, bytes)) else 0)
                if isinstance(value, (dict, list, tuple, str, bytes)):
                    stack.append(value)
                else:
                    budget -= 1
            if budget < 0:
                break
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, (str, bytes)):
            budget -= len(item)
        if budget < 0:
            break
    if budget < 0:
        raise InputError(f"the LZ4 file's CBOR object expands past its {size:,} bytes "
                         "(shared or repeated parts, which ranx never writes)", source=source,
                         expected=_RANX + "; save the run again with ranx, or as JSON or "
                                          "TREC text")
