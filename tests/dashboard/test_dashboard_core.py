"""Dashboard logic without Streamlit: tiedrank.dashboard and the figure builders."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tiedrank import EvaluationOptions
from tiedrank.dashboard.datasets import (
    BUNDLED,
    DEFAULT_DATASET,
    RUN_FIELDS,
    content_hash,
    dataset_key,
    file_hash,
    guess_columns,
    inspect_upload,
)
from tiedrank.dashboard.figures.overview import range_figure
from tiedrank.dashboard.figures.tie_structure import (
    group_size_figure,
    ranked_list_figure,
    tie_ratio_scatter,
    top_strip_figure,
)
from tiedrank.dashboard.labels import findings_messages, query_label
from tiedrank.dashboard.overview import (
    flip_sentences,
    format_cell,
    order_flips,
    overview_cells,
    overview_long,
    tie_statistics_frame,
)
from tiedrank.dashboard.settings import (
    default_metrics,
    metric_options,
    retarget_metrics,
    validate_metrics,
)
from tiedrank.dashboard.tie_structure import (
    group_size_bins,
    group_size_counts,
    order_queries,
    query_overview,
    query_values,
    tie_ratio_vs_range,
    top_strip,
)
from tiedrank.core.data import Qrels, Run
from tiedrank.evaluation import evaluate
from tiedrank.io import query_documents, read_query_text
from tiedrank.core.tie_statistics import tie_statistics
from tiedrank.core.ties import build_tie_table

# ---- fixtures ---------------------------------------------------------------------------

def _run(name: str, rows: list[tuple[str, str, float]]) -> Run:
    return Run(name, pd.DataFrame(rows, columns=["query", "doc", "score"]))


def _qrels(rows: list[tuple[str, str, int]]) -> Qrels:
    return Qrels(pd.DataFrame(rows, columns=["query", "doc", "relevance"]))


@pytest.fixture(scope="module")
def flip_case():
    """Expectation ranks A above B, trec_eval's order (docno descending) ranks B above A.

    A ties [x, a] with a relevant: E[RR] = 3/4, trec_eval order x, a -> RR 1/2.
    B ties [z, b, c] with z relevant: E[RR] = 11/18, trec_eval order z, c, b -> RR 1.
    """
    qrels = _qrels([("q", "a", 1), ("q", "z", 1)])
    runs = {"A": _run("A", [("q", "x", 1.0), ("q", "a", 1.0)]),
            "B": _run("B", [("q", "b", 1.0), ("q", "c", 1.0), ("q", "z", 1.0)])}
    return runs, qrels


@pytest.fixture(scope="module")
def llmjudge():
    from tiedrank.io import read_qrels, read_run

    ds = BUNDLED["llmjudge"]
    qrels = read_qrels(str(ds.path(ds.qrels)), format=ds.qrels_format)
    names = [Path(r).name.removesuffix(".txt") for r in ds.runs]
    runs = {n: read_run(str(ds.path(r)), format=ds.run_format, name=n) for n, r in zip(names, ds.runs)}
    return runs, qrels, read_query_text(ds.path(ds.queries))


@pytest.fixture(scope="module")
def llm_eval(llmjudge):
    runs, qrels, _ = llmjudge
    return evaluate(runs, qrels, default_metrics(10), ties="all", rel_level=2)


@pytest.fixture()
def small_table():
    # q1: [0.9] [0.5 0.5 0.5] [0.1]; q2: [0.7 0.7]; q3: no results
    run = _run("r", [("q1", "d1", 0.9), ("q1", "d2", 0.5), ("q1", "d3", 0.5), ("q1", "d4", 0.5),
                     ("q1", "d5", 0.1), ("q2", "e1", 0.7), ("q2", "e2", 0.7)])
    qrels = _qrels([("q1", "d3", 2), ("q1", "d5", 1), ("q2", "e9", 1), ("q3", "f1", 1)])
    return build_tie_table(run, qrels, EvaluationOptions(rel_level=1))


# ---- registry, hashing, reading -----------------------------------------------------------

def test_bundled_datasets_exist_with_their_relevance_levels():
    assert DEFAULT_DATASET == "llmjudge"
    assert BUNDLED["llmjudge"].rel_level == 2
    assert BUNDLED["trec_eval"].rel_level == 1
    for dataset in BUNDLED.values():
        for relative in dataset.files:
            assert dataset.path(relative).is_file(), relative


def test_hashes_follow_content(tmp_path):
    assert content_hash(b"abc") == content_hash(b"abc") != content_hash(b"abd")
    path = tmp_path / "f.txt"
    path.write_bytes(b"abc")
    assert file_hash(path) == content_hash(b"abc")
    assert dataset_key(["x", "h1"]) != dataset_key(["x", "h2"])
    assert dataset_key(["x", "h1"]) == dataset_key(["x", "h1"])


def test_column_guessing_uses_the_reader_aliases():
    assert guess_columns(["QID", "docno", "bm25"], RUN_FIELDS) == {
        "query": "QID", "doc": "docno", "score": None}
    assert inspect_upload(b"qid,docno,bm25\n1,d,2\n", "x.csv", RUN_FIELDS) == (
        "csv", ["qid", "docno", "bm25"])
    assert inspect_upload(b"1 Q0 d 1 2.0 t\n", "x.txt", RUN_FIELDS) == ("trec_run", [])


def test_query_text_and_labels():
    text = read_query_text(b"q1\tdog age by teeth\n\nq2\tsmoke on walls\n")
    assert text == {"q1": "dog age by teeth", "q2": "smoke on walls"}
    assert query_label("q1", text) == "q1 — dog age by teeth"
    assert query_label("q9", text) == "q9"


def test_metric_helpers():
    assert default_metrics(10) == ["RR", "nDCG@10", "P@10", "AP", "R@10"]
    assert set(default_metrics(5)) <= set(metric_options(5))
    assert retarget_metrics(["RR", "P@10", "P@5", "nDCG@10"], 10, 20) == ["RR", "P@20", "P@5", "nDCG@20"]
    valid, errors = validate_metrics(["rr", "P@5", "nope@3", "RR"])
    assert valid == ["RR", "P@5"] and len(errors) == 1


# ---- overview table and order flips -------------------------------------------------------

def test_format_cell():
    assert format_cell(0.79133, 0.4551, 0.9733, 0.76733) == "0.791 [0.455, 0.973] · trec 0.767"
    assert format_cell(np.nan, 0, 1, 0.5) == "– [0.000, 1.000] · trec 0.500"


def test_order_flip_detected_on_constructed_case(flip_case):
    runs, qrels = flip_case
    report = evaluate(runs, qrels, ["RR"], ties="all").report()
    values = report.set_index("run")
    assert values.loc["A", "expected"] == pytest.approx(0.75)
    assert values.loc["B", "expected"] == pytest.approx(11 / 18)
    assert values.loc["A", "trec_eval"] == pytest.approx(0.5)
    assert values.loc["B", "trec_eval"] == pytest.approx(1.0)
    flips = order_flips(report)
    assert flips[["metric", "run_a", "run_b"]].values.tolist() == [["RR", "A", "B"]]
    sentence = flip_sentences(flips)[0]
    assert "**A** (0.750) ranks above **B** (0.611)" in sentence
    assert "trec_eval" in sentence and "**B** (1.000) ranks above **A** (0.500)" in sentence
    # no flip between identical policies, and none reversed
    assert order_flips(report, "expected", "expected").empty
    assert order_flips(report, "trec_eval", "expected")[["run_a", "run_b"]].values.tolist() == [["B", "A"]]


def test_equal_values_are_not_flips():
    report = pd.DataFrame({"run": ["A", "B"], "metric": ["RR", "RR"], "expected": [0.5, 0.5],
                           "trec_eval": [0.4, 0.6]})
    assert order_flips(report).empty
    assert order_flips(report.drop(columns="trec_eval")).empty


def test_overview_on_llmjudge_has_the_known_flip(llm_eval):
    report = llm_eval.report()
    flips = order_flips(report)
    rr = flips[flips["metric"] == "RR"]
    pairs = {(a, b) for a, b in zip(rr["run_a"], rr["run_b"])}
    assert ("willia-umbrela1", "Olz-gpt4o") in pairs
    cells = overview_cells(report, flips=flips)
    assert list(cells.columns[:2]) == ["run", "RR ⚠"]
    olz = cells.set_index("run").loc["Olz-gpt4o", "RR ⚠"]
    row = report[(report["run"] == "Olz-gpt4o") & (report["metric"] == "RR")].iloc[0]
    assert olz == "⚠ " + format_cell(row["expected"], row["worst"], row["best"], row["trec_eval"])
    assert olz == "⚠ 0.791 [0.455, 0.973] · trec 0.767"
    assert "AP" in cells.columns  # no flip for AP on this data
    long = overview_long(report)
    assert list(long.columns[:8]) == ["run", "metric", "expected", "worst", "best", "trec_eval",
                                      "bias", "range"]
    assert np.allclose(long["range"], long["best"] - long["worst"])
    assert len(long) == 8 * 5


def test_tie_statistics_frame_matches_engine(llm_eval):
    frame = tie_statistics_frame(llm_eval.tables, top=10)
    assert len(frame) == 8
    for name, table in llm_eval.tables.items():
        stats = tie_statistics(table, top=10)
        row = frame.set_index("run").loc[name]
        assert row["queries with ties"] == stats["queries_with_ties"]
        assert row["share of docs in ties"] == pytest.approx(stats["docs_in_ties"])
        assert row["largest group"] == stats["largest_group"]
        assert row["mean group size (top 10)"] == pytest.approx(stats["mean_group_size_top"])


def test_findings_messages_lists_queries(small_table):
    messages = findings_messages(small_table.findings)
    assert any("no results" in m and "q3" in m for m in messages)
    assert len(messages) == len(set(messages))


# ---- tie structure ---------------------------------------------------------------------------

def test_query_overview(small_table):
    ov = query_overview(small_table, k=2).set_index("query")
    assert ov.loc["q1", "groups"] == 3 and ov.loc["q1", "largest_group"] == 3
    assert ov.loc["q1", "tie_ratio"] == pytest.approx(3 / 5)
    assert ov.loc["q1", "tie_ratio_top"] == pytest.approx(1 / 2)  # ranks 1-2: d1 alone, one tied
    assert ov.loc["q1", "first_relevant_group_size"] == 3
    assert ov.loc["q1", "largest_group_share"] == pytest.approx(3 / 5)
    assert ov.loc["q2", "tie_ratio"] == 1.0 and ov.loc["q2", "first_relevant_group_size"] == 0
    assert ov.loc["q3", "n_retrieved"] == 0 and np.isnan(ov.loc["q3", "tie_ratio"])


def test_query_documents(small_table):
    docs = query_documents(small_table, "q1")
    assert docs["rank"].tolist() == [1, 2, 3, 4, 5]
    assert docs["group"].tolist() == [1, 2, 2, 2, 3]
    assert docs["group_first"].tolist() == [1, 2, 2, 2, 5]
    assert docs["group_size"].tolist() == [1, 3, 3, 3, 1]
    assert docs.loc[docs["doc"] == "d3", "grade"].item() == 2
    assert docs["group_relevant"].tolist() == [0, 1, 1, 1, 1]
    assert len(query_documents(small_table, "q1", top=2)) == 2
    assert query_documents(small_table, "q3").empty
    with pytest.raises(KeyError):
        query_documents(small_table, "nope")


def test_top_strip_and_query_orders(small_table):
    strip = top_strip(small_table, top=3)
    assert strip["query"].tolist() == ["q1", "q1", "q1", "q2", "q2"]
    assert strip["group"].tolist() == [1, 2, 2, 1, 1]
    assert strip["tied"].tolist() == [False, True, True, True, True]
    assert strip["parity"].tolist() == [1, 0, 0, 1, 1]
    assert order_queries(small_table, "query id") == ["q1", "q2"]
    assert order_queries(small_table, "size of the first group", top=3) == ["q2", "q1"]
    assert order_queries(small_table, "tie ratio in the top ranks", top=3) == ["q2", "q1"]
    reordered = top_strip(small_table, top=3, queries=["q2", "q1"])
    assert reordered["query"].tolist() == ["q2", "q2", "q1", "q1", "q1"]


def test_group_size_counts(small_table):
    counts = group_size_counts(small_table)
    assert counts["size"].tolist() == [1, 2, 3]
    assert counts["groups"].tolist() == [2, 1, 1]
    assert counts["documents"].sum() == 7
    assert counts["share_of_documents"].sum() == pytest.approx(1.0)
    top = group_size_counts(small_table, top=1)  # groups starting at rank 1
    assert top["size"].tolist() == [1, 2] and top["groups"].tolist() == [1, 1]


def test_tie_ratio_vs_range(llmjudge, llm_eval):
    runs, qrels, text = llmjudge
    table = llm_eval.tables["Olz-gpt4o"]
    frame = tie_ratio_vs_range(llm_eval, table, "RR", 10, text)
    assert len(frame) == llm_eval.summary["n_queries"].iloc[0]
    assert np.allclose(frame["range"], frame["best"] - frame["worst"])
    assert (frame["range"] >= -1e-12).all()
    assert frame["text"].str.len().gt(0).all()
    per_query = llm_eval.per_query
    sel = per_query[(per_query["run"] == "Olz-gpt4o") & (per_query["metric"] == "RR")
                    & (per_query["policy"] == "expected")].set_index("query")["value"]
    assert np.allclose(frame.set_index("query")["expected"], sel.loc[frame["query"]].to_numpy())
    values = query_values(llm_eval, "Olz-gpt4o", frame["query"].iloc[0])
    assert values["metric"].tolist() == default_metrics(10)
    assert list(values.columns) == ["metric", "expected", "worst", "best", "trec_eval"]


# ---- figures -------------------------------------------------------------------------------

def test_range_figure(llm_eval):
    report = llm_eval.report()
    fig = range_figure(report, "RR", flipped_runs={"Olz-gpt4o"})
    assert len(fig.data) == 5  # range + worst, best, trec_eval, expected
    names = [t.name for t in fig.data]
    assert "expected (exact)" in names and "trec_eval order" in names
    expected = next(t for t in fig.data if t.name == "expected (exact)")
    rr = report[report["metric"] == "RR"].sort_values("expected")
    assert np.allclose(expected.x, rr["expected"])
    assert "⚠ Olz-gpt4o" in list(expected.y)
    assert list(expected.y)[-1].endswith(rr["run"].iloc[-1])  # best run on top


def test_ranked_list_figure_modes(small_table):
    docs = query_documents(small_table, "q1")
    fig = ranked_list_figure(docs, mode="stack", query_text="text")
    bars = [t for t in fig.data if t.type == "bar"]
    assert sorted(t.name for t in bars) == ["grade 1", "grade 2", "unjudged"]
    assert sum(np.sum(t.x) for t in bars) == 5  # widths cover the 5 ranks
    grade2 = next(t for t in bars if t.name == "grade 2")
    assert list(grade2.base) == [1] and list(grade2.x) == [1]  # first in its group (rank 2)
    assert len(fig.layout.shapes) == 1  # one tied group outlined
    text = next(t for t in fig.data if t.type == "scatter")
    assert list(text.text) == ["3 tied"]
    clipped = ranked_list_figure(query_documents(small_table, "q1", top=3))
    assert list(clipped.data[-1].text) == ["3 tied (2 shown)"]
    assert clipped.layout.shapes[0].x1 == 3
    per_doc = ranked_list_figure(docs, mode="documents")
    assert sum(len(t.x) for t in per_doc.data if t.type == "bar") == 5
    with pytest.raises(ValueError):
        ranked_list_figure(docs, mode="other")


def test_top_strip_figure(small_table):
    strip = top_strip(small_table, top=3)
    fig = top_strip_figure(strip, color="parity", top=3)
    assert fig.data[0].type == "heatmap" and all(t.type == "scatter" for t in fig.data[1:])  # + colour legend
    z = np.asarray(fig.data[0].z, dtype=float)
    assert z.shape == (2, 3)
    assert z[0].tolist() == [0, 1, 1]  # alone, then a tied group (group 2, parity 0 -> 1)
    assert z[1, :2].tolist() == [2, 2] and np.isnan(z[1, 2])
    sized = top_strip_figure(strip, color="size", top=3)
    assert np.allclose(np.asarray(sized.data[0].z, dtype=float)[0], np.log10([1, 3, 3]))


def test_group_size_bins():
    counts = pd.DataFrame({"size": [1, 2, 3, 4, 9], "groups": [10, 5, 2, 1, 1],
                           "documents": [10, 10, 6, 4, 9], "share_of_documents": np.nan})
    bins = group_size_bins(counts)
    assert bins["bin"].tolist() == ["1", "2", "3–4", "5–8", "9–16"]
    assert bins["groups"].tolist() == [10, 5, 3, 0, 1]
    assert bins["documents"].tolist() == [10, 10, 10, 0, 9]
    assert bins["share_of_documents"].sum() == pytest.approx(1.0)
    both = group_size_bins(pd.concat([counts.assign(run="a"), counts.head(2).assign(run="b")]))
    assert both.groupby("run", sort=False)["groups"].sum().to_dict() == {"a": 19, "b": 15}
    assert len(both) == 10  # same bins for both runs


def test_group_size_figure(small_table):
    bins = group_size_bins(group_size_counts(small_table))
    fig = group_size_figure(bins)
    assert len(fig.data) == 1 and list(fig.data[0].x) == ["1", "2", "3–4"]
    assert list(fig.data[0].y) == [2, 1, 1]
    assert fig.layout.yaxis.type != "log"
    docs = group_size_figure(bins, weight="documents")
    assert list(docs.data[0].y) == [2, 2, 3]
    both = group_size_bins(pd.concat([group_size_counts(small_table).assign(run=r) for r in "ab"]))
    assert [t.name for t in group_size_figure(both).data] == ["a", "b"]
    skewed = pd.DataFrame({"bin": ["1", "2"], "groups": [100000, 3], "documents": [100000, 6],
                           "share_of_documents": [0.9, 0.1]})
    assert group_size_figure(skewed).layout.yaxis.type == "log"


def test_tie_ratio_scatter(llmjudge, llm_eval):
    _, _, text = llmjudge
    frame = tie_ratio_vs_range(llm_eval, llm_eval.tables["TREMA-all"], "nDCG@10", 10, text)
    fig = tie_ratio_scatter(frame, "nDCG@10")
    assert len(fig.data) == 1 and len(fig.data[0].x) == len(frame)
    assert np.allclose(fig.data[0].y, frame["range"])
    many = pd.concat([frame.assign(run="a"), frame.assign(run="b")])
    assert len(tie_ratio_scatter(many, "nDCG@10", x="tie_ratio_top").data) == 2
