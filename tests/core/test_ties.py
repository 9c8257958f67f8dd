"""The tie-group table (tiedrank.core.ties) against a naive Python sort of each query.

The oracle reads the same rows with none of the table's machinery: per qrels query, the
run's documents (trec_eval's -M cut, then -J), sorted by score descending in file order
with ``sorted``, tie groups as runs of equal scores, ranks, R, relevant documents above
each group, the query set, and each policy's order inside the groups by Python's own sort
keys (grade, file row, docno as bytes). Random inputs draw few score levels (many ties),
ids whose string and byte orders differ from their numeric order ("d10" < "d9"), unjudged
and pooled (grade -1) documents, qrels queries the run misses and run queries the qrels
lack. Only the rounding of a score to ``round`` decimals is taken from the library
(:func:`~tiedrank.core.rounding.round_scores`, tested in tests/core/test_rounding.py).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from tiedrank import EvaluationOptions, Qrels, Run, build_tie_table
from tiedrank.core.rounding import round_scores

SCORES = (1.0, 0.901, 0.899, 0.5, 0.25, 0.0, -0.5)
"""Few levels, so groups form; 0.901 and 0.899 merge at round=2 only."""
DOCS = tuple(f"d{i}" for i in range(1, 13)) + ("D", "e", "d1x")
"""Byte order is not numeric order: d1 < d10 < d11 < d12 < d1x < d2 ... and "D" < "d"."""


@st.composite
def inputs(draw):
    """Run rows (query, doc, score) in a shuffled file order, and qrels rows."""
    queries = draw(st.lists(st.sampled_from(["q1", "q2", "q10", "Q3"]), min_size=1,
                            max_size=3, unique=True))
    run_rows, qrels_rows = [], []
    for query in queries:
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=0, max_size=9, unique=True))
        run_rows += [(query, d, draw(st.sampled_from(SCORES))) for d in docs]
        judged = draw(st.lists(st.sampled_from(DOCS), max_size=8, unique=True))
        qrels_rows += [(query, d, draw(st.integers(-1, 3))) for d in judged]
    if draw(st.booleans()):  # a run query the qrels lack
        run_rows.append(("zz", "d1", 1.0))
    if not qrels_rows:
        qrels_rows.append((queries[0], "d1", 1))
    order = draw(st.permutations(range(len(run_rows))))
    run_rows = [run_rows[i] for i in order]
    options = EvaluationOptions(
        rel_level=draw(st.integers(1, 3)), round=draw(st.sampled_from([None, 2])),
        judged_only=draw(st.booleans()), depth=draw(st.sampled_from([None, 1, 3, 5])),
        complete=draw(st.booleans()), query_set=draw(st.sampled_from(["trec_eval", "relevant"])))
    return run_rows, qrels_rows, options


def _frames(run_rows, qrels_rows) -> tuple[Run, Qrels]:
    run = pd.DataFrame(run_rows, columns=["query", "doc", "score"]).astype(
        {"query": "str", "doc": "str", "score": "float64"})
    qrels = pd.DataFrame(qrels_rows, columns=["query", "doc", "relevance"]).astype(
        {"query": "str", "doc": "str", "relevance": "int64"})
    return Run("r", run), Qrels(qrels)


def naive(run_rows, qrels_rows, options: EvaluationOptions) -> dict:
    """Per qrels query: the ranked documents and their groups, by plain Python."""
    grade = {(q, d): g for q, d, g in qrels_rows}
    out = {}
    for query in sorted({q for q, _, _ in qrels_rows}):
        rows = [(row, d, s) for row, (q, d, s) in enumerate(run_rows) if q == query]
        if options.round is not None:
            rows = [(row, d, float(round_scores(np.array([s]), options.round)[0]))
                    for row, d, s in rows]
        if options.depth is not None:  # trec_eval -M: score descending, docno descending
            by_docno = sorted(rows, key=lambda r: r[1].encode(), reverse=True)  # as strcmp
            kept = sorted(by_docno, key=lambda r: -r[2])  # stable: docno order inside ties
            rows = sorted(kept[:options.depth])  # back to file order
        answered = bool(rows)
        if options.judged_only:  # -J: judged with a grade >= 0
            rows = [r for r in rows if grade.get((query, r[1]), -1) >= 0]
        ranked = sorted(rows, key=lambda r: (-r[2], r[0]))  # stable: file order inside ties
        groups: list[list[tuple]] = []
        for row in ranked:
            if groups and groups[-1][0][2] == row[2]:
                groups[-1].append(row)
            else:
                groups.append([row])
        relevant = [g for (q, _), g in grade.items() if q == query and g >= options.rel_level]
        n_relevant = len(relevant)
        counted = (options.complete or answered) and (
            options.query_set != "relevant" or n_relevant > 0)
        out[query] = {"groups": groups, "n_relevant": n_relevant, "evaluated": counted,
                      "grade": {d: grade.get((query, d), 0) for _, d, _ in rows},
                      "judged": {d: (query, d) in grade for _, d, _ in rows}}
    return out


def _query_docs(table, index: int) -> list[str]:
    start, stop = table.query_start[index], table.query_start[index + 1]
    return list(table.doc_ids(np.arange(start, stop))) if stop > start else []


POLICY_ORDERS = {
    "best": lambda w, group: sorted(group, key=lambda r: (-w["grade"][r[1]], r[0])),
    "worst": lambda w, group: sorted(group, key=lambda r: (w["grade"][r[1]], r[0])),
    "trec_eval": lambda w, group: sorted(group, key=lambda r: r[1].encode(), reverse=True),
    "input": lambda w, group: sorted(group, key=lambda r: r[0]),
}
"""Each fixed policy's order inside a tie group by Python's sort: grade descending or
ascending then file row, docno descending as bytes (strcmp), file row."""


@settings(max_examples=examples(40, deep=1500), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(inputs())
def test_table_matches_a_naive_sort(case):
    run_rows, qrels_rows, options = case
    run, qrels = _frames(run_rows, qrels_rows)
    table = build_tie_table(run, qrels, options)
    want = naive(run_rows, qrels_rows, options)
    assert list(table.queries) == list(want)
    for index, (query, w) in enumerate(want.items()):
        ranked = [r for g in w["groups"] for r in g]
        assert _query_docs(table, index) == [d for _, d, _ in ranked]
        assert table.n_retrieved[index] == len(ranked)
        assert table.n_relevant[index] == w["n_relevant"]
        assert table.evaluated[index] == w["evaluated"]
        mine = np.flatnonzero(table.group_query == index)
        assert table.group_size[mine].tolist() == [len(g) for g in w["groups"]]
        above = np.cumsum([0] + [len(g) for g in w["groups"]])[:-1]
        assert table.group_above[mine].tolist() == above.tolist()
        is_relevant = [[w["grade"][d] >= options.rel_level for _, d, _ in g] for g in w["groups"]]
        assert table.group_relevant[mine].tolist() == [sum(g) for g in is_relevant]
        assert table.relevant_above[mine].tolist() == \
            np.cumsum([0] + [sum(g) for g in is_relevant])[:-1].tolist()
        span = slice(table.query_start[index], table.query_start[index + 1])
        assert table.doc_rank[span].tolist() == list(range(1, len(ranked) + 1))
        assert table.doc_score[span].tolist() == [s for _, _, s in ranked]
        assert table.doc_grade[span].tolist() == [w["grade"][d] for _, d, _ in ranked]
        assert table.doc_judged[span].tolist() == [w["judged"][d] for _, d, _ in ranked]
        assert table.relevant_retrieved[index] == sum(map(sum, is_relevant))


@settings(max_examples=examples(30, deep=1000), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(inputs(), st.sampled_from(sorted(POLICY_ORDERS)))
def test_each_policy_orders_every_group_as_python_sorts_it(case, policy):
    run_rows, qrels_rows, options = case
    table = build_tie_table(*_frames(run_rows, qrels_rows), options)
    resolved = table.resolve(policy)
    want = naive(run_rows, qrels_rows, options)
    for index, w in enumerate(want.values()):
        order = [r for g in w["groups"] for r in POLICY_ORDERS[policy](w, g)]
        assert _query_docs(resolved, index) == [d for _, d, _ in order]
        span = slice(resolved.query_start[index], resolved.query_start[index + 1])
        assert resolved.doc_rank[span].tolist() == list(range(1, len(order) + 1))
    assert (resolved.group_size == 1).all()  # one group per document


@settings(max_examples=examples(20, deep=600), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(inputs(), st.integers(-2**31, 2**31))
def test_random_policy_permutes_each_group_and_depends_on_the_seed_only(case, seed):
    run_rows, qrels_rows, options = case
    run, qrels = _frames(run_rows, qrels_rows)
    table = build_tie_table(run, qrels, options)
    resolved = table.resolve("random", seed)
    want = naive(run_rows, qrels_rows, options)
    for index, w in enumerate(want.values()):
        got, at = _query_docs(resolved, index), 0
        for group in w["groups"]:  # each group's documents, in some order, in its ranks
            assert sorted(got[at:at + len(group)]) == sorted(d for _, d, _ in group)
            at += len(group)
    # the same draw from a table built from the rows in another file order
    shuffled = build_tie_table(*_frames(run_rows[::-1], qrels_rows), options)
    assert list(shuffled.resolve("random", seed).doc_ids()) == list(resolved.doc_ids())


@settings(max_examples=examples(25, deep=800), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(inputs(), st.integers(1, 3))
def test_views_equal_tables_built_with_those_options(case, level):
    run_rows, qrels_rows, options = case
    run, qrels = _frames(run_rows, qrels_rows)
    every = options.replace(judged_only=False)
    base = build_tie_table(run, qrels, every)
    for view, built in (
            (base.view(rel_level=level), build_tie_table(run, qrels, every.replace(rel_level=level))),
            (base.view(judged_only=True), build_tie_table(run, qrels, every.replace(judged_only=True)))):
        for name in ("n_relevant", "n_retrieved", "group_size", "group_above", "doc_grade",
                     "group_relevant", "relevant_above", "evaluated"):
            assert getattr(view, name).tolist() == getattr(built, name).tolist(), name
        assert list(view.doc_ids()) == list(built.doc_ids())


@settings(max_examples=examples(25, deep=800), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(inputs())
def test_compact_views_keep_the_groups_that_matter_with_their_ranks(case):
    run_rows, qrels_rows, options = case
    table = build_tie_table(*_frames(run_rows, qrels_rows), options)
    want = naive(run_rows, qrels_rows, options)
    for compact, keeps in ((table.scoring(), lambda w, d: w["grade"][d] > 0),
                           (table.qrels_groups(), lambda w, d: w["judged"][d])):
        assert compact.n_retrieved.tolist() == table.n_retrieved.tolist()  # counts kept
        for index, w in enumerate(want.values()):
            above, kept = 0, []
            for group in w["groups"]:
                if any(keeps(w, d) for _, d, _ in group):
                    kept.append((above, len(group), [d for _, d, _ in group]))
                above += len(group)
            mine = np.flatnonzero(compact.group_query == index)
            assert compact.group_above[mine].tolist() == [a for a, _, _ in kept]
            assert compact.group_size[mine].tolist() == [n for _, n, _ in kept]
            assert _query_docs(compact, index) == [d for _, _, docs in kept for d in docs]


def test_findings_count_what_the_table_leaves_out():
    run_rows = [("q1", "a", 1.0), ("q1", "b", 1.0), ("zz", "a", 1.0), ("yy", "c", 0.5)]
    qrels_rows = [("q1", "a", 1), ("q2", "x", 1)]
    table = build_tie_table(*_frames(run_rows, qrels_rows))
    found = {f.kind: f for f in table.findings}
    assert found["queries_not_in_qrels"].count == 2
    assert set(found["queries_not_in_qrels"].queries) == {"zz", "yy"}
    assert found["unjudged_documents"].count == 1  # b
    assert found["queries_missing_from_run"].queries == ("q2",)
    assert "unjudged_documents" not in {
        f.kind for f in build_tie_table(*_frames(run_rows, qrels_rows),
                                        EvaluationOptions(judged_only=True)).findings}


def test_sum_above_restarts_at_each_query():
    run_rows = [("q1", "a", 3.0), ("q1", "b", 2.0), ("q1", "c", 1.0), ("q2", "a", 2.0),
                ("q2", "b", 1.0)]
    table = build_tie_table(*_frames(run_rows, [("q1", "a", 1), ("q2", "a", 1)]))
    assert table.sum_above(np.array([1, 10, 100, 1000, 10000])).tolist() == [0, 1, 11, 0, 1000]


def test_loose_keywords_still_work_for_one_release():
    run, qrels = _frames([("q1", "a", 0.901), ("q1", "b", 0.899)], [("q1", "a", 2)])
    with pytest.warns(DeprecationWarning, match=r"EvaluationOptions\(rel_level=..., round=...\)"):
        old = build_tie_table(run, qrels, rel_level=2, round=2)
    new = build_tie_table(run, qrels, EvaluationOptions(rel_level=2, round=2))
    assert old.group_size.tolist() == new.group_size.tolist() == [2]
    assert old.n_relevant.tolist() == new.n_relevant.tolist() == [1]
    with pytest.raises(ValueError, match=r"build_tie_table\(\): rel_level= must be an integer >= 1"), \
            pytest.warns(DeprecationWarning):
        build_tie_table(run, qrels, EvaluationOptions(rel_level=2), rel_level=0)
    with pytest.raises(TypeError, match="unexpected keyword argument 'gains'"):
        build_tie_table(run, qrels, gains="exp")


@pytest.mark.parametrize("kind", ["string", "large_string"])
def test_byte_order_of_ids_is_strcmp_order(kind):
    """trec_eval breaks ties by docno with strcmp: the integer fast path for short ids must
    give Python's stable sort of the UTF-8 bytes, for short, long, empty and NUL ids."""
    import random

    import pyarrow as pa

    from tiedrank.core.joins import byte_order

    rng = random.Random(33)
    alphabet = ["a", "b", "B", "0", "9", "\u00e9", "z", "\x01", " "]
    for trial in range(300):
        longest = rng.choice([1, 3, 8, 8, 9])
        ids = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, longest)))
               for _ in range(rng.randint(1, 40))]
        if trial % 50 == 0:
            ids.append("a\x00b")  # a NUL byte: Arrow's sort, not the padded words
        oracle = sorted(range(len(ids)), key=lambda i: ids[i].encode("utf-8"))
        array = pa.array(["skipped"] + ids, getattr(pa, kind)()).slice(1)  # an offset too
        assert byte_order(array).tolist() == oracle
        assert byte_order(pa.chunked_array([array[:3], array[3:]])).tolist() == oracle
