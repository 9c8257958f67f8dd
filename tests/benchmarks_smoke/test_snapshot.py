"""benchmarks/snapshot.py (issue 33): a snapshot compares equal with the tree that saved it,
and a changed output is found and named."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "snapshot.py"


@pytest.mark.slow  # fifteen evaluations in fresh processes (35 s): CI's second step runs it
def test_a_snapshot_equals_itself_and_finds_a_change(tmp_path):
    snapshot = tmp_path / "snap"
    subprocess.run([sys.executable, str(SCRIPT), "save", str(snapshot), "--subset", "200"],
                   check=True, capture_output=True, timeout=300)
    same = subprocess.run([sys.executable, str(SCRIPT), "compare", str(snapshot)],
                          capture_output=True, text=True, timeout=300)
    assert same.returncode == 0 and same.stdout.count("identical") == 5, same.stdout
    changed = snapshot / "all_trec_trec_eval_format.out"
    lines = changed.read_bytes().splitlines(keepends=True)
    changed.write_bytes(b"".join(lines[:3] + [lines[3].replace(b"0", b"1")] + lines[4:]))
    differs = subprocess.run([sys.executable, str(SCRIPT), "compare", str(snapshot)],
                             capture_output=True, text=True, timeout=300)
    assert differs.returncode == 1
    assert "all_trec_trec_eval_format: DIFFERS from line 4" in differs.stdout
