"""tiedrank dashboard: evaluate rankers whose scores tie (``streamlit run app.py``; installed:
``tiedrank dashboard``). The pages (one list), the sidebar (data, shared settings) and the link
to the view; pages read them through ``tiedrank.dashboard.ui.get_context()``. Widgets and layout
only: the settings' state machine is in :mod:`tiedrank.dashboard.settings`, the column mapping
in :func:`tiedrank.dashboard.datasets.column_plan`, the link's data in ``session_uploads``."""
from __future__ import annotations

import streamlit as st

from tiedrank.core.errors import InputError
from tiedrank.dashboard import settings as sidebar
from tiedrank.dashboard import ui as common
from tiedrank.dashboard.datasets import (BUNDLED, FILES, QRELS_FIELDS, RUN_FIELDS, SESSION, TABULAR_FORMATS,
                                         UPLOAD, column_plan, dataset_caption, dataset_label)
from tiedrank.dashboard.settings import SIDEBAR_HELP as HELP, MAX_REL_LEVEL, ROUND_OPTIONS, ZERO_RELEVANT_CHOICES
from tiedrank.dashboard.upload_store import STORE
from tiedrank.dashboard.warmup import warm_up
from tiedrank.report import markdown_literal as md  # file text shown as text, never markup

st.set_page_config(layout="wide", page_title="tiedrank: evaluating rankers with tied scores",
                   page_icon="📊")  # an emoji: no icon font fetched from a CDN

# The pages of the dashboard, in menu order. Append new pages here.
PAGES = [
    st.Page("pages/overview.py", title="Overview", icon=":material/table_chart:", default=True),
    st.Page("pages/tie_structure.py", title="Tie structure", icon=":material/view_week:"),
    st.Page("pages/spread.py", title="Spread", icon=":material/bar_chart:"),
    st.Page("pages/tsrr.py", title="TsRR", icon=":material/show_chart:"),
    st.Page("pages/learn.py", title="Learn", icon=":material/school:"),
    st.Page("pages/compare.py", title="Compare", icon=":material/compare_arrows:"),
    st.Page("pages/agreement.py", title="Judge agreement", icon=":material/fact_check:"),
    st.Page("pages/side_by_side.py", title="Two runs, one query", icon=":material/vertical_split:"),
    st.Page("pages/simulator.py", title="Simulator", icon=":material/science:"),
    st.Page("pages/checkpoints.py", title="Checkpoints", icon=":material/timeline:"),
]
pg = st.navigation(PAGES, position="hidden")  # the menu is ours: see the sidebar below and config.toml
PAGE_FILES = {page.title: f"pages/{page.url_path or 'overview'}.py" for page in PAGES}
# each page's script (as st.switch_page takes it), by title: the url path is the file's name


def _link_to_this_view(slot) -> None:
    """The sidebar's "Link to this view": the address bar's link in a code block (its copy
    button copies it), drawn before the page runs and again once it has, so that it holds
    what the page put in the link too; a page that stops early keeps the first."""
    params = [(name, value) for name in st.query_params for value in st.query_params.get_all(name)]
    kept = common.my_runs()
    with slot.container(), st.popover(
            "Link to this view", icon=":material/link:", width="stretch",
            help="A link that opens this page as you see it: copy it with the button at the "
                 "right of the box."):
        st.code(sidebar.share_link(st.context.url, params, pg.url_path), language=None, wrap_lines=True)
        st.caption(sidebar.link_note(st.session_state.get("dataset", ""), store_hours=STORE.hours,
                                     remade=kept is not None and kept.recipe is not None))


def _dataset_changed() -> None:  # the new dataset's defaults (settings.dataset_changed)
    kept = common.my_runs()
    st.session_state.update(sidebar.dataset_changed(
        st.session_state, session_rel_level=kept.rel_level if kept is not None else None))
    if st.session_state["dataset"] == UPLOAD:  # the upload widgets forgot them while hidden
        common.restore_session_uploads()


def _columns(upload, fields: tuple[str, ...], role: str, errors: list[str], waiting: list[str],
             uninspected: list[str]) -> dict[str, str]:
    """The selectboxes mapping a tabular upload's columns to ``fields``; the file goes to
    ``waiting`` while a field has no column, to ``uninspected`` (and why, to ``errors``)
    when it cannot be read at all."""
    inspected = common.inspect_cached(common.upload_hash(upload), upload.name, fields, _data=upload.getvalue())
    if isinstance(inspected, InputError):
        errors.append(str(inspected))
        uninspected.append(common.upload_ident(upload))
        return {}
    fmt, columns = inspected
    if fmt not in TABULAR_FORMATS or not columns:
        return {}
    keys = {name: common.column_key(upload, name) for name in fields}
    plan = column_plan(columns, fields, {n: st.session_state[k] for n, k in keys.items() if k in st.session_state},
                       role, md(upload.name), md)
    st.session_state.update({keys[name]: column for name, column in plan.prefill.items()})
    with st.expander(f"Columns of {md(upload.name)}", expanded=bool(plan.waiting),
                     icon=":material/warning:" if plan.waiting else ":material/check_circle:"):
        st.caption(plan.caption)
        chosen = {name: st.selectbox(name, columns, key=keys[name], persist_state=common.KEEP,
                                     help=plan.helps[name], **({"index": None, "placeholder": "choose a column"}
                                                               if name in plan.unguessed else {}))
                  for name in fields}
    mapping = {name: column for name, column in chosen.items() if column is not None}
    if len(mapping) < len(fields):
        waiting.append(common.upload_ident(upload))
    return mapping


def _uploads() -> tuple:
    """The upload controls and column mappings: what :func:`common.readable_upload_context`
    reads once the settings are known, and the errors of files that cannot be inspected."""
    st.file_uploader("Qrels (relevance judgements)", key="upload_qrels", help=HELP["upload_qrels"])
    st.file_uploader("Runs (one or more)", key="upload_runs", accept_multiple_files=True, help=HELP["upload_runs"])
    st.file_uploader("Query texts (optional)", key="upload_queries", help=HELP["upload_queries"])
    st.radio("Duplicate documents", list(common.DUPLICATE_CHOICES), key="upload_duplicates",
             persist_state=common.KEEP, format_func=common.DUPLICATE_CHOICES.get, horizontal=True,
             help=HELP["upload_duplicates"])
    qrels_file, run_files, queries_file, restored = common.effective_uploads()
    if restored:
        st.caption("Still using the files uploaded before: " + ", ".join(
            md(f.name) for f in [qrels_file, *run_files, queries_file] if f) + ". Upload files above to replace them.")
        st.button("Forget these files", key="forget_uploads", icon=":material/delete:", on_click=common.forget_uploads)
    errors, waiting, uninspected, mappings = [], [], [], {}
    for upload, fields, role in [(qrels_file, QRELS_FIELDS, "qrels")] + [(u, RUN_FIELDS, "run") for u in run_files]:
        if upload is not None:
            mappings[common.upload_ident(upload)] = _columns(upload, fields, role, errors, waiting, uninspected)
    duplicates = st.session_state.get("upload_duplicates", "error")
    # kept on the server by content hash: the link (upload_key=…) brings them back after a reload
    common.keep_uploads(qrels_file, run_files, queries_file, mappings, duplicates)
    return (qrels_file, run_files, queries_file, mappings, waiting, uninspected), duplicates, errors


def _settings_controls() -> "sidebar.ViewSettings":
    st.header("Settings", divider="gray")
    keep = {"persist_state": common.KEEP}
    st.number_input("Relevance level", min_value=1, max_value=MAX_REL_LEVEL, step=1, key="rel_level",
                    help=HELP["rel_level"], **keep)
    st.segmented_control("nDCG gain", ["linear", "exp"], key="gain", required=True, help=HELP["gain"], **keep)
    st.number_input("Cutoff k", min_value=1, max_value=10_000, step=1, key="k", help=HELP["k"], **keep)
    st.selectbox("Round scores", ROUND_OPTIONS, key="round", format_func=sidebar.round_label,
                 help=HELP["round"], **keep)
    st.selectbox("Queries without a relevant document", list(ZERO_RELEVANT_CHOICES), key="query_set",
                 format_func=ZERO_RELEVANT_CHOICES.get, help=HELP["query_set"], **keep)
    st.toggle("Count queries a run misses as 0 (-c)", key="complete", help=HELP["complete"], **keep)
    settings = sidebar.view_settings(st.session_state)
    st.session_state[common.SETTINGS_KEY] = settings
    common.follow_link()  # the address bar follows the settings
    return settings


def data_panel() -> None:
    """The sidebar: dataset, uploads, shared settings. Stores the page context."""
    errors, notes, context = [], [], None
    with st.sidebar:
        st.header("Data", divider="gray")
        dataset = st.radio("Dataset", sidebar.sources(), key="dataset", persist_state=common.KEEP,
                           on_change=_dataset_changed, format_func=dataset_label, help=HELP["dataset"])
        kept = common.my_runs()
        if dataset in BUNDLED or dataset == FILES:
            st.caption(dataset_caption(dataset))
        elif dataset == SESSION and kept is None:
            st.caption(dataset_caption(SESSION))
            st.page_link("pages/simulator.py", label="Open the Simulator", icon=":material/science:")
        elif dataset == SESSION:
            st.caption(sidebar.session_caption(md(kept.origin), kept.rel_level, travels=bool(kept.recipe)))
        else:
            uploads, duplicates, errors = _uploads()
        summary = st.empty()
        settings = _settings_controls()
        if dataset in BUNDLED:
            context, errors = common.bundled_context(BUNDLED[dataset], settings)
        elif dataset == SESSION:
            context = common.session_context(kept, settings) if kept is not None else None
        elif dataset == FILES:
            context, errors, notes = common.files_context(settings)
        else:  # the files that can be read: one waiting for its columns hides no other
            context, run_errors, notes = common.readable_upload_context(*uploads, settings, duplicates)
            errors += run_errors
        if context is not None:
            summary.caption(sidebar.context_summary(context))
        if context is not None and dataset == UPLOAD:
            top = context.qrels.frame["relevance"].max()
            changes, rerun = sidebar.data_read(st.session_state, context.key, None if top != top else float(top))
            st.session_state.update(changes)
            if rerun:
                st.rerun()
    st.session_state[common.CONTEXT_KEY] = context
    for message in errors:  # quote file text: shown as text
        st.error(md(message), icon=":material/error:")
    for message in notes:
        st.info(message, icon=":material/view_column:")
    changes, note = sidebar.take_note(st.session_state)
    st.session_state.update(changes)
    if note:
        st.info(note, icon=":material/tune:")


common.count_run()  # numbers the runs: kept page widgets re-assert after a gap (ui.persist)
with st.sidebar.container(key="menu"):  # the page menu (Streamlit's own is off in config.toml)
    for _page in PAGES:
        st.page_link(_page)
_link_slot = st.sidebar.empty()  # "Link to this view", drawn before the page and after it
_return_to = st.session_state.pop(common.RETURN_KEY, None)
if _return_to:  # a page was opened before app.py had run (see common._enter_through_app)
    st.switch_page(_return_to)
common.open_link(common.bundled_runs)
st.session_state.update(sidebar.before_widgets(st.session_state))
data_panel()
common.back_link(PAGE_FILES[pg.title], pg.title)  # "← Back to …" after a drill-down
_link_to_this_view(_link_slot)  # the link so far: what stays if the page stops early (st.stop)
try:
    common.run_page(pg.run, common.control_remedy)
    _link_to_this_view(_link_slot)  # again, with what the page itself put in the link
finally:  # once the first page is drawn, not while: scipy.stats for Compare, in the background
    warm_up()
