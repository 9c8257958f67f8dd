"""benchmarks/profile_phases.py (issue 33): every phase function it wraps still exists under
the name it looks for (a renamed step would drop out of the table silently), each phase is
charged once, and the phases' own CPU seconds add up to no more than the whole evaluation."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_profile_finds_every_phase_of_an_evaluation():
    sample = ROOT / "sample_data" / "trec_eval"
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "profile_phases.py"), "--once",
         str(sample / "qrels.test"), str(sample / "results.test"), "--", "--ties", "all",
         "-m", "AP", "-m", "P@10"],
        capture_output=True, text=True, timeout=120, check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    figures = json.loads(done.stdout.splitlines()[-1])
    from importlib.util import module_from_spec, spec_from_file_location

    spec = spec_from_file_location("profile_phases", ROOT / "benchmarks" / "profile_phases.py")
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    assert figures["wrapped"] == len(module.PHASES)
    phases = set(figures["cpu"])
    assert {"read: parse (pyarrow CSV, in memory)", "validate: duplicate (query, doc)",
            "table: join the qrels (grades)", "policy trec_eval: resolve ties",
            "kernel AP (worst)", "summary: exact means"} <= phases
    assert figures["calls"]["kernel AP (expected)"] == 1
    assert sum(figures["cpu"].values()) <= figures["total_cpu"] + 0.05
    assert max(figures["peak_mib"].values()) > 0
