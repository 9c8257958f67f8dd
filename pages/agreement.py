"""Judge agreement: how well each judge's labels agree with the qrels grades (Cohen's kappa).

Widgets and layout only: the numbers come from :func:`tiedrank.stats.judge_agreement`, the
tables from :mod:`tiedrank.dashboard.agreement`, the heatmap from
:mod:`tiedrank.dashboard.figures.agreement`.
"""
from __future__ import annotations

import streamlit as st

from tiedrank.dashboard import agreement as view
from tiedrank.dashboard.drilldown import DRILL_KEY, DRILL_PAIR_KEY, drill_choices, url_from_choices
from tiedrank.dashboard.figures.agreement import confusion_heatmap
from tiedrank.dashboard.ui import (
    download_row,
    drill_down,
    empty_state,
    figure_download,
    get_context,
    persist,
    persist_choice,
    show_figure,
    show_findings,
)
from tiedrank.report import markdown_literal as md  # file text shown as text, never markup
from tiedrank.stats import WEIGHTS, judge_agreement

ctx = get_context()

st.title("Judge agreement: labels against the qrels grades")
st.markdown(
    f"**{md(ctx.dataset_label)}.** A judge that scores documents with labels (an LLM's 0-3 grades, "
    "say) can be read as a reranker, or as an assessor. Here its labels meet the human grades "
    "of the qrels, on the documents both label and judge: Cohen's kappa (1 = perfect "
    "agreement, 0 = chance), unweighted and weighted by how far a label misses "
    "(scikit-learn's `cohen_kappa_score`), and where the misses fall.")

label_runs, others = ctx.memo("agree_split", lambda: view.split_label_runs(ctx.runs))
if not label_runs:
    empty_state(view.no_label_runs_message(ctx.dataset_label, others))
    st.stop()
if others:
    st.info(view.skipped_note(others), icon=":material/filter_alt:")
agreement = ctx.memo("agree_kappa", lambda names: judge_agreement(
    {name: ctx.runs[name] for name in names}, ctx.qrels), tuple(label_runs))
show_findings(agreement.findings)
kappa_help = {w: st.column_config.NumberColumn(w, format="%.3f", help=view.KAPPA_HELP[w]) for w in WEIGHTS}
exact_help = st.column_config.NumberColumn(
    "exact agreement", format="percent",
    help="Share of the documents whose label equals their grade.")

# ---- 1. every run --------------------------------------------------------------------------
st.header("Kappa of every run", divider="gray")
table = view.kappa_table(agreement)
st.dataframe(table, hide_index=True, key="agree_kappa_table", column_config={
    **kappa_help, "exact agreement": exact_help,
    "documents": st.column_config.NumberColumn(help="Documents both scored by the run and judged."),
    "queries": st.column_config.NumberColumn(help="Queries with at least one such document.")})
st.caption("Pooled over the queries. Click a column header to sort. Weighted kappa weighs a "
           "miss by the distance between the category indexes (linear: |i - j|, quadratic: "
           "(i - j)²), as scikit-learn does.")
download_row(table, "judge_agreement", key="agree_kappa_download")

# ---- 2. one run: where its labels fall -------------------------------------------------------
st.header("Where one run's labels fall", divider="gray")
left, right = st.columns([3, 2], vertical_alignment="bottom")
run = left.selectbox("Run", label_runs, help="The judge whose confusion matrix and per-query "
                     "kappa are shown below.", **persist_choice("agree_run", label_runs))
cells = right.segmented_control(
    "Colour by", ["share of the grade", "documents"], required=True, wrap=True,
    help="share of the grade: each row coloured by the fraction of that grade's documents "
         "given each label, so rare grades read as well as common ones. documents: raw counts.",
    **persist("agree_cells", "share of the grade"))
counts = view.confusion_grid(agreement, run)
if counts.empty:
    empty_state(f"Run **{md(run)}** labels no document the qrels judge: nothing to compare.")
else:
    share = view.confusion_grid(agreement, run, share=True) if cells != "documents" else None
    fig = confusion_heatmap(counts, share=share, title=f"{run}: qrels grade against its label")
    show_figure(fig, key="agree_heatmap")
    figure_download(fig, f"confusion_{run}", key="agree_heatmap_fig")
    download_row(counts.reset_index(), f"confusion_{run}", key="agree_confusion_download")

# ---- 3. one run, query by query ------------------------------------------------------------------
st.header(f"{md(run)}, query by query", divider="gray")
per_query = view.query_table(agreement, run, ctx.query_text)
if per_query.empty:
    empty_state(f"No query of run **{md(run)}** has a labelled document the qrels judge.")
    st.stop()
event = st.dataframe(per_query, hide_index=True, key="agree_query_table", on_select="rerun",
                     selection_mode="single-row", column_config={
                         **kappa_help, "exact agreement": exact_help,
                         "text": st.column_config.TextColumn(width="medium")})
st.caption("Kappa is empty where a query's grades and labels are all one value (undefined; "
           "scikit-learn returns NaN). A query's weights index the categories seen in that "
           "query, as `cohen_kappa_score` on its documents. Select a row to open that query.")
download_row(per_query, f"judge_agreement_{run}_per_query", key="agree_query_download")

queries = per_query["query"].tolist()
picked = [queries[i] for i in (event.selection.rows if event else []) if i < len(queries)]
if picked and picked[0] != st.session_state.get("_agree_picked"):  # a new row: open it below
    st.session_state["agree_query"] = picked[0]
st.session_state["_agree_picked"] = picked[0] if picked else None
partner = view.best_partner(agreement, run)
with st.container(border=True):
    query = st.selectbox(  # on its own row: the query's text needs the width
        "Open a query", queries, format_func=ctx.label,
        help="By default the query where the run agrees least (quadratic kappa).",
        **persist_choice("agree_query", queries, view.lowest_query(per_query) or queries[0]))
    cols = st.container(horizontal=True, gap="small")  # the buttons wrap when narrow
    if cols.button("Tie structure", key="agree_open_ties", icon=":material/view_week:",
                   help=f"The tie groups of {md(run)} on this query: its labels as scores."):
        st.session_state["tie_run"] = run
        drill_down("pages/tie_structure.py", DRILL_KEY, query)
    if partner is not None and cols.button(
            "Two runs, one query", key="agree_open_pair", icon=":material/vertical_split:",
            help=f"{md(run)} beside {md(partner)}, the run whose labels agree best with the qrels "
                 "(quadratic kappa), on this query."):
        choices = drill_choices(run, partner, query)
        drill_down("pages/side_by_side.py", DRILL_PAIR_KEY, choices, url_from_choices(choices))
