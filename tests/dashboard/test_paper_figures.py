"""The paper figures of issue 31 (plotly, no Streamlit): the precision-recall band and the
checkpoint curve draw the numbers of their library functions, point for point."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from tiedrank import evaluate
from tiedrank.dashboard.figures.overview import checkpoint_figure, precision_recall_figure
from tiedrank.report import precision_recall_curve
from tiedrank.simulate import RerankerSpec, make_queries, simulate_run
from tiedrank.stats import checkpoint_curve


def _evaluation():
    qrels = make_queries(12, 15, seed=2)
    runs = {f"m-epoch{i}": simulate_run(qrels, RerankerSpec(name=f"e{i}", quality=q, levels=3), seed=i)
            for i, q in ((1, 0.5), (2, 1.0), (3, 2.0))}
    return evaluate(runs, qrels, ["AP", "nDCG@10"], ties="all")


def test_figures_draw_the_curves():
    ev = _evaluation()
    curve = precision_recall_curve(ev, runs=["m-epoch2"])
    fig = precision_recall_figure(curve, "m-epoch2")
    traces = {t.name: t for t in fig.data if t.name}
    band = traces["worst to best over tie orderings"]
    assert list(band.y) == curve["worst"].tolist() and band.fill == "tonexty"
    assert list(traces["expected (exact)"].y) == curve["expected"].tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        steps = checkpoint_curve(ev, ["nDCG@10"])
    fig = checkpoint_figure(steps, "nDCG@10")
    line = next(t for t in fig.data if t.name == "expected (exact)")
    assert list(line.x) == [1.0, 2.0, 3.0] and list(line.y) == steps["expected"].tolist()
    hollow = [c == "white" for c in line.marker.color]
    assert hollow == steps["overlaps_previous"].tolist()
    assert f"{int(np.sum(hollow))} of 2 consecutive steps" in fig.layout.title.text.replace("<br>", " ")
    assert all(isinstance(t, str) for t in pd.unique(line.customdata[:, 1]))
