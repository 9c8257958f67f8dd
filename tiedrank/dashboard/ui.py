"""The contract every dashboard page uses.

A page starts with::

    from tiedrank.dashboard.ui import get_context
    ctx = get_context()                # stops the page with an explanation if no data
    ev = ctx.evaluation(("RR", f"nDCG@{ctx.settings.k}"), ("all",))
    tables = ctx.tables()              # run name -> expected TieTable

``ctx`` holds the data chosen in the sidebar (``qrels``, ``runs``, ``query_text``,
``dataset_label``) and the shared ``settings`` (``rel_level``, ``gain``, ``k``, ``round``).
Its accessors are cached: loaded data by the sha256 of the bytes, derived results by
(dataset key, settings, arguments), so reruns that change no input cost nothing.

Helpers: :func:`empty_state` (explain why there is nothing to show),
:func:`show_findings`, :func:`download_row` (CSV / LaTeX / Markdown of a DataFrame),
:func:`show_figure` (a plotly figure in the page's light or dark theme),
:func:`figure_download` (lazy PNG of a plotly figure), :func:`persist` (keep a page
widget's value when the user visits another page and comes back), :meth:`Context.memo`
(cache any derived frame or figure per data and settings; :meth:`Context.memo_ready` says
whether it is computed already), :func:`ensure_app_ran` (for a
page that shows no data and so never calls ``get_context``), :func:`current_context` and
:func:`current_settings` (for a page that also works without data), :func:`add_to_my_runs`
(keep runs made in the dashboard as the sidebar's "Simulated in this session" dataset).
The uploads' session state (drill-downs, links restored from the server's store) lives in
:mod:`tiedrank.dashboard.session_uploads`, re-exported here.

Pages hold widgets, layout and figures only: computations live in :mod:`tiedrank`.
"""
from __future__ import annotations

import copy
import dataclasses
import functools
import inspect
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st
from streamlit.errors import StreamlitAPIException

from tiedrank.app_files import APP_DIR
from tiedrank.dashboard.cache import SHARED
from tiedrank.dashboard.datasets import (
    BUNDLED,
    SESSION,
    SESSION_LABEL,
    UPLOAD,
    BundledDataset,
    dataset_key,
    file_hash,
    inspect_upload,
    left_out_note,
    readable_uploads,
)
from tiedrank.dashboard.drilldown import (
    ORIGINS_KEY,
    back_label,
    drill_origin,
    drilled_query,
    live_origins,
    push_origin,
)
from tiedrank.dashboard.session_uploads import (  # noqa: F401 - the sidebar's uploads, for app.py and pages
    DRILLED_KEY,
    KEPT_UPLOADS_KEY,
    LINKED_DATA_KEY,
    MY_RUNS_KEY,
    RECIPE_ERROR_KEY,
    UPLOAD_KEY,
    UPLOADS_RESTORED_KEY,
    UploadedLike,
    column_key,
    effective_uploads,
    follow_link,
    forget_uploads,
    gone_message,
    keep_uploads,
    open_link,
    remake_linked_runs,
    restore_linked_uploads,
    restore_session_uploads,
    upload_hash,
    upload_ident,
)
from tiedrank.dashboard.settings import URL_NAMES, ViewSettings
from tiedrank.dashboard.shared_queries import no_shared_query
from tiedrank.dashboard.my_runs import RunSet, add_runs
from tiedrank.dashboard.labels import query_label
from tiedrank.core.data import Qrels, Run
from tiedrank.core.errors import Finding, InputError, Remedy
from tiedrank.evaluation import Evaluation, build_tables, score_tables
from tiedrank.core.options import EvaluationOptions
from tiedrank.report import markdown_literal
from tiedrank.io import read_query_text
from tiedrank.core.ties import TieTable

CONTEXT_KEY = "tiedrank_context"
"""session_state key under which app.py stores the current :class:`Context`."""
SETTINGS_KEY = "tiedrank_settings"
"""session_state key under which app.py stores the current :class:`ViewSettings`."""


# ---------------------------------------------------------------------------------------
# Cached loading (keyed by content hashes; the data itself never goes through a hash)
# ---------------------------------------------------------------------------------------

def shared_cache(spinner: str | None = None) -> Callable[[Callable], Callable]:
    """Cache a function's result in :data:`tiedrank.dashboard.cache.SHARED`, the one
    cache all sessions share, bounded by memory (``TIEDRANK_CACHE_MB``) and by age (2 h).

    As with Streamlit's resource cache, arguments whose name starts with ``_`` are not part
    of the key (they are the data itself; the key holds its content hash instead).
    """
    def decorate(fn: Callable) -> Callable:
        signature = inspect.signature(fn)

        def key_of(*args, **kwargs) -> tuple:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            return (fn.__module__, fn.__qualname__) + tuple(
                (name, value) for name, value in bound.arguments.items() if not name.startswith("_"))

        @functools.wraps(fn)
        def cached(*args, **kwargs):
            key = key_of(*args, **kwargs)

            def compute():
                if spinner is None:
                    return fn(*args, **kwargs)
                with st.spinner(spinner):
                    return fn(*args, **kwargs)
            return SHARED.get_or_compute(key, compute)

        def is_cached(*args, **kwargs) -> bool:
            """Whether the result for these arguments is in the shared cache now."""
            return SHARED.get(key_of(*args, **kwargs), _MISSING) is not _MISSING

        cached.is_cached = is_cached
        return cached
    return decorate


_MISSING = object()


DUPLICATE_CHOICES = {"error": "error", "max": "keep the highest score"}
"""The upload form's "Duplicate documents" control: reader ``duplicates=`` -> label."""


def control_remedy(remedy: Remedy) -> str:
    """A reader's remedy in the dashboard's terms: the upload control that sets it
    (``duplicates='max'`` is "Duplicate documents: keep the highest score"; a ``columns=``
    mapping, the column choices of the file); the Python wording otherwise."""
    if remedy.parameter == "duplicates" and remedy.value in DUPLICATE_CHOICES:
        return remedy.sentence(f'choose "Duplicate documents: {DUPLICATE_CHOICES[remedy.value]}"'
                               " under the uploads")
    if remedy.parameter == "columns" and isinstance(remedy.value, dict):
        return remedy.sentence(f"choose which column holds {', '.join(remedy.value)} (under "
                               '"Columns of" the file)')
    if remedy.parameter == "ties":  # the pages show every policy at once: no policy to pick
        return ("choose another metric on this page (the dashboard shows each metric's "
                "expectation beside trec_eval's order, and this one's cannot be computed "
                "exactly here; the CLI's --ties trec_eval scores it on one ordering)")
    return remedy.python()


def _name_the_control(err: InputError) -> InputError:
    """The reader's error with its remedy worded by the control that sets it (from the
    error's fields: :meth:`~tiedrank.core.errors.Remedied.worded_with`)."""
    if err.remedy is None:
        return err
    return InputError(err.worded_with(control_remedy))


def _read(kind: str, name: str, fmt: str | None, columns: tuple, source,
          duplicates: str = "error") -> Run | Qrels | InputError:
    """Read a run or qrels; an ``InputError`` is returned (so it is cached), never raised."""
    from tiedrank import io

    mapping = dict(columns) or None
    try:
        if isinstance(source, memoryview):
            source = bytes(source)
        if kind == "run":
            return io.read_run(source, format=fmt, columns=mapping, source_name=name,
                               duplicates=duplicates)
        return io.read_qrels(source, format=fmt, columns=mapping, source_name=name)
    except InputError as err:
        return _name_the_control(err)
    except Exception as err:  # a reader bug must not become a traceback in the app
        return InputError(f"could not read the file ({type(err).__name__}: {err})", source=name)


@shared_cache("Reading run…")
def cached_run(content_hash: str, name: str, fmt: str | None, columns: tuple, _source,
             duplicates: str = "error") -> Run | InputError:
    """Read one run once per content and duplicates policy (see :func:`_read`)."""
    return _read("run", name, fmt, columns, _source, duplicates)


@shared_cache("Reading qrels…")
def cached_qrels(content_hash: str, name: str, fmt: str | None, columns: tuple, _source) -> Qrels | InputError:
    """Read qrels once per content (see :func:`_read`)."""
    return _read("qrels", name, fmt, columns, _source)


@shared_cache()
def load_query_text(content_hash: str, _source) -> dict[str, str]:
    return read_query_text(_source)


# ---------------------------------------------------------------------------------------
# Derived results, keyed by (dataset key, settings, arguments)
# ---------------------------------------------------------------------------------------

@shared_cache("Building tie groups…")
def _tables(data_key: str, options: EvaluationOptions, _ctx: "Context") -> dict[str, TieTable]:
    """Each run's tie table, built once per (data, table options): every page and every
    evaluation of the session shares them."""
    return build_tables(_ctx.runs, _ctx.qrels, options)


@shared_cache("Evaluating…")
def _evaluation(data_key: str, options: EvaluationOptions, metrics: tuple[str, ...],
                _ctx: "Context") -> Evaluation:
    return score_tables(_ctx.tables(), list(metrics), options)


@shared_cache()
def _memo(data_key: str, settings_key: tuple, name: str, args: tuple, _fn: Callable) -> Any:
    return _fn(*args)


def read_only(value: Any, _depth: int = 0) -> Any:
    """A view of a cached object that one session cannot use to change another's data.

    Cached objects are shared by every session. Numpy arrays are frozen in place (writes
    raise ``ValueError: assignment destination is read-only``); pandas objects are handed
    out as shallow copies, which copy-on-write (pandas 3) turns into private copies at the
    first write, so the cached frame never changes. Containers and dataclasses are walked
    a few levels deep.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> frame = pd.DataFrame({"score": [1.0, 2.0]})
    >>> mine = read_only(frame)
    >>> mine["score"] = 0.0
    >>> frame["score"].tolist()
    [1.0, 2.0]
    >>> array = read_only(np.arange(3))
    >>> array.flags.writeable
    False
    """
    if _depth > 4:
        return value
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
        return value
    if isinstance(value, (pd.DataFrame, pd.Series)):
        return value.copy(deep=False)
    if isinstance(value, dict):  # a new dict: adding or removing keys stays private too
        return {key: read_only(item, _depth + 1) for key, item in value.items()}
    if isinstance(value, list):
        return [read_only(item, _depth + 1) for item in value]
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(read_only(item, _depth + 1) for item in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type) and hasattr(value, "__dict__"):
        fields = {name: read_only(item, _depth + 1) for name, item in vars(value).items()}
        if all(fields[name] is item for name, item in vars(value).items()):
            return value  # arrays only (a TieTable): frozen in place, lazy caches kept
        private = copy.copy(value)
        for name, item in fields.items():
            object.__setattr__(private, name, item)
        return private
    return value


@dataclass(frozen=True, eq=False)
class Context:
    """What every page works on: the chosen data and the shared settings.

    Attributes
    ----------
    qrels : Qrels
    runs : dict of str to Run
    settings : ViewSettings
        ``rel_level``, ``gain`` ("linear" | "exp"), ``k`` (cutoff), ``round`` (None or
        decimals).
    query_text : dict of str to str
        Query id -> text (may be empty).
    dataset_label : str
    key : str
        sha256 over the contents of all inputs: the cache key of the data.
    findings : tuple of Finding
        Reader findings (duplicates resolved, ...).
    left_out : dict of str to str
        Runs that share no query with the qrels (not in ``runs``) -> the message every page
        shows about them (:mod:`tiedrank.dashboard.shared_queries`).
    """

    qrels: Qrels
    runs: dict[str, Run]
    settings: ViewSettings
    query_text: dict[str, str] = field(default_factory=dict)
    dataset_label: str = ""
    key: str = ""
    findings: tuple[Finding, ...] = ()
    left_out: dict[str, str] = field(default_factory=dict)

    def tables(self) -> dict[str, TieTable]:
        """Run name -> expected tie-group table under the current settings (cached)."""
        # the table depends on the options but ties and gain: one key for all of those
        options = self.settings.options("expected").replace(gain="linear")
        return read_only(_tables(self.key, options, _ctx=self))

    def evaluation(self, metrics: Sequence[str], ties: Sequence[str] = ("all",)) -> Evaluation:
        """The core's evaluation of every run under the current settings (cached), scored
        on :meth:`tables`: each tie table is built once."""
        return read_only(_evaluation(self.key, self.settings.options(tuple(ties)), tuple(metrics),
                                     _ctx=self))

    def memo(self, name: str, fn: Callable, *args) -> Any:
        """``fn(*args)`` cached per (data, settings, name, args); args must be small and
        hashable (str, numbers, tuples). The result is read-only (see :func:`read_only`)."""
        return read_only(_memo(self.key, self.settings.key(), name, tuple(args), _fn=fn))

    def memo_ready(self, name: str, *args) -> bool:
        """Whether :meth:`memo` of ``name`` and ``args`` is in the shared cache now (any
        session computed it under the current data and settings): a page can show at once
        what is ready and offer a button for what is not."""
        return _memo.is_cached(self.key, self.settings.key(), name, tuple(args), _fn=None)

    def label(self, query: str, width: int = 50) -> str:
        """``qid — query text`` for selectors (the text cut to ``width`` characters: the label
        of 50 fits a full-width selectbox in an 800-px window, where the browser would cut a
        longer one without a mark)."""
        return query_label(query, self.query_text, width)


RETURN_KEY = "_tiedrank_return_to"
"""session_state key: the page to show once app.py has run (see :func:`_enter_through_app`)."""


def get_context() -> Context:
    """The current data and settings; stops the page with an explanation when there is none."""
    if CONTEXT_KEY not in st.session_state:  # app.py has never run in this session
        _enter_through_app(sys._getframe(1).f_globals.get("__file__"))
    ctx = st.session_state.get(CONTEXT_KEY)
    if ctx is None:
        linked = st.session_state.get(LINKED_DATA_KEY)
        if linked == st.session_state.get("dataset") == UPLOAD and not (
                st.session_state.get("upload_qrels") or st.session_state.get("upload_runs")):
            empty_state(gone_message())
        elif linked == st.session_state.get("dataset") == SESSION:
            problem = st.session_state.get(RECIPE_ERROR_KEY)
            empty_state(f"This link names runs made on the Simulator in another session "
                        f"(**{SESSION_LABEL}**), "
                        + (f"but its Simulator settings cannot make them again: {problem}. "
                           if problem else "without the settings that would make them again "
                           "(runs quantised from uploads or from my runs cannot travel in a "
                           "link). ")
                        + "Make them on the **Simulator** page, or pick another dataset in the "
                        "sidebar (**Data**).")
        elif st.session_state.get("dataset") == SESSION:
            empty_state(f"**{SESSION_LABEL}** is empty: generate runs on the **Simulator** "
                        "page (or quantise a loaded run there) and click **Add to my runs**; "
                        "or pick another dataset in the sidebar (**Data**).")
        elif st.session_state.get("dataset") == UPLOAD:
            if st.session_state.get("upload_qrels") and st.session_state.get("upload_runs"):
                empty_state("Nothing to show until the uploads can be read: see the messages "
                            "above and the sidebar (**Data**).")
            else:
                empty_state("Upload a qrels file and at least one run in the sidebar (**Data**) "
                            "to start; or pick one of the bundled datasets.")
        else:
            empty_state("No data is loaded: see the messages in the sidebar, or start the "
                        "dashboard with `tiedrank dashboard` (or `streamlit run app.py` in a "
                        "checkout).")
        st.stop()
    for message in ctx.left_out.values():  # the same message on every page
        st.warning(message, icon=":material/link_off:")
    if not ctx.runs:
        st.stop()
    return ctx


def ensure_app_ran() -> None:
    """For a page that does not call :func:`get_context` (e.g. a page without data): make
    sure app.py (sidebar, settings) has run in this session; see :func:`_enter_through_app`."""
    if CONTEXT_KEY not in st.session_state:
        _enter_through_app(sys._getframe(1).f_globals.get("__file__"))


def current_context() -> Context | None:
    """The sidebar's data, or ``None`` when none is loaded, without stopping the page (for
    a page that also works without data, like the Simulator)."""
    if CONTEXT_KEY not in st.session_state:
        _enter_through_app(sys._getframe(1).f_globals.get("__file__"))
    return st.session_state.get(CONTEXT_KEY)


def current_settings() -> ViewSettings:
    """The sidebar's shared settings, whether or not data is loaded."""
    return st.session_state.get(SETTINGS_KEY) or ViewSettings()


def my_runs() -> "RunSet | None":
    """The runs the user added in this session (see :data:`MY_RUNS_KEY`), or ``None``."""
    return st.session_state.get(MY_RUNS_KEY)


def add_to_my_runs(new: "RunSet") -> None:
    """Add ``new`` to "my runs" (beside the kept runs on the same query set; replacing them
    on another) and switch the sidebar to them. Use as a button's ``on_click`` callback, so
    the sidebar, which runs before the page, already shows the new data."""
    current = my_runs()
    merged, outcome = add_runs(current, new)
    st.session_state[MY_RUNS_KEY] = merged
    if st.session_state.get("dataset") != SESSION or outcome != "added":
        st.session_state["rel_level"] = merged.rel_level  # the set's own level
    st.session_state["dataset"] = SESSION
    st.session_state.pop(LINKED_DATA_KEY, None)
    st.session_state.pop(RECIPE_ERROR_KEY, None)
    n = len(new.runs)
    st.session_state["_my_runs_message"] = (
        {"new": "Added", "added": "Added beside your earlier runs:", "replaced":
         "Replaced your earlier runs (another query set) with"}[outcome]
        + f" {n} run{'s' if n != 1 else ''}. Every page now analyses **{SESSION_LABEL}**.")


def clear_my_runs() -> None:
    """Forget "my runs" (button callback); the sidebar stays on the session dataset."""
    st.session_state.pop(MY_RUNS_KEY, None)



def drill_down(page: str, key: str, value: Any, query_params: Mapping[str, str] | None = None) -> None:
    """Open ``page`` with ``session_state[key] = value`` (what a click on a chart picked),
    on the user's data and settings.

    ``st.switch_page`` reruns without the browser's widget states, so Streamlit resets every
    widget not kept for the session: the sidebar's settings are (``persist_state``), file
    uploaders cannot be, so the sidebar keeps using the uploads it read last
    (:data:`KEPT_UPLOADS_KEY`) until the user uploads again. ``query_params`` go in the link
    of the new page (app.py adds the settings)."""
    here = st.session_state.get(CURRENT_PAGE_KEY)
    if here is not None:  # where the page opened came from: its "← Back to …" link
        settings = {name: st.session_state[name] for name in URL_NAMES if name in st.session_state}
        link = [(name, item) for name in st.query_params for item in st.query_params.get_all(name)]
        origin = drill_origin(here[0], here[1], page, drilled_query(value), link,
                              {**settings, **drawn_this_run()})
        st.session_state[ORIGINS_KEY] = push_origin(st.session_state.get(ORIGINS_KEY) or [], origin)
    st.session_state[key] = value
    st.session_state[DRILLED_KEY] = True
    st.switch_page(page, query_params=dict(query_params or {}))


CURRENT_PAGE_KEY = "_tiedrank_current_page"
"""session_state key: (script path, title) of the page this run shows (set by
:func:`back_link`, which app.py calls before running the page)."""


def back_link(page: str, title: str) -> None:
    """At the top of ``page`` (script path, as ``st.switch_page`` takes it), a link back to
    the page a drill-down came from, naming the thread followed: "← Back to Compare (query
    q12)". It returns to that page's link (dataset, settings, its own parameters) and puts
    back the sidebar settings and the page's kept choices as they were at the click
    (:func:`tiedrank.dashboard.drilldown.drill_origin`). Shown only while the drilled-to
    page is; leaving it by the menu forgets the trail. app.py calls this before each page."""
    st.session_state[CURRENT_PAGE_KEY] = (page, title)
    origins = live_origins(st.session_state.get(ORIGINS_KEY), page)
    if not origins:
        st.session_state.pop(ORIGINS_KEY, None)
        return
    st.session_state[ORIGINS_KEY] = origins
    origin = origins[-1]
    if st.button(back_label(origin), key="drill_back", type="tertiary", on_click=_restore_origin,
                 args=(origin,), help=f"Return to {origin['title']} as you left it."):
        st.session_state[ORIGINS_KEY] = origins[:-1]
        st.session_state[DRILLED_KEY] = True  # keeps uploads, as a drill-down does
        st.switch_page(origin["page"], query_params=origin["params"])


def _restore_origin(origin: Mapping[str, Any]) -> None:
    """The back link's callback: runs before the script, so the sidebar's widgets can still
    take the settings of the page left (a widget's state cannot change once it is drawn)."""
    for name, value in origin["state"].items():
        st.session_state[name] = copy.deepcopy(value)


def _enter_through_app(page_file: str | None) -> None:
    """Run app.py first, then come back to this page.

    Streamlit emulates its old multipage mode (``pages/`` folder) until the first
    ``st.navigation`` call of the server process. So the very first request after a server
    start that opens a page URL directly (``/tie_structure``) runs the page file alone,
    without app.py's sidebar and data. Switching to app.py ends the emulation; app.py then
    switches back to the requested page (``RETURN_KEY``).
    """
    try:
        if page_file:
            st.session_state[RETURN_KEY] = os.path.relpath(page_file, APP_DIR)
        st.switch_page("app.py")
    except StreamlitAPIException:  # not started through app.py at all
        st.session_state.pop(RETURN_KEY, None)




# ---------------------------------------------------------------------------------------
# Building the context (called by app.py's sidebar)
# ---------------------------------------------------------------------------------------

def bundled_context(dataset: BundledDataset, settings: ViewSettings) -> tuple[Context | None, list[str]]:
    """Load a bundled dataset (cached by the files' hashes). Returns (context, errors)."""
    errors: list[str] = []
    missing = [f for f in dataset.files if not dataset.path(f).exists()]
    if missing:
        return None, [f"Bundled data file not found: {dataset.path(f)}" for f in missing]
    qpath = dataset.path(dataset.qrels)
    qhash = file_hash(qpath)
    qrels = cached_qrels(qhash, qpath.name, dataset.qrels_format, (), _source=str(qpath))
    if isinstance(qrels, InputError):
        errors.append(str(qrels))
    parts: list[object] = [dataset.key, qhash]
    runs: dict[str, Run] = {}
    for relative in dataset.runs:
        path = dataset.path(relative)
        rhash = file_hash(path)
        parts.append(rhash)
        run = cached_run(rhash, path.name, dataset.run_format, (), _source=str(path))
        if isinstance(run, InputError):
            errors.append(str(run))
        else:
            runs[run.name] = run
    query_text: dict[str, str] = {}
    if dataset.queries:
        path = dataset.path(dataset.queries)
        query_text = load_query_text(file_hash(path), _source=str(path))
    if errors or isinstance(qrels, InputError):
        return None, errors
    return _make_context(qrels, runs, settings, query_text, dataset.label, parts), errors


def session_context(run_set: "RunSet", settings: ViewSettings) -> Context:
    """The context of "my runs" (:data:`MY_RUNS_KEY`); cached by the set's content key."""
    return _make_context(run_set.qrels, dict(run_set.runs), settings, dict(run_set.query_text),
                         run_set.label, ["session", run_set.key])


def _named(run: Run, name: str) -> Run:
    return run if run.name == name else Run(name, run.frame, run.source, run.findings)


def _make_context(qrels: Qrels, runs: dict[str, Run], settings: ViewSettings,
                  query_text: dict[str, str], label: str, parts: list[object]) -> Context:
    key = dataset_key(parts)
    # nothing to evaluate: no page draws them; found once per dataset (2 s on a 7M-line run)
    left_out = _memo(key, (), "no_shared_query", (), _fn=lambda: no_shared_query(runs, qrels))
    runs = {name: run for name, run in runs.items() if name not in left_out}
    findings = tuple(dict.fromkeys(list(qrels.findings) + [f for r in runs.values() for f in r.findings]))
    return Context(qrels=qrels, runs=runs, settings=settings, query_text=query_text,
                   dataset_label=label, key=key, findings=findings, left_out=left_out)


def upload_context(qrels_file: "UploadedLike | None", run_files: Sequence["UploadedLike"],
                   queries_file: "UploadedLike | None", mappings: Mapping[str, Mapping[str, str]],
                   settings: ViewSettings, *, duplicates: str = "error",
                   unreadable: list[str] | None = None) -> tuple[Context | None, list[str]]:
    """Read uploads (cached by content). ``mappings``: :func:`upload_ident` -> {field: column};
    ``duplicates``: the runs' repeated documents, "error" or "max" (keep the highest score).

    A run that cannot be read is left out, with its error, and its file name appended to
    ``unreadable``: the context holds the runs that could be read (``None`` without qrels or
    without any readable run)."""
    errors: list[str] = []
    if qrels_file is None or not run_files:
        return None, errors
    parts: list[object] = ["upload"]
    qdata = qrels_file.getvalue()
    qhash = upload_hash(qrels_file)
    qmap = tuple(sorted(mappings.get(upload_ident(qrels_file), {}).items()))
    parts += [qhash, qmap]
    qrels = cached_qrels(qhash, qrels_file.name, None, qmap, _source=qdata)
    if isinstance(qrels, InputError):
        errors.append(str(qrels))
    runs: dict[str, Run] = {}
    for upload in run_files:
        rhash = upload_hash(upload)
        rmap = tuple(sorted(mappings.get(upload_ident(upload), {}).items()))
        parts += [upload.name, rhash, rmap, duplicates]
        run = cached_run(rhash, upload.name, None, rmap, _source=upload.getvalue(), duplicates=duplicates)
        if isinstance(run, InputError):
            errors.append(str(run))
            if unreadable is not None:
                unreadable.append(upload.name)
            continue
        name, n = run.name, 2
        while name in runs:
            name, n = f"{run.name} ({n})", n + 1
        runs[name] = _named(run, name)
    query_text: dict[str, str] = {}
    if queries_file is not None:
        query_text = load_query_text(upload_hash(queries_file), _source=queries_file.getvalue())
        parts.append(upload_hash(queries_file))
    if isinstance(qrels, InputError) or not runs:
        return None, errors
    label = f"Uploaded: {len(runs)} run{'s' if len(runs) != 1 else ''} ({', '.join(runs)})"
    return _make_context(qrels, runs, settings, query_text, label, parts), errors


def files_context(settings: ViewSettings) -> tuple[Context | None, list[str], list[str]]:
    """(context, errors, notes) of "Your files" (:func:`tiedrank.dashboard.local_files.load`:
    listed each rerun, read again only when changed; notes: what changed since this
    session last looked, the runs left out)."""
    from tiedrank.dashboard import local_files as files

    seen = st.session_state.get("_tiedrank_files_seen", files.WATCH.serial)
    data = files.load(files.manifest())
    st.session_state["_tiedrank_files_seen"] = files.WATCH.serial
    notes = data.notes(files.WATCH.notes_since(seen), markdown_literal)
    if data.qrels is None or not data.runs:
        return None, data.errors, notes
    return _make_context(data.qrels, data.runs, settings, {}, data.label, data.parts), data.errors, notes


def bundled_runs(key: str) -> tuple:
    """(qrels, runs, query text, label) of a bundled dataset, for ``recipes.replay``."""
    from tiedrank.dashboard.recipes import RecipeError

    context, errors = bundled_context(BUNDLED[key], ViewSettings())
    if context is None:
        raise RecipeError("; ".join(errors) or f"the dataset {key!r} could not be read")
    return context.qrels, context.runs, context.query_text, context.dataset_label


@shared_cache()
def inspect_cached(content_hash: str, name: str, fields: tuple[str, ...], _data: bytes):
    """(format, columns) of an upload (:func:`tiedrank.dashboard.datasets.inspect_upload`),
    or the InputError explaining why it is unreadable."""
    try:
        return inspect_upload(_data, name, fields)
    except InputError as err:
        return err
    except Exception as err:  # never a traceback for a bad file
        return InputError(f"could not read the file ({type(err).__name__}: {err})", source=name)


def readable_upload_context(qrels_file, run_files: list, queries_file, mappings: dict,
                            waiting: list[str], uninspected: list[str], settings: ViewSettings,
                            duplicates: str) -> tuple[Context | None, list[str], list[str]]:
    """(context, errors, notes) of the uploads: the runs that can be read while a file waits
    for its column mapping (``waiting``) or cannot be read (``uninspected``, or by the
    reader); the waiting or unreadable files named in a note on every page (no context
    without readable qrels and at least one readable run)."""
    def file(upload):
        return None if upload is None else (upload_ident(upload), markdown_literal(upload.name))

    qrels_ready, ready, notes = readable_uploads(file(qrels_file), [file(u) for u in run_files],
                                                 waiting, uninspected)
    if not qrels_ready or not ready:
        return None, [], notes
    unreadable = [upload.name for i, upload in enumerate(run_files)
                  if i not in ready and upload_ident(upload) in uninspected]
    context, errors = upload_context(qrels_file, [run_files[i] for i in ready], queries_file,
                                     mappings, settings, duplicates=duplicates, unreadable=unreadable)
    if context is not None and unreadable:
        notes.append(left_out_note([markdown_literal(name) for name in unreadable]))
    return context, errors, notes


# display helpers and widget state live in widgets.py; pages import them from here too
from tiedrank.dashboard.widgets import (  # noqa: E402,F401
    empty_state,
    show_findings,
    download_row,
    report_download_row,
    number_cards,
    show_figure,
    figure_download,
    persist,
    count_run,
    persist_choice,
    kept_choice,
    metric_multiselect,
    KEEP,
    RUN_SERIAL_KEY,
    drawn_this_run,
    stacking_columns,
    run_page,
)
