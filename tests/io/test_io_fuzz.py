"""Fuzzing the readers with hypothesis.

Random bytes and random mutations of valid files, in every format, as runs and as qrels:
each either reads, and then evaluates without error, or ends in one InputError naming the
file. Nothing else may escape (no IndexError, UnicodeDecodeError, ArrowInvalid ...), and a
few of them go through the CLI as a user would: exit 2, one line on stderr, no traceback,
memory bounded.
"""
from __future__ import annotations

import gzip
import io as stdlib_io
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tiedrank import evaluate, io
from tiedrank.core.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
TREC = ROOT / "sample_data" / "trec_eval"
QRELS = io.read_qrels(TREC / "qrels.test")
RUN_LINES = (TREC / "results.test").read_bytes().splitlines(keepends=True)[:120]
QREL_LINES = (TREC / "qrels.test").read_bytes().splitlines(keepends=True)[:120]
FORMATS = (None, "trec_run", "trec_qrels", "csv", "tsv", "jsonl", "parquet")
NAME = "fuzzed-input.txt"

FUZZ = settings(max_examples=150, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _tabular(lines: list[bytes], kind: str, form: str) -> bytes:
    """The same rows as CSV, TSV, JSONL or Parquet (valid seeds for the mutations)."""
    rows = [line.decode().split() for line in lines if line.strip()]
    if kind == "run":
        frame = pd.DataFrame({"query": [r[0] for r in rows], "doc": [r[2] for r in rows],
                              "score": [float(r[4]) for r in rows]})
    else:
        frame = pd.DataFrame({"query": [r[0] for r in rows], "doc": [r[2] for r in rows],
                              "relevance": [int(r[3]) for r in rows]})
    if form == "jsonl":
        return "".join(json.dumps(rec) + "\n" for rec in frame.to_dict("records")).encode()
    if form == "parquet":
        buffer = stdlib_io.BytesIO()
        frame.to_parquet(buffer)
        return buffer.getvalue()
    return frame.to_csv(index=False, sep="\t" if form == "tsv" else ",").encode()


SEEDS = {("run", "trec_run"): b"".join(RUN_LINES), ("qrels", "trec_qrels"): b"".join(QREL_LINES)}
for _kind, _lines in (("run", RUN_LINES), ("qrels", QREL_LINES)):
    for _form in ("csv", "tsv", "jsonl", "parquet"):
        SEEDS[(_kind, _form)] = _tabular(_lines, _kind, _form)


def _read(kind: str, data: bytes, form: str | None):
    if kind == "run":
        return io.read_run(data, format=None if form is None else form, source_name=NAME)
    return io.read_qrels(data, format=form, source_name=NAME)


def _check(kind: str, data: bytes, form: str | None) -> None:
    """Reads (and then evaluates) or raises one InputError that names the file."""
    if kind == "qrels" and form == "trec_run" or kind == "run" and form == "trec_qrels":
        form = None
    try:
        result = _read(kind, data, form)
    except InputError as err:
        message = str(err)
        assert message.startswith(NAME), message
        assert "\n" not in message.strip() and "Traceback" not in message
        return
    # What reads must evaluate: no hidden bad value may surface later as a crash.
    try:
        if kind == "run":
            evaluate(result, QRELS, ["RR", "nDCG@10", "AP"], ties="all")
        else:
            evaluate(io.read_run(TREC / "results.test"), result, ["RR", "nDCG@10"])
    except InputError as err:
        assert "Traceback" not in str(err)


@FUZZ
@given(kind=st.sampled_from(["run", "qrels"]), form=st.sampled_from(FORMATS),
       data=st.binary(max_size=2_000))
def test_random_bytes(kind, form, data):
    _check(kind, data, form)


@st.composite
def mutated(draw):
    kind, form = draw(st.sampled_from(sorted(SEEDS)))
    data = bytearray(SEEDS[(kind, form)])
    for _ in range(draw(st.integers(1, 6))):
        operation = draw(st.sampled_from(["flip", "insert", "delete", "truncate", "duplicate",
                                          "splice"]))
        at = draw(st.integers(0, max(len(data) - 1, 0)))
        if operation == "flip" and data:
            data[at] = draw(st.integers(0, 255))
        elif operation == "insert":
            data[at:at] = draw(st.sampled_from([b"\x00", b"\t", b" ", b"\n", b"\r\n", b"nan",
                                                b"-inf", b"1e400", b"\xff\xfe", b"#", b'"',
                                                b"9223372036854775808", b","]))
        elif operation == "delete" and data:
            del data[at:at + draw(st.integers(1, 40))]
        elif operation == "truncate":
            del data[at:]
        elif operation == "duplicate":
            data[at:at] = data[at:at + draw(st.integers(1, 200))]
        elif operation == "splice":
            other = SEEDS[draw(st.sampled_from(sorted(SEEDS)))]
            data[at:at] = other[:draw(st.integers(0, 300))]
    return kind, form, bytes(data)


@FUZZ
@given(case=mutated())
def test_mutations_of_valid_files(case):
    kind, form, data = case
    _check(kind, data, form)


@FUZZ
@given(case=mutated())
def test_mutations_of_gzipped_files(case):
    kind, _, data = case
    _check(kind, gzip.compress(data)[:len(data) // 2 or None] if len(data) % 3 == 0
           else gzip.compress(data), None)


CLI_CASES = [
    ("random bytes", os.urandom(4_000)),
    ("a binary zero", b"301 Q0 doc 1 2.5 tag\n\x00\x00\x00"),
    ("half a gzip", gzip.compress(b"".join(RUN_LINES))[:300]),
    ("a parquet header only", b"PAR1" + b"\x00" * 64),
    ("a huge exponent", b"301 Q0 d1 1 1e999999 tag\n"),
    ("UTF-16", "301 Q0 d1 1 2.5 tag\n".encode("utf-16")),
    ("an unterminated quote", b'query,doc,score\n"301,d1,2.5\n'),
    ("JSON that is not JSONL", b'{"query": "301", "doc": "d1", "score": [1, 2]}\n'),
]


@pytest.mark.parametrize("label, data", CLI_CASES, ids=[c[0] for c in CLI_CASES])
def test_the_cli_gives_one_line_and_bounded_memory(tmp_path, label, data):
    bad = tmp_path / "bad-run.txt"
    bad.write_bytes(data)
    # VmHWM, the child's own peak: ru_maxrss after vfork + exec also counts the parent's
    # (a pytest-xdist worker that has grown past the bound)
    # (an exit handler: the command ends with os._exit after running them, see cli.run)
    probe = ("import atexit, runpy, sys; sys.argv = ['tiedrank'] + sys.argv[1:]\n"
             "atexit.register(lambda: sys.stderr.write('\\nPEAK_KB %s' % next(line.split()[1] "
             "for line in open('/proc/self/status') if line.startswith('VmHWM:'))))\n"
             "runpy.run_module('tiedrank', run_name='__main__')\n")
    done = subprocess.run([sys.executable, "-c", probe, "evaluate", str(TREC / "qrels.test"),
                           str(bad)], capture_output=True, text=True, timeout=120)
    message, _, peak = done.stderr.rpartition("\nPEAK_KB ")
    assert done.returncode in (0, 2), done.stderr
    assert "Traceback" not in message
    if done.returncode == 2:
        lines = [line for line in message.splitlines() if line.strip()]
        assert len(lines) == 1 and "bad-run.txt" in lines[0], message
    assert int(peak) < 600_000, f"{label}: peak RSS {int(peak) // 1024} MB"
