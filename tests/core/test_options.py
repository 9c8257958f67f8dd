"""One options value behind every door: each option is checked once, and a bad one reads
the same through the CLI (one pass and --buckets: its flag), Python (its argument) and
tiedrank.distributed; and the trec_eval column is trec_eval's mean (pytrec_eval's)."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from tiedrank import distributed, evaluate
from tiedrank.core.options import EvaluationOptions
from tiedrank.core.validation import InvalidParameterError

QRELS = ("a 0 a1 1\na 0 a2 0\na 0 a3 2\nb 0 b1 0\nb 0 b2 0\nc 0 c1 0\n"
         "d 0 d1 1\ne 0 e1 1\ne 0 e2 2\n")
"""a, e: relevant documents; b, c: judged, none relevant; d: the run misses it."""
RUN = ("a Q0 a2 1 2.0 r\na Q0 a1 2 2.0 r\na Q0 aX 3 1.0 r\na Q0 a3 4 0.5 r\n"
       "b Q0 b1 1 1.0 r\nb Q0 b2 2 1.0 r\nc Q0 c9 1 3.0 r\n"
       "e Q0 e1 1 1.0 r\ne Q0 e9 2 1.0 r\ne Q0 e2 3 1.0 r\nx Q0 x1 1 1.0 r\n")
"""Ties in a and e, two zero-relevant queries (b, c), a run query not in the qrels (x)."""


@pytest.fixture()
def files(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    return str(tmp_path / "qrels"), str(tmp_path / "run")


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tiedrank", *args], capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("flags, message", [
    (["-M", "0"], "-M/--depth must be an integer >= 1 or None; got 0"),
    (["--round", "16"], "--round must be an integer in [0, 15] or None; got 16"),
    (["--rel-level", "0"], "--rel-level must be an integer >= 1 and <= 2,147,483,647 (grade >= "
                            "level is relevant); got 0"),
    (["--ties", "median"], "--ties must be one of 'expected'"),
])
@pytest.mark.parametrize("door", [[], ["--buckets", "2"]], ids=["one pass", "buckets"])
def test_a_bad_option_is_one_line_naming_the_flag_at_every_door(files, flags, message, door):
    done = _cli("evaluate", *files, "-m", "RR", *flags, *door)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("tiedrank: error: " + message), done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("function", [evaluate, distributed.evaluate])
@pytest.mark.parametrize("argument, value", [("depth", 0), ("round", 16), ("query_set", "all"),
                                             ("complete", "yes"), ("duplicates", "min")])
def test_python_doors_name_the_argument(files, function, argument, value):
    with pytest.raises(InvalidParameterError, match=rf"^evaluate\(\): {argument}= must be "):
        function(files[1], files[0], ["RR"], **{argument: value})


def test_options_are_one_frozen_value():
    options = EvaluationOptions(ties=["all", "random(seed=3)"], columns={"score": "s"})
    assert options.ties == ("all", "random(seed=3)") and options.columns == (("score", "s"),)
    assert options.policy_labels == ["expected", "best", "worst", "trec_eval",
                                     "random(seed=3)"]
    assert hash(options) == hash(EvaluationOptions(ties=("all", "random(seed=3)"),
                                                   columns=(("score", "s"),)))
    with pytest.raises(InvalidParameterError, match="columns= must be a mapping whose keys"):
        EvaluationOptions(columns={"grade": "g"})


def _pytrec_eval(qrels: str, run: str, measures: set[str], level: int = 1) -> dict:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    judged: dict = {}
    for line in qrels.splitlines():
        q, _, d, g = line.split()
        judged.setdefault(q, {})[d] = int(g)
    ranked: dict = {}
    for line in run.splitlines():
        q, _, d, _, s, _ = line.split()
        ranked.setdefault(q, {})[d] = float(s)
    return pytrec_eval.RelevanceEvaluator(judged, measures, relevance_level=level).evaluate(ranked)


@pytest.mark.parametrize("door", [[], ["--buckets", "3"]], ids=["one pass", "buckets"])
def test_the_trec_eval_column_is_trec_eval_s_mean(files, door):
    """trec_eval averages over the queries with results and judgements (b and c, without a
    relevant document, count as 0); -c adds d (missed) as 0. pytrec_eval is trec_eval's C."""
    theirs = _pytrec_eval(QRELS, RUN, {"recip_rank", "map", "P_10", "ndcg_cut_10"})
    names = {"RR": "recip_rank", "AP": "map", "P@10": "P_10", "nDCG@10": "ndcg_cut_10"}
    assert sorted(theirs) == ["a", "b", "c", "e"]
    for complete in ([], ["-c"]):
        done = _cli("evaluate", *files, *[f"-m{m}" for m in names], "--ties", "trec_eval",
                    "--format", "json", "--digits", "15", *complete, *door)
        assert done.returncode == 0, done.stderr
        import json
        rows = json.loads(done.stdout)
        for row in rows:
            values = [theirs[q][names[row["metric"]]] for q in sorted(theirs)]
            if complete:
                values.append(0.0)  # d, the qrels query the run misses
            assert row["queries"] == len(values)
            assert row["trec_eval"] == pytest.approx(np.mean(values), abs=1e-12), row
    trec = _cli("evaluate", *files, "-m", "RR", "--format", "trec_eval", "-q", *door)
    lines = dict(line.split("\t")[1:] for line in trec.stdout.splitlines())
    assert set(lines) == {"a", "b", "c", "e", "all"}  # the trec_eval policy by default
    assert float(lines["all"]) == pytest.approx(np.mean([v["recip_rank"] for v in theirs.values()]),
                                                abs=5e-5)


def test_relevant_only_query_set_and_a_metric_that_keeps_its_row(files):
    ev = evaluate(files[1], files[0], ["RR", "AP"], ties="all", query_set="relevant")
    assert set(ev.per_query["query"]) == {"a", "e"}
    nobody = evaluate(files[1], files[0], ["RR"], rel_level=9, query_set="relevant")
    assert nobody.per_query.empty and nobody.summary["n_queries"].tolist() == [0]
    assert len(nobody.report()) == 1  # the metric keeps its row (NaN: no query counts)


# ---- the relevance level: one check, one bound, one wording ---------------------------------
LEVEL_RULE = "an integer >= 1 and <= 2,147,483,647 (grade >= level is relevant)"


def _legacy_table(run, qrels, level):
    import warnings

    from tiedrank import build_tie_table

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the loose keyword, deprecated
        return build_tie_table(run, qrels, rel_level=level)


@pytest.mark.parametrize("level", [0, -1, 2**31, 2.0, True, "2"])
def test_a_relevance_level_is_checked_once_in_the_same_words_everywhere(level):
    # before: build_tie_table said "rel_level must be an integer >= 1, got 0", RR(rel=) "an
    # integer >= 1 (grade >= rel is relevant)", enumerate_orderings took 0 (everything
    # relevant), and Python took 2**31 while the dashboard's link stopped at 100
    import pandas as pd

    from tiedrank import Qrels, Run
    from tiedrank.metrics import Metric
    from tiedrank.sampling import enumerate_orderings

    run = Run("r", pd.DataFrame({"query": "q", "doc": ["a"], "score": [1.0]}))
    qrels = Qrels(pd.DataFrame({"query": ["q"], "doc": ["a"], "relevance": [1]}))
    doors = {
        "rel_level=": lambda: EvaluationOptions(rel_level=level),
        "evaluate(): rel_level=": lambda: evaluate({"r": run.frame}, qrels.frame, "RR",
                                                   rel_level=level),
        "build_tie_table(): rel_level=": lambda: _legacy_table(run, qrels, level),
        "metric 'RR': rel=": lambda: Metric("RR", rel=level),
        "enumerate_orderings(): rel_level=": lambda: enumerate_orderings(
            [1.0], [1], "RR", rel_level=level),
    }
    for where, door in doors.items():
        with pytest.raises(InvalidParameterError) as caught:
            door()
        assert str(caught.value) == f"{where} must be {LEVEL_RULE}; got {level!r}"
    if isinstance(level, int) and not isinstance(level, bool):  # typed in a metric's name
        from tiedrank.metrics import parse_metric

        with pytest.raises(InvalidParameterError) as caught:
            parse_metric(f"RR(rel={level})")
        assert str(caught.value) == f"metric 'RR(rel={level})': rel= must be {LEVEL_RULE}; got {level}"


def test_the_largest_level_is_the_largest_grade_and_every_door_takes_it():
    from tiedrank.core.validation import MAX_REL_LEVEL
    from tiedrank.dashboard.settings import settings_from_params
    from tiedrank.io.columns import MAX_GRADE
    from tiedrank.metrics import parse_metric

    assert MAX_REL_LEVEL == MAX_GRADE  # a level no qrels grade reaches would be pointless
    assert EvaluationOptions(rel_level=MAX_REL_LEVEL).rel_level == MAX_REL_LEVEL
    assert parse_metric(f"RR(rel={MAX_REL_LEVEL})").rel == MAX_REL_LEVEL
    # the dashboard's link takes what Python takes (it stopped at 100), and drops the rest
    for level, kept in ((150, True), (MAX_REL_LEVEL, True), (MAX_REL_LEVEL + 1, False), (0, False)):
        assert ("rel_level" in settings_from_params({"rel": str(level)}, [], {})) == kept, level
