"""``tiedrank.Evaluator``: made once, called on many runs, each giving what ``tiedrank.evaluate``
gives, bit for bit (per_query, summary, report, findings), its warnings and errors word for
word; and the one-pass reader of plain ``{query: {doc: score}}`` dicts behind its fast path."""
from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tiedrank
from hypothesis_profiles import examples
from tiedrank import Evaluator, Qrels, Run, evaluate, read_run
from tiedrank.core.validation import InvalidParameterError
from tiedrank.io.plain_runs import read_plain_run

METRICS = ["RR", "nDCG@10", "P@10", "AP"]
MORE = [*METRICS, "R@5", "Rprec", "bpref", "RR(rel=2)", "nDCG@5", "Best(AP)", "num_rel_ret"]
POLICY_SETS = ["all", "expected", ["input", "random"], "random(seed=3)", ["trec_eval", "best"]]


def assert_same(mine, theirs) -> None:
    """The two evaluations hold the same numbers, bit for bit, and say the same."""
    pd.testing.assert_frame_equal(mine.per_query, theirs.per_query, check_exact=True)
    pd.testing.assert_frame_equal(mine.summary, theirs.summary, check_exact=True)
    pd.testing.assert_frame_equal(mine.report(), theirs.report(), check_exact=True)
    assert mine.findings == theirs.findings
    assert mine.metrics == theirs.metrics and mine.policies == theirs.policies
    assert mine.options == theirs.options


@st.composite
def tied_case(draw):
    """qrels and a run as dicts: a few queries (some only in one of them), documents judged
    or not, grades -1..3, scores in few levels (many ties)."""
    n_queries = draw(st.integers(1, 5))
    levels = draw(st.integers(1, 4))
    qrels: dict = {}
    run: dict = {}
    for q in range(n_queries):
        docs = [f"d{d}" for d in range(draw(st.integers(1, 14)))]
        judged = draw(st.lists(st.sampled_from(docs), unique=True, max_size=len(docs)))
        grades = draw(st.lists(st.integers(-1, 3), min_size=len(judged), max_size=len(judged)))
        if judged and draw(st.integers(0, 5)):  # a query only the run has, now and then
            qrels[f"q{q}"] = dict(zip(judged, grades))
        if draw(st.integers(0, 5)):  # a query only the qrels have, now and then
            run[f"q{q}"] = {d: draw(st.integers(0, levels - 1)) / levels for d in docs}
    if not qrels:
        qrels["q0"] = {"d0": 1}
    if not run:
        run["q0"] = {"d0": 1.0, "d1": 1.0}
    return qrels, run


OPTIONS = st.fixed_dictionaries({}, optional={
    "rel_level": st.integers(1, 2), "judged_only": st.booleans(),
    "depth": st.integers(1, 8), "complete": st.booleans(),
    "query_set": st.sampled_from(["trec_eval", "relevant"]), "round": st.integers(0, 1)})


@settings(max_examples=examples(40, deep=300), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(case=tied_case(), options=OPTIONS, ties=st.sampled_from(POLICY_SETS),
       form=st.sampled_from(["dict", "frame", "Run"]))
def test_the_numbers_of_evaluate_bit_for_bit(case, options, ties, form):
    qrels, run = case
    source = {"dict": run, "frame": read_run(run).frame, "Run": read_run(run)}[form]
    ev = Evaluator(qrels, MORE, ties=ties, **options)
    with warnings.catch_warnings(record=True) as theirs_said:
        warnings.simplefilter("always")
        theirs = evaluate(source, qrels, MORE, ties=ties, **options)
    with warnings.catch_warnings(record=True) as mine_said:
        warnings.simplefilter("always")
        mine = ev(source)
    assert_same(mine, theirs)
    assert [str(w.message) for w in mine_said] == [str(w.message) for w in theirs_said]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(ev.evaluate(source), theirs)  # the same again: nothing kept from the last


def test_many_runs_one_evaluator_and_every_form_of_runs():
    rng = np.random.default_rng(7)
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in range(30)} for q in range(20)}
    ev = Evaluator(qrels, METRICS, ties="all", rel_level=2, depth=20)
    runs = [{q: {f"d{d}": float(rng.integers(0, 4)) for d in range(40)} for q in qrels}
            for _ in range(4)]
    for run in runs:  # a training loop's runs, one after another
        assert_same(ev(run), evaluate(run, qrels, METRICS, ties="all", rel_level=2, depth=20))
    for several in ({"a": runs[0], "b": runs[1]}, [read_run(runs[2], name="x"), read_run(runs[3])]):
        assert_same(ev(several), evaluate(several, qrels, METRICS, ties="all", rel_level=2,
                                          depth=20))


def test_qrels_from_a_file_a_frame_and_a_qrels_object():
    qrels_path, run_path = "sample_data/trec_eval/qrels.test", "sample_data/trec_eval/results.test"
    frame = read_run(run_path).frame
    theirs = evaluate(run_path, qrels_path, ["all_trec"], ties="all")
    theirs_frame = evaluate(frame, qrels_path, ["all_trec"], ties="all")
    for qrels in (qrels_path, tiedrank.read_qrels(qrels_path), tiedrank.read_qrels(qrels_path).frame):
        ev = Evaluator(qrels, ["all_trec"], ties="all")
        assert_same(ev(run_path), theirs)
        assert_same(ev(frame), theirs_frame)


def test_the_qrels_are_read_once_later_changes_unseen():
    frame = pd.DataFrame({"query": ["q", "q"], "doc": ["a", "b"], "relevance": [1, 0]})
    ev = Evaluator(frame, ["RR"])
    before = evaluate({"q": {"a": 1.0, "b": 2.0}}, frame.copy(), ["RR"])
    frame.loc[1, "relevance"] = 1
    assert_same(ev({"q": {"a": 1.0, "b": 2.0}}), before)
    qrels = Qrels(frame)
    ev = Evaluator(qrels, ["RR"])
    qrels.frame.loc[1, "relevance"] = 0
    assert ev({"q": {"a": 1.0, "b": 2.0}}).summary["value"].tolist() == [1.0]


# --- bad input: what evaluate does, through both ----------------------------------------

QRELS = {"q1": {"a": 1, "b": 0}, "q2": {"c": 2}}


def both(run, metrics=("RR",), **options):
    """(evaluate's, the Evaluator's) evaluations and their warnings' messages."""
    out = []
    for call in (lambda: evaluate(run, QRELS, list(metrics), **options),
                 lambda: Evaluator(QRELS, list(metrics), **options)(run)):
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            out.append((call(), [str(w.message) for w in said]))
    return out


def test_a_run_sharing_no_query_warns_as_evaluate_does():
    (theirs, theirs_said), (mine, mine_said) = both({"x1": {"a": 1.0}, "x2": {"b": 1.0}})
    assert_same(mine, theirs)
    assert mine_said == theirs_said and len(mine_said) == 1
    assert "shares no query with qrels=" in mine_said[0] and "'x1', 'x2'" in mine_said[0]
    (theirs, _), (mine, _) = both({"x1": {"a": 1.0}, "q1": {"a": 1.0}})  # some: a finding
    assert_same(mine, theirs)
    assert [f.kind for f in mine.findings][:1] == ["queries_not_in_qrels"]


def test_a_never_judged_document_counts_as_evaluate_counts_it():
    (theirs, _), (mine, _) = both({"q1": {"new": 3.0, "a": 2.0, "b": 2.0}, "q2": {"new": 1.0}},
                                  METRICS, ties="all")
    assert_same(mine, theirs)
    unjudged = [f for f in mine.findings if f.kind == "unjudged_documents"]
    assert len(unjudged) == 1 and unjudged[0].count == 2


@pytest.mark.parametrize("metrics", [["nDCG@x"], [], "no_such_metric", None, ["RR", 3]])
def test_a_metric_list_it_cannot_compute_fails_as_evaluate_fails(metrics):
    with pytest.raises(Exception) as theirs:
        evaluate({"q1": {"a": 1.0}}, QRELS, metrics)
    with pytest.raises(type(theirs.value), match=re.escape(str(theirs.value))):
        Evaluator(QRELS, metrics)


@pytest.mark.parametrize("options", [{"ties": "bogus"}, {"rel_level": "2"}, {"depth": 0},
                                     {"query_set": "all"}, {"gain": "exp", "rel_level": 1.5}])
def test_bad_options_fail_with_evaluate_s_message(options):
    with pytest.raises(InvalidParameterError) as theirs:
        evaluate({"q1": {"a": 1.0}}, QRELS, ["RR"], **options)
    with pytest.raises(InvalidParameterError, match=re.escape(str(theirs.value))):
        Evaluator(QRELS, ["RR"], **options)


@pytest.mark.parametrize("run", [
    {"q1": {"a": float("nan")}}, {"q1": {"a": "high"}}, {"q1": {" a": 1.0}}, {"q1": {"": 1.0}},
    {"q1": {"a": None}}, {"q1": {}}, {1: {"a": 1.0}}, {"q1": {"a": True}}, [("q1", "a")]])
def test_runs_off_the_fast_path_behave_as_in_evaluate(run):
    try:
        with warnings.catch_warnings(record=True) as theirs_said:
            warnings.simplefilter("always")
            theirs = evaluate(run, QRELS, ["RR"])
    except Exception as error:  # noqa: BLE001 - whatever evaluate raises, the Evaluator raises
        with pytest.raises(type(error), match=re.escape(str(error))):
            Evaluator(QRELS, ["RR"])(run)
    else:
        with warnings.catch_warnings(record=True) as mine_said:
            warnings.simplefilter("always")
            assert_same(Evaluator(QRELS, ["RR"])(run), theirs)
        assert [str(w.message) for w in mine_said] == [str(w.message) for w in theirs_said]


@pytest.mark.parametrize("columns", [{"score": "s"}, {"query": "query"}])
def test_a_columns_mapping_reads_a_dict_as_evaluate_reads_it(columns):
    run = {"q1": {"a": 1.0, "b": 2.0}}
    try:
        theirs = evaluate(run, QRELS, ["RR"], columns=columns)
    except Exception as error:  # noqa: BLE001
        with pytest.raises(type(error), match=re.escape(str(error))):
            Evaluator(QRELS, ["RR"], columns=columns)(run)
    else:
        assert_same(Evaluator(QRELS, ["RR"], columns=columns)(run), theirs)


def test_ranx_order_refused_as_evaluate_refuses_it():
    qrels = tiedrank.read_qrels(QRELS)
    with pytest.raises(TypeError) as theirs:
        evaluate(qrels, QRELS, ["RR"])
    with pytest.raises(TypeError, match=re.escape(str(theirs.value))):
        Evaluator(QRELS, ["RR"])(qrels)
    with pytest.raises(TypeError, match="qrels= got a run"):
        Evaluator(read_run({"q1": {"a": 1.0}}), ["RR"])


# --- the fast path's reader ---------------------------------------------------------------

@settings(max_examples=examples(60, deep=400), deadline=None)
@given(st.dictionaries(st.text(min_size=1, max_size=3), st.dictionaries(
    st.text(min_size=1, max_size=3), st.one_of(st.integers(-10**6, 10**6), st.floats(allow_nan=False)),
    min_size=1, max_size=5), min_size=1, max_size=4))
def test_plain_run_is_read_run_s_or_none(nested):
    plain = read_plain_run(nested)
    try:
        theirs = read_run(nested)
    except Exception:  # noqa: BLE001
        assert plain is None  # what read_run refuses never takes the fast path
        return
    if plain is not None:
        pd.testing.assert_frame_equal(plain.frame, theirs.frame, check_exact=True)
        assert (plain.name, plain.source, plain.findings) == (theirs.name, theirs.source,
                                                              theirs.findings)
        assert all(type(a) is type(b) for a, b in zip(plain.frame.dtypes, theirs.frame.dtypes))


def test_exported_from_tiedrank():
    assert "Evaluator" in tiedrank.__all__ and tiedrank.Evaluator is Evaluator
    assert isinstance(read_plain_run({"q": {"d": 1}}), Run)
