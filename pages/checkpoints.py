"""Checkpoints: one metric along the checkpoints of a training run, with its tie band.

The runs are ordered by the step in their names; for the chosen metric each step's exact
expectation with its [worst, best] band over tie orderings, consecutive steps whose bands
overlap flagged as indistinguishable under ties, and the paired test between consecutive
steps. Widgets and layout only: the numbers come from :func:`tiedrank.stats.checkpoint_curve`
through :mod:`tiedrank.dashboard.checkpoints`.
"""
from __future__ import annotations

import streamlit as st

from tiedrank.dashboard import checkpoints as view
from tiedrank.dashboard.figures.paper import checkpoint_figure
from tiedrank.dashboard.settings import metric_options
from tiedrank.dashboard.ui import (
    download_row,
    empty_state,
    figure_download,
    get_context,
    persist_choice,
    show_figure,
)
from tiedrank.report import markdown_literal as md  # file text shown as text, never markup
from tiedrank.report.grid_render import TEST_LABELS
from tiedrank.stats import TESTS

st.title("Checkpoints: which training steps can the tie-break alone not tell apart?")
st.caption("The runs of one training run, ordered by the step in their names (the last number: "
           "model-epoch3, ckpt_12000). For one metric: each step's exact expectation over tie "
           "orderings with its worst-to-best band; consecutive steps whose bands overlap are "
           "indistinguishable under ties (drawn hollow); the paired test compares each step "
           "with the previous one.")

ctx = get_context()
steps, problem = view.steps_of(list(ctx.runs))
if steps is None:
    empty_state(problem)
    st.stop()

options = metric_options(ctx.settings.k, moving=True)
LINK_WRITTEN = "_ckpt_link_written"  # session_state: the choices this page last put in the link
LINK_PROBLEM = "_ckpt_link_problem"  # session_state: (message, the choices it was said for)
link_notice = st.empty()  # the message about the link, until a choice changes (across reruns)
in_link = {key: st.query_params[key] for key in view.LINK_KEYS if key in st.query_params}
if in_link and in_link != st.session_state.get(LINK_WRITTEN):  # a link was opened: its choices
    chosen, invalid, problem = view.choices_from_link(in_link, options, list(TESTS))
    st.session_state.update(chosen)
    for key in invalid:
        st.session_state.pop(key, None)  # the default
    st.session_state[LINK_PROBLEM] = (problem, None) if problem else None

row = st.container(horizontal=True, gap="small", vertical_alignment="bottom")
metric = row.selectbox(
    "Metric", options, **persist_choice("ckpt_metric", options, "nDCG@10" if "nDCG@10" in options else None),
    width=260, help="The metric along the checkpoints. Metrics no tie order moves are left out.")
test = row.selectbox(
    "Test", list(TESTS), **persist_choice("ckpt_test", list(TESTS)), format_func=TEST_LABELS.get,
    width=260, help="Paired test between consecutive steps on the per-query expectations "
                    "(uncorrected: one test per consecutive pair).")
alphas = list(view.ALPHAS)
alpha = row.selectbox("α", alphas, **persist_choice("ckpt_alpha", alphas, 0.05), width=110,
                      help="A difference is significant when its p ≤ α.")
wanted = view.link_params(metric, test, alpha)  # in the link, so "Link to this view" keeps them
for key, value in wanted.items():
    if st.query_params.get(key) != value:
        st.query_params[key] = value
st.session_state[LINK_WRITTEN] = wanted
said = st.session_state.get(LINK_PROBLEM)
if said and said[1] in (None, wanted):  # said for the choices shown since the link opened
    st.session_state[LINK_PROBLEM] = (said[0], wanted)
    link_notice.warning(said[0], icon=":material/link_off:")
elif said:
    st.session_state[LINK_PROBLEM] = None

evaluation = ctx.evaluation((metric,), ("all",))
curve = ctx.memo("checkpoint_curve", lambda m, t, a: view.metric_curve(
    ctx.evaluation((m,), ("all",)), m, steps, test=t, alpha=a), metric, test, float(alpha))
if curve["expected"].isna().all():
    empty_state(f"No run has an evaluated query for {md(metric)} (relevance level "
                f"{ctx.settings.rel_level}).")
    st.stop()

st.markdown(view.curve_sentence(curve, metric, test, float(alpha)))
fig = checkpoint_figure(curve, metric)
show_figure(fig, key="ckpt_chart")
figure_download(fig, f"checkpoints_{metric}", key="ckpt_fig")
table = view.curve_table(curve)
st.dataframe(table, hide_index=True, column_config={
    c: st.column_config.NumberColumn(format="%.4f")
    for c in ("expected", "worst", "best", "trec_eval order", "Δ expected", "p vs previous")})
download_row(table, f"checkpoints_{metric}", key="ckpt_table")
st.caption(evaluation.rule.capitalize() + ".")
