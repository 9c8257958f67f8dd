"""Permutation spread: how far a metric moves when tied documents are reordered.

Three views, each exact except the last (seeded sampling): one query's distribution of the
first relevant rank, the worst-best range of every query, and the run's mean over random
tie-breaks with trec_eval's reported value placed among them. Widgets and layout only; the
numbers come from :mod:`tiedrank.sampling` and :mod:`tiedrank.dashboard.spread`.
"""
from __future__ import annotations

import streamlit as st

from tiedrank.dashboard.drilldown import DRILL_KEY, clicked_query
from tiedrank.dashboard.figures import paper as paper_figures
from tiedrank.dashboard.figures import spread as figures
from tiedrank.dashboard.settings import metric_options
from tiedrank.dashboard.spread import (
    RANGE_ROWS,
    describe_ranges,
    draws_table,
    exact_percentile,
    percentile_of,
    policy_values,
    query_ranges,
)
from tiedrank.dashboard.ui import (
    drill_down,
    download_row,
    empty_state,
    figure_download,
    get_context,
    number_cards,
    persist,
    persist_choice,
    show_figure,
    show_findings,
)
from tiedrank.report import markdown_literal as md  # file text shown as text, never markup
from tiedrank.report import precision_recall_curve
from tiedrank.core.policies import POLICY_LABELS
from tiedrank.sampling import first_relevant_distribution, rr_variance, samplable, sample_run_means
from tiedrank.dashboard.labels import BEST_CASE, WORST_CASE

st.title("Permutation spread")
st.caption("How far a metric moves when the documents a run scores equally are put in another "
           "order. The expectation is exact (every ordering counts equally); best and worst are the "
           "extremes over all orderings; trec_eval breaks ties by document id, descending.")

ctx = get_context()
k = ctx.settings.k
runs = list(ctx.runs)
if not runs:
    empty_state("The loaded data has no run to analyse.")
    st.stop()

run = st.selectbox("Run", runs, help="The run (ranker) whose tie-breaking spread is shown on this page.",
                   **persist_choice("spread_run", runs))
table = ctx.tables()[run]

# ---- 1. one query: the exact pmf of the first relevant rank ------------------------------
st.header("One query: where does the first relevant document land?", divider="gray")
rr_eval = ctx.evaluation(("RR",), ("all",))
rr_ranges = query_ranges(rr_eval.per_query, run, "RR", query_text=ctx.query_text)
if rr_ranges.empty:
    empty_state(f"Run {md(run)} has no evaluated query: no qrels query has a document at relevance "
                f"level {ctx.settings.rel_level} or above.")
else:
    width_of = dict(zip(rr_ranges["query"], rr_ranges["width"]))
    queries = rr_ranges["query"].tolist()  # widest RR range first
    # the label holds the run's RR range (it changes with the run); the query text is cut at
    # 40 characters so that text and range fit the box in an 800-px window
    query = st.selectbox(
        "Query", queries, help="Queries sorted by the width of their RR range over tie "
        "orderings, widest first.", **persist_choice(
            "spread_query", queries, labels=lambda q: f"{ctx.label(q, 40)}  (RR range {width_of[q]:.3f})"))
    pmf = first_relevant_distribution(table, query)
    marks = policy_values(rr_eval.per_query, run, "RR", query)
    if pmf.empty:
        empty_state(f"Run {md(run)} retrieves no relevant document for this query (relevance level "
                    f"{ctx.settings.rel_level}): its RR is 0 under every tie-break, so there is "
                    "no distribution to show.")
    else:
        cards = number_cards()  # cards of their own width: they wrap in a narrow window
        for policy in ("expected", "trec_eval", BEST_CASE, WORST_CASE):
            cards.metric(f"RR, {POLICY_LABELS[policy]}", f"{marks.get(policy, float('nan')):.4f}",
                       help={"expected": "E[RR]: the exact mean of RR over all tie orderings.",
                             "trec_eval": "RR when ties are broken as trec_eval does (docno descending).",
                             BEST_CASE: "RR when relevant documents are put first in every tie.",
                             WORST_CASE: "RR when relevant documents are put last in every tie."}[policy],
                         width="content")
        sd = float(rr_variance(table).get(query, 0.0)) ** 0.5
        cards.metric("SD of RR", f"{sd:.4f}", width="content",
                     help="Standard deviation of RR: exact, over tie orderings (tiedrank.sampling.rr_variance).")
        fig = figures.pmf_figure(pmf, marks, title=f"{run}, query {ctx.label(query)}")
        show_figure(fig, key="spread_pmf_chart")
        figure_download(fig, f"pmf_{run}_{query}", key="spread_pmf_fig")
        with st.expander("The distribution as a table", icon=":material/table_rows:"):
            shown = pmf.assign(cumulative=pmf["probability"].cumsum())
            st.dataframe(shown, hide_index=True, column_config={
                "probability": st.column_config.NumberColumn(format="%.6f"),
                "rr": st.column_config.NumberColumn("RR = 1/rank", format="%.6f"),
                "cumulative": st.column_config.NumberColumn(format="%.6f")})
            download_row(shown, f"pmf_{run}_{query}", key="spread_pmf_table")

# ---- 2. across queries: the range of every query ----------------------------------------
st.header("Across queries: the range of each query", divider="gray")
options = metric_options(k, moving=True)
metric = st.selectbox(
    "Metric", options, help="The metric of the range plot and of the histogram below. Metrics "
    "no tie order moves (TsRR, MTRR_GRAG, counts and set measures, ...) are left out.",
    **persist_choice("spread_metric", options))
metric_eval = ctx.evaluation((metric,), ("all",))
ranges = query_ranges(metric_eval.per_query, run, metric, query_text=ctx.query_text)
if ranges.empty:
    empty_state(f"No query of run {md(run)} is evaluated for {metric}.")
else:
    st.markdown(describe_ranges(ranges, metric))
    fig = figures.range_figure(ranges.head(RANGE_ROWS), metric,  # widest first: at most RANGE_ROWS bars
                               title=f"{run}: {metric} of each query over tie orderings")
    _picked = clicked_query(show_figure(fig, key="spread_range_chart",
                                            on_select="rerun", selection_mode="points"), axis="y")
    if len(ranges) > RANGE_ROWS:
        st.caption(f"The {RANGE_ROWS:,} widest of the {len(ranges):,} queries drawn; the table "
                   "below holds every query.")
    if _picked in set(ranges["query"].astype(str)):  # drill-down: open it on Tie structure
        st.session_state["tie_run"] = run  # the run whose ranges were clicked
        drill_down("pages/tie_structure.py", DRILL_KEY, _picked)
    figure_download(fig, f"ranges_{run}_{metric}", key="spread_range_fig")
    with st.expander("The ranges as a table", icon=":material/table_rows:"):
        st.dataframe(ranges, hide_index=True)
        download_row(ranges, f"ranges_{run}_{metric}", key="spread_range_table")

# ---- 2b. the whole run: interpolated precision-recall with its tie band ------------------
st.header("The whole run: precision-recall with its tie band", divider="gray")
pr_curve = ctx.memo("spread_pr_curve", lambda r: precision_recall_curve(
    ctx.evaluation(("AP",), ("all",)), runs=[r]), run)
if pr_curve.empty or pr_curve["expected"].isna().all():
    empty_state(f"Run {md(run)} has no evaluated query: no precision-recall curve to draw.")
else:
    fig = paper_figures.precision_recall_figure(pr_curve, run)
    show_figure(fig, key="spread_pr_chart")
    st.caption("Interpolated precision at the 11 standard recall levels (trec_eval's "
               "iprec_at_recall), mean over queries: the band spans the worst and best tie "
               "orderings, the line is the exact expectation.")
    figure_download(fig, f"precision_recall_{run}", key="spread_pr_fig")

# ---- 3. the whole run: mean over random tie-breaks ---------------------------------------
st.header("The whole run: its mean over random tie-breaks", divider="gray")
left, right = st.columns(2)
n_draws = left.number_input(
    "Random tie-breaks (N)", min_value=100, max_value=20_000, step=100,
    help="How many independent random tie-breaks of the whole run to draw (each shuffles every "
         "tie group uniformly). 1,000 takes well under a second on the sample data.",
    **persist("spread_draws", 1000))
seed = right.number_input(
    "Seed", min_value=0, max_value=2**31 - 1, step=1,
    help="Seed of the random generator: the same seed gives the same draws.", **persist("spread_seed", 0))

summary = metric_eval.summary
row = summary[(summary["run"].astype(str) == run) & (summary["metric"].astype(str) == metric)]
run_marks = {str(p): float(v) for p, v in zip(row["policy"], row["value"])}
if not run_marks:
    empty_state(f"Run {md(run)} has no evaluated query for {metric}.")
elif not samplable(metric):
    empty_state(f"{metric} has no random tie-break sampler yet: its exact expectation, best and "
                "worst cases are in the ranges above and on the Overview. Random tie-breaks of "
                "the whole run are drawn for " + ", ".join(metric_options(k, moving=True, sampled=True))
                + ".")
else:
    draws = ctx.memo("spread_draws", lambda r, m, n, s: sample_run_means(
        ctx.tables()[r], m, n_draws=n, seed=s, gain=ctx.settings.gain), run, metric, int(n_draws), int(seed))
    reported = run_marks.get("trec_eval", float("nan"))
    position = (exact_percentile(ctx.tables()[run], metric, reported)  # lattice metrics: exact
                or percentile_of(reported, draws))
    sentence = position.sentence("trec_eval's order")
    st.markdown(f"**{sentence}.** The exact expectation is "
                f"{run_marks.get('expected', float('nan')):.3f}; the best and worst tie-breaks give "
                f"{run_marks.get(BEST_CASE, float('nan')):.3f} and "
                f"{run_marks.get(WORST_CASE, float('nan')):.3f}.")
    marks = {p: run_marks[p] for p in ("trec_eval", "expected") if p in run_marks}
    fig = figures.sample_histogram(draws, marks, metric,
                                   title=f"{run}: mean {metric} over {int(n_draws):,} random tie-breaks "
                                         f"(seed {int(seed)})")
    show_figure(fig, key="spread_hist_chart")
    figure_download(fig, f"random_tiebreaks_{run}_{metric}", key="spread_hist_fig")
    with st.expander("Summary of the draws", icon=":material/table_rows:"):
        stats = draws_table(draws, {**marks, **{p: run_marks[p] for p in (BEST_CASE, WORST_CASE)
                                                      if p in run_marks}}, seed=int(seed))
        st.dataframe(stats, hide_index=True,
                     column_config={"value": st.column_config.NumberColumn(format="%.6f")})
        download_row(stats, f"random_tiebreaks_{run}_{metric}", key="spread_hist_table", digits=6)

st.caption(metric_eval.rule.capitalize() + ".")
show_findings(table.findings)
