"""Two runs, one query: both runs' tie groups side by side, where each puts the relevant
documents, and each run's range of a metric on the query.

Widgets and layout only: the frames come from :mod:`tiedrank.dashboard.side_by_side`.
Compare's per-query differences open a query here (a click on a bar); the choices are in
the link (``?run_a=…&run_b=…&query=…&metric=…``).
"""
from __future__ import annotations

import streamlit as st

from tiedrank.dashboard import side_by_side as view
from tiedrank.dashboard.datasets import bundled_corpus_path
from tiedrank.dashboard.figures.side_by_side import slope_figure
from tiedrank.dashboard.settings import metric_options, read_metrics
from tiedrank.dashboard.ui import (
    download_row,
    empty_state,
    figure_download,
    get_context,
    persist,
    persist_choice,
    show_figure,
    stacking_columns,
)
from tiedrank.report import markdown_literal as md  # file text shown as text, never markup

ctx = get_context()
k = ctx.settings.k
tables = ctx.tables()
runs = list(tables)

st.title("Two runs, one query: where each puts the documents")
st.markdown(
    f"**{md(ctx.dataset_label)}.** Pick two runs and a query: their tie groups side by side (a "
    "group's documents may come in any order inside its rank span), where each run puts the "
    "relevant documents, and how far the tie order alone moves each run's metric on the query. "
    "On **Compare**, a click on a query of the per-query differences opens it here.")

queries = [str(q) for q in tables[runs[0]].queries]
# ---- the choices: a link first, then a click on Compare (the newer wins) ----------------------
URL_WRITTEN = "_sbs_url_written"
in_link = {name: st.query_params[name] for name in view.URL_PARAMS.values() if name in st.query_params}
if in_link == st.session_state.get(URL_WRITTEN):
    in_link = {}  # what this page wrote: the widgets already hold it
drill = st.session_state.pop(view.DRILL_PAIR_KEY, None) or {}
metrics = metric_options(k, moving=True)  # every registered family a tie order can move
# a metric typed on Compare (opened by a click there) or in a link is offered too, if valid
extra, _ = read_metrics(m for m in (st.session_state.get("sbs_metric"), in_link.get("metric"),
                                    drill.get("sbs_metric")) if m)
metrics += [m.name for m in extra if m.name not in metrics and not m.policy_invariant]
if in_link:
    st.session_state.update(view.choices_from_url(in_link, runs, queries, metrics))
if drill:
    st.session_state.update(view.choices_from_url(view.url_from_choices(drill), runs, queries, metrics))
chosen_a = st.session_state.get("sbs_run_a")
if (in_link or drill) and chosen_a in runs and len(runs) > 1 and chosen_a == st.session_state.get(
        "sbs_run_b", runs[1]):  # a link naming run A only (Tie structure's): B is another run
    st.session_state["sbs_run_b"] = next(r for r in runs if r != chosen_a)

if len(runs) < 2:
    empty_state(f"The loaded data has one run ({runs[0]}): both sides show it. Upload more runs "
                "in the sidebar (**Data → Upload your own**) or pick a dataset with several runs.")
with st.container(border=True):
    # the query alone on a full-width row, the other controls wrapping onto more rows in a
    # narrow window, each as wide as its longest choice: nothing is cut at 800 px
    query = st.selectbox("Query", queries, format_func=lambda q: ctx.label(q, 60),
                         **persist_choice("sbs_query", queries, queries[0]),
                         help="A query of the qrels. Type to search ids and text.")
    if len(ctx.query_text.get(query, "")) > 60:
        st.caption(f"**{md(query)}**: {md(ctx.query_text[query])}")
    row = st.container(horizontal=True, gap="small", vertical_alignment="bottom")
    run_width = view.control_width(runs)
    run_a = row.selectbox("Run A", runs, **persist_choice("sbs_run_a", runs, runs[0]), width=run_width,
                          help="The run shown first (on Compare: the run compared).")
    run_b = row.selectbox("Run B", runs, **persist_choice("sbs_run_b", runs, runs[min(1, len(runs) - 1)]),
                          width=run_width, help="The run shown second (on Compare: the baseline).")
    metric = row.selectbox("Metric", metrics, **persist_choice("sbs_metric", metrics, f"nDCG@{k}"),
                           width=view.control_width(metrics),
                           help="The metric whose range over tie orderings each run has on "
                                "this query (metrics defined on tie groups are left out).")
    top = int(row.number_input("Ranks shown", min_value=1, max_value=10_000, step=10,
                               **persist("sbs_top", 30), width=140,
                               help="Show the groups starting within this many ranks."))

wanted = view.url_from_choices({"sbs_run_a": run_a, "sbs_run_b": run_b, "sbs_query": query,
                                "sbs_metric": metric})
for name, value in wanted.items():
    if st.query_params.get(name) != value:
        st.query_params[name] = value
st.session_state[URL_WRITTEN] = wanted
if run_a == run_b and len(runs) > 1:
    st.info("Both sides show the same run: choose another **Run B** to compare.", icon=":material/info:")

table_a, table_b = tables[run_a], tables[run_b]
name_a, name_b = (run_a, run_b) if run_a != run_b else (f"{run_a} (A)", f"{run_b} (B)")

# ---- 1. each run's range on the query ---------------------------------------------------------
st.header("Each run's range on this query", divider="gray")
evaluation = ctx.evaluation((metric,), ("all",))
ranges = view.ranges_on_query(evaluation, list(dict.fromkeys([run_a, run_b])), query, metric)
if ranges.empty:
    empty_state(f"Neither run answers query **{md(query)}**, so it is not in their means "
                "(trec_eval's query set: queries with results and judgements).")
else:
    st.dataframe(ranges, hide_index=True, key="sbs_ranges_table", column_config={
        c: st.column_config.NumberColumn(c, format="%.4f", help=h) for c, h in (
            ("expected", "Exact expectation over every order of the tied documents."),
            ("best", "Best case: relevant documents first inside each group."),
            ("worst", "Worst case: relevant documents last inside each group."),
            ("trec_eval", "trec_eval's order inside a group (docno descending)."),
            ("range", "best − worst: how much the tie order alone moves the value."))})

# ---- 2. the relevant documents ------------------------------------------------------------------
st.header("Where each run puts the relevant documents", divider="gray")
placement = ctx.memo("sbs_placement", lambda a, b, q: view.relevant_placement(
    ctx.tables()[a], ctx.tables()[b], ctx.qrels.frame, q, ctx.settings.rel_level), run_a, run_b, query)
if placement.empty:
    empty_state(f"No document of query **{md(query)}** has grade ≥ {ctx.settings.rel_level} in the qrels.")
else:
    st.markdown(view.placement_caption(placement, name_a, name_b, ctx.settings.rel_level))
    wide = view.placement_wide(placement)
    st.dataframe(wide, hide_index=True, key="sbs_relevant_table", column_config={
        "shift": st.column_config.NumberColumn(
            "shift", format="%+.1f", help="Expected rank in B minus in A (middle of each span): "
                                          "negative = B puts the document higher.")})
    download_row(placement, f"tiedrank-relevant-{run_a}-{run_b}-{query}", key="sbs_relevant_download")

# ---- 3. the slope chart ------------------------------------------------------------------------------
documents = ctx.memo("sbs_documents", lambda a, b, q: view.side_by_side(ctx.tables()[a], ctx.tables()[b], q),
                     run_a, run_b, query)
st.header("From run A's ranks to run B's", divider="gray")
flows = view.group_flows(documents, top)
if flows.empty:
    empty_state(f"Neither run returns a document for query **{md(query)}**.")
else:
    fig = slope_figure(flows, name_a, name_b, top=top,
                       title=f"{ctx.label(query)}: the documents of either run's top {top}")
    show_figure(fig, key="sbs_slope_chart")
    st.caption("Each line is a document (thicker: several documents in the same two groups with "
               "the same grade), from its tie group in A to its tie group in B; grey bars are the "
               "groups' rank spans.")
    figure_download(fig, f"tiedrank-side-by-side-{run_a}-{run_b}-{query}", key="sbs_slope_fig")

# ---- 4. the tie groups, side by side ---------------------------------------------------------------
st.header("The tie groups side by side", divider="gray")
bundled = bundled_corpus_path(ctx.dataset_label)
with st.expander("Document text (optional corpus)", icon=":material/description:",
                 expanded=False):
    corpus_upload = st.file_uploader(
        "Corpus", type=["tsv", "txt", "jsonl", "parquet", "gz"], key="sbs_corpus_upload",
        help="docno<TAB>text (TSV), JSONL with docno/doc_id/_id and text/contents/body, or "
             "Parquet; .gz accepted. Only the shown documents are kept."
             + (" The bundled corpus of this dataset is used when none is uploaded." if bundled else ""))
source = corpus_upload.getvalue() if corpus_upload is not None else bundled
shown = documents[documents["first"] <= top]
try:
    snippets = view.load_snippets(source, sorted(set(shown["doc"])))
except ValueError as error:  # InputError: one clear message, no traceback
    st.error(md(error))
    snippets = {}
# one run above the other in a window narrower than 1000 px (half of it would cut the tables)
columns = stacking_columns("sbs_sides", 2, below=1000)
for column, side, name, other in ((columns[0], "A", name_a, name_b), (columns[1], "B", name_b, name_a)):
    rows = shown[shown["side"] == side]
    with column:
        st.subheader(f"{side}: {md(name)}")
        if rows.empty:
            empty_state(f"{md(name)} returns no document for this query.")
            continue
        n_groups = rows["group"].nunique()
        st.caption(f"{len(rows)} documents in {n_groups} tie group{'s' if n_groups != 1 else ''} "
                   f"starting within the top {top}.")
        table = rows[["group", "ranks", "doc", "grade", "score", "other_ranks"]]
        st.dataframe(table, hide_index=True, key=f"sbs_groups_{side}", height=420, column_config={
            "group": st.column_config.NumberColumn("group", help="Tie group number inside the query."),
            "ranks": st.column_config.TextColumn("ranks", help="The group's rank span in this run."),
            "other_ranks": st.column_config.TextColumn(
                f"in {other}", help=f"Where {other} puts the same document (its group's rank span).")})
        if snippets:  # the text in its own rows, where it wraps (a table column would cut it)
            with st.expander(f"Document text ({side})", icon=":material/description:"):
                st.markdown(view.snippet_lines(rows, snippets))
if source is None:
    st.caption("No corpus for this dataset: upload one above to read the documents.")
download_row(documents.drop(columns="text"), f"tiedrank-side-by-side-{run_a}-{run_b}-{query}",
             key="sbs_documents_download")
