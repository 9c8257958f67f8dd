"""TsRR alpha sweep: the tie-sensitive reciprocal rank of every run across alpha.

The mean TsRR per run over a log-scale alpha range (``tiedrank.evaluation.tsrr_sweep``) with
MRR in trec_eval's order, E[RR] and TsRR2 as reference lines; a per-query table at one
alpha; the formula; and its two pathologies on live toy examples. Widgets and layout only.
"""
from __future__ import annotations

import numpy as np
import streamlit as st

from tiedrank.dashboard.figures import tsrr as figures
from tiedrank.dashboard.tsrr import (
    APPENDED_BASE,
    TSRR2_LATEX,
    TSRR_LATEX,
    NO_REFERENCES,
    alpha_grid,
    alpha_steps,
    appended_example,
    appended_sentence,
    format_alpha,
    fully_tied_example,
    nearest_alpha,
    sweep_references,
    sweep_table,
    tsrr_query_table,
)
from tiedrank.dashboard.ui import (
    download_row,
    empty_state,
    figure_download,
    get_context,
    number_cards,
    persist,
    persist_choice,
    show_figure,
    stacking_columns,
)
from tiedrank.report import markdown_literal as md  # file text shown as text, never markup
from tiedrank.evaluation import tsrr_sweep

SWEEP_POINTS = 201

st.title("TsRR alpha sweep")
st.caption("TsRR (the tie-sensitive reciprocal rank of the TsRR repository, version 1) "
           "penalises a relevant document for the irrelevant ones tied with it; alpha sets how "
           "hard. Compare it with what trec_eval reports, with the exact expectation E[RR] and "
           "with the alpha-free revision TsRR2.")
st.latex(TSRR_LATEX)
st.markdown(r"$r_{\mathrm{pre}}$: documents ranked strictly above the first relevant one's tie "
            r"group; $F_G$: irrelevant documents in that group; $F_{\mathrm{total}}$: irrelevant "
            r"documents retrieved for the query. A query with no relevant document retrieved "
            r"scores 0. Larger $\alpha$ is harsher; $\alpha \to 0$ gives $1/(r_{\mathrm{pre}}+1)$.")

ctx = get_context()
runs = list(ctx.runs)
if not runs:
    empty_state("The loaded data has no run to analyse.")
    st.stop()
tables = ctx.tables()

# ---- the sweep -------------------------------------------------------------------------
st.header("Mean TsRR per run across alpha", divider="gray")
left, right = stacking_columns("tsrr_sweep_controls", [3, 2])  # one above the other when narrow
steps = alpha_steps(-3.0, 3.0)
range_kwargs = persist("tsrr_alpha_range")  # value= below makes it a range slider
if "tsrr_alpha_range" in st.session_state:  # a kept pair snaps to the offered alphas
    kept = tuple(nearest_alpha(a, steps) for a in st.session_state["tsrr_alpha_range"])
    if kept != tuple(st.session_state["tsrr_alpha_range"]):
        st.session_state["tsrr_alpha_range"] = kept
alpha_low, alpha_high = left.select_slider(
    "alpha range", options=steps, format_func=format_alpha, value=(0.01, 100.0),
    help=f"The sweep covers alpha from the left end to the right end, {SWEEP_POINTS} points evenly "
         "spaced on a log scale. The default 0.01 to 100 shows both limits.", **range_kwargs)
low, high = float(np.log10(alpha_low)), float(np.log10(alpha_high))
runs_kwargs = persist_choice("tsrr_runs", runs)
st.session_state.setdefault("tsrr_runs", runs)  # first visit: every run
chosen = right.multiselect(
    "Runs", runs, wrap=True, help="Runs drawn in the sweep (all by default). Click a legend entry to hide "
    "a run's curve.", **runs_kwargs)
ref_options = [NO_REFERENCES, *chosen]
ref_run = right.selectbox(
    "Reference lines for", ref_options, format_func=lambda r: "no run" if r == NO_REFERENCES else r,
    help="Horizontal lines for one run, in its colour: dotted = MRR as trec_eval reports it, "
         "dashed = exact E[RR], dash-dot = TsRR2 (no alpha). One run at a time keeps the chart "
         "readable with many runs.",
    **persist_choice("tsrr_ref_run", ref_options, chosen[0] if chosen else NO_REFERENCES))
if high <= low:
    empty_state("The alpha range is empty: move the two ends of the slider apart.")
    st.stop()
in_range = [a for a in steps if alpha_low <= a <= alpha_high]
alpha_kwargs = persist("tsrr_alpha", 1.0)
st.session_state["tsrr_alpha"] = nearest_alpha(float(st.session_state["tsrr_alpha"]), in_range)
alpha = st.select_slider(
    "alpha of the per-query table", options=in_range, format_func=format_alpha,
    help="The per-query table below (and the vertical guide in the chart) use this alpha.",
    **alpha_kwargs)

if not chosen:
    empty_state("Pick at least one run to draw the sweep.")
else:
    alphas = alpha_grid(low, high, SWEEP_POINTS)
    sweep = ctx.memo("tsrr_sweep", lambda names, lo, hi: tsrr_sweep(
        {n: tables[n] for n in names}, alpha_grid(lo, hi, SWEEP_POINTS)),
        tuple(chosen), float(low), float(high))
    references = sweep_references(ctx.evaluation(("RR", "TsRR2"), ("expected", "trec_eval")).summary)
    references = references[references["run"] == ref_run]
    fig = figures.sweep_figure(sweep, references if len(references) else None, marked_alpha=alpha,
                               title=f"Mean TsRR over {ctx.dataset_label or 'the loaded data'}")
    show_figure(fig, key="tsrr_sweep_chart")
    figure_download(fig, "tsrr_sweep", key="tsrr_sweep_fig")
    with st.expander("The sweep and the reference values as tables", icon=":material/table_rows:"):
        wide = sweep_table(sweep)
        st.dataframe(wide, hide_index=True, height=260)
        download_row(wide, "tsrr_sweep", key="tsrr_sweep_table", digits=6)
        st.dataframe(references, hide_index=True)
        download_row(references, "tsrr_references", key="tsrr_refs_table", digits=6)

# ---- per-query table at one alpha ----------------------------------------------------------
st.header(f"Per query at alpha = {alpha:.3g}", divider="gray")
run = st.selectbox("Run of the table", runs, help="The run whose per-query TsRR ingredients and values "
                   "are listed.", **persist_choice("tsrr_table_run", runs))
per_query = tsrr_query_table(tables[run], alpha, query_text=ctx.query_text)
if per_query.empty:
    empty_state(f"No query of run {md(run)} has a relevant document in the qrels at relevance level "
                f"{ctx.settings.rel_level}.")
else:
    st.dataframe(per_query, hide_index=True, column_config={
        "text": st.column_config.TextColumn(width="medium"),
        **{c: st.column_config.NumberColumn(format="%.4f") for c in per_query.columns[-4:]},
        "a (r_pre)": st.column_config.NumberColumn(help="Documents ranked strictly above the first "
                                                   "relevant document's tie group."),
        "t": st.column_config.NumberColumn(help="Size of that tie group."),
        "r": st.column_config.NumberColumn(help="Relevant documents in that tie group."),
        "F_G": st.column_config.NumberColumn(help="Irrelevant documents tied with the first relevant one."),
        "F_total": st.column_config.NumberColumn(help="Irrelevant documents retrieved for the query.")})
    download_row(per_query, f"tsrr_{run}_alpha_{alpha:.3g}", key="tsrr_query_table", digits=6)

# ---- pathologies ---------------------------------------------------------------------------
st.header("Two pathologies of TsRR", divider="gray")
st.latex(TSRR2_LATEX)
st.caption("TsRR2 (the October 2025 revision, above) has no alpha and does not collapse to 0, "
           "but it also moves when irrelevant documents are appended.")
one, two = stacking_columns("tsrr_pathologies", 2)  # one above the other when narrow
with one:
    st.subheader("1. A fully tied list scores 0 at every alpha")
    n_docs = st.slider("Documents in the tied list", min_value=2, max_value=50, step=1,
                       help="All documents get the same score; one of them is relevant.",
                       **persist("tsrr_tied_docs", 5))
    tied = fully_tied_example(n_docs, 1, alpha_grid(low, high, SWEEP_POINTS))
    cards = number_cards()  # cards of their own width: they wrap onto more rows when narrow
    cards.metric("TsRR (every alpha)", f"{tied['TsRR'].abs().max():.4f}", width="content",
                 help="F_G = F_total when everything ties, so the ratio is 1 and TsRR = 0.")
    cards.metric("E[RR]", f"{tied['E[RR]'].iloc[0]:.4f}", width="content",
                 help="The exact expectation: the relevant document is equally likely at every rank.")
    cards.metric("TsRR2", f"{tied['TsRR2'].iloc[0]:.4f}", width="content")
    st.markdown(f"With {n_docs} tied documents the relevant one is at each rank 1..{n_docs} with "
                f"probability 1/{n_docs}, yet TsRR gives **0 for every alpha**: the list is "
                "scored like one that retrieved nothing relevant.")
    fig = figures.fully_tied_figure(tied, title=f"{n_docs} tied documents, one relevant")
    show_figure(fig, key="tsrr_tied_chart")
    figure_download(fig, "tsrr_fully_tied", key="tsrr_tied_fig")
    download_row(tied, "tsrr_fully_tied", key="tsrr_tied_table", digits=6)
with two:
    st.subheader("2. Appending irrelevant documents raises it")
    base = APPENDED_BASE
    appended = st.slider(
        "Irrelevant documents appended at the bottom", min_value=0, max_value=200, step=1,
        help=f"Start from scenario S2 (scores {', '.join(map(str, base.scores))}; d2 relevant, tied "
             "with d3) and append this many irrelevant documents below everything.",
        **persist("tsrr_appended", 10))
    example = appended_example(base.scores, base.grades, max_appended=200, alpha=alpha)
    column = f"TsRR(alpha={alpha:g})"
    now, start = example.iloc[appended], example.iloc[0]
    sentence, change = appended_sentence(start[column], now[column], appended, alpha)
    cards = number_cards()
    cards.metric(f"TsRR, alpha = {alpha:.3g}", f"{now[column]:.4f}", delta=change, width="content",
                 delta_color="normal" if change[:1] in "+-" else "off",
                 delta_arrow="auto" if change[:1] in "+-" else "off",
                 help="Change against the list without appended documents.")
    cards.metric("E[RR]", f"{now['E[RR]']:.4f}", delta="unchanged", delta_color="off",
                 delta_arrow="off", width="content",
                 help="Nothing above or around the relevant document changed, and neither does E[RR].")
    cards.metric("TsRR2", f"{now['TsRR2']:.4f}", delta=f"{now['TsRR2'] - start['TsRR2']:+.4f}",
                 width="content")
    st.markdown(sentence)
    fig = figures.appended_figure(example, current=appended,
                                  title=f"S2 plus irrelevant documents, alpha = {alpha:.3g}")
    show_figure(fig, key="tsrr_append_chart")
    figure_download(fig, "tsrr_appended", key="tsrr_append_fig")
    download_row(example, "tsrr_appended", key="tsrr_append_table", digits=6)
