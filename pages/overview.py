"""Overview: runs x metrics with the expected value, its range and the trec_eval-order value."""
import streamlit as st

from tiedrank.dashboard.figures.overview import range_figure
from tiedrank.dashboard.overview import (
    BEST_MARKER,
    DOWNLOAD_HELP,
    flip_sentences,
    order_flips,
    overview_cells,
    overview_long,
    overview_report,
    overview_styled,
    tie_statistics_frame,
    verdict_sentence,
)
from tiedrank.dashboard.ui import (
    download_row,
    empty_state,
    figure_download,
    get_context,
    metric_multiselect,
    persist,
    report_download_row,
    show_figure,
    show_findings,
)
from tiedrank.report import markdown_literal as md  # file text shown as text, never markup

ctx = get_context()
k = ctx.settings.k

st.title("Overview: each run's metrics over all tie orderings")
st.markdown(
    f"**{md(ctx.dataset_label)}.** Each cell shows the **expected** value over every ordering of "
    "the tied documents, the **[worst, best]** values any tie-break could give, and the value "
    "in **trec_eval's** tie order (docno descending), the number most papers report.")

# ---- metric choice (follows the shared cutoff k) -----------------------------------------
controls = st.columns([4, 2], vertical_alignment="bottom")
metrics = metric_multiselect(
    controls[0], "overview_metrics", k, subtopics=ctx.qrels.subtopics is not None,
    help=f"Metrics to show (k = {k} from the sidebar). Type another one, e.g. P@5 or "
         "TsRR(alpha=2), and press Enter.")
view_args = persist("overview_view", "Summary")
view = controls[1].segmented_control(
    "View", ["Summary", "Numbers"], required=True, wrap=True, **view_args,
    help="Summary: one cell per run and metric. Numbers: a long table with expected, worst, "
         "best, trec_eval, bias (= trec_eval - expected) and range (= best - worst).")

if not metrics:
    empty_state("Choose at least one metric above.")
    st.stop()

evaluation = ctx.evaluation(tuple(metrics), ("all",))
report = evaluation.report()
if report.empty or not any(t.n_relevant.any() for t in evaluation.tables.values()):
    empty_state(f"No query has a relevant document at relevance level {ctx.settings.rel_level} "
                "(grade ≥ that level), so every binary metric is 0 on every query, as trec_eval "
                "scores it. Lower the relevance level in the sidebar.")
    show_findings(list(ctx.findings) + list(evaluation.findings))
    st.stop()
flips = order_flips(report, "expected", "trec_eval", digits=3)  # as displayed

# ---- the verdict and the table -------------------------------------------------------------
st.markdown(verdict_sentence(report, metrics[0]))  # the first metric chosen is the page's main one
if view == "Numbers":
    table = overview_long(report)
    st.dataframe(table, hide_index=True, column_config={
        c: st.column_config.NumberColumn(c, format="%.4f") for c in table.columns if c not in ("run", "metric")})
else:
    table = overview_cells(report, metrics, flips=flips, best=BEST_MARKER)
    # numbers underneath, the cells' text on screen: a click on a header sorts by value
    st.dataframe(overview_styled(report, table, metrics), hide_index=True, column_config={
        "run": st.column_config.TextColumn("run", pinned=True),
        **{c: st.column_config.Column(c, width=250) for c in table.columns if c != "run"}})
    st.caption(f"{BEST_MARKER} and bold: the best run per metric by expectation. Click a header "
               "to sort the runs by that metric's expected value.")
# downloads: the report grid (numbers in CSV / Parquet; LaTeX and Markdown with a caption)
report_download_row(lambda letters: overview_report(evaluation, letters=letters),
                    "tiedrank-overview", key="overview_download", help=DOWNLOAD_HELP)

# ---- order flips ---------------------------------------------------------------------------
if len(flips):
    flipped_metrics = list(dict.fromkeys(flips["metric"]))
    sentences = flip_sentences(flips)
    st.warning(
        f"⚠ **The order of runs depends on the tie-break** for {', '.join(flipped_metrics)}: "
        f"{len(flips)} pair{'s' if len(flips) != 1 else ''} of runs swap between the expectation "
        "over tie orderings and trec_eval's tie order.\n\n"
        + "\n".join(f"- {s}" for s in sentences[:4]),
        icon=":material/swap_vert:")
    if len(sentences) > 4:
        with st.expander(f"All {len(sentences)} swapped pairs"):
            st.markdown("\n".join(f"- {s}" for s in sentences))
else:
    st.success("The expectation and trec_eval's tie order rank the runs the same way for every "
               "metric shown.", icon=":material/check_circle:")

# ---- range figure ----------------------------------------------------------------------------
st.subheader("Range per run")
figure_metric = st.selectbox(
    "Metric of the chart", metrics, **persist("overview_figure_metric"),
    help="The metric drawn below: the grey bar spans worst to best over all tie orderings.")
flipped_runs = set(flips.loc[flips["metric"] == figure_metric, ["run_a", "run_b"]].to_numpy().ravel())
fig = range_figure(report, figure_metric, flipped_runs=flipped_runs)
show_figure(fig, key="overview_range_chart")
figure_download(fig, f"tiedrank-range-{figure_metric}", key="overview_range")

# ---- tie statistics ----------------------------------------------------------------------------
st.subheader("Tie statistics per run")
stats = ctx.memo("tie_statistics_frame", lambda: tie_statistics_frame(ctx.tables(), top=10))
st.dataframe(stats, hide_index=True, column_config={
    "share of docs in ties": st.column_config.NumberColumn(format="percent"),
    "mean group size (top 10)": st.column_config.NumberColumn(format="%.2f"),
    "distinct scores per query": st.column_config.NumberColumn(format="%.2f"),
    "run": st.column_config.TextColumn("run", pinned=True)})
st.caption("A tie group is a set of documents with the same score for a query. 'mean group "
           "size (top 10)' averages the groups that start within the first 10 ranks.")
download_row(stats, "tiedrank-tie-statistics", key="overview_stats_download")

# ---- rule and findings -----------------------------------------------------------------------
st.subheader("Query set and findings")
st.info(f"**Query set**: {evaluation.rule}.", icon=":material/rule:")
show_findings(list(ctx.findings) + list(evaluation.findings))
