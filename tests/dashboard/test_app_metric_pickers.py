"""Every page's metric picker comes from the metric registry (issue 21): the trec_eval
measures are offered, a family registered later appears on every page without touching the
pages, and the pickers' first choices are today's."""
from __future__ import annotations

import pytest

from apptest_support import assert_no_trouble, new_app
from tiedrank.dashboard.settings import default_metrics, metric_choices, metric_options
from tiedrank.metrics import REGISTRY, MetricFamily, kernels, parse_metric, register
from tiedrank.metrics import registry as registry_module
from tiedrank.sampling import samplable

pytestmark = pytest.mark.usefixtures("navigation_pages")

TRIAL = "Trial_P"
"""A family registered by the test only: precision at k under another name."""


@pytest.fixture
def trial_family():
    """Register a family as a developer adding a metric would (one ``register`` call), and
    take it out of the registry afterwards."""
    entry = register(MetricFamily(TRIAL, lambda t, m, g: kernels.precision(t, m.k),
                                  cutoff="required", description="precision at k (a test's copy)"))
    yield entry
    del REGISTRY[TRIAL]
    del registry_module._BY_LOWER[TRIAL.lower()]


def test_the_options_are_the_registry_at_the_sidebars_cutoff():
    """Independent of the page code: every usage form of every family (``@k`` at k = 7,
    parameters at their defaults) parses to an offered name; the trec_eval measures are there;
    the filters keep exactly the metrics a tie order moves / the sampler draws."""
    offered = metric_options(7, subtopics=True)  # with diversity qrels: every family
    for entry in REGISTRY.values():
        for form in entry.forms:
            text = form.split("(")[0].removesuffix("@k") + ("@7" if form.endswith("@k") else "")
            assert parse_metric(text).name in offered, form
    assert {"num_ret", "set_P", "bpref", "RBP(p=0.9)", "Rprec_mult(mult=1)", "relative_P@7",
            "gm_map", "gm_bpref"} <= set(offered)
    assert offered[:3] == ["RR", "RR@7", "Success@7"] and set(default_metrics(7)) <= set(offered)
    assert metric_options(7, moving=True, subtopics=True) == [
        m for m in offered if not parse_metric(m).policy_invariant]
    assert metric_options(7, sampled=True, subtopics=True) == [m for m in offered if samplable(m)]
    assert metric_choices(7)["nDCG@k"] == "nDCG@7" and metric_choices(7)["RR"] == "RR"


def test_a_newly_registered_family_is_offered_on_every_page(trial_family):
    at = new_app().run()
    assert TRIAL + "@10" in at.multiselect(key="overview_metrics").options
    at.multiselect(key="overview_metrics").set_value(["P@10", TRIAL + "@10"]).run()
    assert_no_trouble(at)
    summary = at.session_state["tiedrank_context"].evaluation(("P@10", TRIAL + "@10")).summary
    values = summary.pivot_table(index=["run", "policy"], columns="metric", values="value")
    assert (values["P@10"] == values[TRIAL + "@10"]).all()  # the same kernel: the same numbers

    pickers = {"pages/compare.py": ("multiselect", "compare_metrics"),
               "pages/spread.py": ("selectbox", "spread_metric"),
               "pages/side_by_side.py": ("selectbox", "sbs_metric"),
               "pages/tie_structure.py": ("selectbox", "tie_scatter_metric")}
    for page, (kind, key) in pickers.items():
        at.switch_page(page).run()
        assert_no_trouble(at)
        assert TRIAL + "@10" in getattr(at, kind)(key=key).options, page
    at.switch_page("pages/simulator.py").run()
    at.selectbox(key="sim_sweep_metric").set_value(TRIAL + "@k").run()  # the key follows k
    assert_no_trouble(at)
    assert at.selectbox(key="sim_sweep_metric").format_func(TRIAL + "@k") == TRIAL + "@10"
    # the Checkpoints page needs runs named by step: the bundled checkpoint set
    at.radio(key="dataset").set_value("checkpoints").run()
    at.switch_page("pages/checkpoints.py").run()
    at.selectbox(key="ckpt_metric").set_value(TRIAL + "@10").run()
    assert_no_trouble(at)
    assert at.dataframe[0].value["expected"].notna().all()
    at.radio(key="dataset").set_value("llmjudge").run()
    # no sampler for it: the Spread page still draws its ranges, and says why no histogram
    at.switch_page("pages/spread.py").run()
    at.selectbox(key="spread_metric").set_value(TRIAL + "@10").run()
    assert_no_trouble(at)
    assert any("has no random tie-break sampler yet" in i.value for i in at.info)


def test_compare_explains_what_a_metric_without_sampler_cannot_show():
    """bpref (trec_eval's, no random tie-break sampler): the report and the charts work, the
    random tie-break section says why it is empty, the flip matrix leaves bpref out."""
    at = new_app().run()
    at.switch_page("pages/compare.py").run()
    at.multiselect(key="compare_metrics").set_value(["RR", "bpref"]).run()
    at.selectbox(key="compare_chart_metric").set_value("bpref").run()
    assert_no_trouble(at)
    infos = " ".join(i.value for i in at.info)
    assert "bpref has no random tie-break sampler yet" in infos
    assert "bpref" in at.dataframe[0].value.columns  # the report
    offer = " ".join(c.value for c in at.caption if "pairs of runs" in c.value)
    assert "28 pairs of runs x 1 metric:" in offer or "Left out" in " ".join(c.value for c in at.caption)
