"""Every per-query value is a function of (run name, query, seed) alone.

The same bits whatever the file order of the run, whatever other queries share the table,
and however the queries are partitioned; summaries identical however they are split. The
oracle is the evaluation itself on a differently laid-out copy of the same data: any
dependence on the layout shows up as a differing bit in the 17-digit CSV.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tiedrank import Qrels, Run, build_tie_table, evaluate
from tiedrank.core.hashing import bucket_of
from tiedrank.metrics import first_relevant_pmf
from tiedrank.evaluation.summaries import partial_summary
from tiedrank.core.summation import SUMMARY_KEYS, exact_sums

METRICS = ["RR", "RR@10", "Success@5", "P@10", "R@10", "AP", "AP@10", "nDCG", "nDCG@10",
           "DCG@10", "Rprec", "TsRR", "TsRR2", "MTRR_GRAG", "TMHits_GRAG@10"]
POLICIES = ["expected", "best", "worst", "trec_eval", "input", "random(seed=3)",
            "random(seed=-8)"]
WITHOUT_INPUT = [p for p in POLICIES if p != "input"]


def _tied_data(n_queries: int = 120, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A run with heavy ties (3-6 score levels, groups of up to ~60) and graded qrels."""
    rng = np.random.default_rng(seed)
    run_rows, qrels_rows = [], []
    for q in range(n_queries):
        qid = f"q{q:03d}"
        n_docs = int(rng.integers(5, 90))
        docs = [f"d{int(d)}" for d in rng.choice(10_000, n_docs, replace=False)]
        levels = int(rng.integers(2, 7))
        scores = np.round(rng.integers(0, levels, n_docs) / levels, 3)
        run_rows += [(qid, d, s) for d, s in zip(docs, scores)]
        judged = rng.choice(n_docs, int(rng.integers(1, n_docs)), replace=False)
        grades = rng.integers(-1, 4, len(judged))
        qrels_rows += [(qid, docs[j], int(g)) for j, g in zip(judged, grades)]
        qrels_rows.append((qid, f"unretrieved{q}", int(rng.integers(0, 3))))
    run = pd.DataFrame(run_rows, columns=["query", "doc", "score"])
    qrels = pd.DataFrame(qrels_rows, columns=["query", "doc", "relevance"])
    return run, qrels


RUN, QRELS = _tied_data()


def _per_query(run: pd.DataFrame, qrels: pd.DataFrame, ties=POLICIES, name="sys") -> pd.DataFrame:
    ev = evaluate({name: run}, qrels, METRICS, ties=ties, gain="exp")
    return ev.per_query


def _csv(frame: pd.DataFrame) -> str:
    """Canonical 17-significant-digit CSV of per-query rows (sorted, so order is no issue)."""
    ordered = frame.astype({"run": str, "metric": str, "policy": str}).sort_values(
        ["run", "metric", "policy", "query"], kind="stable")
    return ordered.to_csv(index=False, float_format="%.17g")


def test_shuffled_lines_give_identical_bits_for_every_policy_but_file_order():
    shuffled = RUN.sample(frac=1.0, random_state=11).reset_index(drop=True)
    assert not shuffled["doc"].equals(RUN["doc"])
    one, two = _per_query(RUN, QRELS, WITHOUT_INPUT), _per_query(shuffled, QRELS, WITHOUT_INPUT)
    assert _csv(one) == _csv(two)
    # the random policy really breaks ties differently from the file order (not a no-op)
    random = one[one["policy"] == "random(seed=3)"]["value"].to_numpy()
    file_order = _per_query(RUN, QRELS, ["input"])["value"].to_numpy()
    assert (random != file_order).sum() > 50


def test_interleaved_queries_give_identical_bits_for_every_policy():
    """Lines of different queries interleaved, each query's own lines in file order: even
    the ``input`` policy (which is the file order inside a query) must not change."""
    rng = np.random.default_rng(5)
    key = rng.random(len(RUN))
    # sort by a random key per line, but keep each query's lines in their relative order
    position = np.empty(len(RUN))
    for index in RUN.groupby("query", sort=False).indices.values():
        position[index] = np.sort(key[index])
    interleaved = RUN.iloc[np.argsort(position, kind="stable")].reset_index(drop=True)
    assert not interleaved["query"].equals(RUN["query"])
    docs_of = lambda frame: frame.groupby("query")["doc"].agg(list).to_dict()
    assert docs_of(interleaved) == docs_of(RUN)
    assert _csv(_per_query(RUN, QRELS)) == _csv(_per_query(interleaved, QRELS))


@pytest.mark.parametrize("query", ["q000", "q007", "q058", "q119"])
def test_a_query_alone_has_the_bits_it_has_among_others(query):
    together = _per_query(RUN, QRELS)
    alone = _per_query(RUN[RUN["query"] == query], QRELS[QRELS["query"] == query])
    assert _csv(together[together["query"] == query]) == _csv(alone)


def test_partitions_give_identical_rows_and_summaries():
    """Split the queries in 4 buckets by hash: rows concatenated = one pass, and the exact
    partial sums of the buckets combine to the one-pass summary, bit for bit."""
    whole = evaluate({"sys": RUN}, QRELS, METRICS, ties=POLICIES)
    run_bucket = bucket_of(RUN["query"].to_numpy(dtype=object), 4)
    qrels_bucket = bucket_of(QRELS["query"].to_numpy(dtype=object), 4)
    parts, partials = [], []
    for b in range(4):
        part = evaluate({"sys": RUN[run_bucket == b]}, QRELS[qrels_bucket == b], METRICS,
                        ties=POLICIES)
        parts.append(part.per_query)
        partials.append(partial_summary(part.per_query))
    assert _csv(pd.concat(parts)) == _csv(whole.per_query)
    combined = {}
    for groups, sums in partials:
        for key, s in zip(groups[SUMMARY_KEYS].itertuples(index=False), sums):
            combined[tuple(key)] = combined.get(tuple(key), s.__class__()) + s
    for row in whole.summary.itertuples(index=False):
        assert combined[(row.run, row.metric, row.policy)].mean() == row.value


def test_summary_is_the_correctly_rounded_mean():
    from fractions import Fraction

    ev = evaluate({"sys": RUN}, QRELS, ["AP", "nDCG@10"], ties=["expected", "random(seed=1)"])
    for row in ev.summary.itertuples(index=False):
        values = ev.per_query.loc[(ev.per_query["metric"] == row.metric)
                                  & (ev.per_query["policy"] == row.policy), "value"]
        exact = sum(map(Fraction, values)) / len(values)
        assert row.value == float(exact)
        assert row.n_queries == len(values)


def test_exact_sums_do_not_depend_on_order():
    rng = np.random.default_rng(2)
    values = rng.random(5000) * 10.0 ** rng.integers(-12, 12, 5000)
    groups = rng.integers(0, 5, 5000)
    order = rng.permutation(5000)
    assert exact_sums(groups, values, 5) == exact_sums(groups[order], values[order], 5)


def test_first_relevant_pmf_of_a_query_ignores_its_neighbours():
    """Long pmf segments before a query (4 queries of 4,000 tied documents, half relevant:
    log-probabilities summing to thousands) used to shift its last bits through one
    whole-table cumulative sum (465 of 816 probabilities differed, by up to 1.1e-16)."""
    rng = np.random.default_rng(0)
    run_rows, qrels_rows = [], []
    for q in range(20):
        t, r = int(rng.integers(20, 60)), int(rng.integers(2, 6))
        run_rows += [(f"z{q:02d}", f"z{q}_{i}", 1.0) for i in range(t)]
        qrels_rows += [(f"z{q:02d}", f"z{q}_{i}", 1) for i in rng.choice(t, r, replace=False)]
    target = pd.DataFrame(run_rows, columns=["query", "doc", "score"])
    target_qrels = pd.DataFrame(qrels_rows, columns=["query", "doc", "relevance"])
    big = pd.DataFrame({"query": np.repeat([f"a{q}" for q in range(4)], 4000),
                        "doc": [f"x{i}" for i in range(16_000)], "score": 0.5})
    big_qrels = pd.DataFrame({"query": big["query"][::2], "doc": big["doc"][::2],
                              "relevance": 1})
    alone = build_tie_table(Run("r", target), Qrels(target_qrels))
    crowd = build_tie_table(Run("r", pd.concat([big, target])),
                            Qrels(pd.concat([big_qrels, target_qrels])))
    pmf_alone, pmf_crowd = first_relevant_pmf(alone), first_relevant_pmf(crowd)
    mine = np.isin(pmf_crowd.query, np.searchsorted(crowd.queries, alone.queries))
    assert np.array_equal(pmf_alone.probability.view(np.uint64),
                          pmf_crowd.probability[mine].view(np.uint64))
    assert np.array_equal(pmf_alone.rank, pmf_crowd.rank[mine])


def test_random_order_depends_on_seed_and_run_name():
    run = RUN[RUN["query"] == "q001"]
    qrels = QRELS[QRELS["query"] == "q001"]
    table = build_tie_table(Run("a", run), Qrels(qrels))
    renamed = build_tie_table(Run("b", run), Qrels(qrels))
    order = table.policy_order("random", 1)
    assert not np.array_equal(order, table.policy_order("random", 2))
    assert not np.array_equal(order, renamed.policy_order("random", 1))
    assert np.array_equal(order, table.policy_order("random", 1))


def test_random_order_is_the_same_in_another_process():
    """The random keys come from a fixed-key hash, not Python's per-process salted hash."""
    code = ("import pandas as pd, sys; sys.path.insert(0, {root!r});"
            "from tests.test_layout_independence import RUN, QRELS, _per_query, _csv;"
            "print(_csv(_per_query(RUN[RUN['query'] < 'q010'], QRELS[QRELS['query'] < 'q010'],"
            " ['random(seed=3)'])), end='')")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    here = _csv(_per_query(RUN[RUN["query"] < "q010"], QRELS[QRELS["query"] < "q010"],
                           ["random(seed=3)"]))
    for hash_seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed, PYTHONPATH=root)
        out = subprocess.run([sys.executable, "-c", code.format(root=root)], env=env,
                             capture_output=True, text=True, check=True, cwd=root).stdout
        assert out == here


def _crowded(target_run: pd.DataFrame, target_qrels: pd.DataFrame, seed: int = 4
             ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``target`` after 4 queries of 3,000 graded documents in tie groups of ~10 (their
    running sums reach the thousands, so a sum carried across queries shifts the target's
    last bits)."""
    rng = np.random.default_rng(seed)
    n = 3000
    big = pd.DataFrame({"query": np.repeat([f"a{q}" for q in range(4)], n),
                        "doc": [f"x{i}" for i in range(4 * n)],
                        "score": rng.integers(0, n // 10, 4 * n).astype(float)})
    judged = rng.random(4 * n) < 0.7
    big_qrels = pd.DataFrame({"query": big["query"][judged], "doc": big["doc"][judged],
                              "relevance": rng.integers(-1, 4, int(judged.sum()))})
    return pd.concat([big, target_run]), pd.concat([big_qrels, target_qrels])


@pytest.mark.parametrize("ties", [["expected", "trec_eval"], ["best", "worst"]])
def test_every_all_trec_measure_of_a_query_is_the_same_alone_and_after_others(ties):
    """trec_eval's measures too (issue 29: ndcg_rel drifted by 1.2e-14 between one pass and
    --buckets through one cumulative sum over all queries, TieTable.sum_above)."""
    from tiedrank.interop.trec_eval import expand_metrics

    metrics = list(expand_metrics("all_trec").metrics)
    target = ["q007", "q058", "q119"]
    run, qrels = RUN[RUN["query"].isin(target)], QRELS[QRELS["query"].isin(target)]
    alone = evaluate({"sys": run}, qrels, metrics, ties=ties).per_query
    crowd_run, crowd_qrels = _crowded(run, qrels)
    crowd = evaluate({"sys": crowd_run}, crowd_qrels, metrics, ties=ties).per_query
    assert _csv(crowd[crowd["query"].isin(target)]) == _csv(alone)


@pytest.mark.parametrize("query", ["q13", "q43"])
def test_interpolated_precision_of_a_query_alone_has_the_bits_it_has_among_others(query):
    """The exact expectation of iprec_at_recall counts every tie group's orderings in chunks
    of groups from the whole table: a sum of one column was numpy's pairwise sum, whose tree
    followed the chunk's height, and a chunk ended its pass when every group in it had no
    bound left, so a value's last bits moved with the other queries (the LLMJudge run below:
    9 of its 75 values, these two queries among them)."""
    from tiedrank.io import read_qrels, read_run

    sample = Path(__file__).resolve().parents[1] / "sample_data" / "llmjudge"
    run = read_run(sample / "runs" / "Olz-gpt4o.txt").frame[["query", "doc", "score"]]
    qrels = read_qrels(sample / "qrels.test.txt").frame[["query", "doc", "relevance"]]
    metrics = ["iprec_at_recall.0.1,0.5", "11pt_avg"]
    together = evaluate({"sys": run}, qrels, metrics, ties="expected").per_query
    alone = evaluate({"sys": run[run["query"] == query]}, qrels[qrels["query"] == query],
                     metrics, ties="expected").per_query
    assert _csv(together[together["query"] == query]) == _csv(alone)
