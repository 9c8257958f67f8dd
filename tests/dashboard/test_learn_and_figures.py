"""Unit tests of tiedrank.dashboard.learn (the logic of the Spread, TsRR and Learn pages) and of the
figure builders in tiedrank.dashboard.figures.spread / tsrr / learn: the figures must carry the
engine's values, the toy evaluation must reproduce the reference's test vectors."""
from __future__ import annotations

from fractions import Fraction as F
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from tiedrank.dashboard import learn
from tiedrank.dashboard.figures import learn as learn_figures
from tiedrank.dashboard.figures import spread as spread_figures
from tiedrank.dashboard.figures import tsrr as tsrr_figures
from tiedrank.dashboard.figures.style import POLICY_COLORS, TEMPLATE
from tiedrank.dashboard.spread import (
    describe_ranges,
    draws_table,
    percentile_of,
    policy_values,
    query_ranges,
)
from tiedrank.dashboard.tsrr import (
    alpha_grid,
    appended_example,
    fully_tied_example,
    sweep_references,
    sweep_table,
    tsrr_components,
    tsrr_query_table,
)
from tiedrank.core.errors import InputError
from tiedrank.evaluation import evaluate, tsrr_sweep
from tiedrank.io import read_qrels, read_run
from tiedrank.metrics import metric_values
from tiedrank.sampling import first_relevant_distribution, sample_run_means

ROOT = Path(__file__).resolve().parents[2]
LLMJUDGE = ROOT / "sample_data" / "llmjudge"

# metrics-reference.md section 7 (K = 3): E[RR], RR in file order, MTRR_GRAG, TsRR(alpha=1), TsRR2
SEED_VECTORS = {
    "S1": dict(RR=F(1, 2), input=F(1, 2), MTRR_GRAG=F(1, 2), tsrr1=.5, TsRR2=F(1, 2)),
    "S2": dict(RR=F(5, 12), input=F(1, 2), MTRR_GRAG=F(2, 5), tsrr1=.2846617210, TsRR2=F(8, 21)),
    "S3": dict(RR=F(11, 18), input=F(1, 2), MTRR_GRAG=F(1, 2), tsrr1=.3173938055, TsRR2=F(2, 5)),
    "S4": dict(RR=F(5, 12), input=F(1, 3), MTRR_GRAG=F(2, 5), tsrr1=.2846617210, TsRR2=F(8, 21)),
}


# ---- fixtures -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sample():
    """Two LLMJudge runs against the NIST qrels, at relevance level 2."""
    qrels = read_qrels(LLMJUDGE / "qrels.test.txt")
    runs = {name: read_run(LLMJUDGE / "runs" / f"{name}.txt", format="trec_qrels", name=name)
            for name in ("Olz-gpt4o", "TREMA-all")}
    ev = evaluate(runs, qrels, ["RR", "nDCG@10", "TsRR2"], ties="all", rel_level=2)
    return ev


# ---- seed scenarios and the toy evaluation ----------------------------------------------------
@pytest.mark.parametrize("key", sorted(SEED_VECTORS))
def test_toy_evaluation_matches_seed_vectors(key):
    want = SEED_VECTORS[key]
    result = learn.evaluate_toy(learn.SCENARIOS[key].frame(), k=3, alpha=1.0)
    assert result.value("RR", "expected") == pytest.approx(float(want["RR"]), abs=1e-12)
    assert result.value("RR", "input") == pytest.approx(float(want["input"]), abs=1e-12)
    assert result.value("MTRR_GRAG") == pytest.approx(float(want["MTRR_GRAG"]), abs=1e-12)
    assert result.value("TsRR(alpha=1)") == pytest.approx(want["tsrr1"], abs=1e-9)
    assert result.value("TsRR2") == pytest.approx(float(want["TsRR2"]), abs=1e-12)
    assert result.value("Success@3") == 1.0 and result.value("TMHits_GRAG@3") == 1.0
    assert learn.as_fraction(result.value("RR")) == str(want["RR"])


def test_seed_expected_rr_values():
    """The brief's check: E[RR] of S1-S4 = 1/2, 5/12, 11/18, 5/12."""
    got = [learn.evaluate_toy(learn.SCENARIOS[k].frame()).value("RR") for k in learn.SEED_SCENARIOS]
    assert got == pytest.approx([1 / 2, 5 / 12, 11 / 18, 5 / 12], abs=1e-12)


def test_toy_values_table_shape_and_policy_invariant_metrics():
    result = learn.evaluate_toy(learn.SCENARIOS["V5"].frame(), k=3, alpha=2.0)
    assert list(result.values.columns) == ["metric", *learn.TOY_POLICIES]
    assert result.values["metric"].tolist() == [
        "RR", "Success@3", "P@3", "AP", "nDCG@3", "TsRR(alpha=2)", "TsRR2", "MTRR_GRAG", "TMHits_GRAG@3"]
    for metric in ("TsRR(alpha=2)", "TsRR2", "MTRR_GRAG", "TMHits_GRAG@3"):
        row = result.values.set_index("metric").loc[metric, list(learn.TOY_POLICIES)]
        assert row.nunique() == 1
    # V5 of the reference: E[RR] 77/240, E[AP] 157/480, E[nDCG@3] .1733566009, TsRR(2) .0359544429
    assert result.value("RR") == pytest.approx(77 / 240, abs=1e-12)
    assert result.value("AP") == pytest.approx(157 / 480, abs=1e-12)
    assert result.value("nDCG@3") == pytest.approx(0.1733566009, abs=1e-9)
    assert result.value("TsRR(alpha=2)") == pytest.approx(0.0359544429, abs=1e-9)
    # best >= expected >= worst for every expectation metric
    v = result.values.set_index("metric").loc[learn.expectation_metrics(3)]
    assert (v["best"] >= v["expected"] - 1e-12).all()
    assert (v["expected"] >= v["worst"] - 1e-12).all()


def test_graded_scenario_exp_gain():
    result = learn.evaluate_toy(learn.SCENARIOS["V10"].frame(), gain="exp")
    assert result.value("nDCG@3") == pytest.approx(0.5078114405, abs=1e-9)
    linear = learn.evaluate_toy(learn.SCENARIOS["V10"].frame(), gain="linear")
    assert linear.value("nDCG@3") == pytest.approx(0.6058311713, abs=1e-9)


def test_policy_orders_follow_the_policies():
    orders = learn.policy_orders(learn.evaluate_toy(learn.SCENARIOS["S4"].frame())).set_index("policy")
    assert orders.loc["trec_eval order", "ordering"] == "d1 d3 d2 d5 d4"  # docno descending in ties
    assert orders.loc["file order", "ordering"] == "d1 d2 d3 d4 d5"
    assert orders.loc["best case", "first relevant rank"] == 2
    assert orders.loc["worst case", "first relevant rank"] == 3


@pytest.mark.parametrize("edit, message", [
    (lambda f: f.assign(score=[.9, np.nan, .8, .6, .5]), "missing score"),
    (lambda f: f.assign(score=[.9, np.inf, .8, .6, .5]), "infinite score"),
    (lambda f: f.assign(doc=["d1", "d1", "d3", "d4", "d5"]), "duplicate"),
    (lambda f: f.assign(grade=pd.array([0, None, 0, 0, 0], dtype="Int64")), "missing grade"),
    (lambda f: f.assign(grade=[0, 1.5, 0, 0, 0]), "grade"),
    (lambda f: f.assign(doc=["d1", "", "d3", "d4", "d5"]), "document id"),
])
def test_invalid_toy_edits_raise_input_errors(edit, message):
    with pytest.raises(InputError, match=message):
        learn.evaluate_toy(edit(learn.SCENARIOS["S2"].frame()))


def test_blank_rows_are_ignored_and_empty_table_refused():
    frame = learn.SCENARIOS["S2"].frame()
    padded = pd.concat([frame, pd.DataFrame({"doc": [None], "score": [None], "grade": [None]})])
    assert learn.evaluate_toy(padded).value("RR") == pytest.approx(5 / 12)
    with pytest.raises(ValueError, match="empty"):
        learn.evaluate_toy(frame.iloc[:0])
    with pytest.raises(ValueError, match="columns"):
        learn.evaluate_toy(frame.drop(columns="grade"))


def test_no_relevant_document():
    result = learn.evaluate_toy(learn.SCENARIOS["S2"].frame().assign(grade=0))
    assert not result.has_relevant
    assert result.value("RR") == 0.0
    assert learn.mtrr_comparison(result).empty


# ---- enumeration -----------------------------------------------------------------------------
@pytest.mark.parametrize("key", sorted(learn.SCENARIOS))
def test_enumeration_mean_equals_closed_form(key):
    result = learn.evaluate_toy(learn.SCENARIOS[key].frame(), k=3)
    orderings = learn.enumerate_toy(result, learn.expectation_metrics(3))
    assert len(orderings) == learn.ordering_count(result)
    summary = learn.enumeration_summary(orderings, result)
    assert summary["difference"].abs().max() < 1e-12
    # min and max over the orderings are the pessimistic and optimistic values
    for _, row in summary.iterrows():
        assert row["min over orderings"] == pytest.approx(result.value(row["metric"], "worst"))
        assert row["max over orderings"] == pytest.approx(result.value(row["metric"], "best"))


def test_enumeration_first_relevant_rank_column():
    result = learn.evaluate_toy(learn.SCENARIOS["S3"].frame())
    orderings = learn.enumerate_toy(result, ["RR"])
    assert sorted(orderings["first relevant rank"]) == [1, 1, 2, 2, 3, 3]
    assert np.allclose(orderings["RR"], 1 / orderings["first relevant rank"])


def test_enumeration_limit():
    frame = pd.DataFrame({"doc": [f"d{i}" for i in range(7)], "score": [1.0] * 7, "grade": [1] + [0] * 6})
    result = learn.evaluate_toy(frame)
    assert learn.ordering_count(result) == 5040 > learn.ENUMERATION_LIMIT
    with pytest.raises(ValueError, match="exceed"):
        learn.enumerate_toy(result, ["RR"])
    six = learn.evaluate_toy(frame.iloc[:6])
    assert len(learn.enumerate_toy(six, ["RR"])) == 720


# ---- MTRR vs G-RAG ----------------------------------------------------------------------------
def test_mtrr_comparison_s3():
    table = learn.mtrr_comparison(learn.evaluate_toy(learn.SCENARIOS["S3"].frame())).set_index("quantity")
    values = table["value"]
    assert values.iloc[0] == pytest.approx(11 / 18)  # E[1/rank]
    assert values.iloc[1] == pytest.approx(2.0)  # E[rank] = a + (t+1)/(r+1) = 0 + 4/2
    assert values.iloc[2] == pytest.approx(0.5)
    assert values.iloc[3] == pytest.approx(0.5)  # MTRR_GRAG
    assert values.iloc[2] <= values.iloc[0]  # Jensen


def test_mtrr_curve_pitfall_1():
    """1000 tied, 3 relevant: E[RR] = 0.0179923974, 1/E[rank] = 0.003996, MTRR_GRAG = 0.001998."""
    curve = learn.mtrr_curve(1000, relevant=3)
    last = curve.iloc[-1]
    assert last["tied"] == 1000
    assert last["E[RR] (exact MTRR)"] == pytest.approx(0.0179923974, abs=1e-10)
    assert last["1/E[rank1]"] == pytest.approx(1 / 250.25, abs=1e-12)
    assert last["MTRR_GRAG"] == pytest.approx(2 / 1001, abs=1e-12)
    one = learn.mtrr_curve(10)
    harmonic = np.cumsum(1 / np.arange(1, 11)) / np.arange(1, 11)
    assert np.allclose(one["E[RR] (exact MTRR)"], harmonic)
    assert np.allclose(one["MTRR_GRAG"], 2 / (np.arange(1, 11) + 1))
    assert (one["1/E[rank1]"] <= one["E[RR] (exact MTRR)"] + 1e-15).all()


# ---- TsRR helpers -----------------------------------------------------------------------------
def test_fully_tied_tsrr_is_zero_for_every_alpha():
    example = fully_tied_example(5, 3, alpha_grid(-2, 2, 101))
    assert len(example) == 101
    assert (example["TsRR"] == 0).all()
    assert example["E[RR]"].iloc[0] == pytest.approx(137 / 300)  # V6
    assert example["TsRR2"].iloc[0] == pytest.approx(1 / 5)


def test_appending_irrelevant_documents_raises_tsrr():
    example = appended_example(max_appended=30, alpha=1.0)
    tsrr = example["TsRR(alpha=1)"].to_numpy()
    assert tsrr[0] == pytest.approx(0.2846617210, abs=1e-9)  # S2
    assert np.all(np.diff(tsrr) > 0)
    assert np.allclose(example["E[RR]"], 5 / 12)
    assert np.allclose(example["RR (trec_eval order)"], example["RR (trec_eval order)"].iloc[0])
    # closed form: (1 - ln 2 / ln(5 + m)) / 2
    m = example["appended"].to_numpy()
    assert np.allclose(tsrr, (1 - np.log(2) / np.log(5 + m)) / 2)


def test_sweep_table_keeps_a_run_called_alpha():
    sweep = pd.DataFrame({"run": ["alpha", "alpha", "b", "b"], "alpha": [1.0, 2.0, 1.0, 2.0],
                          "value": [.1, .2, .3, .4]})
    wide = sweep_table(sweep)
    assert wide.columns.tolist() == ["alpha", "TsRR alpha", "TsRR b"]
    assert wide["TsRR b"].tolist() == [.3, .4]


def test_alpha_grid():
    grid = alpha_grid(-2, 2, 201)
    assert len(grid) == 201 and grid[0] == pytest.approx(0.01) and grid[-1] == pytest.approx(100)
    assert np.allclose(np.diff(np.log10(grid)), 0.02)
    assert alpha_grid(1, -1, 3).tolist() == pytest.approx([0.1, 1, 10])


def test_tsrr_components_and_query_table(sample):
    table = sample.tables["Olz-gpt4o"]
    comps = tsrr_components(table)
    assert (comps["F_G"] == comps["t"] - comps["r"]).all()
    first = str(table.queries[np.flatnonzero(table.n_relevant > 0)[0]])
    per_query = tsrr_query_table(table, 2.0, query_text={first: "some text"})
    included = table.n_relevant > 0
    assert len(per_query) == included.sum()
    assert np.allclose(per_query["TsRR(alpha=2)"], metric_values(table, "TsRR(alpha=2)")[included])
    expected_rr = sample.per_query.query("run == 'Olz-gpt4o' and metric == 'RR' and policy == 'expected'")
    assert np.allclose(per_query["E[RR]"], expected_rr["value"].to_numpy())
    trec = sample.per_query.query("run == 'Olz-gpt4o' and metric == 'RR' and policy == 'trec_eval'")
    assert np.allclose(per_query["RR (trec_eval order)"], trec["value"].to_numpy())
    assert per_query.set_index("query").loc[first, "text"] == "some text"


def test_sweep_references(sample):
    refs = sweep_references(sample.summary)
    s = sample.summary.set_index(["run", "metric", "policy"])["value"]
    got = refs.set_index(["run", "reference"])["value"]
    assert got[("TREMA-all", "MRR (trec_eval order)")] == pytest.approx(s[("TREMA-all", "RR", "trec_eval")])
    assert got[("TREMA-all", "E[RR]")] == pytest.approx(s[("TREMA-all", "RR", "expected")])
    assert got[("Olz-gpt4o", "TsRR2")] == pytest.approx(s[("Olz-gpt4o", "TsRR2", "expected")])
    assert len(refs) == 6


# ---- spread helpers ---------------------------------------------------------------------------
def test_query_ranges(sample):
    ranges = query_ranges(sample.per_query, "Olz-gpt4o", "RR", query_text={"q18": "x"})
    assert list(ranges.columns) == ["query", "text", "worst", "best", "expected", "trec_eval", "width"]
    assert (np.diff(ranges["width"].to_numpy()) <= 0).all()
    assert (ranges["worst"] <= ranges["expected"] + 1e-12).all()
    assert (ranges["expected"] <= ranges["best"] + 1e-12).all()
    assert (ranges["worst"] <= ranges["trec_eval"] + 1e-12).all()
    assert "queries change RR" in describe_ranges(ranges, "RR")
    with pytest.raises(ValueError, match="ties='all'"):
        query_ranges(sample.per_query[sample.per_query["policy"] != "trec_eval"], "Olz-gpt4o", "RR")


def test_policy_values(sample):
    query = sample.per_query["query"].iloc[0]
    values = policy_values(sample.per_query, "TREMA-all", "RR", query)
    assert set(values) == {"expected", "best", "worst", "trec_eval"}
    assert policy_values(sample.per_query, "TREMA-all", "RR", "no-such-query") == {}


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_percentile_against_numpy(seed):
    rng = np.random.default_rng(seed)
    draws = np.round(rng.normal(0.5, 0.1, 997), 3)  # rounded: plenty of exact ties
    for value in (draws[3], 0.5, draws.min(), draws.max(), -1.0, 2.0):
        p = percentile_of(value, draws)
        assert p.n == 997
        assert p.below == pytest.approx(np.mean(draws < value))
        assert p.equal == pytest.approx(np.mean(draws == value))
        assert p.above == pytest.approx(np.mean(draws > value))
        assert p.below + p.equal + p.above == pytest.approx(1.0)


def test_percentile_tolerance_and_sentence():
    draws = np.array([0.1, 0.2, 0.3 + 1e-16, 0.4])
    p = percentile_of(0.3, draws)
    assert (p.below, p.equal, p.above) == (0.5, 0.25, 0.25)
    text = percentile_of(0.767, np.r_[np.full(23, 0.5), np.full(77, 0.9)]).sentence()
    assert text == "trec_eval's order gives 0.767, higher than 23% of 100 random tie-breaks and lower than 77%"
    assert np.isnan(percentile_of(0.3, [np.nan]).below)


def test_percentile_of_sampled_run(sample):
    table = sample.tables["Olz-gpt4o"]
    draws = sample_run_means(table, "RR", n_draws=300, seed=0)
    trec = sample.summary.query("run == 'Olz-gpt4o' and metric == 'RR' and policy == 'trec_eval'")["value"].iloc[0]
    p = percentile_of(trec, draws)
    assert p.below == pytest.approx(np.mean(draws < trec - 1e-12))
    stats = draws_table(draws, {"trec_eval": trec, "expected": 0.5}, seed=0).set_index("statistic")["value"]
    assert stats["draws"] == 300 and stats["mean of draws"] == pytest.approx(draws.mean())
    assert stats["share of draws below trec_eval"] == pytest.approx(p.below)


# ---- figures ----------------------------------------------------------------------------------
def _trace(fig: go.Figure, name_start: str):
    """The first trace whose name is ``name_start`` or starts with it followed by ':' or ' '."""
    return next(t for t in fig.data if (t.name or "") == name_start
                or (t.name or "").startswith((name_start + ":", name_start + " ", name_start + "(")))


def test_pmf_figure_carries_the_pmf_and_policy_marks():
    result = learn.evaluate_toy(learn.SCENARIOS["V5"].frame())
    pmf = first_relevant_distribution(result.table)
    marks = {p: result.value("RR", p) for p in ("expected", "best", "worst", "trec_eval")}
    fig = spread_figures.pmf_figure(pmf, marks)
    bars = fig.data[0]
    assert list(bars.x) == [2, 3, 4, 5] and np.allclose(bars.y, 0.25)
    assert np.allclose(np.asarray(bars.customdata)[:, 0], [1 / 2, 1 / 3, 1 / 4, 1 / 5])
    assert bars.text[0] == "RR 0.5"
    best = _trace(fig, "best case")
    assert list(best.x) == [2, 2] and best.line.color == POLICY_COLORS["best"]
    worst = _trace(fig, "worst case")
    assert list(worst.x) == [5, 5] and worst.line.color == POLICY_COLORS["worst"]
    expected = _trace(fig, "expected")
    assert expected.x[0] == pytest.approx(240 / 77) and "0.3208" in expected.name
    assert fig.layout.template.layout.to_plotly_json() == go.layout.Template(
        __import__("plotly.io").io.templates[TEMPLATE]).layout.to_plotly_json()


def test_range_figure(sample):
    ranges = query_ranges(sample.per_query, "TREMA-all", "nDCG@10")
    fig = spread_figures.range_figure(ranges, "nDCG@10")
    bar = fig.data[0]
    assert list(bar.y) == ranges["query"].tolist()
    assert np.allclose(bar.base, ranges["worst"]) and np.allclose(bar.x, ranges["width"])
    assert np.allclose(_trace(fig, "expected").x, ranges["expected"])
    assert np.allclose(_trace(fig, "trec_eval").x, ranges["trec_eval"])
    assert _trace(fig, "trec_eval").marker.color == POLICY_COLORS["trec_eval"]


def test_sample_histogram(sample):
    draws = sample_run_means(sample.tables["TREMA-all"], "RR", n_draws=200, seed=3)
    marks = {"trec_eval": 0.6, "expected": 0.55}
    fig = spread_figures.sample_histogram(draws, marks, "RR", title="t", caption="c", bins=25)
    bars = fig.data[0]
    counts, edges = np.histogram(draws, bins=25)
    assert list(bars.y) == counts.tolist() and sum(bars.y) == 200
    assert np.allclose(bars.x, (edges[:-1] + edges[1:]) / 2)
    assert list(_trace(fig, "trec_eval").x) == [0.6, 0.6]
    assert list(_trace(fig, "expected").x) == [0.55, 0.55]
    assert "<sup>c</sup>" in fig.layout.title.text


def test_sweep_figure(sample):
    alphas = alpha_grid(-2, 2, 101)
    sweep = tsrr_sweep(sample.tables, alphas)
    refs = sweep_references(sample.summary)
    fig = tsrr_figures.sweep_figure(sweep, refs, marked_alpha=1.0)
    curve = _trace(fig, "TREMA-all: TsRR")
    assert np.allclose(curve.x, alphas)
    assert np.allclose(curve.y, sweep[sweep["run"] == "TREMA-all"]["value"])
    ref = _trace(fig, "TREMA-all: E[RR]")
    assert ref.y[0] == pytest.approx(refs.set_index(["run", "reference"]).loc[("TREMA-all", "E[RR]"), "value"])
    assert ref.line.color == curve.line.color
    assert fig.layout.xaxis.type == "log"
    assert len(fig.data) == 2 + 6 + 3  # curves, reference lines, the line-style key
    assert sum(bool(t.showlegend is not False) for t in fig.data) == 2 + 3
    assert len(tsrr_figures.sweep_figure(sweep).data) == 2


def test_pathology_figures():
    tied = fully_tied_example(6)
    fig = tsrr_figures.fully_tied_figure(tied)
    assert np.all(np.asarray(_trace(fig, "TsRR").y) == 0)
    example = appended_example(max_appended=20, alpha=2.0)
    fig = tsrr_figures.appended_figure(example, current=7)
    assert np.allclose(_trace(fig, "TsRR(alpha=2)").y, example["TsRR(alpha=2)"])
    marker = _trace(fig, "7 appended")
    assert marker.y[0] == pytest.approx(example["TsRR(alpha=2)"].iloc[7])


def test_learn_figures():
    result = learn.evaluate_toy(learn.SCENARIOS["V8"].frame())
    fig = learn_figures.policy_figure(result.values)
    assert np.allclose(_trace(fig, "expected").x, result.values["expected"])
    assert list(_trace(fig, "trec_eval").y) == result.values["metric"].tolist()
    ranking = learn_figures.ranking_figure(result.ranked("expected"))
    assert list(ranking.data[0].text) == ["d1", "d2", "d3", "d4", "d5"]
    assert len(ranking.layout.shapes) == 1  # one tie group of three
    orderings = learn.enumerate_toy(result, ["RR"])
    fig = learn_figures.orderings_figure(orderings, "RR", result.value("RR"))
    assert sum(fig.data[0].y) == 6
    assert _trace(fig, "mean").x[0] == pytest.approx(4 / 9)
    assert _trace(fig, "closed form").x[0] == pytest.approx(result.value("RR"))
    curve = learn.mtrr_curve(20, 2)
    fig = learn_figures.mtrr_curve_figure(curve, mark_tied=10)
    assert np.allclose(_trace(fig, "MTRR_GRAG").y, curve["MTRR_GRAG"])
