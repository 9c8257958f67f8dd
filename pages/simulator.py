"""Simulator: synthetic rerankers whose scores tie, from fine-grained scores to 3-point labels.

Generate the reference rerankers of :data:`tiedrank.simulate.PRESETS` (and a custom one)
on a synthetic query set, see their metrics' worst-best spread widen as the score scale
coarsens, sweep one parameter, quantise a loaded run, download the runs, and keep them as
"my runs" (the sidebar's "Simulated in this session" dataset) so that every other page
analyses them. Widgets and layout only: the runs come from :mod:`tiedrank.simulate`
through :mod:`tiedrank.dashboard`.
"""
from __future__ import annotations

import dataclasses

import streamlit as st

from tiedrank.dashboard.datasets import BUNDLED, SESSION, SESSION_LABEL
from tiedrank.dashboard.figures import simulator as figures
from tiedrank.dashboard.my_runs import RunSet, add_message, already_kept
from tiedrank.dashboard.settings import ViewSettings, metric_choices
from tiedrank.dashboard.simulator import (
    PRECISION_CHOICES,
    SWEEP_CHOICES,
    evaluate_set,
    file_stem,
    overview_tables,
    precision_label,
    qrels_bytes,
    quantize_at_once,
    quantized_set,
    run_bytes,
    simulate_set,
    simulator_choices,
    simulator_presets,
    simulator_sweep,
    trec_zip,
)
from tiedrank.dashboard.ui import (
    KEEP,
    add_to_my_runs,
    clear_my_runs,
    current_context,
    current_settings,
    download_row,
    empty_state,
    figure_download,
    my_runs,
    read_only,
    shared_cache,
    show_figure,
    show_findings,
    stacking_columns,
)
from tiedrank.report import markdown_literal as md  # file text shown as text, never markup
from tiedrank.simulate import PRESETS, QUANTIZE_METHODS

ctx = current_context()  # may be None: the simulator works without loaded data
settings = current_settings()
k = settings.k
RESULT_KEY = "_simulator_result"
LEVEL_OPTIONS = ["continuous", *range(2, 21)]
SWEEP_METRICS = metric_choices(k, moving=True)  # "nDCG@k" -> "nDCG@10": the choice follows k


@shared_cache("Evaluating…")
def _evaluate(set_key: str, settings_key: tuple, metrics: tuple[str, ...], _run_set, _settings):
    return evaluate_set(_run_set, metrics, _settings)


@shared_cache("Simulating and evaluating each point of the sweep…")  # keyed by the parameters
def _sweep(parameter: str, base: str, quality: float, n_queries: int, docs_per_query: int,
           relevant_per_query: tuple[int, int], metric: str, rel_level: int, seed: int):
    return simulator_sweep(parameter, base=base, quality=quality, n_queries=n_queries,
                              docs_per_query=docs_per_query, relevant_per_query=relevant_per_query,
                              metric=metric, rel_level=rel_level, seed=seed)


def evaluate(run_set: RunSet, run_settings: ViewSettings, metrics: tuple[str, ...]):
    return read_only(_evaluate(run_set.key, run_settings.key(), metrics, _run_set=run_set, _settings=run_settings))


def level_label(value) -> str:
    return "continuous" if value == "continuous" else f"{value} labels (0-{value - 1})"


def add_button(run_set: RunSet, *, key: str, label: str = "Add to my runs",
               help_text: str | None = None) -> None:
    """The "my runs" sentence (added beside / replacing) and its button."""
    kept = my_runs()
    st.caption(add_message(kept, run_set))
    nothing_new = len(already_kept(kept, run_set)) == len(run_set.runs)
    st.button(label, key=key, type="primary", icon=":material/playlist_add:",
              on_click=add_to_my_runs, args=(run_set,), disabled=nothing_new,
              help=help_text or f"Keep these runs as **{SESSION_LABEL}** (sidebar, Data) for "
                                "this browser session and switch every page to them. Runs on the "
                                "same query set are added beside the kept ones; runs on another "
                                "query set replace them.")


def metrics_block(run_set: RunSet, run_settings: ViewSettings, *, key: str, basename: str) -> None:
    """Overview table (expected [worst, best] · trec), spread chart and tie statistics."""
    metrics = ("RR", f"nDCG@{run_settings.k}")
    evaluation = evaluate(run_set, run_settings, metrics)
    report = evaluation.report()
    if report.empty or not any(t.n_relevant.any() for t in evaluation.tables.values()):
        empty_state(f"No query has a relevant document at relevance level {run_settings.rel_level}, "
                    "so every binary metric is 0 on every query: lower the relevance level.")
        show_findings(list(evaluation.findings))
        return
    table, long_table, stats = overview_tables(report, evaluation.tables, metrics, run_settings.k)
    st.dataframe(table, hide_index=True, column_config={
        "run": st.column_config.TextColumn("run", pinned=True),
        **{c: st.column_config.TextColumn(c, width=260) for c in table.columns if c != "run"}})
    st.caption("Each cell: **expected** value over every ordering of the tied documents "
               "[**worst**, **best**] · value in **trec_eval**'s tie order (docno descending). "
               "⚠ marks runs whose order swaps between the expectation and trec_eval's order.")
    download_row(long_table, f"{basename}-metrics", key=f"{key}_metrics_download")

    fig = figures.spread_figure(report, metrics, runs=list(run_set.runs),
                                title="The spread: each run's range over tie orderings")
    show_figure(fig, key=f"{key}_spread_chart")
    figure_download(fig, f"{basename}-spread", key=f"{key}_spread")

    st.dataframe(stats, hide_index=True, column_config={
        "share of docs in ties": st.column_config.NumberColumn(format="percent"),
        f"mean group size (top {run_settings.k})": st.column_config.NumberColumn(format="%.2f"),
        "distinct scores per query": st.column_config.NumberColumn(format="%.2f"),
        "run": st.column_config.TextColumn("run", pinned=True)})
    st.caption(f"Tie statistics: a tie group is a set of documents with the same score for a "
               f"query; 'mean group size (top {run_settings.k})' averages the groups that start "
               f"within the first {run_settings.k} ranks.")
    download_row(stats, f"{basename}-tie-statistics", key=f"{key}_stats_download")
    show_findings(list(evaluation.findings))


def downloads(run_set: RunSet, *, key: str, basename: str) -> None:
    """A zip of everything, then the qrels and every run as TREC files (built on click)."""
    row = st.container(horizontal=True, gap="small")
    row.download_button(
        "All as zip", data=lambda: trec_zip(run_set), file_name=f"{basename}.zip",
        mime="application/zip", key=f"{key}_zip", on_click="ignore", icon=":material/folder_zip:",
        type="primary", help="qrels.txt, runs/<run>.txt (TREC formats) and a README naming the "
                             "query set and the relevance level.")
    row.download_button(
        "qrels.txt", data=lambda: qrels_bytes(run_set.qrels), file_name="qrels.txt",
        mime="text/plain", key=f"{key}_qrels", on_click="ignore", icon=":material/download:",
        help="The judgements as a TREC qrels file (qid 0 docno grade).")
    for n, (name, run) in enumerate(run_set.runs.items()):
        row.download_button(
            md(f"{name}.txt"), data=lambda run=run: run_bytes(run),
            file_name=f"{file_stem(name)}.txt", mime="text/plain", key=f"{key}_run_{n}",
            on_click="ignore", icon=":material/download:",
            help=f"The run {md(name)} as a TREC run file (qid Q0 docno rank score tag).")


# =======================================================================================
st.title("Simulator: synthetic rerankers whose scores tie")
st.markdown(
    "LLM rerankers emit labels (0-10, 5-point, 3-point) and production models serve scores in "
    "bfloat16, so many candidates share a score. Here one synthetic reranker "
    "(score = quality × grade + noise) emits its scores at different granularities on the "
    "same queries with the same noise, so the runs differ **only in how their scores tie**: "
    "watch the range between the worst and the best tie-break widen as the scale coarsens.")
message = st.session_state.pop("_my_runs_message", None)
if message:
    st.success(message, icon=":material/playlist_add_check:")

# ---- 1. generate ------------------------------------------------------------------------
st.subheader("1. Generate runs")
st.dataframe(
    simulator_presets(), hide_index=True,
    column_config={"preset": st.column_config.TextColumn("preset", width=110),
                   "description": st.column_config.TextColumn("description", width=520),
                   "scores": st.column_config.TextColumn(
                       "scores", help="Labels: equal-width bins of the latent score over a fixed "
                                      "range; continuous: the latent score itself."),
                   "precision": st.column_config.TextColumn(
                       "precision", help="The float format the scores are served in.")})
with st.form("simulator_form", border=True):
    chosen = st.multiselect(
        "Rerankers to generate", simulator_choices(), default=list(PRESETS),
        key="sim_presets", persist_state=KEEP,
        help="The presets (table above) and 'custom' (levels and precision on the right). "
             "All are generated on the same query set with the same noise, so they can be "
             "compared.")
    left, middle, right = stacking_columns("sim_form_columns", 3, gap="large")  # stacked when narrow
    with left:
        st.markdown("**Query set**")
        n_queries = st.slider(
            "Queries", 5, 500, 50, step=5, key="sim_queries", persist_state=KEEP,
            help="Number of synthetic queries (ids q001, q002, ...). More queries: smoother "
                 "means, slower sweeps.")
        docs_per_query = st.slider(
            "Docs per query", 10, 1000, 100, step=10, key="sim_docs", persist_state=KEEP,
            help="Judged candidates per query (a reranking depth). Every candidate is judged.")
        relevant = st.slider(
            "Relevant per query", 0, 50, (1, 10), key="sim_relevant", persist_state=KEEP,
            help="Relevant documents per query, uniform on this range (capped at the docs per "
                 "query); their grades are 1/2/3 with probabilities 0.5/0.3/0.2, the others 0.")
        seed = st.number_input(
            "Seed", min_value=0, max_value=2**31 - 1, value=0, step=1, key="sim_seed",
            persist_state=KEEP,
            help="Seeds the query set and the noise (independent streams). Same seed, same runs. "
                 "A new seed (or query-set size) is a new query set.")
    with middle:
        st.markdown("**Every reranker**")
        quality = st.slider(
            "Quality", 0.0, 3.0, 1.0, step=0.1, key="sim_quality", persist_state=KEEP,
            help="Signal to noise of every reranker: score = quality × grade + N(0, 1). 0 is a "
                 "random ranker; 1 separates grade 0 from grade 3 by three noise units. Runs "
                 "with a quality other than 1 get '_q<quality>' in their name.")
        tie_prob = st.slider(
            "Extra tie probability", 0.0, 0.9, 0.0, step=0.05, key="sim_tie_prob",
            persist_state=KEEP,
            help="Per document below the top of its query: the probability of snapping its "
                 "score to the score of the document directly above it (more ties, never a "
                 "reordering). Runs with extra ties get '_tie<p>' in their name.")
        rel_level = st.number_input(
            "Relevance level", min_value=1, max_value=3, value=1, step=1, key="sim_rel_level",
            persist_state=KEEP,
            help="Grade from which a document counts as relevant for RR (the simulated grades are "
                 "0-3). Used here and by the sidebar once the runs are in 'my runs'.")
    with right:
        st.markdown("**Custom reranker**")
        levels_choice = st.select_slider(
            "Levels", LEVEL_OPTIONS, value=7, format_func=lambda v: "cont." if v == "continuous" else str(v),
            key="sim_levels", persist_state=KEEP,
            help="Only for 'custom': the number of labels 0..levels-1 (equal-width bins over a "
                 "fixed score range), or continuous scores.")
        precision = st.selectbox(
            "Precision", PRECISION_CHOICES, format_func=precision_label, key="sim_precision",
            persist_state=KEEP,
            help="Only for 'custom': the float format the scores are served in. bfloat16 keeps 8 "
                 "significant bits, float16 11, float32 24; no cast keeps float64.")
        st.caption(f"custom: {level_label(levels_choice)}, {precision_label(precision)}. "
                   "Pick 'custom' among the rerankers to generate it.")
    generate = st.form_submit_button("Generate", type="primary", icon=":material/play_arrow:",
                                     key="sim_generate",
                                     help="Simulate the chosen rerankers on a new query set with "
                                          "these settings.")

levels = None if levels_choice == "continuous" else int(levels_choice)
relevant = (int(relevant[0]), int(relevant[1]))
if generate:
    if not chosen:
        st.warning("Choose at least one reranker to generate.", icon=":material/warning:")
    else:
        with st.spinner("Simulating…"):
            st.session_state[RESULT_KEY] = simulate_set(
                chosen, n_queries=int(n_queries), docs_per_query=int(docs_per_query),
                relevant_per_query=relevant, quality=float(quality), tie_prob=float(tie_prob),
                levels=levels, precision=precision, seed=int(seed), rel_level=int(rel_level))
result: RunSet | None = st.session_state.get(RESULT_KEY)

# ---- 2. the generated runs ----------------------------------------------------------------
st.subheader("2. Metrics and ties of the generated runs")
if result is None:
    empty_state("Nothing generated yet: choose the rerankers and settings above and click "
                "**Generate**. The sweep (3) and the quantisation of a loaded run (4) below work "
                "without it.")
else:
    result_settings = dataclasses.replace(settings, rel_level=result.rel_level, k=k)
    st.markdown(f"**{len(result.runs)} run{'s' if len(result.runs) != 1 else ''}** on {md(result.origin)}; "
                f"relevance level {result.rel_level} (the generated qrels' own"
                + (f"; the sidebar's {settings.rel_level} applies to the sidebar's datasets"
                   if settings.rel_level != result.rel_level else "")
                + f"), cutoff k = {k} and nDCG gain {settings.gain} from the sidebar"
                + (f", scores rounded to {settings.round} decimals" if settings.round is not None else "")
                + ".")
    metrics_block(result, result_settings, key="sim_result", basename="tiedrank-simulated")
    st.markdown("**Download** the runs and the qrels as TREC files:")
    downloads(result, key="sim_download", basename="tiedrank-simulated")
    add_button(result, key="sim_add")

# ---- 3. sweep ------------------------------------------------------------------------------
st.subheader("3. Sweep: the spread along one parameter")
SWEEP_SHORT = {"levels": "levels 2-20", "tie_prob": "tie probability 0-0.9", "precision": "precision"}
controls = stacking_columns("sim_sweep_controls", [4, 2, 2], vertical_alignment="bottom")
parameter = controls[0].segmented_control(
    "Parameter", list(SWEEP_CHOICES), default="levels", required=True, wrap=True,
    format_func=SWEEP_SHORT.get, key="sim_sweep_parameter", persist_state=KEEP,
    help="What varies along the x axis, everything else fixed: the number of labels (2-20), "
         "the extra tie probability (0-0.9) or the score precision.")
if st.session_state.get("sim_sweep_metric", "RR") not in SWEEP_METRICS:
    st.session_state.pop("sim_sweep_metric", None)  # a kept choice the registry no longer offers
metric_family = controls[1].selectbox(
    "Metric", list(SWEEP_METRICS), format_func=lambda m: SWEEP_METRICS[m], key="sim_sweep_metric",
    persist_state=KEEP, help=f"The metric drawn (k = {k} from the sidebar).")
base = controls[2].selectbox(
    "Starting from", list(PRESETS), key="sim_sweep_base", persist_state=KEEP,
    help="The preset whose other settings stay fixed while the parameter varies (with the "
         "quality of the form above); fine-grained = continuous float64 scores.")
metric = SWEEP_METRICS[metric_family]
table = read_only(_sweep(parameter, base, float(quality), int(n_queries), int(docs_per_query),
                         relevant, metric, int(rel_level), int(seed)))
if table.empty:
    empty_state(f"The query set of the form has no document of grade {rel_level} or more, so no "
                "metric is defined: raise 'Relevant per query' or lower the relevance level, "
                "then click **Generate**.")
else:
    fig = figures.sweep_figure(table, title=f"{metric} along {SWEEP_CHOICES[parameter]}, "
                                            f"starting from {base}")
    show_figure(fig, key="sim_sweep_chart")
    st.caption(f"Every point simulates the same {n_queries} queries × {docs_per_query} candidates "
               f"with the same noise (seed {seed}), so the curve shows the effect of the parameter "
               "alone. Grey band: worst to best over every tie-break; black: the exact expectation; "
               "purple: trec_eval's tie order, which can land anywhere in the band. Below: the share "
               "of documents that share their score with another.")
    row = st.container(horizontal=True, vertical_alignment="top")
    with row:
        figure_download(fig, f"tiedrank-sweep-{parameter}-{metric}", key="sim_sweep")
        download_row(table.drop(columns=["label"]), f"tiedrank-sweep-{parameter}-{metric}",
                     key="sim_sweep_download")

# ---- 4. quantise a loaded run ----------------------------------------------------------------
st.subheader("4. Quantise a loaded run")
for message in (ctx.left_out.values() if ctx is not None else ()):  # as on every page
    st.warning(message, icon=":material/link_off:")
if ctx is None or not ctx.runs:
    if ctx is None or not ctx.left_out:  # else the message above says why
        empty_state("No data is loaded in the sidebar (**Data**), so there is no run to quantise. "
                    "Pick a dataset there, e.g. trec_eval's example run (continuous scores).")
else:
    st.markdown(f"Turn a run of **{md(ctx.dataset_label)}** into labels or a low-precision scorer and "
                "compare its metrics before and after (settings of the sidebar). Runs with "
                "continuous scores show it best, e.g. trec_eval's example run.")
    runs = list(ctx.runs)
    source = st.session_state.get("dataset")
    if st.session_state.get("sim_q_run") not in runs:  # another dataset: start at its first run
        st.session_state["sim_q_run"] = runs[0]
    # fixed-width controls that wrap onto a second row in a narrow window
    qcols = st.container(horizontal=True, gap="small", vertical_alignment="bottom")
    run_name = qcols.selectbox(
        "Run", runs, key="sim_q_run", persist_state=KEEP, width=260,
        help="A run of the dataset chosen in the sidebar.")
    q_levels = qcols.select_slider(
        "Levels", ["off", *range(2, 21)], value=3, key="sim_q_levels", persist_state=KEEP, width=260,
        format_func=str,
        help="Replace each score by its bin 0..levels-1 of equal-width bins (off: keep the "
             "scores, e.g. to apply a precision alone).")
    q_precision = qcols.selectbox(
        "Precision", PRECISION_CHOICES, format_func=precision_label, key="sim_q_precision", width=180,
        persist_state=KEEP, help="Cast the scores (after binning) to this float format.")
    method = qcols.segmented_control(
        "Bins over", list(QUANTIZE_METHODS), default="query", required=True, key="sim_q_method",
        width="content",
        persist_state=KEEP, format_func=lambda m: {"query": "each query", "global": "the run"}[m],
        help="The range split into bins: each query's own [min, max] score (real scores move "
             "from query to query), or the whole run's (scores on a fixed scale).")
    q_levels = None if q_levels == "off" else int(q_levels)
    lines = len(ctx.runs[run_name].frame)
    asked = quantize_at_once(lines) or st.toggle(
        f"Quantise {md(run_name)} ({lines:,} lines)", key=f"sim_q_go_{run_name}",
        help="A large run is quantised and evaluated only when asked: it takes a while and "
             "holds two more tables of its size in the server's memory.")
    if q_levels is None and q_precision is None:
        empty_state("Choose a number of levels or a precision to quantise the run.")
    elif not asked:
        st.caption(f"{md(run_name)} has {lines:,} lines: switch on the toggle above to quantise it.")
    else:
        try:
            quantized = ctx.memo(
                "simulator_quantize",
                lambda name, lv, pr, me: quantized_set(
                    ctx.runs[name], ctx.qrels, levels=lv, precision=pr, method=me,
                    origin=f"the queries of {ctx.dataset_label}", rel_level=ctx.settings.rel_level,
                    query_text=ctx.query_text,  # a bundled dataset's run can travel in a link
                    dataset=source if source in BUNDLED else None),
                run_name, q_levels, q_precision, method)
        except ValueError as err:  # e.g. scores that overflow float16
            st.error(f"Cannot quantise {md(run_name)}: {md(err)}", icon=":material/error:")
        else:
            metrics_block(quantized, ctx.settings, key="sim_quantized", basename="tiedrank-quantized")
            new_name = list(quantized.runs)[-1]
            qrow = st.container(horizontal=True, gap="small")
            qrow.download_button(
                md(f"{new_name}.txt"), data=lambda: run_bytes(quantized.runs[new_name]),
                file_name=f"{file_stem(new_name)}.txt", mime="text/plain", key="sim_q_download",
                on_click="ignore", icon=":material/download:",
                help="The quantised run as a TREC run file.")
            qrow.download_button(
                "Both runs and qrels (zip)", data=lambda: trec_zip(quantized),
                file_name="tiedrank-quantized.zip", mime="application/zip", key="sim_q_zip",
                on_click="ignore", icon=":material/folder_zip:",
                help="qrels.txt and both runs as TREC files, with a README.")
            add_button(quantized, key="sim_q_add", label="Add both runs to my runs",
                       help_text=f"Keep {md(run_name)} and {md(new_name)} as **{SESSION_LABEL}** "
                                 "(sidebar, Data) and switch every page to them, so the other "
                                 "pages compare the run with its quantised copy. On the query set "
                                 "of your kept runs they are added beside them; on another one "
                                 "they replace them.")

# ---- 5. my runs ---------------------------------------------------------------------------------
st.subheader("5. My runs")
kept = my_runs()
if kept is None:
    empty_state(f"No runs kept yet. **Add to my runs** (above) keeps generated or quantised runs "
                f"as **{SESSION_LABEL}** in the sidebar for this browser session; every page "
                "then analyses them. Runs on the same query set are added beside each other; a new "
                "query set replaces them.")
else:
    st.markdown(f"**{len(kept.runs)} run{'s' if len(kept.runs) != 1 else ''}** on {md(kept.origin)} "
                f"(relevance level {kept.rel_level}): {', '.join(kept.runs)}.")
    if st.session_state.get("dataset") != SESSION:
        st.info(f"The sidebar shows another dataset; choose **{SESSION_LABEL}** there to "
                "analyse your runs on every page.", icon=":material/info:")
    mrow = st.container(horizontal=True, gap="small")
    mrow.download_button(
        "My runs (zip)", data=lambda: trec_zip(kept), file_name="tiedrank-my-runs.zip",
        mime="application/zip", key="sim_my_zip", on_click="ignore", icon=":material/folder_zip:",
        help="qrels.txt and every kept run as TREC files, with a README.")
    mrow.button("Clear my runs", key="sim_clear", icon=":material/delete:", on_click=clear_my_runs,
                help="Forget the kept runs (the files you downloaded stay yours).")
