"""Tie structure: which documents share a score, per query and across queries."""
import pandas as pd
import streamlit as st

from tiedrank.dashboard.datasets import bundled_corpus_path
from tiedrank.dashboard.drilldown import DRILL_KEY, DRILL_PAIR_KEY, clicked_query, url_from_choices
from tiedrank.dashboard.figures.tie_structure import (
    group_size_figure,
    ranked_list_figure,
    tie_ratio_scatter,
    top_strip_figure,
)
from tiedrank.dashboard.labels import no_relevant_message
from tiedrank.dashboard.settings import default_metrics, metric_options
from tiedrank.dashboard.tie_structure import (
    QUERY_ORDERS,
    group_size_bins,
    group_size_counts,
    order_queries,
    query_overview,
    STRIP_ROWS,
    query_values,
    strip_rows,
    tie_ratio_vs_range,
    top_strip,
)
from tiedrank.dashboard.ui import (
    drill_down,
    empty_state,
    figure_download,
    get_context,
    persist,
    persist_choice,
    show_figure,
)
from tiedrank.report import markdown_literal as md  # file text shown as text, never markup
from tiedrank.io import group_documents, load_texts, query_documents

STRIP_TOP = 20

ctx = get_context()
k = ctx.settings.k
tables = ctx.tables()

st.title("Tie structure: which documents share a score")
st.markdown(
    "Documents with the same score for a query form a **tie group**; the order inside a group "
    "is arbitrary, so a metric can take any value between its worst and best case. This page "
    f"shows the groups of **{md(ctx.dataset_label)}** for one query, across the top "
    f"{STRIP_TOP} ranks of all queries, and how much they move each query's metric.")

run = st.selectbox("Run", list(tables), **persist("tie_run"),
                   help="The run whose tie groups are shown on this page.")
table = tables[run]
overview = ctx.memo("query_overview", lambda r: query_overview(ctx.tables()[r], k), run)

# ---- one query --------------------------------------------------------------------------
st.header("One query's ranked list", divider="gray")
queries = overview["query"].tolist()
if st.session_state.get(DRILL_KEY) in queries:  # a click on a per-query chart chose it
    st.session_state["tie_query"] = st.session_state.pop(DRILL_KEY)
# the query on a full-width row; the other two controls wrap below it in a narrow window
query = st.selectbox(
    "Query", queries, format_func=lambda q: ctx.label(q, 60), **persist("tie_query"),
    help="A query of the qrels. Type to search ids and text.")
info = overview.set_index("query").loc[query]
n_retrieved = int(info["n_retrieved"])
row = st.container(horizontal=True, gap="medium", vertical_alignment="bottom")
list_top = row.number_input(
    "Ranks shown", min_value=1, max_value=max(1, n_retrieved), value=min(100, max(1, n_retrieved)),
    step=10, key=f"tie_top_{run}_{query}", width=140,
    help="Draw the ranked list down to this rank.")
mode = row.segmented_control(
    "Inside a group", ["grade counts", "each document"], **persist("tie_mode", "grade counts"), required=True,
    width="content",
    help="grade counts: a group is split by grade, as wide as the number of documents of each "
         "grade (an amount, not an order). each document: one cell per document in file order; "
         "inside a tie group this order is arbitrary.")
if mode is None:
    mode = "grade counts"

if n_retrieved == 0:
    empty_state(f"Run **{md(run)}** returns no document for query **{md(query)}**: it scores 0 on every "
                "metric for it (as trec_eval -c).")
else:
    if int(info["n_relevant"]) == 0:
        empty_state(no_relevant_message(md(query), ctx.settings.rel_level, ctx.settings.query_set))
    docs = ctx.memo("query_documents", lambda r, q, d: query_documents(ctx.tables()[r], q, d),
                    run, query, int(list_top))
    fig = ranked_list_figure(docs, mode="stack" if mode == "grade counts" else "documents",
                             query_text=ctx.query_text.get(query),
                             title=f"{run}: {ctx.label(query)}")
    show_figure(fig, key="tie_ranked_list")
    st.caption(
        f"{n_retrieved} documents in {int(info['groups'])} groups; largest group "
        f"{int(info['largest_group'])} documents; {info['tie_ratio']:.0%} of the documents share "
        f"their score with another; {int(info['n_relevant'])} relevant in the qrels "
        f"(grade ≥ {ctx.settings.rel_level}). Outlined blocks are tie groups.")
    if len(tables) > 1:
        if st.button("Open this query beside another run", key="tie_open_pair",
                     icon=":material/vertical_split:", type="tertiary",
                     help="Both runs' tie groups side by side, where each puts the relevant "
                          "documents, and each run's range on this query."):
            choices = {"sbs_run_a": run, "sbs_query": query}
            drill_down("pages/side_by_side.py", DRILL_PAIR_KEY, choices, url_from_choices(choices))
    evaluation = ctx.evaluation(tuple(default_metrics(k)), ("all",))
    values = query_values(evaluation, run, query)
    left, right = st.columns([3, 2])
    with left:
        if len(values):
            st.markdown("**This query's metrics under each tie policy**")
            st.dataframe(values, hide_index=True, column_config={
                c: st.column_config.NumberColumn(format="%.3f") for c in values.columns if c != "metric"})
    with right:
        with st.expander("Documents in this view", icon=":material/list:"):
            st.dataframe(docs, hide_index=True, height=300)
        figure_download(fig, f"tiedrank-ties-{run}-{query}", key="tie_ranked")

# ---- across queries ------------------------------------------------------------------------
st.header(f"Tie groups of the top {STRIP_TOP}, all queries", divider="gray")
if not (table.n_retrieved > 0).any():
    empty_state(f"Run **{md(run)}** has no results for any query of the qrels.")
else:
    cols = st.columns(2)
    colour = cols[0].segmented_control(
        "Colour", ["groups", "group size"], **persist("tie_strip_colour", "groups"), required=True, wrap=True,
        help="groups: a document alone on its score is pale; tied groups alternate orange and "
             "purple so that neighbours stand apart. group size: colour by the size of the group.")
    order = cols[1].selectbox(
        "Sort queries by", QUERY_ORDERS, **persist("tie_strip_order"),
        help="Row order: by id, by the share of the top ranks that are tied, or by the size of "
             "the first group.")
    strip = ctx.memo("top_strip", lambda r: top_strip(ctx.tables()[r], STRIP_TOP), run)
    row_order = ctx.memo("order_queries", lambda r, o: order_queries(ctx.tables()[r], o, STRIP_TOP),
                         run, order)
    if not strip["tied"].any():
        empty_state(f"No ties in the top {STRIP_TOP} of run **{md(run)}**: every document there has "
                    "its own score, so every tie policy gives the same metrics.")
    shown_rows = strip_rows(row_order)  # at most STRIP_ROWS rows: the chart's size stays bounded
    strip_fig = ctx.memo(  # cached: 1,000 queries make a large heatmap
        "top_strip_figure",
        lambda r, c, o: top_strip_figure(strip, color="size" if c == "group size" else "parity",
                                         top=STRIP_TOP, query_text=ctx.query_text, queries=shown_rows),
        run, colour, order)
    show_figure(strip_fig, key="tie_strip_chart")
    if len(shown_rows) < len(row_order):
        st.caption(f"{len(shown_rows):,} of the {len(row_order):,} queries drawn: every "
                   f"{-(-len(row_order) // STRIP_ROWS)}th in this order, so that the chart stays small.")
    figure_download(strip_fig, f"tiedrank-top{STRIP_TOP}-{run}", key="tie_strip")

# ---- group sizes ---------------------------------------------------------------------------
st.header("Group sizes", divider="gray")
cols = st.columns(3)
# keys, not labels, in the state: the label of "top" holds k, which the sidebar changes
scope_labels = {"all": "all ranks", "top": f"starting in the top {k}"}
scope = cols[0].segmented_control(
    "Groups", list(scope_labels), **persist_choice("tie_hist_scope", list(scope_labels), "all",
                                                  labels=scope_labels.get), required=True,
    wrap=True,
    help=f"Count every tie group, or only those that start within the first {k} ranks (k from "
         "the sidebar).")
weight = cols[1].segmented_control(
    "Count", ["groups", "documents"], **persist("tie_hist_weight", "groups"), required=True, wrap=True,
    help="Bar height: the number of groups of each size, or the number of documents in them.")
all_runs = cols[2].toggle("All runs", **persist("tie_hist_all"),
                          help="Compare the group sizes of every run (one colour per run).")
top = k if scope == "top" else None
if all_runs:
    counts = pd.concat([ctx.memo("group_size_counts", lambda r, t: group_size_counts(ctx.tables()[r], t),
                                 name, top).assign(run=name) for name in tables], ignore_index=True)
else:
    counts = ctx.memo("group_size_counts", lambda r, t: group_size_counts(ctx.tables()[r], t), run, top)
if counts.empty:
    empty_state("No tie groups to count: the run returns no documents for the qrels' queries.")
else:
    if not all_runs and (counts["size"] > 1).sum() == 0:
        empty_state(f"Run **{md(run)}** has no ties{'' if top is None else f' in the top {k}'}: every group "
                    "holds one document.")
    hist = group_size_figure(group_size_bins(counts), weight=weight or "groups")
    show_figure(hist, key="tie_hist_chart")
    figure_download(hist, f"tiedrank-group-sizes-{run}", key="tie_hist")

# ---- tie ratio vs metric range ---------------------------------------------------------------
st.header("Tie ratio against metric range, per query", divider="gray")
cols = st.columns(3)
scatter_metrics = metric_options(k, moving=True)  # the registry's families a tie order can move
metric = cols[0].selectbox("Metric", scatter_metrics, **persist_choice("tie_scatter_metric", scatter_metrics),
                           help="The metric whose range (best - worst over tie orderings) is plotted.")
BASES = {"all retrieved": ("tie_ratio", "tie ratio (share of retrieved documents in tie groups)"),
         f"top {k}": ("tie_ratio_top", f"tie ratio in the top {k} (share of those ranks held by tied documents)"),
         "largest group": ("largest_group_share", "share of the documents in the query's largest tie group")}
# When nearly every document ties (as in LLMJudge), the plain tie ratio is ~100% for every
# query: start from the largest-group share, which still tells the queries apart.
nearly_all_tied = bool((overview["tie_ratio"].dropna() > 0.98).all())
basis = cols[1].segmented_control(
    "Tie ratio of", list(BASES), required=True, wrap=True,  # wrap: never scrolled or clipped
    **persist("tie_scatter_basis", "largest group" if nearly_all_tied else "all retrieved"),
    help="x axis. all retrieved: share of the query's documents that share their score with "
         f"another; top {k}: the same within the first {k} ranks; largest group: share of the "
         "documents in the query's biggest group (spreads the points when nearly everything ties).")
scatter_all = cols[2].toggle("All runs", **persist("tie_scatter_all"),
                             help="One colour per run instead of the selected run only.")
evaluation = ctx.evaluation((metric,), ("all",))
names = list(tables) if scatter_all else [run]
frame = pd.concat([
    ctx.memo("tie_ratio_vs_range",
             lambda r, m: tie_ratio_vs_range(evaluation, ctx.tables()[r], m, k, ctx.query_text),
             name, metric).assign(run=name) for name in names], ignore_index=True)
if frame.empty:
    empty_state("No query has a relevant document at this relevance level, so no metric is defined.")
else:
    x, label = BASES.get(basis, BASES["all retrieved"])
    scatter = tie_ratio_scatter(frame if scatter_all else frame.drop(columns="run"), metric,
                                x=x, x_label=label)
    _picked = clicked_query(show_figure(scatter, key="tie_scatter_chart",
                                            on_select="rerun", selection_mode="points"))
    if _picked is not None and _picked != st.session_state.get("tie_query"):
        st.session_state[DRILL_KEY] = _picked  # opened at the top of this page
        st.rerun()
    st.caption(f"One point per query with a relevant document ({frame['query'].nunique()} queries). "
               "A point high up is a query whose metric the tie-break alone can move a lot.")
    if x != "largest_group_share" and frame[x].min() > 0.98:
        st.caption("Nearly every document is tied in every query here, so the points sit on the "
                   "right edge: choose **largest group** to spread them.")
    figure_download(scatter, f"tiedrank-tie-ratio-{run}-{metric}", key="tie_scatter")

# ---- document text of the tie groups ----------------------------------------------------------
st.header("Document text of this query's tie groups", divider="gray")
_bundled_corpus = bundled_corpus_path(ctx.dataset_label)
_corpus_upload = st.file_uploader(
    "Corpus (optional)", type=["tsv", "txt", "jsonl", "parquet", "gz"], key="doc_corpus_upload",
    help="docno<TAB>text (TSV), JSONL with docno/doc_id/_id and text/contents/body, or Parquet; "
         ".gz accepted. Only this query's documents are kept in memory."
         + (" The bundled corpus of this dataset is used when none is uploaded."
            if _bundled_corpus else ""))
_corpus_source = _corpus_upload.getvalue() if _corpus_upload is not None else _bundled_corpus
if n_retrieved == 0:
    empty_state("No document to show for this query.")
else:
    try:
        _texts = load_texts(_corpus_source, table, query, int(list_top))
    except ValueError as error:  # InputError: one clear message, no traceback
        st.error(md(error))
        _texts = {}
    if _corpus_source is None:
        st.caption("No corpus for this dataset: upload one above to read the documents.")
    _groups = group_documents(table, query, _texts, int(list_top))
    for (_group, _ranks), _members in _groups.groupby(["group", "ranks"], sort=False):
        _size = int(_members["group_size"].iloc[0])
        _n_rel = int((_members["grade"] >= ctx.settings.rel_level).sum())
        with st.expander(f"Group {_group} · ranks {_ranks} · {_size} documents · score "
                         f"{_members['score'].iloc[0]:g} · {_n_rel} relevant shown",
                         expanded=_group == 1):
            st.dataframe(_members[["doc", "grade", "score", "text"]], hide_index=True,
                         key=f"doc_group_{_group}")
