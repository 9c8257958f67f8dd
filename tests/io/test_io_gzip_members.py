"""A gzip file of several members (``cat a.gz b.gz``, pigz, bgzip) is read whole, through
every door: paths, bytes, file-likes (dashboard uploads), qrels, the CLI, stdin, ``quantize``
and ``--buckets`` (issue 19, item 1).  The bomb limits still count every member."""
from __future__ import annotations

import gzip
import io
import os
import subprocess
import sys
import zlib

import pytest

from tiedrank import evaluate, read_qrels, read_run
from tiedrank.core.errors import InputError
from tiedrank.io import set_input_limits
from tiedrank.io._load import gunzip

RUN_A = b"q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\n"
RUN_B = b"q2 Q0 d3 1 2.0 r\nq2 Q0 d4 2 1.0 r\n"
QRELS_A, QRELS_B = b"q1 0 d2 1\n", b"q2 0 d3 1\n"


def _members(*parts: bytes) -> bytes:
    return b"".join(gzip.compress(part) for part in parts)


def _cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tiedrank", *args], input=stdin,
                          capture_output=True, timeout=60)


def test_gunzip_reads_every_member():
    assert gunzip(_members(RUN_A, RUN_B), "x") == RUN_A + RUN_B
    assert gunzip(_members(b"", RUN_A, b"", RUN_B), "x") == RUN_A + RUN_B


def test_a_member_boundary_past_the_first_megabyte():
    # incompressible ids: the first member is ~2 MB compressed, so the boundary falls in a
    # later 1 MB step of the reader
    lines = b"".join(b"q1 Q0 %s %d 1.0 r\n" % (os.urandom(20).hex().encode(), i)
                     for i in range(40_000))
    raw = _members(lines, RUN_B)
    assert len(gzip.compress(lines)) > 1 << 20
    assert gunzip(raw, "x") == lines + RUN_B


def test_detection_looks_past_an_empty_first_member():
    run = read_run(_members(b"", RUN_A + RUN_B), source_name="run.gz")
    assert len(run) == 4


@pytest.mark.parametrize("door", ["path", "bytes", "upload"])
def test_python_doors_give_the_plain_numbers(tmp_path, door):
    path = tmp_path / "run.txt.gz"
    path.write_bytes(_members(RUN_A, RUN_B))
    qrels_path = tmp_path / "qrels.gz"
    qrels_path.write_bytes(_members(QRELS_A, QRELS_B))
    if door == "path":
        run, qrels = read_run(path), read_qrels(qrels_path)
    elif door == "bytes":
        run, qrels = read_run(path.read_bytes()), read_qrels(qrels_path.read_bytes())
    else:  # what a Streamlit UploadedFile looks like: a named BytesIO
        upload, qupload = io.BytesIO(path.read_bytes()), io.BytesIO(qrels_path.read_bytes())
        upload.name, qupload.name = "run.txt.gz", "qrels.gz"
        run, qrels = read_run(upload), read_qrels(qupload)
    plain = evaluate(read_run(RUN_A + RUN_B), read_qrels(QRELS_A + QRELS_B), ["RR"])
    got = evaluate(run, qrels, ["RR"])
    assert len(run) == 4 and len(qrels) == 2
    assert got.report()["expected"].tolist() == plain.report()["expected"].tolist() == [0.75]


def test_cli_doors_agree(tmp_path):
    plain, packed = tmp_path / "run.txt", tmp_path / "run.txt.gz"
    plain.write_bytes(RUN_A + RUN_B)
    packed.write_bytes(_members(RUN_A, RUN_B))
    qrels = tmp_path / "qrels.gz"
    qrels.write_bytes(_members(QRELS_A, QRELS_B))
    common = ["-m", "RR", "--format", "csv"]
    expected = _cli("evaluate", str(qrels), str(plain), *common)
    assert expected.returncode == 0, expected.stderr
    assert b"0.75" in expected.stdout
    for args, stdin in (([str(qrels), str(packed)], None),
                        ([str(qrels), "-"], packed.read_bytes()),
                        ([str(qrels), str(packed), "--buckets", "2",
                          "--spill-dir", str(tmp_path)], None)):
        done = _cli("evaluate", *args, *common, stdin=stdin)
        assert done.returncode == 0, done.stderr
        assert done.stdout == expected.stdout, args


def test_quantize_reads_every_member(tmp_path):
    packed, out = tmp_path / "run.txt.gz", tmp_path / "out.txt"
    packed.write_bytes(_members(RUN_A, RUN_B))
    done = _cli("quantize", str(packed), "--levels", "2", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert len(out.read_text().splitlines()) == 4


def test_the_bomb_limits_count_every_member(tmp_path):
    member = gzip.compress(b"q1 Q0 d1 1 1.0 r\n" * 100)
    old = set_input_limits(max_bytes=5000)
    try:
        assert len(gunzip(member * 2, "x")) == 3400
        with pytest.raises(InputError, match="larger than the input limit of 5,000 bytes"):
            gunzip(member * 3, "x")
    finally:
        set_input_limits(max_bytes=old.max_bytes, max_ratio=old.max_ratio)
    with pytest.raises(InputError, match="corrupt gzip data"):
        gunzip(member + member[:20], "x")
    with pytest.raises(InputError, match="corrupt gzip data"):
        gunzip(member + b"junk", "x")


def test_a_ratio_bomb_in_members_is_refused():
    block = b"q1 Q0 d1 1 1.0 run\n" * 55_000  # ~1 MB, compresses > 200 fold
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    member = packer.compress(block * 8) + packer.flush()
    with pytest.raises(InputError, match="expands more than 200 fold"):
        gunzip(member * 10, "bomb")
