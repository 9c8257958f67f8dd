"""Overview: the swapped-pairs warning ignores pairs equal at display precision,
and a run with 0 % ties never gets the ⚠ marker."""
from __future__ import annotations

import pandas as pd

from tiedrank.dashboard.overview import order_flips, overview_cells


def _report(rows):
    return pd.DataFrame(rows, columns=["run", "metric", "expected", "worst", "best", "trec_eval"])


def test_pairs_equal_at_display_precision_are_not_swaps():
    report = _report([("a", "P@10", 0.50001, 0.4, 0.6, 0.50000),
                      ("b", "P@10", 0.50000, 0.4, 0.6, 0.50001)])
    assert len(order_flips(report, digits=3)) == 0
    assert len(order_flips(report)) == 1  # at full precision they do swap


def test_run_without_ties_gets_no_marker():
    report = _report([("tied", "P@10", 0.60, 0.40, 0.80, 0.40),
                      ("untied", "P@10", 0.50, 0.50, 0.50, 0.50)])
    flips = order_flips(report, digits=3)
    assert len(flips) == 1
    cells = overview_cells(report, flips=flips)
    assert cells.columns[1] == "P@10 ⚠"
    by_run = dict(zip(cells["run"], cells["P@10 ⚠"]))
    assert by_run["tied"].startswith("⚠") and not by_run["untied"].startswith("⚠")
