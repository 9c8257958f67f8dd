"""tiedrank.stats.agreement against scikit-learn: Cohen's kappa (three weightings) and the
confusion matrix, per run and per query, on random label data and on the LLMJudge sample."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import cohen_kappa_score, confusion_matrix

from tiedrank.core.data import Qrels, Run
from tiedrank.stats import WEIGHTS, cohen_kappa, judge_agreement, label_problem
from tiedrank.core.validation import InvalidParameterError

pytestmark = pytest.mark.filterwarnings("ignore:A single label was found:UserWarning")
SKLEARN_WEIGHTS = {"unweighted": None, "linear": "linear", "quadratic": "quadratic"}
LLMJUDGE = Path(__file__).resolve().parents[2] / "sample_data" / "llmjudge"


# ---- the oracle: plain Python joins, then sklearn on each set of pairs ------------------------
def _pairs(run: pd.DataFrame, qrels: pd.DataFrame) -> dict[str, tuple[list[int], list[int]]]:
    """{query: (grades, labels)} of the documents both scored and judged (a dict lookup,
    not the library's merge)."""
    grade = {(q, d): int(g) for q, d, g in qrels[["query", "doc", "relevance"]].itertuples(index=False)}
    out: dict[str, tuple[list[int], list[int]]] = {}
    for q, d, s in run[["query", "doc", "score"]].itertuples(index=False):
        if (q, d) in grade:
            grades, labels = out.setdefault(str(q), ([], []))
            grades.append(grade[q, d])
            labels.append(int(s))
    return out


def _by_weights(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.set_index(pd.Index(frame["weights"].astype(str)))


def _sklearn_kappa(grades, labels, weights, labels_arg=None) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)  # one category: NaN, as ours
        return cohen_kappa_score(grades, labels, weights=SKLEARN_WEIGHTS[weights], labels=labels_arg)


def _check_against_sklearn(runs: dict[str, pd.DataFrame], qrels: pd.DataFrame,
                           categories: str = "present") -> None:
    result = judge_agreement(runs, qrels, categories=categories)
    for name, frame in runs.items():
        pairs = _pairs(frame, qrels)
        grades = [g for gs, _ in pairs.values() for g in gs]
        labels = [lab for _, ls in pairs.values() for lab in ls]
        pooled = _by_weights(result.kappa[result.kappa["run"] == name])
        assert int(pooled["n_docs"].iloc[0]) == len(grades)
        assert int(pooled["n_queries"].iloc[0]) == len(pairs)
        run_categories = sorted(set(grades) | set(labels))
        assert result.categories[name].tolist() == run_categories
        if grades:
            np.testing.assert_array_equal(result.confusion_matrix(name).to_numpy(),
                                          confusion_matrix(grades, labels))
        for weights in WEIGHTS:
            expected = _sklearn_kappa(grades, labels, weights) if grades else np.nan
            assert pooled.loc[weights, "kappa"] == pytest.approx(expected, abs=1e-12, nan_ok=True)
        per_query = result.per_query[result.per_query["run"] == name]
        assert sorted(set(per_query["query"])) == sorted(pairs)
        for query, (g, lab) in pairs.items():
            rows = _by_weights(per_query[per_query["query"] == query])
            assert (rows["n_docs"] == len(g)).all()
            np.testing.assert_array_equal(result.confusion_matrix(name, query).to_numpy(),
                                          confusion_matrix(g, lab))
            fixed = run_categories if categories == "run" else None
            for weights in WEIGHTS:
                assert rows.loc[weights, "kappa"] == pytest.approx(
                    _sklearn_kappa(g, lab, weights, fixed), abs=1e-12, nan_ok=True), (name, query, weights)


def _random_case(rng: np.random.Generator, n_runs: int = 3, n_queries: int = 6):
    """Runs of labels and qrels of grades on partly overlapping documents: unjudged scored
    documents, judged unscored ones, gaps in the grade scale, negative grades and labels."""
    grade_scale = [np.arange(4), np.array([0, 2, 3]), np.arange(-1, 3)][int(rng.integers(3))]
    rows = []
    for q in range(n_queries):
        n_docs = int(rng.integers(1, 25))
        grades = rng.choice(grade_scale, n_docs)
        rows += [(f"q{q}", f"d{q}-{i}", int(g)) for i, g in enumerate(grades)]
    qrels = pd.DataFrame(rows, columns=["query", "doc", "relevance"])
    runs = {}
    for r in range(n_runs):
        judged = qrels.sample(frac=rng.uniform(0.3, 1.0), random_state=int(rng.integers(1 << 30)))
        noise = rng.integers(-1, 2, len(judged)) * (rng.random(len(judged)) < 0.4)
        labels = np.clip(judged["relevance"].to_numpy() + noise, -1, 4)
        extra = pd.DataFrame({"query": "q0", "doc": [f"unjudged-{i}" for i in range(3)],
                              "score": rng.integers(0, 4, 3).astype(float)})
        runs[f"judge{r}"] = pd.concat([pd.DataFrame({"query": judged["query"], "doc": judged["doc"],
                                                     "score": labels.astype(float)}), extra],
                                      ignore_index=True).sample(frac=1.0, random_state=r)
    return runs, qrels


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("categories", ["present", "run"])
def test_random_label_runs_match_sklearn(seed, categories):
    runs, qrels = _random_case(np.random.default_rng(seed))
    _check_against_sklearn(runs, qrels, categories)


@settings(max_examples=examples(15, deep=200), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3)),
                min_size=1, max_size=40))
def test_any_small_case_matches_sklearn(triples):
    """(query, grade, label) triples, one document each: single-category queries included."""
    qrels = pd.DataFrame({"query": [f"q{q}" for q, _, _ in triples],
                          "doc": [f"d{i}" for i in range(len(triples))],
                          "relevance": [g for _, g, _ in triples]})
    run = qrels[["query", "doc"]].assign(score=[float(lab) for _, _, lab in triples])
    _check_against_sklearn({"r": run}, qrels)


def test_llmjudge_sample_matches_sklearn():
    """The eight real LLM judges against the NIST grades, read from the bundled files."""
    from tiedrank.io import read_qrels, read_run

    qrels = read_qrels(LLMJUDGE / "qrels.test.txt")
    runs = {p.stem: read_run(p, format="trec_qrels") for p in sorted((LLMJUDGE / "runs").glob("*.txt"))}
    assert len(runs) == 8
    # two judges query by query (sklearn's per-call cost); all eight pooled below
    _check_against_sklearn({n: runs[n].frame for n in ("Olz-gpt4o", "TREMA-all")}, qrels.frame)
    result = judge_agreement(list((LLMJUDGE / "runs").glob("*.txt")), LLMJUDGE / "qrels.test.txt")
    assert set(result.kappa["run"]) == set(runs)  # paths in, names from the files
    assert (result.kappa["n_docs"] == 4423).all() and (result.kappa["n_queries"] == 25).all()
    for name, run in runs.items():
        pairs = run.frame.merge(qrels.frame, on=["query", "doc"])
        for weights in WEIGHTS:
            got = result.kappa[(result.kappa["run"] == name) & (result.kappa["weights"] == weights)]
            assert got["kappa"].item() == pytest.approx(_sklearn_kappa(
                pairs["relevance"], pairs["score"].astype(int), weights), abs=1e-12)


# ---- the kernel on its own --------------------------------------------------------------------
@pytest.mark.parametrize("weights", WEIGHTS)
def test_kernel_on_stacked_matrices_matches_sklearn(weights):
    """One call on a stack of matrices; ``all`` indexes every row (sklearn's labels=)."""
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 4, (20, 5, 5)) * (rng.random((20, 5, 5)) < 0.5)
    counts[0] = 0
    counts[1, :, :] = 0
    counts[1, 2, 2] = 7  # one category only
    counts[2, :, 1] = 0
    counts[2, 1, :] = 0  # a category in the middle unused: "present" and "all" differ
    present, every = cohen_kappa(counts, weights), cohen_kappa(counts, weights, categories="all")
    for i, matrix in enumerate(counts):
        g, lab = np.nonzero(matrix)
        grades, labels = np.repeat(g, matrix[g, lab]), np.repeat(lab, matrix[g, lab])
        if not len(grades):
            assert np.isnan(present[i]) and np.isnan(every[i])
            continue
        assert present[i] == pytest.approx(_sklearn_kappa(grades, labels, weights), abs=1e-12, nan_ok=True)
        assert every[i] == pytest.approx(_sklearn_kappa(grades, labels, weights, list(range(5))),
                                         abs=1e-12, nan_ok=True)
    assert np.isnan(present[1])


def test_a_gap_in_the_scale_changes_only_the_weighted_kappa():
    """Grades {0, 1, 3}: sklearn weighs 1 vs 3 as one step apart (indexes), not two."""
    counts = np.zeros((4, 4))
    counts[0, 0], counts[1, 3], counts[3, 1], counts[3, 3] = 3, 1, 1, 2
    assert cohen_kappa(counts, "unweighted") == pytest.approx(cohen_kappa(counts, "unweighted", categories="all"))
    assert cohen_kappa(counts, "linear") != pytest.approx(cohen_kappa(counts, "linear", categories="all"))


# ---- edge cases ----------------------------------------------------------------------------------
def test_one_category_query_is_nan_as_sklearn_warns():
    qrels = pd.DataFrame({"query": ["q1"] * 3 + ["q2"] * 2, "doc": list("abcde"), "relevance": [2, 2, 2, 0, 1]})
    run = qrels[["query", "doc"]].assign(score=[2.0, 2.0, 2.0, 0.0, 1.0])
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(cohen_kappa_score([2, 2, 2], [2, 2, 2]))
    result = judge_agreement({"r": run}, qrels)
    q1 = result.per_query[result.per_query["query"] == "q1"]
    assert q1["kappa"].isna().all() and (q1["n_docs"] == 3).all()
    assert (result.per_query[result.per_query["query"] == "q2"]["kappa"] == 1.0).all()
    assert result.kappa["kappa"].notna().all()  # pooled: two categories


def test_empty_intersection_gives_nan_a_finding_and_a_warning():
    qrels = pd.DataFrame({"query": "q1", "doc": ["a", "b"], "relevance": [0, 1]})
    judged = pd.DataFrame({"query": "q1", "doc": ["a", "b"], "score": [0.0, 1.0]})
    elsewhere = pd.DataFrame({"query": "q9", "doc": ["x", "y"], "score": [1.0, 0.0]})
    with pytest.warns(UserWarning, match=r"^judge_agreement\(\): run 'elsewhere' of runs= labels no "
                      r"document judged in qrels=.*undefined \(NaN\), over zero documents; pass"):
        result = judge_agreement({"ok": judged, "elsewhere": elsewhere}, qrels)
    rows = result.kappa[result.kappa["run"] == "elsewhere"]
    assert rows["kappa"].isna().all() and (rows["n_docs"] == 0).all() and (rows["n_queries"] == 0).all()
    assert (result.kappa[result.kappa["run"] == "ok"]["kappa"] == 1.0).all()
    assert set(result.per_query["run"]) == {"ok"}
    assert result.confusion[result.confusion["run"] == "elsewhere"].empty
    assert result.confusion_matrix("elsewhere").empty
    kinds = {f.kind for f in result.findings}
    assert {"no_judged_documents", "unjudged_documents"} <= kinds
    assert any("'elsewhere'" in str(f) for f in result.findings)


def test_a_ranker_is_refused_naming_the_run():
    qrels = pd.DataFrame({"query": "q1", "doc": ["a", "b"], "relevance": [0, 1]})
    judge = pd.DataFrame({"query": "q1", "doc": ["a", "b"], "score": [0.0, 1.0]})
    bm25 = judge.assign(score=[12.31, 9.5])
    with pytest.raises(InvalidParameterError, match=r"^judge_agreement\(\): runs= must be label runs"
                                                    r".*run 'bm25' has the score 12.31, not an integer"):
        judge_agreement({"judge": judge, "bm25": bm25}, qrels)
    many = pd.DataFrame({"query": "q1", "doc": [f"d{i}" for i in range(30)], "score": np.arange(30.0)})
    with pytest.raises(InvalidParameterError, match=r"run 'ranks' has 30 distinct scores.*max_labels="):
        judge_agreement({"ranks": many}, qrels)
    with pytest.warns(UserWarning, match="run 'ranks' of runs= labels no document judged in qrels="):
        assert judge_agreement({"ranks": many}, qrels, max_labels=30).kappa["n_docs"].eq(0).all()


@pytest.mark.parametrize(("kwargs", "words"), [
    ({"max_labels": 0}, "max_labels= must be an integer >= 1; got 0"),
    ({"categories": "query"}, "categories= must be one of 'present', 'run'; got 'query'"),
    ({"duplicates": "first"}, "duplicates= must be one of 'error', 'max'; got 'first'")])
def test_bad_options_read_as_everywhere(kwargs, words):
    qrels = pd.DataFrame({"query": "q1", "doc": ["a"], "relevance": [1]})
    with pytest.raises(InvalidParameterError, match=rf"^judge_agreement\(\): {words}"):
        judge_agreement({"r": qrels.rename(columns={"relevance": "score"})}, qrels, **kwargs)


def test_label_problem_accepts_integral_floats_only():
    assert label_problem([0.0, 1.0, -2.0]) is None
    assert "not an integer" in label_problem([1.0, 1e300])
    assert label_problem(np.arange(20.0)) is None and label_problem(np.arange(21.0)) is not None


def test_every_door_of_evaluate_reads_the_same(tmp_path):
    """A file, a Run, a pytrec_eval dict and a frame give one answer (evaluate's readers)."""
    qrels = pd.DataFrame({"query": ["q1"] * 4, "doc": list("abcd"), "relevance": [0, 1, 2, 3]})
    frame = pd.DataFrame({"query": "q1", "doc": list("abcd"), "score": [0.0, 2.0, 2.0, 3.0]})
    path = tmp_path / "judge.txt"
    path.write_text("".join(f"q1 0 {d} {int(s)}\n" for d, s in zip(frame["doc"], frame["score"])))
    qpath = tmp_path / "qrels.txt"
    qpath.write_text("".join(f"q1 0 {d} {g}\n" for d, g in zip(qrels["doc"], qrels["relevance"])))
    values = [judge_agreement(runs, q).kappa["kappa"].tolist() for runs, q in (
        ({"judge": frame}, qrels), ([path], qpath), ({"judge": Run("judge", frame)}, Qrels(qrels)),
        ({"judge": {"q1": dict(zip(frame["doc"], frame["score"]))}}, qrels))]
    assert all(v == pytest.approx(values[0]) for v in values)


# ---- agreement over zero documents says so (issue 40) --------------------------------------
def test_runs_sharing_no_document_with_the_qrels_warn_naming_the_arguments():
    """No (query, doc) in common: kappa is undefined, and the call says so rather than
    handing back a NaN alone; every such run is named, with runs= and qrels=."""
    qrels = pd.DataFrame({"query": "q1", "doc": ["a", "b", "c"], "relevance": [0, 1, 2]})
    other_query = pd.DataFrame({"query": "q2", "doc": ["a", "b"], "score": [1.0, 0.0]})
    other_docs = pd.DataFrame({"query": "q1", "doc": ["x", "y"], "score": [1.0, 0.0]})
    with pytest.warns(UserWarning) as caught:
        result = judge_agreement({"q2": other_query, "xy": other_docs}, qrels)
    messages = [str(w.message) for w in caught if "judge_agreement" in str(w.message)]
    assert messages == ["judge_agreement(): all runs 'q2', 'xy' of runs= label no document judged "
                        "in qrels= (no query and document in common), so their kappa is undefined "
                        "(NaN), over zero documents; pass the qrels their labels were made against, "
                        "or leave them out of runs="]
    assert result.kappa["kappa"].isna().all() and result.kappa["n_docs"].eq(0).all()


def test_runs_with_pairs_do_not_warn_and_equal_sklearn():
    """The warning is about zero documents only: a run with pairs, its grades and labels
    differing, gives sklearn's kappa (the independent computation) and no warning."""
    qrels = pd.DataFrame({"query": ["q1"] * 4 + ["q2"] * 3, "doc": list("abcdefg"),
                          "relevance": [0, 1, 2, 3, 0, 1, 1]})
    judge = pd.DataFrame({"query": ["q1"] * 4 + ["q2"] * 3 + ["q3"], "doc": list("abcdefgh"),
                          "score": [0.0, 2, 2, 3, 1, 1, 0, 3]})
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        result = judge_agreement({"judge": judge}, qrels)
    pooled = _by_weights(result.kappa)
    grades, labels = [0, 1, 2, 3, 0, 1, 1], [0, 2, 2, 3, 1, 1, 0]
    for weights, sk in SKLEARN_WEIGHTS.items():
        assert pooled.loc[weights, "kappa"] == pytest.approx(cohen_kappa_score(grades, labels, weights=sk),
                                                             abs=1e-12)
    assert int(pooled["n_docs"].iloc[0]) == 7


def test_the_llmjudge_sample_agrees_with_sklearn_without_a_warning():
    qrels = pd.read_csv(LLMJUDGE / "qrels.test.txt", sep=" ", header=None,
                        names=["query", "iter", "doc", "relevance"], dtype={"query": str, "doc": str})
    run = pd.read_csv(LLMJUDGE / "runs" / "Olz-gpt4o.txt", sep=" ", header=None,
                      names=["query", "iter", "doc", "score"], dtype={"query": str, "doc": str})
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        result = judge_agreement({"Olz-gpt4o": run.astype({"score": float})}, qrels)
    pairs = run.merge(qrels, on=["query", "doc"])
    pooled = _by_weights(result.kappa)
    for weights, sk in SKLEARN_WEIGHTS.items():
        assert pooled.loc[weights, "kappa"] == pytest.approx(
            cohen_kappa_score(pairs["relevance"], pairs["score"], weights=sk), abs=1e-12)
