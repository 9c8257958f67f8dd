"""Nothing read from a file is markup in a figure (issue 29): plotly renders ``<b>``, ``<br>``
and ``<a href>`` in titles, tick labels, legends, hover text and annotations, so every figure
builder of tiedrank/dashboard/figures is built here with hostile run names, query ids,
document ids and query text, and no text field of the figure's JSON may hold them raw (the
figures' own ``<br>`` and bold highlight stay markup). A click on an escaped query id gives
the id back (drilldown.clicked_query)."""
from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tiedrank.core.data import Qrels, Run
from tiedrank.evaluation import evaluate, tsrr_sweep
from tiedrank.dashboard import learn
from tiedrank.dashboard import side_by_side as sbs
from tiedrank.dashboard.drilldown import clicked_query
from tiedrank.dashboard.figures import agreement, compare, flips, overview, paper, plotly_text, side_by_side
from tiedrank.dashboard.figures import learn as learn_figures
from tiedrank.dashboard.figures import simulator, spread, style, tie_structure, tsrr
from tiedrank.dashboard.tie_structure import (group_size_bins, group_size_counts, tie_ratio_vs_range,
                                              top_strip)
from tiedrank.dashboard.tsrr import appended_example, fully_tied_example, sweep_references
from tiedrank.io import query_documents
from tiedrank.sampling import first_relevant_distribution

LINK = '<a href="http://127.0.0.1:1/x">x</a>'
BOLD = "<b>b</b>"
TEMPLATE = "%{xother}"  # a hover template field: plotly would fill it in, not show it
RUN_A, RUN_B = f"A{LINK}{TEMPLATE}", f"B{BOLD}"
QUERY = f"q{LINK}{TEMPLATE}"
TEXT = f"what {BOLD} {LINK}"
RAW = (LINK, BOLD, "<a ", "</a>", "<b>b", TEMPLATE)  # none of these may reach a figure


@pytest.fixture(scope="module")
def hostile():
    docs = [f"d{i}{BOLD if i % 2 else LINK}" for i in range(6)]
    scores = [3.0, 3.0, 2.0, 2.0, 2.0, 1.0]
    grades = [1, 0, 2, 0, 1, 0]
    runs = {}
    for name, shift in ((RUN_A, 0), (RUN_B, 1)):
        rows = [(query, doc, s) for query in (QUERY, "q2") for doc, s in
                zip(docs, np.roll(scores, shift))]
        runs[name] = Run(name, pd.DataFrame(rows, columns=["query", "doc", "score"]))
    qrels = Qrels(pd.DataFrame([(query, doc, g) for query in (QUERY, "q2")
                                for doc, g in zip(docs, grades)],
                               columns=["query", "doc", "relevance"]))
    return evaluate(runs, qrels, ["RR", "nDCG@10"], ties="all")


def _figures(ev) -> dict:
    report = ev.report()
    table = ev.tables[RUN_A]
    toy = learn.evaluate_toy(learn.SCENARIOS["V8"].frame())
    ranked = toy.ranked("expected").assign(doc=lambda f: [f"{d}{LINK}" for d in f["doc"]])
    query_text = {QUERY: TEXT, "q2": TEXT}
    per_query = ev.per_query
    policies = ["expected", "best", "worst", "trec_eval"]
    ranges = (per_query[(per_query["run"] == RUN_A) & (per_query["metric"] == "RR")]
              .pivot_table(index="query", columns="policy", values="value").reset_index()
              .rename(columns={"best": "best", "worst": "worst"}).assign(text=TEXT))
    differences = pd.DataFrame({"query": [QUERY, "q2"], "text": TEXT, "run": [0.5, 0.2],
                                "baseline": [0.3, 0.2], "diff": [0.2, 0.0],
                                "outcome": ["win", "tie"]})
    intervals = pd.DataFrame({"run": [RUN_A, RUN_B], "diff": [0.1, -0.1], "ci_low": [0.0, -0.2],
                              "ci_high": [0.2, 0.0], "p_corrected": [0.04, 0.5],
                              "significant": [True, False]})
    verdicts = pd.DataFrame({"policy": policies, "diff": [0.05, 0.1, -0.1, 0.0]})
    ranking = pd.DataFrame({"run": [RUN_A, RUN_B], **{f"rank {p}": [1, 2] for p in policies}})
    groups = pd.DataFrame({"run": [RUN_A], "group": [f"g{BOLD}"], "diff": [0.1], "n_queries": [2]})
    flip_rows = pd.DataFrame({"run_a": [RUN_A], "run_b": [RUN_B], "metric": ["RR"],
                              "p_flip": [0.3], "flips_trec_eval": [True], "p_win": [0.6]})
    counts = pd.DataFrame([[3, 1], [0, 2]], index=[0, 1], columns=[0, f"x{BOLD}"])
    curve = pd.DataFrame({"run": RUN_A, "recall": [0.0, 0.5, 1.0], "expected": 0.5,
                          "worst": 0.2, "best": 0.8, "trec_eval": 0.4})
    checkpoints = pd.DataFrame({"metric": "RR", "step": [1, 2], "run": [RUN_A, RUN_B],
                                "expected": [0.4, 0.5], "worst": [0.3, 0.4], "best": [0.5, 0.6],
                                "trec_eval": [0.4, 0.5], "overlaps_previous": [False, True],
                                "diff_previous": [np.nan, 0.1], "p_value_previous": [np.nan, 0.2]})
    sweep = tsrr_sweep(ev.tables, [0.5, 1.0, 2.0])
    flows = sbs.group_flows(sbs.side_by_side(ev.tables[RUN_A], ev.tables[RUN_B], QUERY), 10)
    sim_sweep = pd.DataFrame({"parameter": "levels", "value": [2.0, 4.0], "label": ["2", "4"],
                              "metric": "RR", "expected": 0.5, "best": 0.6, "worst": 0.4,
                              "trec_eval": 0.5, "docs_in_ties": 0.3})
    scatter = tie_ratio_vs_range(ev, table, "RR", 10, query_text).assign(run=RUN_A)
    sizes = group_size_counts(table).assign(run=RUN_A)
    return {
        ("agreement", "confusion_heatmap"): agreement.confusion_heatmap(
            counts, title=f"{RUN_A}: qrels grade against its label"),
        ("compare", "interval_figure"): compare.interval_figure(intervals, "RR", RUN_B,
                                                                 highlight=RUN_A),
        ("compare", "difference_figure"): compare.difference_figure(differences, RUN_A, RUN_B, "RR"),
        ("compare", "stability_figure"): compare.stability_figure(
            pd.DataFrame({"diff": np.linspace(-0.1, 0.2, 30)}), verdicts, RUN_A, RUN_B, "RR"),
        ("compare", "ranking_figure"): compare.ranking_figure(ranking, policies, "RR",
                                                              baseline=RUN_B, highlight=RUN_A),
        ("compare", "group_figure"): compare.group_figure(groups, "RR", RUN_B),
        ("flips", "flip_heatmap"): flips.flip_heatmap(flip_rows),
        ("learn", "ranking_figure"): learn_figures.ranking_figure(ranked, title=f"Toy {LINK}"),
        ("learn", "policy_figure"): learn_figures.policy_figure(toy.values, title=BOLD),
        ("learn", "orderings_figure"): learn_figures.orderings_figure(
            learn.enumerate_toy(toy, ["RR"]), "RR", toy.value("RR"), title=BOLD),
        ("learn", "mtrr_curve_figure"): learn_figures.mtrr_curve_figure(learn.mtrr_curve(10, 1),
                                                                        title=LINK),
        ("overview", "range_figure"): overview.range_figure(report, "RR", flipped_runs={RUN_A}),
        ("paper", "precision_recall_figure"): paper.precision_recall_figure(curve, RUN_A),
        ("paper", "checkpoint_figure"): paper.checkpoint_figure(checkpoints, "RR"),
        ("side_by_side", "slope_figure"): side_by_side.slope_figure(
            flows, RUN_A, RUN_B, top=10, title=f"{QUERY} {TEXT}: the documents"),
        ("simulator", "spread_figure"): simulator.spread_figure(report, ["RR"], title=RUN_A),
        ("simulator", "sweep_figure"): simulator.sweep_figure(sim_sweep, title=LINK),
        ("spread", "pmf_figure"): spread.pmf_figure(first_relevant_distribution(toy.table),
                                                    {"expected": 0.5}, title=f"{RUN_A}, {QUERY}"),
        ("spread", "range_figure"): spread.range_figure(ranges, "RR", title=f"{RUN_A}: RR"),
        ("spread", "sample_histogram"): spread.sample_histogram(
            np.linspace(0.2, 0.4, 20), {"expected": 0.3}, "RR", title=RUN_A, caption=BOLD),
        ("tie_structure", "ranked_list_figure"): tie_structure.ranked_list_figure(
            query_documents(table, QUERY), title=f"{RUN_A}: {QUERY}", query_text=TEXT),
        ("tie_structure", "ranked_list_figure documents"): tie_structure.ranked_list_figure(
            query_documents(table, QUERY), mode="documents", query_text=TEXT),
        ("tie_structure", "top_strip_figure"): tie_structure.top_strip_figure(
            top_strip(table, 10), top=10, query_text=query_text),
        ("tie_structure", "group_size_figure"): tie_structure.group_size_figure(
            group_size_bins(sizes)),
        ("tie_structure", "tie_ratio_scatter"): tie_structure.tie_ratio_scatter(scatter, "RR"),
        ("tsrr", "sweep_figure"): tsrr.sweep_figure(sweep, sweep_references(ev.summary), title=RUN_A),
        ("tsrr", "fully_tied_figure"): tsrr.fully_tied_figure(fully_tied_example(4), title=LINK),
        ("tsrr", "appended_figure"): tsrr.appended_figure(appended_example(max_appended=4, alpha=2.0),
                                                          title=LINK),
    }


def _strings(node, path=""):
    if isinstance(node, str):
        yield path, node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from _strings(value, f"{path}.{key}")
    elif isinstance(node, (list, tuple, np.ndarray)):
        for i, value in enumerate(node):
            yield from _strings(value, f"{path}[{i}]")


def _builders() -> set[tuple[str, str]]:
    found = set()
    for path in sorted(Path(style.__file__).parent.glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if (isinstance(node, ast.FunctionDef) and not node.name.startswith("_")
                    and node.returns is not None and ast.unparse(node.returns) == "go.Figure"
                    and path.stem != "style"):
                found.add((path.stem, node.name))
    return found


def test_every_figure_shows_file_text_literally(hostile):
    figures = _figures(hostile)
    assert _builders() <= {(module, name.split()[0]) for module, name in figures}
    raw, shown = {}, 0
    for key, fig in figures.items():
        for where, text in _strings(fig.to_plotly_json()):
            shown += "&lt;a href" in text or "&lt;b&gt;" in text
            if any(bad in text for bad in RAW):
                raw.setdefault(key, []).append((where, text[:80]))
    assert not raw, raw
    assert shown >= len(figures) - 6  # the names did go in (escaped), in most figures


def test_a_click_on_an_escaped_query_gives_the_query():
    shown = plotly_text(QUERY)
    assert clicked_query({"selection": {"points": [{"x": shown}]}}, axis="x") == QUERY
    assert clicked_query({"selection": {"points": [{"customdata": [shown, "t"]}]}}) == QUERY
    assert clicked_query({"selection": {"points": [{"y": plotly_text("50%{x}")}]}},
                         axis="y") == "50%{x}"
    literal = "a &lt; b &#37;"  # text holding an entity already comes back as it was
    assert clicked_query({"selection": {"points": [{"y": plotly_text(literal)}]}},
                         axis="y") == literal


def test_own_line_breaks_stay_markup(hostile):
    fig = spread.sample_histogram(np.linspace(0, 1, 5), {}, "RR", title="a title", caption="c")
    assert fig.layout.title.text.startswith("a title<br><sup>")
    long = f"{RUN_A} " + "word " * 20
    wrapped = tie_structure.ranked_list_figure(query_documents(hostile.tables[RUN_A], QUERY),
                                               title=long).layout.title.text
    assert "<br>" in wrapped and LINK not in wrapped
