"""Tests of the fitted LLM-judge simulator (tiedrank.simulate.judge): the fit against
independent computations, seeded simulation, output scales, recovery of known parameters,
and the messages for bad input."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import tiedrank
from tiedrank.core.data import Qrels, Run
from tiedrank.simulate import JudgeModel, fit_judge

ROOT = Path(__file__).resolve().parents[2]
LLM = ROOT / "sample_data" / "llmjudge"
QRELS = LLM / "qrels.test.txt"


def frames(queries, docs, grades, labels):
    labels_frame = pd.DataFrame({"query": queries, "doc": docs, "score": np.asarray(labels, float)})
    qrels_frame = pd.DataFrame({"query": queries, "doc": docs, "relevance": np.asarray(grades, int)})
    return labels_frame, qrels_frame


def synthetic(seed=0, n_queries=40, per_query=150, mu=(0.0, 1.0, 2.0), tau=(0.5, 1.5, 2.5),
              s_u=0.6, s_a=0.4, s_w=0.25, c=(1.0, 0.8, 1.2)):
    """Labels drawn from the model by numpy directly (not by JudgeModel.simulate)."""
    rng = np.random.default_rng(seed)
    q = np.repeat(np.arange(n_queries), per_query)
    g = rng.choice(len(mu), size=q.size, p=[0.6, 0.25, 0.15])
    u, a, w = (rng.standard_normal(n_queries) for _ in range(3))
    z = s_u * u[q] + np.exp(s_a * a[q]) * np.asarray(mu)[g] \
        + np.asarray(c)[g] * np.exp(s_w * w[q]) * rng.standard_normal(q.size)
    label = np.searchsorted(np.asarray(tau), z)
    return frames([f"q{i}" for i in q], [f"d{i}" for i in range(q.size)], g, label)


@pytest.fixture(scope="module")
def llm_judge() -> tuple[JudgeModel, Qrels]:
    qrels = tiedrank.read_qrels(QRELS)
    # independent effects: a fit several times faster, and the same simulation code paths
    return fit_judge(LLM / "runs" / "Olz-gpt4o.txt", qrels, correlated=False), qrels


# ---- the fit against independent computations -----------------------------------------

def test_saturated_fit_reproduces_the_observed_confusion():
    # two labels, no query effect: P(label 1 | g) = Phi(mu_g - tau) is free per grade, so
    # the MLE's confusion equals the observed proportions
    rng = np.random.default_rng(3)
    g = rng.integers(0, 3, 600)
    label = rng.random(600) < np.array([0.1, 0.45, 0.8])[g]
    labels, qrels = frames(np.repeat(["a", "b", "c"], 200), [f"d{i}" for i in range(600)], g, label)
    model = fit_judge(labels, qrels, effects=(), grade_scales=False)
    conf = model.confusion()
    assert np.allclose(conf["fitted"], conf["observed"], atol=1e-4)
    observed = pd.crosstab(g, label.astype(int), normalize="index").to_numpy().ravel()
    assert np.allclose(conf["observed"], observed)
    # and the log-likelihood is the binomial one at the observed proportions
    p = observed.reshape(3, 2)
    counts = pd.crosstab(g, label.astype(int)).to_numpy()
    assert model.log_likelihood == pytest.approx(float((counts * np.log(p)).sum()), abs=1e-3)


def test_one_grade_fit_reproduces_the_label_distribution():
    # one human grade, K labels, no effects: K - 1 thresholds fit K - 1 frequencies exactly
    label = np.repeat([0, 1, 2, 3], [50, 30, 15, 5])
    labels, qrels = frames(["q"] * 100, [f"d{i}" for i in range(100)], np.zeros(100), label)
    model = fit_judge(labels, qrels, effects=())
    assert np.allclose(model.confusion()["fitted"], [0.5, 0.3, 0.15, 0.05], atol=1e-5)
    tau = model.parameters().set_index("parameter")["estimate"].to_numpy()
    assert np.allclose(tau, stats.norm.ppf([0.5, 0.8, 0.95]), atol=1e-4)


def test_llm_judge_fit_report_and_in_sample_confusion(llm_judge):
    model, qrels = llm_judge
    params = model.parameters()
    assert np.isfinite(params[["estimate", "se"]].to_numpy()).all() and (params["se"] > 0).all()
    conf = model.confusion()
    assert conf.groupby("grade")["tv"].first().median() < 0.05
    # the observed confusion is the crosstab of the raw files
    merged = tiedrank.read_run(LLM / "runs" / "Olz-gpt4o.txt").frame.merge(qrels.frame, on=["query", "doc"])
    cross = pd.crosstab(merged["relevance"], merged["score"], normalize="index")
    assert np.allclose(conf.pivot(index="grade", columns="label", values="observed").to_numpy(),
                       cross.to_numpy())
    text = model.report()
    assert "log-likelihood" in text and "grade 3" in text and "query effects" in text
    effects = model.query_effects()
    assert len(effects) == 25 and np.isfinite(effects[["u", "a", "sigma"]].to_numpy()).all()


def test_recovers_known_parameters_within_their_standard_errors():
    truth = dict(mu=(0.0, 1.0, 2.0), tau=(0.5, 1.5, 2.5), s_u=0.6, s_a=0.4, s_w=0.25, c=(1.0, 0.8, 1.2))
    labels, qrels = synthetic(seed=11, **truth)
    model = fit_judge(labels, qrels)
    params = model.parameters().set_index("parameter")
    true = [1.0, 2.0, 0.5, 1.5, 2.5, 0.6, 0.4, 0.25, 0.8, 1.2, 0.0, 0.0, 0.0]  # rho = 0
    z = (params["estimate"].to_numpy() - true) / params["se"].to_numpy()
    assert np.all(np.abs(z) < 4), params.assign(z=z)


# ---- simulation: seeds and scales ---------------------------------------------------------

def test_same_seed_same_runs_and_another_seed_differs(llm_judge):
    model, qrels = llm_judge
    a = model.simulate(qrels, seed=5, replicates=3)
    b = model.simulate(qrels, seed=5, replicates=3)
    c = model.simulate(qrels, seed=6, replicates=3)
    assert all(x.frame.equals(y.frame) for x, y in zip(a, b))
    assert not a[0].frame["score"].equals(c[0].frame["score"])
    ids = ["query", "doc"]  # the same pairs in the same order (dtypes differ across pandas)
    assert a[0].frame[ids].astype(str).values.tolist() == qrels.frame[ids].astype(str).values.tolist()
    assert set(a[0].frame["score"]) <= set(model.labels)


def test_levels_and_precision_change_only_the_output_scale(llm_judge):
    model, qrels = llm_judge
    kw = dict(seed=9, replicates=2)
    _, own = model.simulate_scores(qrels, **kw)
    _, latent = model.simulate_scores(qrels, precision="float32", **kw)
    _, five = model.simulate_scores(qrels, levels=5, **kw)
    _, bf16 = model.simulate_scores(qrels, precision="bfloat16", **kw)
    for r in range(2):
        order = np.argsort(latent[r], kind="stable")
        for scale in (own[r], five[r], bf16[r]):  # monotone in the one latent
            assert np.all(np.diff(scale[order]) >= 0)
    assert set(np.unique(five)) == {0.0, 1.0, 2.0, 3.0, 4.0}
    # equal-probability cut points of the latent's marginal over the fitted pool: on that
    # pool, with effects from the prior and the parameters held, each label ~1/5
    _, prior = model.simulate_scores(qrels, seed=2, replicates=60, levels=5, new_queries=True,
                                     parameter_uncertainty=False)
    assert np.allclose(np.bincount(prior.astype(int).ravel()) / prior.size, 0.2, atol=0.02)


def test_new_queries_get_effects_from_the_prior(llm_judge):
    model, qrels = llm_judge
    renamed = Qrels(qrels.frame.assign(query="new-" + qrels.frame["query"]))
    keys, scores = model.simulate_scores(renamed, seed=1, replicates=2)
    assert keys["query"].str.startswith("new-").all() and scores.shape == (2, len(qrels))
    # the same draws with new_queries=True on the fitted ids
    _, again = model.simulate_scores(qrels, seed=1, replicates=2, new_queries=True)
    assert np.array_equal(scores, again)


def test_simulated_runs_evaluate(llm_judge):
    model, qrels = llm_judge
    run = model.simulate(qrels, seed=0)
    ev = tiedrank.evaluate(run, qrels, ["nDCG@10", "RR", "P@10"], rel_level=2)
    assert ev.summary["value"].between(0, 1).all()


# ---- bad input ------------------------------------------------------------------------------

def test_labels_of_unjudged_documents_are_named_and_left_out():
    labels, qrels = synthetic(n_queries=4, per_query=60)
    extra = pd.DataFrame({"query": ["q0", "q1"], "doc": ["stray-1", "stray-2"], "score": [3.0, 0.0]})
    with pytest.warns(UserWarning, match=r"2 labelled document\(s\).*\(q0, stray-1\)"):
        model = fit_judge(pd.concat([labels, extra]), qrels, effects=())
    assert any("stray-1" in note for note in model.notes)
    assert int(model.counts.sum()) == len(qrels)


def test_a_single_label_is_refused_with_its_value_and_count():
    labels, qrels = frames(["q"] * 10, [f"d{i}" for i in range(10)], [0, 1] * 5, [2] * 10)
    with pytest.raises(ValueError, match=r"one label \(2\) to all 10"):
        fit_judge(labels, qrels)


def test_a_grade_with_too_few_documents_is_named():
    labels, qrels = synthetic(n_queries=3, per_query=40)
    qrels.loc[qrels.index[:2], "relevance"] = 7
    with pytest.raises(ValueError, match=r"human grade 7 has 2 labelled document\(s\).*min_per_grade=2"):
        fit_judge(labels, qrels)


def test_swapped_arguments_get_the_hint():
    qrels = tiedrank.read_qrels(QRELS)
    run = tiedrank.read_run(LLM / "runs" / "Olz-gpt4o.txt")
    with pytest.raises(TypeError, match=r"labels= got qrels.*fit_judge\(labels, qrels\)"):
        fit_judge(qrels, run)
    with pytest.raises(TypeError, match=r"qrels= got a run"):
        fit_judge(LLM / "runs" / "Olz-gpt4o.txt", run)
    trec = ROOT / "sample_data" / "trec_eval"
    with pytest.raises(TypeError, match=r"labels= holds a qrels file"):
        fit_judge(str(trec / "qrels.test"), str(trec / "results.test"))
    # a label file is qrels-shaped (qid iter docno label): beside a run as qrels, a swap
    with pytest.raises(TypeError, match=r"labels= holds a qrels file"):
        fit_judge(LLM / "runs" / "Olz-gpt4o.txt", str(trec / "results.test"))
    # a run file as qrels, beside labels that are not a file: the reader's words, and the order
    with pytest.raises(tiedrank.InputError, match=r"labels first"):
        fit_judge(run, str(trec / "results.test"))


def test_stray_labels_are_categories_with_a_note_and_no_nan():
    labels, qrels = synthetic(n_queries=6, per_query=80)
    labels.loc[labels.index[:3], "score"] = 10.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning from the fit
        model = fit_judge(labels, qrels, correlated=False)
    assert model.labels[-1] == 10.0 and any("10 (3 document(s))" in n for n in model.notes)
    assert np.isfinite(model.parameters()[["estimate", "se"]].to_numpy()).all()
    assert set(model.simulate(qrels, seed=0).frame["score"]) <= set(model.labels)


def test_a_grade_labelled_all_one_way_fits_without_nan():
    labels, qrels = synthetic(n_queries=5, per_query=60)
    labels.loc[qrels["relevance"] == 2, "score"] = 3.0  # grade 2 always the top label
    model = fit_judge(labels, qrels, correlated=False)
    assert np.isfinite(model.parameters()[["estimate", "se"]].to_numpy()).all()


def test_bad_arguments_name_what_to_pass(llm_judge):
    model, qrels = llm_judge
    with pytest.raises(ValueError, match="effects= must be"):
        fit_judge(LLM / "runs" / "Olz-gpt4o.txt", qrels, effects=("mood",))
    with pytest.raises(ValueError, match="precision= must be"):
        model.simulate(qrels, seed=0, precision="int8")
    with pytest.raises(ValueError, match="replicates= must be"):
        model.simulate(qrels, seed=0, replicates=0)
    with pytest.raises(ValueError, match=r"grade\(s\) 9"):
        model.simulate(Qrels(qrels.frame.assign(relevance=9)), seed=0)
    with pytest.raises(TypeError, match="qrels= got a run"):
        model.simulate(Run("r", pd.DataFrame({"query": ["q"], "doc": ["d"], "score": [1.0]})), seed=0)
