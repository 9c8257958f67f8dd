"""tiedrank dashboard: evaluate rankers whose scores tie.

Run with ``streamlit run app.py``. This entry point defines the pages (one list, below),
the sidebar data panel and the shared settings; every page reads them through
``pages.common.get_context()``.
"""
from __future__ import annotations

import streamlit as st

from pages import common
from tiedrank import dashboard as db
from tiedrank.errors import InputError

st.set_page_config(layout="wide", page_title="tiedrank: evaluating rankers with tied scores",
                   page_icon=":material/leaderboard:")

# The pages of the dashboard, in menu order. Append new pages here.
PAGES = [
    st.Page("pages/overview.py", title="Overview", icon=":material/table_chart:", default=True),
    st.Page("pages/tie_structure.py", title="Tie structure", icon=":material/view_week:"),
    st.Page("pages/spread.py", title="Spread", icon=":material/bar_chart:"),
    st.Page("pages/tsrr.py", title="TsRR", icon=":material/show_chart:"),
    st.Page("pages/learn.py", title="Learn", icon=":material/school:"),
    st.Page("pages/compare.py", title="Compare", icon=":material/compare_arrows:"),
    st.Page("pages/simulator.py", title="Simulator", icon=":material/science:"),
]
pg = st.navigation(PAGES)
_return_to = st.session_state.pop(common.RETURN_KEY, None)
if _return_to:  # a page was opened before app.py had run (see common._enter_through_app)
    st.switch_page(_return_to)

# ---- session defaults (set once; widgets below read and write these keys) ---------------
_DEFAULTS = {"data_source": db.DEFAULT_DATASET, "rel_level": db.BUNDLED[db.DEFAULT_DATASET].rel_level,
             "gain": "linear", "k": 10, "round": "off"}
for _key, _value in _DEFAULTS.items():
    st.session_state.setdefault(_key, _value)


def _source_changed() -> None:
    """A bundled dataset brings its own relevance level (LLMJudge: 2, trec_eval: 1), and
    so do the runs made in this session (Simulator page)."""
    source = st.session_state["data_source"]
    if source in db.BUNDLED:
        st.session_state["rel_level"] = db.BUNDLED[source].rel_level
    elif source == db.SESSION and common.my_runs() is not None:
        st.session_state["rel_level"] = common.my_runs().rel_level


def _source_label(key: str) -> str:
    if key in db.BUNDLED:
        return db.BUNDLED[key].label
    return db.SESSION_LABEL if key == db.SESSION else "Upload your own"


@st.cache_resource(max_entries=64)
def _inspect(content_hash: str, name: str, fields: tuple[str, ...], _data: bytes):
    """(format, columns) of an upload, or the InputError explaining why it is unreadable."""
    try:
        return db.inspect_upload(_data, name, fields)
    except InputError as err:
        return err
    except Exception as err:  # never a traceback for a bad file
        return InputError(f"could not read the file ({type(err).__name__}: {err})", source=name)


def _column_mapping(upload, fields: tuple[str, ...], role: str, errors: list[str],
                    pending: list[str]) -> dict[str, str]:
    """Selectboxes mapping a tabular upload's columns to ``fields`` (pre-filled where the
    readers' aliases find a column). A file with a field still unmapped goes to ``pending``."""
    content = common.upload_hash(upload)
    inspected = _inspect(content, upload.name, fields, _data=upload.getvalue())
    if isinstance(inspected, InputError):
        errors.append(str(inspected))
        return {}
    fmt, columns = inspected
    if fmt not in db.TABULAR_FORMATS or not columns:
        return {}
    guess = db.guess_columns(columns, fields)
    needed = any(v is None for v in guess.values())
    mapping: dict[str, str] = {}
    with st.expander(f"Columns of {upload.name}", expanded=needed,
                     icon=":material/warning:" if needed else ":material/view_column:"):
        if needed:
            st.caption(f"Choose which columns hold the {role}'s fields.")
        for name in fields:
            key = f"colmap_{common.upload_ident(upload)}_{name}"
            extra = {}
            if guess[name] is None:
                extra = {"index": None, "placeholder": "choose a column"}
            elif key not in st.session_state:
                st.session_state[key] = guess[name]
            choice = st.selectbox(
                name, columns, key=key, **extra,
                help=f"The column of {upload.name} that holds the {name}"
                     + (" (a number; higher = ranked higher)" if name == "score" else "")
                     + (" (an integer grade)" if name == "relevance" else "") + ".")
            if choice is None:
                pending.append(upload.name)
            else:
                mapping[name] = choice
    return mapping


def data_panel() -> None:
    """The sidebar: data source, uploads, shared settings. Stores the page context."""
    errors: list[str] = []
    notes: list[str] = []
    context = None
    with st.sidebar:
        st.header("Data", divider="gray")
        st.radio(
            "Dataset", [*db.BUNDLED, db.SESSION, db.UPLOAD], key="data_source",
            on_change=_source_changed, format_func=_source_label,
            help="A bundled dataset (two real, one synthetic), the runs you generated or "
                 "quantised on the Simulator page in this session, or your own qrels and runs. "
                 "Your choice and settings are kept when you switch pages.")
        source = st.session_state["data_source"]
        kept = common.my_runs()
        if source in db.BUNDLED:
            st.caption(db.BUNDLED[source].description)
        elif source == db.SESSION:
            if kept is None:
                st.caption("Nothing yet: generate runs on the Simulator page (or quantise a "
                           "loaded run there) and click **Add to my runs**.")
                st.page_link("pages/simulator.py", label="Open the Simulator", icon=":material/science:")
            else:
                st.caption(f"Runs you made on the Simulator page, kept for this browser session "
                           f"only. Query set: {kept.origin}; relevance level {kept.rel_level}. "
                           "Adding runs on another query set replaces them.")
        else:
            st.file_uploader(
                "Qrels (relevance judgements)", key="upload_qrels",
                help="TREC qrels (qid iter docno grade), or CSV/TSV with a header, Parquet or "
                     "JSON lines with query, doc and relevance columns. gzip is fine.")
            st.file_uploader(
                "Runs (one or more)", key="upload_runs", accept_multiple_files=True,
                help="TREC runs (qid Q0 docno rank score tag; the rank column is ignored), a "
                     "label file (qid 0 docno grade: the grade is the score), or CSV/TSV/Parquet/"
                     "JSON lines with query, doc and score columns. gzip is fine.")
            st.file_uploader(
                "Query texts (optional)", key="upload_queries",
                help="A TSV file with lines 'qid<TAB>query text', shown next to query ids.")
            # column mapping forms, right under the uploads
            qrels_file = st.session_state.get("upload_qrels")
            run_files = st.session_state.get("upload_runs") or []
            mappings: dict[str, dict[str, str]] = {}
            pending: list[str] = []
            if qrels_file is not None:
                mappings[common.upload_ident(qrels_file)] = _column_mapping(
                    qrels_file, db.QRELS_FIELDS, "qrels", errors, pending)
            for upload in run_files:
                mappings[common.upload_ident(upload)] = _column_mapping(
                    upload, db.RUN_FIELDS, "run", errors, pending)
        summary = st.empty()
        st.header("Settings", divider="gray")
        st.number_input(
            "Relevance level", min_value=1, max_value=100, step=1, key="rel_level",
            help="Binary metrics (RR, P, R, AP) count a document as relevant when its grade is at "
                 "least this. TREC Deep Learning uses 2 on a 0-3 scale; trec_eval's default is 1.")
        st.segmented_control(
            "nDCG gain", ["linear", "exp"], key="gain", required=True,
            help="Gain of a document of grade g in (n)DCG: linear = g (trec_eval), exp = 2^g - 1.")
        st.number_input(
            "Cutoff k", min_value=1, max_value=10_000, step=1, key="k",
            help="The k of the metrics with a cutoff (nDCG@k, P@k, R@k, ...), used by every page.")
        st.selectbox(
            "Round scores", db.ROUND_OPTIONS, key="round",
            format_func=lambda r: "off (exact ties only)" if r == "off" else f"{r} decimal{'s' if r != 1 else ''}",
            help="Round scores to this many decimals before ranking, so that near-equal scores "
                 "tie. Off: only exactly equal scores tie.")
        settings = db.Settings(rel_level=int(st.session_state["rel_level"]),
                               gain=st.session_state["gain"] or "linear", k=int(st.session_state["k"]),
                               round=db.round_setting(st.session_state["round"]))

        st.session_state[common.SETTINGS_KEY] = settings

        if source in db.BUNDLED:
            context, errors = common.bundled_context(db.BUNDLED[source], settings)
        elif source == db.SESSION:
            context = common.session_context(kept, settings) if kept is not None else None
        elif pending:
            notes.append("Choose the columns of " + ", ".join(dict.fromkeys(pending))
                         + " in the sidebar (**Columns of …**).")
        elif not errors:
            context, errors = common.upload_context(
                qrels_file, run_files, st.session_state.get("upload_queries"), mappings, settings)
        if context is not None:
            n_queries = context.qrels.frame["query"].nunique()
            summary.caption(f"{len(context.runs)} run{'s' if len(context.runs) != 1 else ''} · "
                       f"{n_queries:,} judged queries · {len(context.qrels):,} judgements · "
                       f"{sum(len(r) for r in context.runs.values()):,} ranked documents")
    st.session_state[common.CONTEXT_KEY] = context
    for message in errors:
        st.error(message, icon=":material/error:")
    for message in notes:
        st.info(message, icon=":material/view_column:")


data_panel()
pg.run()
