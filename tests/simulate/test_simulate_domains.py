"""Every numeric transform checks its domain: finite in, finite out, or a clear refusal, and
tiedrank reads back what it writes."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from tiedrank import read_run
from tiedrank.core.data import Run
from tiedrank.simulate import RerankerSpec, quantize_run
from tiedrank.core.validation import InvalidParameterError


def _cli(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tiedrank", *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd)


@pytest.mark.parametrize("method", ["query", "global"])
def test_quantize_at_the_edges_of_float64_gives_finite_equal_width_bins(method):
    scores = [1.7e308, 0.0, -1.7e308, 1.0, 1.1e308]
    run = Run("r", pd.DataFrame({"query": "q", "doc": list("abcde"), "score": scores}))
    out = quantize_run(run, levels=3, method=method).frame["score"].to_numpy()
    # bins of width 1.7e308 * 2 / 3 from -1.7e308: [-1.7e308, -5.7e307), [.., 5.7e307), [.., 1.7e308]
    assert out.tolist() == [2.0, 1.0, 0.0, 1.0, 2.0]


def test_quantize_cli_reads_back_what_it_writes(tmp_path):
    path = tmp_path / "huge.txt"
    path.write_text("q Q0 a 1 1.7e308 r\nq Q0 b 2 0 r\nq Q0 c 3 -1.7e308 r\n")
    done = _cli("quantize", str(path), "--levels", "3", "--out", str(tmp_path / "q.txt"))
    assert done.returncode == 0, done.stderr
    back = read_run(str(tmp_path / "q.txt")).frame.set_index("doc")["score"]
    assert back.to_dict() == {"a": 2.0, "b": 1.0, "c": 0.0} and np.isfinite(back).all()


def test_simulate_refuses_a_quality_whose_scores_would_overflow(tmp_path):
    done = _cli("simulate", "--quality", "1e308", "--queries", "3", "--out",
                str(tmp_path / "run.txt"))
    assert done.returncode == 2 and "--quality must be a number in [-1e+06, 1e+06]" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "run.txt").exists()
    with pytest.raises(InvalidParameterError, match="quality= must be"):
        RerankerSpec(name="x", quality=float("1e308"))
    ok = _cli("simulate", "--quality", "1e6", "--queries", "3", "--seed", "1", "--out",
              str(tmp_path / "ok.txt"), "--qrels", str(tmp_path / "qrels.txt"))
    assert ok.returncode == 0, ok.stderr
    assert np.isfinite(read_run(str(tmp_path / "ok.txt")).frame["score"]).all()

