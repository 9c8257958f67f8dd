"""Compare: is a run better than the baseline, and would the answer survive another tie order?

A corrected paired test of every chosen run against a baseline (ranx-style report), the
per-query differences of one run and the rank-biased overlap of its order with the
baseline's, how stable its verdict is under random and fixed
tie-breaks, the system ranking under each tie policy, and an optional per-group
breakdown. Widgets and layout only: the numbers come from :mod:`tiedrank.stats` and
:mod:`tiedrank.dashboard.compare`.
"""
from __future__ import annotations

import streamlit as st

from tiedrank.dashboard import compare as view
from tiedrank.dashboard import run_overlap as overlap
from tiedrank.dashboard.drilldown import (DRILL_PAIR_KEY, clicked_query, drill_choices,
                                          selected_row_value, url_from_choices)
from tiedrank.dashboard.figures import compare as figures
from tiedrank.dashboard.settings import metric_options
from tiedrank.dashboard.ui import (
    drill_down,
    download_row,
    empty_state,
    figure_download,
    get_context,
    metric_multiselect,
    number_cards,
    persist,
    persist_choice,
    report_download_row,
    show_figure,
    show_findings,
    stacking_columns,
)
from tiedrank.report import markdown_literal as md  # file text shown as text, never markup
from tiedrank.core.errors import InputError
from tiedrank.core.policies import ALL_POLICIES
from tiedrank.io import read_groups
from tiedrank.core.policies import POLICY_LABELS
from tiedrank.report import render
from tiedrank.sampling import samplable
from tiedrank.stats import CORRECTIONS, TESTS, group_breakdown


st.title("Compare runs: is a run better than the baseline, and does the verdict survive another tie order?")

ctx = get_context()
k = ctx.settings.k
runs = list(ctx.runs)
st.markdown(
    f"**{md(ctx.dataset_label)}.** A paired significance test of each run against a baseline "
    "on the per-query values, corrected for multiple comparisons; then, for one run, the "
    "per-query differences and whether its verdict holds under **every tie-break**: the "
    "exact expectation, trec_eval's order, the best and worst cases, and random tie-breaks.")
if len(runs) < 2:
    empty_state(f"Comparing needs at least two runs; the loaded data has {len(runs)}. Upload "
                "more runs in the sidebar (**Data → Upload your own**) or pick a bundled dataset "
                "with several runs (LLMJudge).")
    st.stop()

# ---- controls ---------------------------------------------------------------------------
with st.container(border=True):
    # Rows of fixed-width controls that wrap onto more rows in a narrow window (never a
    # column too narrow for its label or value); the two lists take a full row each.
    baseline = st.selectbox(
        "Baseline run", runs, **persist_choice("compare_baseline", runs, runs[0]), width=260,
        help="The run every other run is compared with (differences are run − baseline). Its "
             "key in the report is 'a'.")
    others = [r for r in runs if r != baseline]

    RUNS_KEY = "compare_runs"
    runs_args = persist(RUNS_KEY)
    # a new baseline or new data: "all others" stays all others, any other choice is kept
    previous_others = st.session_state.get("_compare_runs_others")
    if previous_others != others or RUNS_KEY not in st.session_state:
        st.session_state[RUNS_KEY] = view.retarget_runs(st.session_state.get(RUNS_KEY), previous_others, others)
    if any(r not in others for r in st.session_state[RUNS_KEY]):
        st.session_state[RUNS_KEY] = [r for r in st.session_state[RUNS_KEY] if r in others]
    st.session_state["_compare_runs_others"] = others
    compared = st.multiselect(
        "Runs to compare", others, **runs_args,
        help="The runs tested against the baseline (default: all others). With 'all pairs' "
             "every two of them are tested too.")

    metrics = metric_multiselect(
        st.container(), "compare_metrics", k, subtopics=ctx.qrels.subtopics is not None,
        help=f"Metrics of the report and of the group breakdown (k = {k} from the sidebar). "
             "Type another one, e.g. P@5, and press Enter.")

    row = st.container(horizontal=True, gap="small", vertical_alignment="bottom")
    policy = row.selectbox(
        "Tie policy of the test", list(view.TEST_POLICIES), **persist_choice("compare_policy", list(view.TEST_POLICIES)),
        format_func=lambda p: POLICY_LABELS.get(p, p) + (" (seeded)" if p == "random" else ""), width=230,
        help="Whose per-query values the test compares: the exact expectation over tie orderings "
             "(default), trec_eval's tie order (docno descending), the best or worst case, the "
             "file order, or one random tie-break drawn with the seed.")
    test = row.selectbox(
        "Test", list(TESTS), **persist_choice("compare_test", list(TESTS)), format_func=view.TEST_LABELS.get,
        width=260,
        help="Paired test on the per-query values: Student's t-test, Wilcoxon signed-rank (zero "
             "differences dropped), or Fisher's randomization test (sign flips; seeded).")
    correction = row.selectbox(
        "Correction", list(CORRECTIONS), **persist_choice("compare_correction", list(CORRECTIONS)),
        format_func=view.CORRECTION_LABELS.get, width=250,
        help="Multiple-comparison correction over the tests of each metric: Holm (family-wise "
             "error, default), Bonferroni, Benjamini-Hochberg (false discovery rate) or none.")
    alpha = row.selectbox(
        "α", [0.01, 0.05, 0.1], **persist_choice("compare_alpha", [0.01, 0.05, 0.1], 0.05), width=110,
        help="Significance level: a difference is significant when its (corrected) p ≤ α.")
    all_pairs = row.toggle(
        "All pairs", **persist("compare_all_pairs", False), width="content",
        help="Test every pair of runs (ranx's default) instead of each run against the "
             "baseline only; the correction then covers all pairs and the superscripts list "
             "every run a run significantly beats.")
    seed = int(row.number_input(
        "Seed", min_value=0, max_value=2**31 - 1, step=1, **persist("compare_seed", 0), width=150,
        help="Seeds the randomization test, the bootstrap intervals, the random tie-breaks "
             "of the stability analysis and the 'random' policy: same seed, same numbers."))
    n_resamples = int(row.number_input(
        "Resamples", min_value=100, max_value=view.MAX_RESAMPLES, step=1000,
        **persist("compare_resamples", 9999), width=170,
        help="Bootstrap (and randomization test) resamples per test, at most "
             f"{view.MAX_RESAMPLES:,} on this page (the CLI takes any number): 9,999 resample "
             "10,000 queries in about a second per pair."))

if not compared:
    empty_state("Choose at least one run to compare with the baseline (**Runs to compare** above).")
    st.stop()
if not metrics:
    empty_state("Choose at least one metric above (**Metrics**).")
    st.stop()

ties = view.evaluation_ties(policy, seed)
policy_name = view.policy_label(policy, seed)
evaluation = ctx.evaluation(tuple(metrics), ties)


def _comparison(metrics, ties, baseline, compared, policy, test, correction, alpha, all_pairs, seed,
                n_resamples, progress):
    return view.run_comparison(ctx.evaluation(metrics, ties), baseline=baseline, runs=compared,
                               metrics=metrics, policy=policy, test=test, correction=correction,
                               alpha=alpha, all_pairs=all_pairs, seed=seed,
                               n_resamples=n_resamples, progress=progress)


def _stability(run, baseline, metric, test, alpha, n_draws, seed, progress):
    # the fixed policies' values and the tie tables: any evaluation with the metric will do
    return view.stability(ctx.evaluation((metric,), ("all",)), run, baseline, metric, test=test,
                          alpha=alpha, n_draws=n_draws, seed=seed, gain=ctx.settings.gain,
                          progress=progress)


def _with_progress(name: str, first_step: str, fn, *args):
    """``fn(*args, progress)`` once per (data, settings, name, args), in the one shared cache
    (``ctx.memo``: keyed by the data's content hash, bounded by memory); while it runs a
    progress bar names the step in words (no spinner with a function name)."""
    def compute(*values):
        bar = st.progress(0.0, text=first_step)
        try:
            return fn(*values, lambda share, step: bar.progress(min(max(share, 0.0), 1.0), text=md(step)))
        finally:
            bar.empty()
    return ctx.memo(name, compute, *args)


def _shared(name: str, build, *choices):
    """``build()`` once per (data, settings, name, choices) in the shared cache, for every
    session: the figures and tables below cost more to build than to look up on each rerun.
    ``choices`` must hold every choice ``build`` reads (the comparison's are COMPARISON)."""
    return ctx.memo(name, lambda *_: build(), *choices)


COMPARISON = (tuple(metrics), ties, baseline, tuple(compared), policy, test, correction, alpha,
              all_pairs, seed, n_resamples)  # every choice the comparison depends on
try:
    comparison = _with_progress("compare_runs", "Testing the runs against the baseline…",
                                _comparison, *COMPARISON)
except ValueError as err:
    st.error(f"The comparison failed: {md(err)}", icon=":material/error:")
    st.stop()

# ---- 1. the report ------------------------------------------------------------------------
st.header("Report: every run against the baseline", divider="gray")
better, worse = view.significance_summary(comparison)
st.markdown(f":green-badge[:material/arrow_upward:] {better}  \n"
            f":red-badge[:material/arrow_downward:] {worse}")
wide_tab, numbers_tab = st.tabs(["Report (ranx style)", "All numbers"])
with wide_tab:
    wide = view.report_wide(comparison, effects_as_text=True)  # the baseline has no d: "–"
    st.dataframe(wide, hide_index=True, key="compare_report_table", column_config={
        "key": st.column_config.TextColumn("key", width="small", help="The run's letter in the superscripts."),
        "run": st.column_config.TextColumn("run", pinned=True),
        **{m: st.column_config.TextColumn(m, help=f"Mean {m}; superscript: the keys of the runs it "
                                                  "significantly beats.") for m in metrics},
        **{f"{m} d": st.column_config.TextColumn(f"{m} d", alignment="right",
                                                 help=f"Cohen's d of {m}, run − baseline.")
           for m in metrics}})
    report_download_row(  # the report grid, with the letters of the test chosen above
        lambda letters: view.comparison_report(ctx.evaluation(metrics, ties), comparison, seed=seed,
                                               n_resamples=n_resamples, letters=letters),
        "tiedrank-compare-report", key="compare_report_download", help=view.REPORT_DOWNLOAD_HELP)
with numbers_tab:
    numbers = view.report_numbers(comparison)
    st.dataframe(numbers, hide_index=True, key="compare_numbers_table", column_config={
        **{c: st.column_config.NumberColumn(c, format="%.4f")
           for c in ("mean", "diff vs baseline", "Cohen's d")},
        "p": st.column_config.NumberColumn("p", format="%.4f"),
        "p corrected": st.column_config.NumberColumn("p corrected", format="%.4f")})
    download_row(numbers, "tiedrank-compare-numbers", key="compare_numbers_download")
st.caption(view.report_caption(comparison))

chart_metric = st.columns([1, 2])[0].selectbox(
    "Metric of the charts below", metrics,
    **persist_choice("compare_chart_metric", metrics),
    help="The one metric drawn below: differences with their bootstrap intervals, the per-query "
         "differences, the verdict under each tie-break, the system rankings and the group heatmap.")
default_run = _shared("compare_default_run", lambda: view.fragile_run(
    evaluation, baseline, compared, chart_metric), *COMPARISON, chart_metric)
run = st.session_state.get("compare_run")
highlight = run if run in compared else default_run
fig = _shared("compare_interval_figure", lambda: figures.interval_figure(
    view.baseline_intervals(comparison, chart_metric), chart_metric, baseline, highlight=highlight),
    *COMPARISON, chart_metric, highlight)
show_figure(fig, key="compare_interval_chart")
figure_download(fig, f"tiedrank-compare-intervals-{chart_metric}", key="compare_interval_fig")

# ---- 2. one run, query by query -------------------------------------------------------------
st.header("One run against the baseline, query by query", divider="gray")
run = st.columns([1, 2])[0].selectbox(
    "Run", compared, **persist_choice("compare_run", compared, default_run),
    help="The run examined in this section and the next. The first choice is a run whose "
         "verdict against the baseline changes with the tie-break, when there is one.")
PAIR = (tuple(metrics), ties, policy_name, run, baseline, chart_metric)  # what the next sections read
differences = _shared("compare_differences", lambda: view.query_differences(
    evaluation, run, baseline, chart_metric, policy_name, query_text=ctx.query_text), *PAIR)
if differences.empty:
    empty_state(f"{md(run)} and {md(baseline)} have no evaluated query in common for {chart_metric}.")
else:
    counts = view.outcome_counts(differences)
    cards = number_cards()
    cards.metric(f"{md(run)} better", counts["win"], help="Queries where the run's value is higher.", width="content")
    cards.metric("Equal", counts["tie"], help="Queries where both values are equal (within 1e-12).", width="content")
    cards.metric(f"{md(baseline)} better", counts["loss"], help="Queries where the baseline's value is higher.",
                 width="content")
    cards.metric("Mean difference", f"{view.mean_difference(differences, chart_metric):+.4f}",
                 width="content", help=view.mean_difference_help(evaluation.metric(chart_metric), len(differences)))
    st.markdown(view.difference_sentence(differences, run, baseline, chart_metric, policy_name))
    fig = _shared("compare_difference_figure", lambda: figures.difference_figure(
        differences, run, baseline, chart_metric, policy_name), *PAIR)
    picked = clicked_query(show_figure(fig, key="compare_difference_chart",
                                           on_select="rerun", selection_mode="points"), axis="x")
    if picked in set(differences["query"]):  # drill-down: both runs on that query, side by side
        choices = drill_choices(run, baseline, picked, chart_metric)
        drill_down("pages/side_by_side.py", DRILL_PAIR_KEY, choices, url_from_choices(choices))
    st.caption("Click a bar to open that query on **Two runs, one query**: both runs' tie groups "
               "side by side.")
    figure_download(fig, f"tiedrank-compare-per-query-{run}-{chart_metric}", key="compare_difference_fig")
    with st.expander("The per-query differences as a table", icon=":material/table_rows:"):
        st.dataframe(differences, hide_index=True, column_config={
            c: st.column_config.NumberColumn(c, format="%.4f") for c in ("run", "baseline", "diff")})
        download_row(differences, f"tiedrank-compare-per-query-{run}-{chart_metric}",
                     key="compare_difference_download")

# ---- how alike the two runs' orders are: rank-biased overlap --------------------------------
st.subheader(f"How alike are the orders of {md(run)} and {md(baseline)}? Rank-biased overlap")
rbo_p = float(st.columns([1, 3])[0].number_input(
    "RBO persistence p", min_value=0.5, max_value=0.99, step=0.01, format="%.2f",
    **persist("compare_rbo_p", overlap.P_DEFAULT),
    help="Depth d weighs (1 − p) p^(d−1): 0.9 looks at about the top 10 documents, 0.98 at "
         "about 50. Ties: RBOʷ treats tied documents as equal, RBOᵃ averages over their "
         "orders, RBOᵇ corrects for the information ties lose (Corsi & Urbano, SIGIR 2024)."))
rbo = _shared("compare_overlap", lambda: overlap.overlap_of_runs(evaluation, run, baseline, rbo_p),
              *PAIR, rbo_p)
st.markdown(overlap.overlap_sentence(rbo, run, baseline))
with st.expander("Rank-biased overlap per query", icon=":material/table_rows:"):
    rbo_table = overlap.overlap_table(rbo)
    st.dataframe(rbo_table, hide_index=True, key="compare_overlap_table", column_config={
        c: st.column_config.NumberColumn(c, format="%.4f") for c in rbo_table.columns
        if c.startswith(("rbo_", "min_", "max_"))})
    st.caption("rbo_*: extrapolated from the runs' prefixes; min_* and max_*: the bounds "
               "whatever their unseen tails hold; NaN where one run has no document.")
    download_row(rbo_table, f"tiedrank-compare-rbo-{run}-{baseline}", key="compare_overlap_download")

# ---- fragile queries ----------------------------------------------------------------------------
fragile, n_paired = _shared("compare_fragile", lambda: view.fragile_table(
    evaluation, run, baseline, chart_metric, ctx.query_text), *PAIR)
st.header(f"Fragile queries: {view.fragile_heading(len(fragile), n_paired)}", divider="gray")
st.markdown(
    f"A query is fragile when some tie-break makes **{md(run)}** win it and another makes "
    f"**{md(baseline)}** win it on {chart_metric}: the two runs break their ties independently, so "
    f"{md(run)} − {md(baseline)} ranges from {md(run)}'s worst minus {md(baseline)}'s best to "
    f"{md(run)}'s best minus {md(baseline)}'s worst, and that range holds 0 inside it.")
if fragile.empty:
    st.success(f"On every query one tie-break decides nothing: whichever order the ties take, "
               f"the same run wins or the two tie ({chart_metric}).", icon=":material/check_circle:")
else:
    number = lambda label, help: st.column_config.NumberColumn(label, format="%.4f", help=help)
    event = st.dataframe(
        fragile, hide_index=True, key="compare_fragile_table", on_select="rerun",
        selection_mode="single-row", column_config={
            "query": st.column_config.TextColumn("query", pinned=True),
            "expected_a": number(f"{run} expected", "Exact expectation over tie orderings."),
            "expected_b": number(f"{baseline} expected", "Exact expectation over tie orderings."),
            "trec_eval_a": number(f"{run} trec_eval", "In trec_eval's order (docno descending)."),
            "trec_eval_b": number(f"{baseline} trec_eval", "In trec_eval's order (docno descending)."),
            "best_a": number(f"{run} best", "Best case over tie orderings."),
            "worst_a": number(f"{run} worst", "Worst case over tie orderings."),
            "best_b": number(f"{baseline} best", "Best case over tie orderings."),
            "worst_b": number(f"{baseline} worst", "Worst case over tie orderings."),
            "winner_expected": st.column_config.TextColumn("winner by expectation"),
            "winner_trec_eval": st.column_config.TextColumn("winner in trec_eval's order"),
            "max_diff": number("max diff", f"{md(run)}'s best − {md(baseline)}'s worst: the most {md(run)} "
                                           "can win by."),
            "min_diff": number("min diff", f"{md(run)}'s worst − {md(baseline)}'s best: the most {md(run)} "
                                           "can lose by.")})
    picked = selected_row_value(event, fragile)
    if picked is not None:  # drill-down: both runs' tie groups on that query, side by side
        choices = drill_choices(run, baseline, picked, chart_metric)
        drill_down("pages/side_by_side.py", DRILL_PAIR_KEY, choices, url_from_choices(choices))
    st.caption("Click a row (its checkbox) to open that query on **Two runs, one query**; click a "
               "header to sort. Widest range first.")
    download_row(fragile, f"tiedrank-compare-fragile-{run}-{chart_metric}",
                 key="compare_fragile_download")

# ---- 3. verdict stability ---------------------------------------------------------------------
st.header("Would the verdict survive another tie order?", divider="gray")
if not samplable(chart_metric):
    empty_state(f"{chart_metric} has no random tie-break sampler yet, so the chance that another "
                "tie order reverses the verdict cannot be drawn; the report above and the best and "
                "worst cases (Overview, Spread) are exact. For this section choose as **Metric of the "
                "charts below** one of " + ", ".join(metric_options(k, moving=True, sampled=True)) + ".")
else:
    n_draws = int(st.columns([1, 3])[0].number_input(
        "Random tie-breaks", min_value=100, max_value=view.MAX_DRAWS, step=100, **persist("compare_draws", 1000),
        help="How many independent random tie-breaks of both runs to draw (at most "
             f"{view.MAX_DRAWS:,} here; the CLI takes any number). P(run beats baseline) is "
             "estimated from them, with a binomial standard error sqrt(p(1 − p)/N), except on "
             "Success@k, P@k, R@k and Rprec, where it is exact and the draws only show the spread."))
    stability = _with_progress("compare_stability", "Sampling random tie-breaks…", _stability, run,
                               baseline, chart_metric, test, alpha, n_draws, seed)
    headline = view.stability_headline(stability)
    if stability.same_verdict:
        st.success(headline, icon=":material/check_circle:")
    else:
        st.warning(headline, icon=":material/swap_vert:")
    st.markdown(view.stability_sentence(stability, bold=True))
    st.caption(view.trec_eval_among_tie_breaks_sentence(
        view.trec_eval_among_tie_breaks(evaluation, stability), run, baseline))
    cards = number_cards()
    cards.metric("P(run beats baseline)", f"{stability.p_win:.1%}" + (
                        " (exact)" if stability.method == "exact" else f" ± {stability.se:.1%}"),
                    help="Share of random tie-breaks (both runs shuffled independently) in which the "
                         "run's mean is higher; equal means count half. ± one standard error; exact "
                         "(every tie order) on Success@k, P@k, R@k and Rprec. Normal approximation "
                         f"from the exact moments: {stability.p_normal:.1%}.", width="content")
    cards.metric("Exact expectation", stability.verdict("expected") or "–",
                    help="The run's verdict on the exact expected values (every tie order equally likely).",
                 width="content")
    cards.metric("trec_eval order", stability.verdict("trec_eval") or "–",
                    help="The run's verdict when both runs' ties are broken as trec_eval does "
                         "(docno descending): the number most papers report.", width="content")
    cards.metric("Significance survives", "yes" if stability.significance_survives else "no",
                    help=f"Yes when the {view.TEST_LABELS[test]} is significant (p ≤ {alpha:g}, "
                         "uncorrected) under the exact expectation and, with the same winner, under "
                         "every other fixed policy.", width="content")
    verdicts = view.verdict_table(stability)
    st.dataframe(verdicts, hide_index=True, key="compare_verdict_table", column_config={
        **{c: st.column_config.NumberColumn(c, format="%.4f") for c in verdicts.columns[1:4]},
        "p": st.column_config.NumberColumn("p", format="%.4f", help="Uncorrected p of the test under this policy.")})
    download_row(verdicts, f"tiedrank-compare-verdicts-{run}-{chart_metric}", key="compare_verdict_download")
    fig = _shared("compare_stability_figure", lambda: figures.stability_figure(
        stability.draws, stability.verdicts, run, baseline, chart_metric),
        run, baseline, chart_metric, test, alpha, n_draws, seed)
    show_figure(fig, key="compare_stability_chart")
    figure_download(fig, f"tiedrank-compare-stability-{run}-{chart_metric}", key="compare_stability_fig")


# ---- 4. system rankings per policy -------------------------------------------------------------
st.header("System ranking under each tie policy", divider="gray")
ranked_runs = [baseline, *compared]
RANKED = (tuple(metrics), ties, chart_metric, tuple(ranked_runs))
ranking = _shared("compare_ranking", lambda: view.ranking_table(evaluation, chart_metric, ranked_runs),
                  *RANKED)
agreement = _shared("compare_agreement", lambda: view.agreement_table(
    evaluation, chart_metric, ranked_runs), *RANKED)
st.markdown(view.agreement_sentence(agreement))
st.caption(f"Rank of each run on {chart_metric} under each tie policy (1 = best; equal means share "
           "the average rank). The means are in the Overview page.")
st.dataframe(ranking, hide_index=True, key="compare_ranking_table", column_config={
    "run": st.column_config.TextColumn("run", pinned=True),
    **{f"rank {p}": st.column_config.NumberColumn(f"rank: {POLICY_LABELS[p]}", format="%g",
                                                  help=f"Rank under the {p} policy (1 = best; equal "
                                                       "means share the average rank).")
       for p in ALL_POLICIES},
    "rank spread": st.column_config.NumberColumn(
        "rank spread", format="%g", help="Highest minus lowest rank over the policies.")})
download_row(ranking, f"tiedrank-compare-rankings-{chart_metric}", key="compare_ranking_download")
left, right = stacking_columns("compare_rankings", [2, 3])  # one above the other when narrow
with left:
    st.markdown(f"**Kendall's tau between the policies' rankings** ({chart_metric})")
    shown = agreement.assign(policy_a=agreement["policy_a"].map(lambda p: POLICY_LABELS.get(p, p)),
                             policy_b=agreement["policy_b"].map(lambda p: POLICY_LABELS.get(p, p)))
    st.dataframe(shown, hide_index=True, key="compare_agreement_table", column_config={
        "policy_a": st.column_config.TextColumn("policy"),
        "policy_b": st.column_config.TextColumn("other policy"),
        "kendall_tau": st.column_config.NumberColumn("Kendall's tau", format="%.3f",
                                                     help="Tie-aware tau-b between the two rankings."),
        "p_value": st.column_config.NumberColumn("p", format="%.3f",
                                                 help="p of H0: the two rankings are unrelated.")})
    download_row(agreement, f"tiedrank-compare-kendall-{chart_metric}", key="compare_agreement_download")
with right:
    fig = _shared("compare_ranking_figure", lambda: figures.ranking_figure(
        ranking, ALL_POLICIES, chart_metric, baseline=baseline, highlight=run), *RANKED, baseline, run)
    show_figure(fig, key="compare_ranking_chart")
    figure_download(fig, f"tiedrank-compare-rankings-{chart_metric}", key="compare_ranking_fig")

# ---- 5. groups ------------------------------------------------------------------------------------
st.header("By query group", divider="gray")
# the uploader, then the example file's button on its own row (a narrow column cut its label)
upload_col = template_col = st.container()
groups_file = upload_col.file_uploader(
    "Query groups (CSV with columns query, group)", type=["csv", "txt"], key="compare_groups",
    help="A CSV file with a header line 'query,group' and one line per query, e.g. "
         "'q37,navigational'. Queries without a group are left out of the breakdown.")
template = view.groups_template(evaluation)
template_col.download_button(
    "Example groups CSV", data=lambda: render(template, "csv"), file_name="tiedrank-groups-example.csv",
    mime="text/csv", key="compare_groups_template", on_click="ignore", icon=":material/download:",
    help="The evaluated queries split at the median number of relevant documents: a ready-made "
         "file to upload, or a template to edit.")
if groups_file is None:
    empty_state("Upload a query → group CSV to see every chosen metric per group of queries "
                f"(under the {policy_name} policy), e.g. by query type or length. The example file "
                "below splits the queries by how many relevant documents they have.")
else:
    try:
        groups = read_groups(groups_file.getvalue(), source_name=groups_file.name)
    except InputError as err:
        groups = None
        st.error(f"Cannot use the groups file. {md(err)}", icon=":material/error:")
    if groups is not None:
        breakdown = group_breakdown(evaluation, groups)
        show_findings(breakdown.findings, title="Findings about the groups file")
        table = view.group_table(breakdown, policy_name, ranked_runs, metrics)
        if table.empty:
            empty_state("No query of the groups file is among the evaluated queries: check that "
                        "the query ids match those of the qrels.")
        else:
            st.dataframe(table, hide_index=True, key="compare_group_table", column_config={
                m: st.column_config.NumberColumn(m, format="%.4f") for m in metrics})
            download_row(table, "tiedrank-compare-groups", key="compare_group_download")
            diffs = view.group_differences(breakdown, policy_name, baseline, compared, chart_metric)
            if not diffs.empty:
                fig = figures.group_figure(diffs, chart_metric, baseline)
                show_figure(fig, key="compare_group_chart")
                figure_download(fig, f"tiedrank-compare-groups-{chart_metric}", key="compare_group_fig")

# ---- rule and findings ----------------------------------------------------------------------------
st.header("Query set and findings", divider="gray")
st.info(f"**Query set**: {evaluation.rule}.", icon=":material/rule:")
show_findings(list(ctx.findings) + list(evaluation.findings) + list(comparison.findings))

# ---- verdict-flip matrix ------------------------------------------------------------------------
from tiedrank.dashboard.figures.flips import flip_heatmap
from tiedrank.dashboard.flips import flip_matrix, flip_matrix_offer

st.header("Verdict-flip matrix: every pair of runs", divider="gray")
FLIPS_KEY = "compare_flips_asked"  # once asked, the matrix follows the page's choices
flip_metrics = [m for m in metrics if samplable(m)]  # P(win) needs random tie-breaks


def _ask_for_flips() -> None:
    st.session_state[FLIPS_KEY] = True


if len(ctx.runs) < 2:
    empty_state("Add a second run to see which pairs flip.")
elif not flip_metrics:
    empty_state("None of the chosen metrics has a random tie-break sampler yet: add one of "
                + ", ".join(metric_options(k, moving=True, sampled=True))
                + " to the **Metrics** above to see which pairs flip.")
elif not (st.session_state.get(FLIPS_KEY) or ctx.memo_ready("flip_matrix", tuple(flip_metrics))):
    # computed on demand (every pair on every metric: the page's largest job), at once when
    # any session has computed it for this data and these settings
    st.caption("Which pairs of runs swap places under another tie-break? "
               + flip_matrix_offer(len(ctx.runs), flip_metrics))
    st.button("Compute the verdict-flip matrix", key="compare_flips_compute",
              icon=":material/grid_on:", on_click=_ask_for_flips,
              help="Every pair of runs on every chosen metric; shown from then on in this session.")
else:
    _flips = ctx.memo("flip_matrix", lambda m: flip_matrix(ctx.evaluation(m, ("all",)), list(m),
                                                           gain=ctx.settings.gain),
                      tuple(flip_metrics))
    show_figure(flip_heatmap(_flips), key="compare_flip_chart")
    st.caption("Colour: probability that breaking ties at random reverses the order the "
               "expectation gives the two runs (0.5 = a coin toss). ✕: trec_eval's order and the "
               "expectation disagree on which run is ahead. P(win) is exact on lattice metrics "
               "(P@k, R@k, Success@k, Rprec), else from 200 draws."
               + (f" Left out (no random tie-break sampler yet): {', '.join(left_out)}."
                  if (left_out := [m for m in metrics if m not in flip_metrics]) else ""))
    with st.expander("The matrix as a table", icon=":material/table_rows:"):
        st.dataframe(_flips, hide_index=True, key="compare_flip_table")
