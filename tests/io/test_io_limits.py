"""Decompression bombs and endless inputs end in one message, with memory bounded.

Each case runs the CLI in a child whose address space is capped at 2 GiB, so a reader that
inflated everything would fail the test instead of eating the machine.
"""
from __future__ import annotations

import gzip
import subprocess
import sys
import zlib

import pytest

from tiedrank import read_run
from tiedrank.core.errors import InputError
from tiedrank.io import set_input_limits

QRELS = "sample_data/trec_eval/qrels.test"
CAPPED = ("import resource, sys, runpy\n"
          "resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))\n"
          "sys.argv = ['tiedrank'] + sys.argv[1:]\n"
          "runpy.run_module('tiedrank', run_name='__main__')\n")


def _bomb(path, gib: int = 1, line: bytes = b"q1 Q0 d1 1 1.0 run\n") -> None:
    """``gib`` GiB of one repeated line, gzip-compressed (a few MB on disk)."""
    block = line * ((1 << 20) // len(line))
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    with open(path, "wb") as out:
        for _ in range((gib << 30) // len(block)):
            out.write(packer.compress(block))
        out.write(packer.flush())


def _capped_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", CAPPED, *args], capture_output=True, text=True,
                          timeout=120)


@pytest.mark.slow  # deep profile (5 s of decompression); CI's lowest-versions step runs it
def test_a_gzip_bomb_ends_in_one_line(tmp_path):
    bomb = tmp_path / "bomb.txt.gz"
    _bomb(bomb)
    done = _capped_cli("evaluate", QRELS, str(bomb))
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr
    assert "expands more than 200 fold" in done.stderr and str(bomb) in done.stderr


def test_endless_input_stops_at_the_limit():
    done = _capped_cli("evaluate", QRELS, "/dev/zero", "--max-input-size", "64MB")
    assert done.returncode == 2 and "larger than the input limit of 67,108,864 bytes" in done.stderr


def test_limits_in_python(tmp_path):
    path = tmp_path / "run.txt.gz"
    path.write_bytes(gzip.compress(b"q1 Q0 d1 1 1.0 r\n" * 1000))
    old = set_input_limits(max_bytes=1000)
    try:
        with pytest.raises(InputError, match="larger than the input limit of 1,000 bytes"):
            read_run(path)
    finally:
        set_input_limits(max_bytes=old.max_bytes, max_ratio=old.max_ratio)
    assert len(read_run(path, duplicates="max")) == 1
