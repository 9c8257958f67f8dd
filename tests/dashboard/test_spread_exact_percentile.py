"""Spread page: trec_eval's percentile is exact on lattice metrics,
checked against brute-force enumeration of every tie-break."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from tiedrank import evaluate
from tiedrank.io import read_qrels, read_run
from tiedrank.dashboard.spread import exact_percentile

QRELS = b"q1 0 a 1\nq1 0 c 1\nq2 0 x 1\nq2 0 z 2\n"
RUN = (b"q1 Q0 a 1 0.5 r\nq1 Q0 b 2 0.5 r\nq1 Q0 c 3 0.5 r\nq1 Q0 d 4 0.1 r\n"
       b"q2 Q0 x 1 0.9 r\nq2 Q0 y 2 0.9 r\nq2 Q0 z 3 0.2 r\n")


def _precision_at_2(order: list[str], relevant: set[str]) -> float:
    return sum(doc in relevant for doc in order[:2]) / 2


def _enumerated_means() -> np.ndarray:
    """Mean P@2 over every combination of tie orders (each equally likely)."""
    q1 = [list(p) + ["d"] for p in itertools.permutations("abc")]
    q2 = [list(p) + ["z"] for p in itertools.permutations("xy")]
    return np.array([(_precision_at_2(a, {"a", "c"}) + _precision_at_2(b, {"x", "z"})) / 2
                     for a in q1 for b in q2])


@pytest.mark.parametrize("value", [0.5, 0.75, 0.6])
def test_exact_percentile_equals_enumeration(value):
    qrels, run = read_qrels(QRELS), read_run(RUN)
    table = evaluate({"r": run}, qrels, ["P@2"]).tables["r"]
    position = exact_percentile(table, "P@2", value)
    means = _enumerated_means()
    assert position is not None and position.exact
    assert position.below == pytest.approx(np.mean(means < value - 1e-12))
    assert position.equal == pytest.approx(np.mean(np.abs(means - value) <= 1e-12))
    assert position.above == pytest.approx(np.mean(means > value + 1e-12))


def test_non_lattice_metric_falls_back_to_draws():
    qrels, run = read_qrels(QRELS), read_run(RUN)
    table = evaluate({"r": run}, qrels, ["nDCG@2"]).tables["r"]
    assert exact_percentile(table, "nDCG@2", 0.5) is None
