"""The Checkpoints page (issue 31) on the bundled checkpoint set and on data without steps,
and the figure export in PNG, SVG and PDF. Oracles: the core's evaluation through its own
door (tiedrank.evaluate on the files), the bands' overlap recomputed from worst and best,
and scipy's paired t-test on the per-query expectations."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as scipy_stats

from apptest_support import assert_no_trouble, new_app

pytestmark = pytest.mark.usefixtures("navigation_pages")


def _checkpoint_page():
    at = new_app().run()
    at.radio(key="dataset").set_value("checkpoints").run()
    at.switch_page("pages/checkpoints.py").run()
    assert_no_trouble(at)
    return at


def _bundled_per_query(metric):
    from tiedrank import evaluate
    from tiedrank.dashboard.datasets import BUNDLED
    from tiedrank.io import read_qrels, read_run

    ds = BUNDLED["checkpoints"]
    runs = [read_run(str(ds.path(r)), format=ds.run_format) for r in ds.runs]
    qrels = read_qrels(str(ds.path(ds.qrels)), format=ds.qrels_format)
    return evaluate(runs, qrels, [metric], ties="all", rel_level=ds.rel_level).per_query


def test_the_page_draws_the_bundled_checkpoints():
    at = _checkpoint_page()
    assert at.selectbox(key="ckpt_metric").value == "nDCG@10"
    table = at.dataframe[0].value
    assert table["run"].tolist() == [f"splade-epoch{e}" for e in range(1, 7)]
    assert table["step"].tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]

    per_query = _bundled_per_query("nDCG@10")
    per_query = per_query[per_query["metric"].astype(str) == "nDCG@10"]
    means = per_query.pivot_table(index="run", columns="policy", values="value", aggfunc="mean",
                                  observed=True)
    expected = means.loc[table["run"], "expected"].to_numpy()
    np.testing.assert_allclose(table["expected"], expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(table["worst"], means.loc[table["run"], "worst"], atol=1e-12)
    np.testing.assert_allclose(table["best"], means.loc[table["run"], "best"], atol=1e-12)
    worst, best = table["worst"].to_numpy(), table["best"].to_numpy()
    overlaps = [False] + [bool(max(worst[i], worst[i - 1]) <= min(best[i], best[i - 1]))
                          for i in range(1, 6)]
    assert table["bands overlap"].tolist() == overlaps

    wide = per_query[per_query["policy"].astype(str) == "expected"].pivot_table(
        index="query", columns="run", values="value", observed=True)
    for i in range(1, 6):
        later, earlier = table["run"][i], table["run"][i - 1]
        p = scipy_stats.ttest_rel(wide[later], wide[earlier]).pvalue
        assert table["p vs previous"][i] == pytest.approx(p, rel=1e-9)
    sentence = next(m.value for m in at.markdown if "consecutive steps are indistinguishable" in m.value)
    assert f"{sum(overlaps)} of 5 consecutive steps" in sentence

    at.selectbox(key="ckpt_metric").set_value("RR").run()
    assert_no_trouble(at)
    assert at.dataframe[0].value["run"].tolist()[0] == "splade-epoch1"


def test_data_without_steps_gets_a_clear_empty_state():
    at = new_app().run()  # LLMJudge: judges' names, not checkpoints
    at.switch_page("pages/checkpoints.py").run()
    assert_no_trouble(at)
    infos = " ".join(i.value for i in at.info)
    assert "TREMA-all carries no step in its name" in infos and "Simulated checkpoints" in infos
    assert not at.get("plotly_chart") and not at.dataframe


def test_figures_export_as_png_svg_and_pdf_on_demand(monkeypatch):
    """The three formats are rendered only when asked (a stand-in for kaleido: its real
    Chromium render is tested by the Overview's PNG test) and offered under their names."""
    import plotly.graph_objects as go

    asked = []

    def fake_to_image(self, format="png", **kwargs):
        asked.append(format)
        return f"{format} bytes".encode()

    monkeypatch.setattr(go.Figure, "to_image", fake_to_image)
    at = _checkpoint_page()
    assert asked == []  # nothing rendered until a button is pressed
    assert not [b for b in at.get("download_button") if b.proto.label.startswith("Save ")]
    at.button(key="ckpt_fig_svg_prepare").click().run()
    at.button(key="ckpt_fig_pdf_prepare").click().run()
    assert_no_trouble(at)
    assert asked == ["svg", "pdf"]
    saved = {b.proto.label: b for b in at.get("download_button") if b.proto.label.startswith("Save ")}
    assert set(saved) == {"Save SVG", "Save PDF"}
    at.selectbox(key="ckpt_metric").set_value("RR").run()  # another figure: the files go
    assert not [b for b in at.get("download_button") if b.proto.label.startswith("Save ")]


def test_checkpoints_that_score_alike_have_no_p_value_and_no_trouble():
    """Relevance level 100: no document is relevant, RR is 0 for every checkpoint under
    every tie-break; the paired test finds no difference (p = 1, never significant) and the
    page shows it without a warning or an exception."""
    at = _checkpoint_page()
    at.number_input(key="rel_level").set_value(100).run()
    at.selectbox(key="ckpt_metric").set_value("RR").run()
    assert_no_trouble(at)
    table = at.dataframe[0].value
    assert (table[["expected", "worst", "best"]] == 0).all().all()
    assert table["p vs previous"].isna().tolist() == [True] + [False] * 5
    assert (table["p vs previous"][1:] == 1.0).all() and not table["significant"].any()
    assert table["bands overlap"].tolist() == [False] + [True] * 5
