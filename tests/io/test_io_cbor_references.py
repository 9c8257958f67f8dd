"""ranx's ``.lz4`` files are bounded by their own size (issue 43, class 1): CBOR's shared and
string references (tags 28/29, 25/256), which ranx never writes, are refused as they are
read, and whatever else would make the decoded object larger than its input is refused
before it is written out as JSON. The case of the issue: 194 bytes, a chain of 40 shared
references, ran for minutes at 1.5 GB and climbing.

Oracle: the bound itself (a tree decoded from n bytes holds at most n values and
characters); the ranx fixture files still read (test_io_arrow.py)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from io_support import error_of
from tiedrank import read_run
from tiedrank.io._lz4 import _within_input

cbor2 = pytest.importorskip("cbor2")
frame = pytest.importorskip("lz4.frame")
ROOT = Path(__file__).resolve().parents[2]
QRELS = ROOT / "sample_data" / "trec_eval" / "qrels.test"


def _under_a_doc(value, **options) -> bytes:
    """``{"q": {"d": value}}``, the value encoded with cbor2's options, in ranx's frames."""
    return frame.compress(frame.compress(b"\xa1\x61q\xa1\x61d" + cbor2.dumps(value, **options)))


def chain(n: int) -> list:
    value: list = [1.0]
    for _ in range(n):
        value = [value, value]
    return value


def test_a_chain_of_shared_references_is_refused_naming_the_tag():
    error = error_of(read_run, _under_a_doc(chain(40), value_sharing=True))
    assert "shared value (CBOR tag 28), which ranx never writes" in str(error)
    assert "save the run again with ranx" in str(error)


def test_a_cycle_and_string_references_are_refused():
    loop: list = []
    loop.append(loop)
    assert "CBOR tag 29" in str(error_of(read_run, _under_a_doc(loop, value_sharing=True)))
    text = frame.compress(b"\xa1\x61q" + cbor2.dumps({f"d{i}": "a" * 10_000 for i in range(50)},
                                                     string_referencing=True))
    assert "string reference" in str(error_of(read_run, text))


def test_a_decoded_object_larger_than_its_input_is_refused():
    """Whatever the way parts come to be shared, the count stops at the input's size."""
    shared = chain(60)
    with pytest.raises(Exception, match="expands past its 100 bytes"):
        _within_input({"q": {"d": shared}}, 100, "r.lz4")
    _within_input({"q": {"d": 1.0, "é": "x"}}, len(cbor2.dumps({"q": {"d": 1.0, "é": "x"}})),
                  "r.lz4")  # an ordinary tree fits its own bytes exactly


def test_the_command_line_names_the_file(tmp_path):
    path = tmp_path / "r.lz4"
    path.write_bytes(_under_a_doc(chain(40), value_sharing=True))
    done = subprocess.run([sys.executable, "-m", "tiedrank", "evaluate", str(QRELS), str(path),
                           "-m", "RR"], capture_output=True, timeout=60, cwd=tmp_path)
    message = done.stderr.decode()
    assert done.returncode == 2 and "Traceback" not in message
    assert "r.lz4" in message and "CBOR tag 28" in message


def test_a_shared_object_at_the_top_and_a_repeated_key_are_refused():
    """A tagged top-level value is read as CBOR (it was "neither CBOR nor JSON"); a key
    twice in one map, which a dict (ranx) never writes, is refused, not read as the last."""
    whole = frame.compress(cbor2.dumps({"q": {"d": 1.0}}, value_sharing=True))
    assert "CBOR tag 28" in str(error_of(read_run, whole))
    twice = frame.compress(b"\xa1\x61q\xa2\x61d\x01\x61d\x02")
    assert "Duplicate map key: 'd'" in str(error_of(read_run, twice))
