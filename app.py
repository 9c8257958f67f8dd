"""tiedrank dashboard: evaluate rankers whose scores tie.

Run with ``streamlit run app.py`` (installed: ``tiedrank dashboard``). This entry point defines the pages (one list, below),
the sidebar data panel and the shared settings; every page reads them through
``tiedrank.dashboard.ui.get_context()``.
"""
from __future__ import annotations

import streamlit as st

from tiedrank.dashboard import ui as common
from tiedrank.dashboard.datasets import (
    BUNDLED,
    DEFAULT_DATASET,
    QRELS_FIELDS,
    RUN_FIELDS,
    SESSION,
    SESSION_LABEL,
    TABULAR_FORMATS,
    UPLOAD,
    guess_columns,
    inspect_upload,
    left_out_note,
    readable_uploads,
)
from tiedrank.dashboard.recipes import SIM_PARAM, RecipeError, replay
from tiedrank.dashboard.settings import (
    MAX_REL_LEVEL,
    ROUND_OPTIONS,
    UPLOAD_REL_LEVEL,
    URL_NAMES,
    ZERO_RELEVANT_CHOICES,
    Settings,
    fit_rel_level,
    link_note,
    params_from_settings,
    round_setting,
    settings_from_params,
    share_link,
)
from tiedrank.dashboard.upload_store import STORE
from tiedrank.dashboard.warmup import warm_up
from tiedrank.core.errors import InputError, RemediedValueError
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
pg = st.navigation(PAGES, position="hidden")  # the menu is ours: see _menu() and config.toml
PAGE_FILES = {page.title: f"pages/{page.url_path or 'overview'}.py" for page in PAGES}
# each page's script (as st.switch_page takes it), by title: the url path is the file's name


def _menu() -> None:
    """The page menu at the top of the sidebar (Streamlit's own is off in config.toml)."""
    with st.sidebar.container(key="menu"):
        for page in PAGES:
            st.page_link(page)


def _link_to_this_view(slot) -> None:
    """The sidebar's "Link to this view": the whole link in a code block (its copy button
    copies it), drawn in ``slot`` before the page runs and again once it has, so that it
    holds what the page put in the address bar too (its metrics, its choices); a page that
    stops early (an empty state) keeps the first. The link is the address bar's; this makes
    it visible and copyable on every page."""
    params = [(name, value) for name in st.query_params for value in st.query_params.get_all(name)]
    link = share_link(st.context.url, params, pg.url_path)
    kept = common.my_runs()
    note = link_note(st.session_state.get("data_source", ""), store_hours=STORE.hours,
                     remade=kept is not None and kept.recipe is not None)
    with slot.container():
        with st.popover("Link to this view", icon=":material/link:", width="stretch",
                        help="A link that opens this page as you see it: copy it with the "
                             "button at the right of the box."):
            st.code(link, language=None, wrap_lines=True)
            st.caption(note)


common.count_run()  # numbers the runs: kept page widgets re-assert after a gap (ui.persist)
_menu()
_link_slot = st.sidebar.empty()  # "Link to this view", drawn before the page and after it
_return_to = st.session_state.pop(common.RETURN_KEY, None)
if _return_to:  # a page was opened before app.py had run (see common._enter_through_app)
    st.switch_page(_return_to)

# ---- session defaults (set once; widgets below read and write these keys) ---------------
_DEFAULTS = {"data_source": DEFAULT_DATASET, "rel_level": BUNDLED[DEFAULT_DATASET].rel_level,
             "gain": "linear", "k": 10, "round": "off", "complete": False,
             "query_set": "trec_eval"}

def _settings_from_url() -> None:
    """Once per session: the settings in the link (?dataset=…&rel=…&k=…&gain=…&round=…), so
    a copied link reproduces the view; a dataset named there brings its own defaults for
    what the link does not set (settings.settings_from_params). Invalid values are ignored."""
    wanted = settings_from_params(st.query_params.to_dict(), (*BUNDLED, SESSION, UPLOAD),
                                  {key: data.rel_level for key, data in BUNDLED.items()})
    st.session_state.update(wanted)
    if wanted.get("data_source") == SESSION and _remake_linked_runs():
        pass  # the simulated runs of the link are made again from their settings
    elif wanted.get("data_source") in (SESSION, UPLOAD):  # data of an earlier session: say so if gone
        st.session_state[common.LINKED_DATA_KEY] = wanted["data_source"]
    if wanted.get("data_source") == UPLOAD:  # uploads are kept on the server: bring them back
        common.restore_linked_uploads(wanted.get(common.UPLOAD_KEY))


def _bundled_runs(key: str) -> tuple:
    """(qrels, runs, query text, label) of a bundled dataset, for recipes.replay."""
    context, errors = common.bundled_context(BUNDLED[key], Settings())
    if context is None:
        raise RecipeError("; ".join(errors) or f"the dataset {key!r} could not be read")
    return context.qrels, context.runs, context.query_text, context.dataset_label


def _remake_linked_runs() -> bool:
    """A link to "Simulated in this session" that carries the Simulator's settings (``sim=``
    steps): make the runs again, bit for bit, as this session's runs. ``False`` when the
    link has no steps or they cannot be made (the page then says why)."""
    steps = st.query_params.get_all(SIM_PARAM)
    if not steps:
        return False
    try:
        with st.spinner("Making the simulated runs of this link again…"):
            st.session_state[common.MY_RUNS_KEY] = replay(steps, _bundled_runs)
    except RecipeError as err:
        st.session_state[common.RECIPE_ERROR_KEY] = str(err)
        return False
    return True


def _settings_to_url() -> None:
    """Keep the link in the address bar in step with the settings (see _settings_from_url)
    and, on "Simulated in this session", with the steps that make those runs again."""
    params = params_from_settings(st.session_state)
    for name, value in params.items():
        if st.query_params.get(name) != value:
            st.query_params[name] = value
    for name in set(URL_NAMES.values()) - set(params):  # e.g. the uploads' key, on a bundled dataset
        if name in st.query_params:
            del st.query_params[name]
    if st.session_state.get(common.LINKED_DATA_KEY) == SESSION:
        return  # a link whose runs could not be made keeps naming them
    kept = common.my_runs()
    steps = list(kept.recipe) if (params.get(URL_NAMES["data_source"]) == SESSION and kept is not None
                                  and kept.recipe) else []
    if st.query_params.get_all(SIM_PARAM) != steps:
        if steps:
            st.query_params[SIM_PARAM] = steps
        else:
            del st.query_params[SIM_PARAM]


if not st.session_state.get("_url_read"):
    st.session_state["_url_read"] = True
    _settings_from_url()
for _key, _value in _DEFAULTS.items():
    st.session_state.setdefault(_key, _value)
if "_pending_rel_level" in st.session_state:  # set before the widget exists (see _fit_rel_level)
    st.session_state["rel_level"] = st.session_state.pop("_pending_rel_level")


def _fit_rel_level(context: "common.Context", rel_level: int) -> None:
    """Once per uploaded qrels: a relevance level above every grade (2 from LLMJudge, on
    0/1 qrels) makes nothing relevant; reset it to the highest grade (settings.fit_rel_level)."""
    if st.session_state.get("_rel_level_fitted_for") == context.key:
        return
    st.session_state["_rel_level_fitted_for"] = context.key
    top = context.qrels.frame["relevance"].max()
    fitted = fit_rel_level(rel_level, None if top != top else float(top))
    if fitted != rel_level:
        st.session_state["_pending_rel_level"] = fitted
        st.session_state["_rel_level_note"] = (
            f"Relevance level set to {fitted}: the highest grade in these qrels is {top}.")
        st.rerun()


def _source_changed() -> None:
    """A bundled dataset brings its own relevance level (LLMJudge: 2, trec_eval: 1), and
    so do the runs made in this session (Simulator page); back on "Upload your own", the
    files this session uploaded come back from the server's store (the upload widgets
    forgot them while hidden)."""
    source = st.session_state["data_source"]
    if source == UPLOAD:  # the level chosen for them before, else the CLI's and Python's default
        st.session_state["rel_level"] = st.session_state.get("_upload_rel_level", UPLOAD_REL_LEVEL)
        common.restore_session_uploads()
    elif source in BUNDLED:
        st.session_state["rel_level"] = BUNDLED[source].rel_level
    elif source == SESSION and common.my_runs() is not None:
        st.session_state["rel_level"] = common.my_runs().rel_level


def _source_label(key: str) -> str:
    if key in BUNDLED:
        return BUNDLED[key].label
    return SESSION_LABEL if key == SESSION else "Upload your own"


@common.shared_cache()
def _inspect(content_hash: str, name: str, fields: tuple[str, ...], _data: bytes):
    """(format, columns) of an upload, or the InputError explaining why it is unreadable."""
    try:
        return inspect_upload(_data, name, fields)
    except InputError as err:
        return err
    except Exception as err:  # never a traceback for a bad file
        return InputError(f"could not read the file ({type(err).__name__}: {err})", source=name)


def _column_mapping(upload, fields: tuple[str, ...], role: str, errors: list[str],
                    pending: list[str], unreadable: list[str]) -> dict[str, str]:
    """Selectboxes mapping a tabular upload's columns to ``fields`` (pre-filled where the
    readers' aliases find a column). A file with a field still unmapped goes to ``pending``
    (its :func:`common.upload_ident`); its expander says what is left to choose, and once
    every field has a column it says which, without the warning. A file that cannot even
    be inspected goes to ``unreadable`` (its ident) and ``errors`` (why)."""
    content = common.upload_hash(upload)
    inspected = _inspect(content, upload.name, fields, _data=upload.getvalue())
    if isinstance(inspected, InputError):
        errors.append(str(inspected))
        unreadable.append(common.upload_ident(upload))
        return {}
    fmt, columns = inspected
    if fmt not in TABULAR_FORMATS or not columns:
        return {}
    guess = guess_columns(columns, fields)
    keys = {name: common.column_key(upload, name) for name in fields}
    for name, key in keys.items():
        if guess[name] is not None and key not in st.session_state:
            st.session_state[key] = guess[name]
    # the choices as the boxes below will show them (a pick is in session state before the rerun)
    chosen = {name: st.session_state.get(key) for name, key in keys.items()}
    waiting = [name for name in fields if chosen[name] not in columns]
    mapping: dict[str, str] = {}
    with st.expander(f"Columns of {md(upload.name)}", expanded=bool(waiting),
                     icon=":material/warning:" if waiting else ":material/check_circle:"):
        if waiting:
            st.caption(f"Choose which columns hold the fields of the {role} "
                       f"(still to choose: {', '.join(waiting)}).")
        else:
            st.caption("Columns chosen: " + ", ".join(f"{name} = {md(chosen[name])}" for name in fields)
                       + ".")
        for name in fields:
            key = keys[name]
            extra = {}
            if guess[name] is None:
                extra = {"index": None, "placeholder": "choose a column"}
            choice = st.selectbox(
                name, columns, key=key, persist_state=common.KEEP, **extra,
                help=f"The column of {md(upload.name)} that holds the {name}"
                     + (" (a number; higher = ranked higher)" if name == "score" else "")
                     + (" (an integer grade)" if name == "relevance" else "") + ".")
            if choice is not None:
                mapping[name] = choice
    if len(mapping) < len(fields):
        pending.append(common.upload_ident(upload))
    return mapping


def _uploaded_context(qrels_file, run_files: list, queries_file, mappings: dict, pending: list[str],
                      uninspected: list[str], errors: list[str], settings: Settings) -> tuple:
    """(context, errors, notes) of the uploads: the runs that can be read, while a run file
    waits for its column mapping (``pending``) or cannot be read (``uninspected``, or by
    the reader); the waiting or unreadable files named in a note on every page (no context
    without readable qrels and at least one readable run)."""
    def file(upload):
        return None if upload is None else (common.upload_ident(upload), md(upload.name))

    qrels_ready, ready, notes = readable_uploads(file(qrels_file), [file(u) for u in run_files],
                                                 pending, uninspected)
    if not qrels_ready or not ready:
        return None, errors, notes
    unreadable = [run_files[i].name for i in range(len(run_files)) if i not in ready
                  and common.upload_ident(run_files[i]) in uninspected]
    context, run_errors = common.upload_context(
        qrels_file, [run_files[i] for i in ready], queries_file, mappings, settings,
        duplicates=st.session_state.get("upload_duplicates", "error"), unreadable=unreadable)
    if context is not None and unreadable:
        notes.append(left_out_note([md(name) for name in unreadable]))
    return context, errors + run_errors, notes


def data_panel() -> None:
    """The sidebar: data source, uploads, shared settings. Stores the page context."""
    errors: list[str] = []
    notes: list[str] = []
    context = None
    with st.sidebar:
        st.header("Data", divider="gray")
        st.radio(
            "Dataset", [*BUNDLED, SESSION, UPLOAD], key="data_source", persist_state=common.KEEP,
            on_change=_source_changed, format_func=_source_label,
            help="A bundled dataset (two real, one synthetic), the runs you generated or "
                 "quantised on the Simulator page in this session, or your own qrels and runs. "
                 "Your choice and settings are kept when you switch pages.")
        source = st.session_state["data_source"]
        kept = common.my_runs()
        if source in BUNDLED:
            st.caption(BUNDLED[source].description)
        elif source == SESSION:
            if kept is None:
                st.caption("Nothing yet: generate runs on the Simulator page (or quantise a "
                           "loaded run there) and click **Add to my runs**.")
                st.page_link("pages/simulator.py", label="Open the Simulator", icon=":material/science:")
            else:
                st.caption(f"Runs you made on the Simulator page, kept for this browser session "
                           f"only. Query set: {md(kept.origin)}; relevance level {kept.rel_level}. "
                           "Adding runs on another query set replaces them."
                           + (" Their settings travel in the page's link (**Link to this view**), "
                              "which makes them again in another browser." if kept.recipe else ""))
        else:
            st.file_uploader(
                "Qrels (relevance judgements)", key="upload_qrels",
                help="TREC qrels (qid iter docno grade), or CSV/TSV with a header, Parquet or "
                     "JSON lines with query, doc and relevance columns; ranx's saved qrels (JSON, "
                     "Parquet, .lz4). gzip is fine.")
            st.file_uploader(
                "Runs (one or more)", key="upload_runs", accept_multiple_files=True,
                help="TREC runs (qid Q0 docno rank score tag; the rank column is ignored), a "
                     "label file (qid 0 docno grade: the grade is the score), or CSV/TSV/Parquet/"
                     "JSON lines with query, doc and score columns; ranx's saved runs (JSON, "
                     "Parquet, .lz4). gzip is fine.")
            st.file_uploader(
                "Query texts (optional)", key="upload_queries",
                help="A TSV file with lines 'qid<TAB>query text', shown next to query ids.")
            st.radio(
                "Duplicate documents", list(common.DUPLICATE_CHOICES), key="upload_duplicates",
                persist_state=common.KEEP,
                format_func=common.DUPLICATE_CHOICES.get, horizontal=True,
                help="A run that lists a document twice for one query: stop with an error "
                     "naming the lines, or keep the row with the highest score.")
            # column mapping forms, right under the uploads
            qrels_file, run_files, queries_file, restored = common.effective_uploads()
            if restored:
                st.caption("Still using the files uploaded before: "
                           + ", ".join(md(f.name) for f in [qrels_file, *run_files, queries_file] if f)
                           + ". Upload files above to replace them.")
                st.button("Forget these files", key="forget_uploads", icon=":material/delete:",
                          on_click=common.forget_uploads)
            mappings: dict[str, dict[str, str]] = {}
            pending: list[str] = []
            uninspected: list[str] = []
            if qrels_file is not None:
                mappings[common.upload_ident(qrels_file)] = _column_mapping(
                    qrels_file, QRELS_FIELDS, "qrels", errors, pending, uninspected)
            for upload in run_files:
                mappings[common.upload_ident(upload)] = _column_mapping(
                    upload, RUN_FIELDS, "run", errors, pending, uninspected)
            # kept on the server by content hash: the link (data=…) brings them back after a reload
            common.keep_uploads(qrels_file, run_files, queries_file, mappings,
                                st.session_state.get("upload_duplicates", "error"))
        summary = st.empty()
        st.header("Settings", divider="gray")
        st.number_input(
            "Relevance level", min_value=1, max_value=MAX_REL_LEVEL, step=1, key="rel_level",
            persist_state=common.KEEP,
            help="Binary metrics (RR, P, R, AP) count a document as relevant when its grade is at "
                 "least this. TREC Deep Learning uses 2 on a 0-3 scale; trec_eval's default is 1.")
        st.segmented_control(
            "nDCG gain", ["linear", "exp"], key="gain", required=True, persist_state=common.KEEP,
            help="Gain of a document of grade g in (n)DCG: linear = g (trec_eval), exp = 2^g - 1.")
        st.number_input(
            "Cutoff k", min_value=1, max_value=10_000, step=1, key="k", persist_state=common.KEEP,
            help="The k of the metrics with a cutoff (nDCG@k, P@k, R@k, ...), used by every page.")
        st.selectbox(
            "Round scores", ROUND_OPTIONS, key="round", persist_state=common.KEEP,
            format_func=lambda r: "off (exact ties only)" if r == "off" else f"{r} decimal{'s' if r != 1 else ''}",
            help="Round scores to this many decimals before ranking, so that near-equal scores "
                 "tie. Off: only exactly equal scores tie.")
        st.selectbox(
            "Queries without a relevant document", list(ZERO_RELEVANT_CHOICES), key="query_set",
            persist_state=common.KEEP,
            format_func=ZERO_RELEVANT_CHOICES.get,
            help="trec_eval counts a query whose judged documents are all below the relevance "
                 "level, scoring 0 on the binary metrics (the default, so the trec_eval column "
                 "is trec_eval's number). Some papers leave such queries out (--query-set "
                 "relevant).")
        st.toggle(
            "Count queries a run misses as 0 (-c)", key="complete", persist_state=common.KEEP,
            help="trec_eval -c: a judged query the run returns nothing for scores 0 and counts "
                 "in the mean. Off (trec_eval's default): it is left out of that run's mean.")
        settings = Settings(rel_level=int(st.session_state["rel_level"]),
                            gain=st.session_state["gain"] or "linear", k=int(st.session_state["k"]),
                            round=round_setting(st.session_state["round"]),
                            complete=bool(st.session_state["complete"]),
                            query_set=st.session_state["query_set"] or "trec_eval")

        st.session_state[common.SETTINGS_KEY] = settings
        _settings_to_url()

        if source in BUNDLED:
            context, errors = common.bundled_context(BUNDLED[source], settings)
        elif source == SESSION:
            context = common.session_context(kept, settings) if kept is not None else None
        else:  # the files that can be read: one waiting for its columns hides no other
            context, errors, notes = _uploaded_context(qrels_file, run_files, queries_file, mappings,
                                                       pending, uninspected, errors, settings)
        if context is not None and source == UPLOAD:
            st.session_state["_upload_rel_level"] = settings.rel_level  # kept for coming back
            _fit_rel_level(context, settings.rel_level)
        if context is not None:
            n_queries = context.qrels.frame["query"].nunique()
            summary.caption(f"{len(context.runs)} run{'s' if len(context.runs) != 1 else ''} · "
                       f"{n_queries:,} judged queries · {len(context.qrels):,} judgements · "
                       f"{sum(len(r) for r in context.runs.values()):,} ranked documents")
    st.session_state[common.CONTEXT_KEY] = context
    for message in errors:  # quote file text: shown as text
        st.error(md(message), icon=":material/error:")
    for message in notes:
        st.info(message, icon=":material/view_column:")
    if "_rel_level_note" in st.session_state:
        st.info(st.session_state.pop("_rel_level_note"), icon=":material/tune:")


def _run_page() -> None:
    """Run the chosen page; an unexpected error shows one clear message, never a traceback
    or a server path (config.toml hides Streamlit's own details too)."""
    try:
        pg.run()
    except (InputError, RemediedValueError) as err:  # bad data, or an exact value past its limit
        st.error(md(err.worded_with(common.control_remedy)), icon=":material/error:")
    except Exception as err:  # noqa: BLE001 - the page must never show an exception box
        if type(err).__module__.startswith("streamlit"):  # reruns, page switches, stops
            raise
        st.error(f"This page could not be drawn ({type(err).__name__}). Undo the last change "
                 "you made on it, or pick another dataset in the sidebar; your other pages "
                 "keep their state.", icon=":material/error:")


data_panel()
common.back_link(PAGE_FILES[pg.title], pg.title)  # "← Back to …" after a drill-down
_link_to_this_view(_link_slot)  # the link so far: what stays if the page stops early (st.stop)
try:
    _run_page()
    _link_to_this_view(_link_slot)  # again, with what the page itself put in the link
finally:  # once the first page is drawn, not while: scipy.stats for Compare, in the background
    warm_up()
