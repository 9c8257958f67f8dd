"""Learn: tie-aware metrics on a toy ranking you can edit.

The seed scenarios S1-S4 (and a few more test vectors) preloaded; every metric under every
tie policy, recomputed on each edit; the list of all orderings with the metric of each, so
that the expectation is visibly their mean; and the exact MTRR = E[1/rank] against the
G-RAG paper's MTRR (1/E[rank]). Edits go through tiedrank's readers: a bad edit shows the
reader's message. Widgets and layout only; the logic is in :mod:`tiedrank.dashboard.learn`.
"""
from __future__ import annotations

import streamlit as st

from tiedrank.dashboard import learn, walkthrough
from tiedrank.dashboard.figures import learn as figures
from tiedrank.dashboard.ui import (
    download_row,
    empty_state,
    ensure_app_ran,
    figure_download,
    kept_choice,
    number_cards,
    persist,
    persist_choice,
    show_figure,
    stacking_columns,
)
from tiedrank.core.errors import InputError
from tiedrank.core.policies import POLICY_LABELS
from tiedrank.dashboard.labels import BEST_CASE, WORST_CASE


EDITS_KEY = "_learn_edits"  # session_state: the toy table's learn.EditHistory (undo, reset)


def fmt(value: float) -> str:
    """0.416667 (= 5/12) when the value is a simple fraction."""
    fraction = learn.as_fraction(value, max_denominator=1000)
    text = f"{value:.6f}".rstrip("0").rstrip(".") if value == value else "n/a"
    return f"{text} (= {fraction})" if fraction and "/" in fraction else text


ensure_app_ran()  # opened as a fresh server's first request: go through app.py (menu, sidebar)
st.title("Learn: tie-aware metrics on a toy ranking")
st.caption("One query, a handful of documents. Edit the scores and grades and watch every "
           "metric under every tie policy. This page does not use the data in the sidebar.")

LESSON_WRITTEN = "_learn_lesson_written"  # session_state: the lesson= this page last put in the link
LESSON_PROBLEM = "_learn_lesson_problem"  # session_state: what was wrong with the link's lesson
link_notice = st.empty()  # that message, until the seed it opened is changed (across reruns)
linked = st.query_params.get(learn.LESSON_PARAM)
if linked is not None and linked != st.session_state.get(LESSON_WRITTEN):  # a link was opened
    lesson, st.session_state[LESSON_PROBLEM] = learn.decode_lesson(linked)
    lesson = lesson or learn.seed_lesson()
    st.session_state.update(lesson.widget_state())
    st.session_state[EDITS_KEY] = learn.EditHistory.opened(lesson, st.session_state.get(EDITS_KEY))

keys = list(learn.SCENARIOS)
current = kept_choice("learn_scenario", keys, "S2")
history = st.session_state.get(EDITS_KEY)
if not isinstance(history, learn.EditHistory) or history.scenario != current:
    history = st.session_state[EDITS_KEY] = learn.EditHistory.start(current)  # picked: reset
if history.editor_key not in st.session_state:  # the editor is drawn afresh: from the latest table
    history.remount()
# the editor's pending edits are known before it is drawn: the selector can say "Custom"
edited_before = walkthrough.is_edited(learn.SCENARIOS[current], walkthrough.apply_editor_state(
    history.base, st.session_state.get(history.editor_key)))


def scenario_label(key: str) -> str:
    custom = edited_before and key == current
    return walkthrough.scenario_label(key, custom) + (
        "  (seed)" if key in learn.SEED_SCENARIOS and not custom else "")


scenario_key = st.selectbox(
    "Scenario", keys,
    help="S1-S4 are the seed notebook's scenarios (metrics-reference.md, section 7); V5-V10 are "
         "further test vectors of the reference. Picking one resets the table below; after an "
         "edit the selector shows Custom and the hint describes your ranking.",
    **persist_choice("learn_scenario", keys, "S2", labels=scenario_label))
scenario = learn.SCENARIOS[scenario_key]
hint = st.empty()

controls = st.container(horizontal=True, gap="medium")  # wraps onto two rows in a narrow window
k = controls.number_input("Cutoff k", min_value=1, max_value=50, step=1, width=150,
                          help="The k of Success@k, P@k, nDCG@k and TMHits_GRAG@k. The reference's "
                               "test vectors use k = 3.", **persist("learn_k", 3))
alpha = controls.number_input("TsRR alpha", min_value=0.01, max_value=100.0, step=0.5, format="%.2f",
                              width=150, help="TsRR's alpha (> 0); larger is harsher on ties.",
                              **persist("learn_alpha", 1.0))
rel_level = controls.number_input("Relevance level", min_value=1, max_value=10, step=1, width=150,
                                  help="A document is relevant for the binary metrics when its "
                                       "grade is at least this.", **persist("learn_rel", 1))
gain = controls.segmented_control("nDCG gain", ["linear", "exp"], required=True, width="content",
                                  help="Gain of grade g: linear = g, exp = 2^g - 1.",
                                  **persist("learn_gain", "linear"))

st.subheader("The ranking", divider="gray")
left, right = stacking_columns("learn_ranking", 2, below=1000)  # one above the other at 800 px
with left:
    edited = st.data_editor(
        history.base, num_rows="dynamic", hide_index=True, key=history.editor_key,
        column_config={
            "doc": st.column_config.TextColumn("doc", help="Document id (unique, non-empty).",
                                               width="small"),
            "score": st.column_config.NumberColumn("score", help="The ranker's score: higher ranks "
                                                   "higher; equal scores tie.", format="%.4g",
                                                   width="small"),
            "grade": st.column_config.TextColumn("grade", help="Relevance grade: a whole number "
                                                 "(0 = not relevant; negative allowed).",
                                                 width="small")})
    history.record(edited)
    buttons = st.container(horizontal=True, gap="small")
    buttons.button("Undo last edit", key="learn_undo", icon=":material/undo:", on_click=history.undo,
                   disabled=history.edits == 0,
                   help="Put the table back as it was before your last edit (repeat to go further back).")
    buttons.button(f"Reset to {scenario.key}", key="learn_reset", icon=":material/restart_alt:",
                   on_click=history.reset, disabled=history.edits == 0,
                   help=f"Forget every edit: the table of scenario {scenario.key} again.")
    st.caption("Add or delete rows at the bottom or with the row menu. Equal scores form a tie "
               "group; the file order (this table's order) is the 'file order' policy.")

# the link carries the lesson (scenario, controls, table), so "Link to this view" opens it
shown = learn.Lesson(scenario_key, int(k), float(alpha), int(rel_level), gain or "linear",
                     learn.lesson_rows(edited))
wanted = None if shown == learn.seed_lesson() else learn.encode_lesson(shown)
if wanted is None and shown != learn.seed_lesson():
    with left:
        st.caption(f"This table is too big for the page's link (at most {learn.LESSON_MAX_ROWS} "
                   f"documents and {learn.LESSON_MAX_CHARS:,} characters): the link opens the "
                   "seed scenario.")
if st.query_params.get(learn.LESSON_PARAM) != wanted:
    if wanted is None:
        del st.query_params[learn.LESSON_PARAM]
    else:
        st.query_params[learn.LESSON_PARAM] = wanted
st.session_state[LESSON_WRITTEN] = wanted
if wanted is not None:  # the user changed the seed the bad link opened: the message has done
    st.session_state.pop(LESSON_PROBLEM, None)
elif st.session_state.get(LESSON_PROBLEM):
    link_notice.warning(st.session_state[LESSON_PROBLEM], icon=":material/link_off:")

try:
    result = learn.evaluate_toy(edited, k=int(k), alpha=float(alpha), rel_level=int(rel_level),
                                gain=gain or "linear")
except (InputError, ValueError) as err:
    hint.info("Your edited ranking cannot be evaluated yet: see the message by the table.",
              icon=":material/edit:")
    with right:
        st.error(learn.toy_problem(err, edited), icon=":material/error:")
        st.caption("Rows are counted as the table shows them, from 1. Fix the cell (or delete "
                   "the row, or undo the last edit) and everything below is recomputed.")
    st.stop()
ranking = result.ranking()  # as the readers read it: integer grades

if walkthrough.is_edited(scenario, ranking):
    hint.info(walkthrough.ranking_hint(ranking, int(rel_level)), icon=":material/edit:")
else:
    hint.info(scenario.description, icon=":material/lightbulb:")

with right:
    fig = figures.ranking_figure(result.ranked("expected"), result.rel_level)
    show_figure(fig, key="learn_ranking_chart")
    figure_download(fig, f"toy_{scenario_key}_ranking", key="learn_ranking_fig")
    m = number_cards()  # cards of their own width: they wrap onto more rows in a narrow window
    rr = result.value("RR")
    m.metric("E[RR]", f"{rr:.4f}", help="The exact MTRR: the mean of RR over all tie orderings.",
             width="content")
    m.metric("RR, trec_eval order", f"{result.value('RR', 'trec_eval'):.4f}", width="content")
    m.metric("RR, best case", f"{result.value('RR', BEST_CASE):.4f}", width="content")
    m.metric("RR, worst case", f"{result.value('RR', WORST_CASE):.4f}", width="content")
    st.markdown(f"E[RR] = {fmt(rr)}")
    if not result.has_relevant:
        st.warning(f"No document has a grade >= {int(rel_level)}: every binary metric is 0, and "
                   "a run's mean counts the query as 0, as trec_eval does (it is left out "
                   "only under the relevant-only query set).", icon=":material/warning:")

# ---- every metric x every policy ------------------------------------------------------------
st.subheader("Every metric under every tie policy", divider="gray")
labels = {p: POLICY_LABELS[p] for p in learn.TOY_POLICIES}
table = result.values.rename(columns=labels)
st.dataframe(table, hide_index=True, column_config={
    c: st.column_config.NumberColumn(format="%.4f") for c in labels.values()})
download_row(table, f"toy_{scenario_key}_metrics", key="learn_metrics_table", digits=6)
st.caption("TsRR, TsRR2, MTRR_GRAG and TMHits_GRAG are defined on the tie groups, so they take "
           "the same value under every policy. The others are exact expectations (first "
           "column) or the value of the one ordering a policy picks:")
t_left, t_right = stacking_columns("learn_policies", [2, 3], gap="large")
with t_left:
    orders = learn.policy_orders(result)
    st.dataframe(orders, hide_index=True)
    download_row(orders, f"toy_{scenario_key}_orderings_by_policy", key="learn_orders_table")
with t_right:
    fig = figures.policy_figure(result.values)
    show_figure(fig, key="learn_policy_chart")
    figure_download(fig, f"toy_{scenario_key}_policies", key="learn_policy_fig")

# ---- enumeration ------------------------------------------------------------------------------
st.subheader("All orderings: the expectation is their mean", divider="gray")
count = learn.ordering_count(result)
if count > learn.ENUMERATION_LIMIT:
    st.warning(f"This ranking allows {count:,} orderings, more than the {learn.ENUMERATION_LIMIT} "
               "this page lists. Make the tie groups smaller (at most 6 tied documents, e.g.) to "
               "see them all; the closed forms above are exact at any size.", icon=":material/warning:")
else:
    metrics = learn.expectation_metrics(int(k))
    orderings = learn.enumerate_toy(result, metrics)
    summary = learn.enumeration_summary(orderings, result)
    st.markdown(f"The ties allow **{count}** ordering{'s' if count != 1 else ''}, each equally likely. "
                "Averaging a metric over them gives exactly the closed-form expectation:")
    st.dataframe(summary, hide_index=True, column_config={
        **{c: st.column_config.NumberColumn(format="%.6f") for c in summary.columns[2:]},
        "difference": st.column_config.NumberColumn(format="%.1e", help="Mean over the orderings "
                                                    "minus the closed form: rounding error only.")})
    download_row(summary, f"toy_{scenario_key}_enumeration_check", key="learn_enum_summary", digits=6)
    e_left, e_right = stacking_columns("learn_orderings", 2, gap="large")
    with e_left:
        st.dataframe(orderings, hide_index=True, height="auto" if count <= 10 else 360, column_config={
            c: st.column_config.NumberColumn(format="%.4f") for c in metrics})
        download_row(orderings, f"toy_{scenario_key}_orderings", key="learn_enum_table", digits=6)
    with e_right:
        metric_kwargs = persist("learn_enum_metric")
        if st.session_state.get("learn_enum_metric", metrics[0]) not in metrics:
            del st.session_state["learn_enum_metric"]  # the cutoff changed: P@3 is now P@5
        shown = st.selectbox("Metric of the chart", metrics, help="Which metric's values over the "
                             "orderings the chart counts.", **metric_kwargs)
        fig = figures.orderings_figure(orderings, shown, result.value(shown))
        show_figure(fig, key="learn_enum_chart")
        figure_download(fig, f"toy_{scenario_key}_orderings_{shown}", key="learn_enum_fig")
    st.caption("TsRR, TsRR2 and the G-RAG metrics are not means over orderings, so they are not "
               "listed here.")

# ---- step by step: E[AP] and E[nDCG@k] ------------------------------------------------------
st.subheader(f"Step by step: E[AP] and E[nDCG@{int(k)}] from the tie groups", divider="gray")
st.markdown("Each tie group contributes on its own, whatever happens inside the others. The "
            "closed forms below (metrics-reference.md, section 3) add up one term per group; "
            "the enumeration of every ordering gives the same mean.")
steps = walkthrough.walkthrough_check(ranking, result, k=int(k), gain=gain or "linear",
                                      rel_level=int(rel_level), limit=learn.ENUMERATION_LIMIT)
w_ap, w_ndcg = stacking_columns("learn_steps", 2, gap="large")
with w_ap:
    st.latex(walkthrough.AP_LATEX)
    if steps.ap.steps.empty:
        empty_state(f"No document has a grade >= {int(rel_level)}: E[AP] = 0.")
    else:
        st.dataframe(steps.ap.steps, hide_index=True, column_config={
            "value": st.column_config.NumberColumn(format="%.6f")})
        st.markdown(walkthrough.ap_sentence(steps))
with w_ndcg:
    st.latex(walkthrough.NDCG_LATEX)
    st.dataframe(steps.ndcg.steps, hide_index=True, column_config={
        c: st.column_config.NumberColumn(format="%.6f") for c in ("sum of 1/log2(rank+1)", "contribution")})
    st.markdown(walkthrough.ndcg_sentence(steps))
st.dataframe(steps.check, hide_index=True, column_config={
    c: st.column_config.NumberColumn(format="%.10f") for c in steps.check.columns[1:]})
download_row(steps.check, f"toy_{scenario_key}_walkthrough_check", key="learn_walk_check", digits=10)

# ---- MTRR vs G-RAG -----------------------------------------------------------------------------
st.subheader("MTRR = E[1/rank] is not the G-RAG paper's 1/E[rank]", divider="gray")
f1, f2 = stacking_columns("learn_mtrr_formulas", 2)
f1.latex(r"\mathrm{MTRR} = \mathbb{E}\!\left[\frac{1}{\mathrm{rank}_1}\right] = "
         r"\sum_{j=1}^{t-r+1} \frac{\binom{t-j}{r-1}}{\binom{t}{r}}\,\frac{1}{a+j}")
f2.latex(r"\mathrm{MTRR}_{\text{G-RAG}} = \frac{1}{|P^+|}\sum_{g} k_g\,\frac{2}{2a_g + n_g + 1}")
st.markdown("The exact MTRR averages the reciprocal rank of the **first** relevant document over "
            "all orderings. The G-RAG paper (arXiv 2405.18414, Eq. 11) takes the reciprocal of "
            "each positive's **middle** rank and averages over **all** positives. Since 1/x is "
            "convex, 1/E[rank] <= E[1/rank] (Jensen), and the gap grows with the tie.")
comparison = learn.mtrr_comparison(result)
g_left, g_right = stacking_columns("learn_mtrr", [2, 3], gap="large")
with g_left:
    if comparison.empty:
        empty_state("No relevant document is retrieved in the toy ranking: there is no first "
                    "relevant rank to compare.")
    else:
        for _, row in comparison.iterrows():
            st.markdown(f"**{row['quantity']}**: {fmt(row['value'])}")
            st.latex(row["formula"])
        download_row(comparison, f"toy_{scenario_key}_mtrr", key="learn_mtrr_table", digits=6)
with g_right:
    s1, s2 = st.columns(2)
    max_tied = s1.slider("Largest tie", min_value=5, max_value=300, step=5,
                         help="The chart puts t documents in one tie (all of the list), for t up "
                              "to this.", **persist("learn_max_tied", 50))
    relevant = s2.slider("Relevant documents in the tie", min_value=1, max_value=5, step=1,
                         help="How many of the tied documents are relevant. With 2 or more, "
                              "1/E[rank1] and MTRR_GRAG differ too.", **persist("learn_curve_r", 1))
    curve = learn.mtrr_curve(int(max_tied), int(relevant))
    last = curve.iloc[-1]
    st.markdown(f"At t = {int(last['tied'])} tied with {int(relevant)} relevant: exact MTRR "
                f"{last['E[RR] (exact MTRR)']:.4f}, 1/E[rank1] {last['1/E[rank1]']:.4f}, "
                f"MTRR_GRAG {last['MTRR_GRAG']:.4f}.")
    fig = figures.mtrr_curve_figure(curve, title="A fully tied list of t documents")
    show_figure(fig, key="learn_mtrr_chart")
    figure_download(fig, "mtrr_vs_grag", key="learn_mtrr_fig")
    download_row(curve, "mtrr_vs_grag", key="learn_curve_table", digits=6)
