"""Readable charts: alpha shown as alpha, readable sweep with many runs, a legend and grades on the
top-20 heatmap, and a one-run range chart that does not start at -0.5."""
from __future__ import annotations

import json

import pandas as pd
import pytest
from apptest_support import assert_no_trouble, new_app

from tiedrank.dashboard import learn
from tiedrank.dashboard.figures.overview import range_figure
from tiedrank.dashboard.figures.tie_structure import top_strip_figure
from tiedrank.dashboard.tie_structure import top_strip
from tiedrank.dashboard.tsrr import alpha_steps, format_alpha, nearest_alpha
from tiedrank.core.ties import build_tie_table

pytestmark = pytest.mark.usefixtures("navigation_pages")


def _open(page):
    at = new_app().run()
    at.switch_page(page)
    return at.run()


def test_alpha_steps_are_alphas():
    steps = alpha_steps(-2, 2)
    assert steps[0] == 0.01 and steps[-1] == 100 and 1.0 in steps and 1.26 in steps
    assert format_alpha(1.26) == "1.26" and format_alpha(100.0) == "100"
    assert nearest_alpha(1.3, steps) == 1.26 and nearest_alpha(1e6, steps) == 100


def test_tsrr_sliders_show_alpha_and_reference_lines_for_one_run():
    at = _open("pages/tsrr.py")  # LLMJudge: 8 runs
    assert_no_trouble(at)
    box = at.select_slider(key="tsrr_alpha_range")
    assert box.value == (0.01, 100.0) and "0.01" in box.options and "1.26" in box.options
    table_alpha = at.select_slider(key="tsrr_alpha")
    assert table_alpha.value == 1.0 and "1" in table_alpha.options
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    dashed = [t for t in spec["data"] if (t.get("line") or {}).get("dash") and t.get("x") != [None]]
    assert len(at.multiselect(key="tsrr_runs").value) == 8
    assert 1 <= len(dashed) <= 3  # one run's references, not 24 lines
    at.selectbox(key="tsrr_ref_run").select("").run()  # none
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert not [t for t in spec["data"] if (t.get("line") or {}).get("dash") and t.get("x") != [None]]
    at.select_slider(key="tsrr_alpha").set_value(1.26).run()
    assert any(h.value == "Per query at alpha = 1.26" for h in at.header)


def test_top_strip_heatmap_has_a_legend_and_grades():
    run, qrels = learn.synthetic_inputs([([.9, .8, .8, .5], [0, 1, 0, 2]), ([.5, .5, .5], [1, 0, 0])])
    strip = top_strip(build_tie_table(run, qrels), 20)
    assert strip["grade"].tolist() == [0, 1, 0, 2, 1, 0, 0]
    fig = top_strip_figure(strip, color="parity")
    assert fig.layout.showlegend and len([t for t in fig.data if t.name]) == 3
    heat = fig.data[0]
    assert heat.texttemplate == "%{text}" and heat.text[0][3] == "2"
    assert "grade %{text}" in heat.hovertemplate
    sized = top_strip_figure(strip, color="size")
    assert sized.data[0].showscale and sized.data[0].colorbar.title.text == "group size"


def test_one_run_range_chart_starts_at_zero():
    report = pd.DataFrame({"run": ["only"], "metric": ["RR"], "expected": [0.406], "worst": [0.406],
                           "best": [0.406], "trec_eval": [0.406]})
    lo, hi = range_figure(report, "RR").layout.xaxis.range
    assert -0.05 <= lo <= 0 and 1 <= hi <= 1.05
    dcg = report.assign(metric="DCG@10", expected=3.2, worst=2.5, best=4.0, trec_eval=3.0)
    lo, hi = range_figure(dcg, "DCG@10").layout.xaxis.range
    assert lo <= 0 and hi >= 4.0
