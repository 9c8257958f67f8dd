"""The Compare page through AppTest, and the helpers of tiedrank.dashboard.compare it shows."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from apptest_support import assert_no_trouble
from streamlit.testing.v1 import AppTest

from tiedrank import stats as cmp
from tiedrank.dashboard import compare as view
from tiedrank.dashboard.cache import SHARED
from tiedrank.dashboard.datasets import _LLMJUDGE_RUNS, BUNDLED
from tiedrank.dashboard.figures import compare as figures
from tiedrank.evaluation import evaluate
from tiedrank.io import read_qrels, read_run
from tiedrank.report import render

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
PAGE = "pages/compare.py"


pytestmark = pytest.mark.usefixtures("navigation_pages")


def _text(at: AppTest) -> str:
    return "\n".join(str(e.value) for e in [*at.markdown, *at.caption, *at.warning, *at.info,
                                              *at.success, *at.error])


TABLES = {  # AppTest does not expose a dataframe's key: find the tables by their columns
    "report": {"key", "run"},  # the first such table (the numbers tab comes after it)
    "numbers": {"p", "p corrected", "Cohen's d", "beats"},
    "verdicts": {"policy", "verdict", "same verdict as expected"},
    "ranking": {"rank expected", "rank trec_eval", "rank spread"},
    "agreement": {"policy_a", "policy_b", "kendall_tau"},
    "groups": {"group", "n_queries", "run"},
    "flips": {"run_a", "run_b", "p_win", "p_flip"},
}


def _table(at: AppTest, name: str) -> pd.DataFrame:
    for frame in at.dataframe:
        if TABLES[name] <= set(frame.value.columns):
            return frame.value
    raise AssertionError(f"no {name} table among {[list(f.value.columns) for f in at.dataframe]}")


@pytest.fixture()
def at() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=30)
    at.run()
    at.switch_page(PAGE)
    at.run()
    return at


# ---- the page --------------------------------------------------------------------------------
def test_compare_page_renders_report_and_stability(at):
    assert_no_trouble(at)
    assert at.title[0].value.startswith("Compare runs")
    runs = list(_LLMJUDGE_RUNS)
    assert at.selectbox(key="compare_baseline").value == runs[0]
    assert at.multiselect(key="compare_runs").value == runs[1:]  # default: all others
    assert at.selectbox(key="compare_policy").value == "expected"
    report = _table(at, "report")
    assert report["run"].tolist()[0] == runs[0] and len(report) == 8
    assert report["key"].tolist() == list("abcdefgh")
    assert {"RR", "RR d", "nDCG@10", "nDCG@10 d"} <= set(report.columns)
    # ranx-style superscripts: runs significantly better than the baseline carry its key "a"
    assert report.set_index("run").loc["willia-umbrela1", "RR"] == "0.8162ᵃ"
    assert report.loc[0, "RR d"] == "–" and report["RR d"].iloc[1:].str.fullmatch(r"-?\d\.\d\d").all()
    numbers = _table(at, "numbers")
    assert {"p", "p corrected", "Cohen's d", "beats"} <= set(numbers.columns)
    text = _text(at)
    assert "random tie-breaks" in text and "P(run beats baseline)" in [m.label for m in at.metric]
    assert "Kendall's tau" in text
    assert len(_table(at, "verdicts")) == 4  # one row per fixed policy
    charts = [c.key for c in at.get("plotly_chart")]
    assert charts[:4] == ["compare_interval_chart", "compare_difference_chart",
                          "compare_stability_chart", "compare_ranking_chart"]
    # the flip matrix: a button, or the chart at once when a session computed it already
    offered = [b for b in at.button if b.key == "compare_flips_compute"]
    assert (charts[4:] == ["compare_flip_chart"]) != bool(offered)
    assert "Upload a query → group CSV" in text
    assert all(w.help for w in [*at.selectbox, *at.multiselect, *at.toggle, *at.number_input]
               if w.key and w.key.startswith("compare_"))


def test_the_flip_matrix_is_computed_on_demand_then_shared_by_every_session():
    """The page's largest job (every pair of runs on every metric) waits for its button; once
    computed it is in the shared cache, so another session sees it at once."""
    for key in SHARED.keys():  # as on a server where no session has asked for it yet
        if isinstance(key, tuple) and ("name", "flip_matrix") in key:
            SHARED.discard(key)
    first = AppTest.from_file(APP, default_timeout=60)
    first.run()
    first.switch_page(PAGE).run()
    assert_no_trouble(first)
    assert "compare_flip_chart" not in [c.key for c in first.get("plotly_chart")]
    assert "28 pairs of runs x 5 metrics" in _text(first)
    first.button(key="compare_flips_compute").click().run()
    assert_no_trouble(first)
    assert [c.key for c in first.get("plotly_chart")][-1] == "compare_flip_chart"
    shown = _table(first, "flips")
    assert len(shown) == 28 * 5 and set(shown["method"]) == {"exact", "sampled"}
    first.run()  # asked once: it stays
    assert [c.key for c in first.get("plotly_chart")][-1] == "compare_flip_chart"

    other = AppTest.from_file(APP, default_timeout=60)
    other.run()
    other.switch_page(PAGE).run()
    assert not [b for b in other.button if b.key == "compare_flips_compute"]
    assert _table(other, "flips").equals(shown)


def test_change_baseline_run_and_test(at):
    at.selectbox(key="compare_baseline").set_value("willia-umbrela1").run()
    assert_no_trouble(at)
    assert "willia-umbrela1" not in at.multiselect(key="compare_runs").value
    assert len(at.multiselect(key="compare_runs").value) == 7  # still "all others"
    assert _table(at, "report")["run"].iloc[0] == "willia-umbrela1"
    at.selectbox(key="compare_run").set_value("h2oloo-fewself").run()
    assert_no_trouble(at)
    text = _text(at)
    assert ("Under trec_eval's order **h2oloo-fewself** wins against **willia-umbrela1** on RR; "
            "under the exact expectation it loses; it beats the baseline in 32.3% ± 1.5% of "
            "1,000 random tie-breaks") in text
    assert "The verdict depends on the tie-break" in text
    assert "in both runs' worst case (p = 0.018" in text

    at.selectbox(key="compare_test").set_value("wilcoxon").run()
    assert_no_trouble(at)
    assert "Wilcoxon signed-rank test on the per-query values" in _text(at)
    at.selectbox(key="compare_correction").set_value("none")
    at.toggle(key="compare_all_pairs").set_value(True).run()
    assert_no_trouble(at)
    assert "testing every pair of runs" in _text(at)
    # the page's choices survive a visit to another page
    at.switch_page("pages/overview.py").run()
    at.switch_page(PAGE).run()
    assert_no_trouble(at)
    assert at.selectbox(key="compare_baseline").value == "willia-umbrela1"
    assert at.selectbox(key="compare_run").value == "h2oloo-fewself"
    assert at.selectbox(key="compare_test").value == "wilcoxon"


def test_policy_metric_and_random_policy(at):
    at.multiselect(key="compare_metrics").set_value(["AP", "P@5"]).run()
    assert_no_trouble(at)
    assert {"AP", "P@5"} <= set(_table(at, "report").columns)
    assert at.selectbox(key="compare_chart_metric").value == "AP"
    at.selectbox(key="compare_policy").set_value("random")
    at.number_input(key="compare_seed").set_value(3).run()
    assert_no_trouble(at)
    assert "random(seed=3)" in _text(at)
    at.selectbox(key="compare_policy").set_value("trec_eval").run()
    assert_no_trouble(at)
    assert "under the **trec_eval** policy" in _text(at)


def test_empty_states(at):
    at.multiselect(key="compare_runs").set_value([]).run()
    assert_no_trouble(at)
    assert "Choose at least one run" in _text(at)
    at.multiselect(key="compare_runs").set_value(["TREMA-all"])
    at.multiselect(key="compare_metrics").set_value([]).run()
    assert_no_trouble(at)
    assert "Choose at least one metric" in _text(at)
    at.radio(key="dataset").set_value("trec_eval").run()
    assert_no_trouble(at)
    assert "Comparing needs at least two runs" in _text(at)


def test_bad_groups_csv_names_file_and_line(at):
    bad = b"query,group\nq37,short\nq33,long\nq37,long\n"
    at.file_uploader(key="compare_groups").set_value(("groups.csv", bad, "text/csv")).run()
    assert not at.exception, [e.value for e in at.exception]
    errors = [e.value for e in at.error]
    assert len(errors) == 1
    assert "groups.csv, line 4" in errors[0] and "listed twice (first on line 2)" in errors[0]
    assert "Traceback" not in errors[0]


def test_groups_csv_breakdown(at):
    ev = _evaluation()
    template = view.groups_template(ev)
    data = template.to_csv(index=False).encode()
    at.file_uploader(key="compare_groups").set_value(("groups.csv", data, "text/csv")).run()
    assert_no_trouble(at)
    groups = _table(at, "groups")
    assert set(groups["group"]) == set(template["group"])
    assert {"RR", "nDCG@10", "AP", "P@10", "R@10"} <= set(groups.columns)
    assert len(groups) == 2 * 8
    charts = [c.key for c in at.get("plotly_chart")]
    assert "compare_group_chart" in charts  # the group heatmap
    # the flip matrix: its button, or its chart when a session of this server computed it
    offered = [b for b in at.button if b.key == "compare_flips_compute"]
    assert len(charts) == 5 + ("compare_flip_chart" in charts) and (
        ("compare_flip_chart" in charts) != bool(offered))


QRELS = b"q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 e9 1\nq2 0 e1 0\n"
RUN_A = (b"q1 Q0 d1 1 0.5 alpha\nq1 Q0 d2 2 0.5 alpha\nq1 Q0 d3 3 0.2 alpha\n"
         b"q2 Q0 e1 1 0.9 alpha\nq2 Q0 e2 2 0.9 alpha\n")
RUN_B = (b"q1 Q0 d3 1 0.7 beta\nq1 Q0 d1 2 0.7 beta\nq1 Q0 d2 3 0.7 beta\n"
         b"q2 Q0 e1 1 0.4 beta\n")


def test_tiny_upload_two_runs(at):
    """Two runs, two queries; then one query (rel level 2): no test is possible, no crash."""
    at.radio(key="dataset").set_value("upload").run()
    at.file_uploader(key="upload_qrels").set_value(("qrels.txt", QRELS, "text/plain"))
    at.file_uploader(key="upload_runs").set_value([("alpha.txt", RUN_A, "text/plain"),
                                                   ("beta.txt", RUN_B, "text/plain")])
    at.run()
    at.number_input(key="rel_level").set_value(1).run()
    assert_no_trouble(at)
    assert _table(at, "report")["run"].tolist() == ["alpha", "beta"]
    assert "beats the baseline in" in _text(at)
    at.selectbox(key="compare_test").set_value("randomization").run()
    assert_no_trouble(at)
    at.number_input(key="rel_level").set_value(2).run()  # only q1 has a relevant document
    assert_no_trouble(at)
    numbers = _table(at, "numbers")
    # trec_eval's query set: q2 still counts (0 for both runs), so two queries are paired
    assert numbers.loc[numbers["run"] == "beta", "p"].notna().all()
    assert "beats the baseline in" in _text(at)


# ---- compare_view and the figures on the bundled data ---------------------------------------------
_CACHE: dict = {}


def _evaluation():
    if "ev" not in _CACHE:
        ds = BUNDLED["llmjudge"]
        qrels = read_qrels(str(ds.path(ds.qrels)), format="trec_qrels")
        runs = {}
        for relative in ds.runs:
            run = read_run(str(ds.path(relative)), format="trec_qrels")
            runs[run.name] = run
        _CACHE["ev"] = evaluate(runs, qrels, ["RR", "nDCG@10"], ties="all", rel_level=2)
    return _CACHE["ev"]


def test_stability_matches_verdict_stability():
    ev = _evaluation()
    result = view.stability(ev, "h2oloo-fewself", "willia-umbrela1", "RR", n_draws=500, seed=7)
    engine = cmp.verdict_stability(ev, "willia-umbrela1", runs=["h2oloo-fewself"], metrics=["RR"],
                                   n_draws=500, seed=7).iloc[0]
    assert result.p_win == pytest.approx(engine["p_win"]) and result.se == pytest.approx(engine["se"])
    assert result.same_verdict == engine["same_verdict"]
    assert result.significance_survives == engine["significance_survives"]
    for row in result.verdicts.itertuples(index=False):
        assert engine[row.policy].rstrip("*") == row.verdict
        assert engine[row.policy].endswith("*") == row.significant
    assert len(result.draws) == 500
    assert result.p_win == pytest.approx(float(np.mean(np.where(result.draws["diff"] > 1e-12, 1.0,
                                                               np.where(result.draws["diff"] < -1e-12, 0.0, 0.5)))))
    fig = figures.stability_figure(result.draws, result.verdicts, "h2oloo-fewself", "willia-umbrela1", "RR")
    assert len(fig.data) >= 5


def test_report_tables_and_differences():
    ev = _evaluation()
    comparison = view.run_comparison(ev, baseline="willia-umbrela1", runs=list(ev.tables), metrics=["RR"],
                                     policy="expected", test="t", correction="holm", alpha=0.05,
                                     all_pairs=False, seed=0)
    wide = view.report_wide(comparison, "latex")
    assert wide.loc[0, "run"] == "willia-umbrela1" and wide.loc[0, "RR"] == "0.8162$^{bf}$"
    assert view.report_wide(comparison, "markdown").loc[0, "RR"] == "0.8162<sup>bf</sup>"
    assert r"\$" not in render(wide, "latex")  # the superscript survives LaTeX escaping
    assert view.superscript("bq") == "ᵇ^q"
    intervals = view.baseline_intervals(comparison, "RR")
    assert len(intervals) == 7 and (intervals["ci_low"] <= intervals["diff"]).all()
    # all pairs: pairs tested as (baseline, run) are flipped to run - baseline
    every = view.run_comparison(ev, baseline="willia-umbrela1", runs=list(ev.tables), metrics=["RR"],
                                policy="expected", test="t", correction="holm", alpha=0.05,
                                all_pairs=True, seed=0)
    flipped = view.baseline_intervals(every, "RR").set_index("run")
    np.testing.assert_allclose(flipped.loc[intervals["run"], "diff"], intervals["diff"])
    diffs = view.query_differences(ev, "h2oloo-fewself", "willia-umbrela1", "RR")
    assert view.outcome_counts(diffs) == {"win": 6, "tie": 5, "loss": 14}
    assert diffs["diff"].is_monotonic_decreasing
    assert "better than willia-umbrela1 on 6 of 25 queries" in view.difference_sentence(
        diffs, "h2oloo-fewself", "willia-umbrela1", "RR")
    ranking = view.ranking_table(ev, "RR", list(ev.tables))
    assert ranking.loc[0, "run"] == "willia-umbrela1"
    assert ranking.set_index("run").loc["h2oloo-fewself", "rank trec_eval"] == 1
    assert len(view.agreement_table(ev, "RR", list(ev.tables))) == 6


def test_control_helpers():
    assert view.retarget_runs(None, None, ["b", "c"]) == ["b", "c"]
    assert view.retarget_runs(["b", "c"], ["b", "c"], ["a", "c"]) == ["a", "c"]  # "all others" stays all
    assert view.retarget_runs(["c"], ["b", "c"], ["a", "b"]) == []
    assert view.retarget_runs(["b"], ["b", "c"], ["a", "b"]) == ["b"]
    assert view.evaluation_ties("trec_eval") == ("all",)
    assert view.evaluation_ties("random", 3) == ("all", "random(seed=3)")
    ev = _evaluation()
    # expected ranks willia-umbrela1 above Olz-gpt4o on RR, trec_eval's order the other way
    assert view.fragile_run(ev, "willia-umbrela1", list(ev.tables), "RR") == "Olz-gpt4o"


# ---- progress, limits and reruns ----------------------------------------------------------------
def test_progress_names_each_step_in_words():
    ev = _evaluation()
    calls = []
    result = view.stability(ev, "h2oloo-fewself", "willia-umbrela1", "RR", n_draws=200, seed=3,
                            progress=lambda share, step: calls.append((share, step)))
    shares = [share for share, _ in calls]
    assert shares == sorted(shares) and shares[0] == 0.0 and shares[-1] == 1.0
    for _, step in calls:  # sentences, never an internal function name
        assert step[0].isupper() and "_" not in step.replace("h2oloo-fewself", "").replace(
            "willia-umbrela1", "") and "(" not in step.split(" of ")[0]
    assert any("random tie-breaks" in step for _, step in calls)
    assert len(result.draws) == 200
    tests = []
    view.run_comparison(ev, baseline="willia-umbrela1", runs=["h2oloo-fewself", "Olz-gpt4o"],
                        metrics=["RR"], policy="expected", test="t", correction="holm",
                        alpha=0.05, all_pairs=False, seed=0, n_resamples=500,
                        progress=lambda share, step: tests.append((share, step)))
    assert [round(s, 3) for s, _ in tests] == [0.0, 0.5]
    assert tests[0][1] == "Testing h2oloo-fewself against willia-umbrela1 on RR (test 1 of 2)"


def test_draws_are_capped_with_a_message():
    assert view.limited(view.MAX_DRAWS + 1, view.MAX_DRAWS, "random tie-breaks")[0] == view.MAX_DRAWS
    message = view.limited(10**6, view.MAX_RESAMPLES, "resamples")[1]
    assert "1,000,000" in message and f"{view.MAX_RESAMPLES:,}" in message


def test_exact_metrics_say_exact_on_the_page_logic():
    ev = evaluate(_evaluation_runs(), _llmjudge_qrels(), ["P@10"], ties="all", rel_level=2)
    result = view.stability(ev, "h2oloo-fewself", "willia-umbrela1", "P@10", n_draws=300, seed=1)
    assert result.method == "exact" and result.se == 0.0
    assert "exactly over every tie order" in view.stability_sentence(result)
    sampled = cmp.win_probability(ev.tables["h2oloo-fewself"], ev.tables["willia-umbrela1"],
                                  "P@10", n_draws=4000, seed=2, method="sampled")
    assert abs(sampled.probability - result.p_win) <= 4 * max(sampled.standard_error, 1e-3)


def _llmjudge_qrels():
    ds = BUNDLED["llmjudge"]
    return read_qrels(str(ds.path(ds.qrels)), format="trec_qrels")


def _evaluation_runs():
    ds = BUNDLED["llmjudge"]
    runs = {}
    for relative in ds.runs:
        run = read_run(str(ds.path(relative)), format="trec_qrels")
        runs[run.name] = run
    return runs


def _compare_results(at: AppTest) -> set:
    """The Compare page's keys in the dashboard's one shared cache, for the session's data."""
    data_key = at.session_state["tiedrank_context"].key
    entries = [dict(key[2:]) for key in SHARED.keys() if isinstance(key, tuple) and len(key) > 2]
    return {(e["name"], e["args"]) for e in entries
            if e.get("data_key") == data_key and e.get("name") in ("compare_runs", "compare_stability")}


def test_rerun_reuses_the_results(at, monkeypatch):
    """After the first visit the tests and the draws are not recomputed (the rerun is cheap):
    the shared cache, which bounds every session's memory together, holds one result per
    step under the data's content hash, and a rerun computes none."""
    cached = _compare_results(at)
    assert {name for name, _ in cached} == {"compare_runs", "compare_stability"}
    calls: list[str] = []
    for name in ("run_comparison", "stability"):
        original = getattr(view, name)
        monkeypatch.setattr(view, name, lambda *a, _f=original, _n=name, **kw: calls.append(_n) or _f(*a, **kw))
    at.run()
    assert_no_trouble(at)
    assert calls == [] and _compare_results(at) == cached
    at.number_input(key="compare_draws").set_value(1300).run()  # a draw count no other test asks for
    assert_no_trouble(at)
    assert calls == ["stability"]
    assert len(_compare_results(at) - cached) == 1


def test_trec_eval_position_exact_matches_the_draws():
    """The exact position of trec_eval's difference (lattice law) against a large sample."""
    ev = evaluate(_evaluation_runs(), _llmjudge_qrels(), ["P@10"], ties="all", rel_level=2)
    run, base = "h2oloo-fewself", "willia-umbrela1"
    exact = view.stability(ev, run, base, "P@10", n_draws=20_000, seed=4)
    position = view.trec_eval_among_tie_breaks(ev, exact)
    assert position["method"] == "exact"
    assert position["below"] + position["equal"] + position["above"] == pytest.approx(1.0)
    # the same question answered by the draws (the sampled branch): within sampling error
    sampled = view.trec_eval_among_tie_breaks(ev, exact.__class__(**{**exact.__dict__, "method": "sampled"}))
    assert sampled["method"] == "sampled"
    for key in ("below", "equal"):
        assert abs(sampled[key] - position[key]) <= 4 * max(np.sqrt(position[key] * (1 - position[key]) / 20_000), 1e-3)
    assert "trec_eval's difference" in view.trec_eval_among_tie_breaks_sentence(position, run, base)
    assert view.trec_eval_among_tie_breaks_sentence(None, run, base) == ""


def test_gm_map_is_compared_by_its_geometric_mean_on_the_page(at):
    """The report shows gm_map's geometric means (the Overview's numbers) and says that the
    tests, d and the differences are on the floored logs; the card's mean difference is
    log(GM run / GM baseline) from the per-query values (scipy's geometric means)."""
    from scipy import stats

    at.multiselect(key="compare_metrics").set_value(["gm_map"]).run()
    assert_no_trouble(at)
    report = _table(at, "report").set_index("run")
    summary = at.session_state["tiedrank_context"].evaluation(("gm_map",), ("all",)).summary
    expected = summary[summary["policy"] == "expected"].set_index("run")["value"]
    for run, shown in report["gm_map"].items():
        assert shown.rstrip("ᵃᵇᶜᵈᵉᶠᵍʰ˒") == f"{expected[run]:.4f}"
    assert "gm_map: mean = the geometric mean" in _text(at)
    run, base = at.selectbox(key="compare_run").value, at.selectbox(key="compare_baseline").value
    per_query = at.session_state["tiedrank_context"].evaluation(("gm_map",), ("all",)).per_query
    values = per_query[per_query["policy"] == "expected"].pivot(index="query", columns="run",
                                                                 values="value")
    ratio = np.log(stats.gmean(np.maximum(values[run], 1e-5))
                   / stats.gmean(np.maximum(values[base], 1e-5)))
    card = next(m for m in at.metric if m.label == "Mean difference")
    assert card.value == f"{ratio:+.4f}"
