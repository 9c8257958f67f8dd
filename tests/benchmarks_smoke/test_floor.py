"""benchmarks/floor.py (issue 33's yardstick) reads every row and orders them as an evaluator
must: by query, then by descending score, checked against pandas' stable sort."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd

FLOOR = Path(__file__).resolve().parents[2] / "benchmarks" / "floor.py"


def _floor_module():
    spec = importlib.util.spec_from_file_location("benchmark_floor", FLOOR)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_floor_reads_and_sorts_every_row(tmp_path):
    rng = np.random.default_rng(7)
    rows = pd.DataFrame({"query": rng.choice(["q2", "q10", "a"], 300), "iteration": "Q0",
                         "document": [f"d{i}" for i in range(300)], "rank": 1,
                         "score": rng.integers(0, 4, 300).astype(float), "tag": "r"})
    path = tmp_path / "run.txt"
    rows.to_csv(path, sep=" ", header=False, index=False)
    result = _floor_module().floor(str(path), keep_order=True)
    assert (result["rows"], result["queries"]) == (300, 3)
    # queries in order of first appearance (the dictionary's codes), scores descending, file
    # order within a tie: what pandas' stable sort gives on the same keys
    first_seen = {query: i for i, query in enumerate(dict.fromkeys(rows["query"]))}
    expected = rows.assign(code=rows["query"].map(first_seen), minus=-rows["score"]).sort_values(
        ["code", "minus"], kind="stable").index.to_numpy()
    np.testing.assert_array_equal(result["order"], expected)
