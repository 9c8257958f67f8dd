"""One user's session of the dashboard in AppTest, as the browser would drive it: the
steps (:class:`Action`, :func:`apply`), what the browser holds between steps
(:class:`Frontend`), and the invariants checked after each step (:func:`violations`).
The random walk that draws the steps is app_walk.py.
"""
from __future__ import annotations

import contextlib
import copy
import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import streamlit.testing.v1.element_tree as element_tree
from apptest_support import new_app
from streamlit.proto.ButtonGroup_pb2 import ButtonGroup as ButtonGroupProto
from streamlit.proto.WidgetStates_pb2 import WidgetState
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import Block, Widget
from walk_model import NOT_DRAWN, UPLOADS, Violation, echo_problems, python_words

from tiedrank.dashboard.datasets import BUNDLED
from tiedrank.dashboard.settings import URL_NAMES, params_from_settings
from tiedrank.dashboard.ui import CONTEXT_KEY, CURRENT_PAGE_KEY, SETTINGS_KEY

SETTING_WIDGETS = ("rel_level", "gain", "k", "round", "complete", "query_set")
"""The sidebar's shared settings (session-state keys = fields of ViewSettings)."""
CONTENT_TYPES = {"dataframe", "plotly_chart", "metric", "latex", "vega_lite_chart", "table"}
"""Elements that are a page's content (a table, chart, number card or formula)."""
ALERT_TYPES = {"info", "warning", "error", "success"}
STEP_SECONDS = 120
"""The longest a step may take (a run of the script): longer is a wait that is not bounded.
Generous, because the machine running the suite may be loaded several times over."""


@dataclass(frozen=True)
class Action:
    """One step of a user. ``kind``: open (a link: ``target`` the page or None, ``value`` the
    query parameters), reload (the current link in a new session), page (the menu:
    ``target`` the page script), set (``target`` a widget key, ``value`` the raw value),
    click (a button), submit (a form: ``target`` its id, ``value`` {key: value} of its
    fields, then its submit button), edit (a data editor's whole edit state), point (a chart click), row (a table
    row click), upload (``value`` names of walk_model.UPLOADS, () clears)."""

    kind: str
    target: str | None = None
    value: Any = None

    def __repr__(self) -> str:
        args = [repr(self.kind), repr(self.target)] + ([repr(self.value)] if self.value is not None else [])
        return f"Action({', '.join(args)})"


# ---------------------------------------------------------------------------------------
# Reading the element tree
# ---------------------------------------------------------------------------------------

def nodes(at: AppTest):
    """Every element (not container) of the last run, main area and sidebar."""
    for node in at._tree:
        if not isinstance(node, Block):
            yield node


def current_page(at: AppTest) -> str:
    here = at.session_state[CURRENT_PAGE_KEY] if CURRENT_PAGE_KEY in at.session_state else None
    return here[0] if here else "app.py"


def raw_options(at: AppTest, widget) -> list | None:
    """The options a choice widget was given (not their labels): Streamlit keeps them in
    the widget's serde only (proto and AppTest hold the labels)."""
    try:
        metadata = at.session_state._state._state.get_widget_metadata(widget.id)
        options = metadata.deserializer.__self__.options
        return list(options)
    except Exception:  # noqa: BLE001 - an older Streamlit: the labels are the options
        return None


def widget_value(widget) -> Any:
    try:
        return widget.value
    except Exception as err:  # noqa: BLE001 - reported by the widget-state invariant
        return err


def find(at: AppTest, key: str | None):
    if key is None:
        return None
    try:
        return at._tree.get_by_key(key)
    except Exception:  # noqa: BLE001 - KeyError (gone) or AppTestError (twice)
        return None


def proto_form(node) -> str:
    return getattr(node.proto, "form_id", "") or ""


LABEL_WIDGETS = {"selectbox": "string", "radio": "string", "multiselect": "array",
                 "button_group": "array", "select_slider": "array"}
"""Choice widgets whose state the browser sends as the labels it shows (not the options)."""


class Frontend:
    """What the browser holds for each choice widget between steps, and sends back on every
    rerun: the labels it showed when the widget was mounted, when the server last set its
    value (``set_value``), or when the user last picked. A label that the page redraws
    differently without setting the value (the Learn scenario picker's "Custom") is sent
    back stale, as the browser does (issue 28, #1: it reaches the server as a value that is
    no option). AppTest alone would send the label of the current run, and pass.
    """

    def __init__(self) -> None:
        self.held: dict[str, tuple[str, Any]] = {}
        self.sent: dict[str, tuple[str, Any]] = {}
        self.touched: set[str] = set()

    def state_of(self, node, fresh) -> WidgetState | None:
        """The widget state the browser sends for ``node`` (``fresh``: AppTest's own)."""
        kind = LABEL_WIDGETS.get(node.type)
        if kind and node.id in self.held and node.id not in self.touched:
            state = WidgetState(id=node.id)
            kind, labels = self.held[node.id]
            if kind == "string":
                state.string_value = labels
            else:
                state.string_array_value.data[:] = labels
            self.sent[node.id] = self.held[node.id]
            return state
        try:
            state = fresh(node)
        except Exception:  # noqa: BLE001 - AppTest cannot label a value that is no option:
            return None    # the browser would have sent its labels, handled above
        if kind and state is not None:
            self.sent[node.id] = (kind, state.string_value if kind == "string"
                                  else list(state.string_array_value.data))
        return state

    @contextlib.contextmanager
    def sending(self):
        """While AppTest collects the widget states of a run, send what the browser holds."""
        fresh = element_tree.get_widget_state
        element_tree.get_widget_state = lambda node: self.state_of(node, fresh)
        try:
            yield
        finally:
            element_tree.get_widget_state = fresh

    def after_run(self, at: AppTest) -> None:
        """The browser keeps what it sent unless the widget is new or the server set it."""
        held = {}
        for node in nodes(at):
            kind = LABEL_WIDGETS.get(node.type)
            if not kind or not isinstance(node, Widget):
                continue
            if node.id in self.sent and not node.proto.set_value:
                held[node.id] = self.sent[node.id]
                continue
            state = _fresh_state(node)  # mounted now, or set by the server: what it shows
            if state is not None:
                held[node.id] = (kind, state.string_value if kind == "string"
                                 else list(state.string_array_value.data))
        self.held, self.sent, self.touched = held, {}, set()


def _fresh_state(node) -> WidgetState | None:
    try:
        return element_tree.get_widget_state(node)
    except Exception:  # noqa: BLE001
        return None


# ---------------------------------------------------------------------------------------
# Doing a step
# ---------------------------------------------------------------------------------------

def open_link(params: dict, page: str | None) -> AppTest:
    """A new session (a new tab) opening the dashboard's link ``?params`` at ``page``."""
    at = new_app()
    at.default_timeout = STEP_SECONDS
    for name, value in params.items():
        at.query_params[name] = value
    if page:
        at.switch_page(page)
    return follow(at)


def frontend(at: AppTest) -> Frontend:
    """The browser's side of the session ``at`` (see :class:`Frontend`)."""
    return at.__dict__.setdefault("_walk_frontend", Frontend())


def follow(at: AppTest) -> AppTest:
    """Run, then stay on the page the run showed: AppTest runs its own page again next
    time, the browser the one a drill-down switched to (its address bar follows)."""
    browser = frontend(at)
    with browser.sending():
        at.run()
    browser.after_run(at)
    page = current_page(at)
    if page != "app.py":
        at.switch_page(page)
    return at


def _fits(at: AppTest, widget, value: Any) -> bool:
    """Whether ``value`` can be set on ``widget`` now (a replayed step may meet a page
    whose options changed: the step is then skipped, as a user could not take it)."""
    raw = raw_options(at, widget)
    if widget.type in ("selectbox", "radio", "select_slider", "button_group", "multiselect"):
        items = list(value) if isinstance(value, (list, tuple)) else [value]
        typed = widget.type == "multiselect" and widget.proto.accept_new_options
        return all(v is None or typed or (v in raw if raw is not None else str(v) in widget.options)
                   for v in items)
    if widget.type in ("slider", "number_input"):
        items = list(value) if isinstance(value, (list, tuple)) else [value]
        low = widget.proto.min if widget.type == "slider" or widget.proto.has_min else -math.inf
        high = widget.proto.max if widget.type == "slider" or widget.proto.has_max else math.inf
        return all(v is not None and low <= v <= high for v in items)
    return True


def apply(at: AppTest | None, action: Action) -> tuple[AppTest, bool, list[Violation]]:
    """Take ``action`` on ``at``: (the AppTest after it, whether it applied, violations of
    the step itself, such as a reload that lost the link's settings)."""
    kind, target, value = action.kind, action.target, action.value
    if kind == "open" or at is None:
        return open_link(dict(value or {}), target) if kind == "open" else open_link({}, None), True, []
    if kind == "reload":
        before = _in_force(at)
        again = open_link(dict(at.query_params), current_page(at))
        after = _in_force(again)
        lost = [] if before == after else [Violation(
            "link", current_page(again), f"the link restored {after}, the page had {before}")]
        return again, True, lost
    if kind == "page":
        try:
            at.switch_page(target)
        except ValueError:
            return at, False, []
        return follow(at), True, []
    if kind == "submit":
        form = [n for n in nodes(at) if isinstance(n, Widget) and proto_form(n) == target]
        submit = next((n for n in form if n.type == "button" and n.proto.is_form_submitter), None)
        widgets = {n.key: n for n in form}
        if submit is None or any(k not in widgets or not _fits(at, widgets[k], v) for k, v in value.items()):
            return at, False, []
        for name, item in value.items():
            widgets[name].set_value(item)
            frontend(at).touched.add(widgets[name].id)
        submit.click()
        return follow(at), True, []
    element = find(at, target)
    if element is None:
        return at, False, []
    if kind == "set":
        if not _fits(at, element, value):
            return at, False, []
        element.set_value(value)
        frontend(at).touched.add(element.id)
    elif kind == "click":
        element.click()
    elif kind == "upload":
        element.set_value([(name, UPLOADS[name][0], UPLOADS[name][1]) for name in value] or None)
    elif kind == "edit":
        at.session_state[target] = copy.deepcopy(value)
    elif kind == "point":
        at.session_state[target] = {"selection": {"points": [value], "point_indices": [
            value.get("point_index", 0)], "box": [], "lasso": []}}
    elif kind == "row":
        at.session_state[target] = {"selection": {"rows": list(value), "columns": [], "cells": []}}
    else:
        raise ValueError(f"unknown action {action!r}")
    return follow(at), True, []


# ---------------------------------------------------------------------------------------
# The invariants
# ---------------------------------------------------------------------------------------

def _in_force(at: AppTest) -> tuple:
    """(dataset, settings) the session evaluates with."""
    settings = at.session_state[SETTINGS_KEY] if SETTINGS_KEY in at.session_state else None
    source = at.session_state["dataset"] if "dataset" in at.session_state else None
    return source, settings.key() if settings is not None else None


def widget_problem(at: AppTest, widget) -> str | None:
    """Why ``widget``'s state is not a valid value of it (None when it is)."""
    kind, proto = widget.type, widget.proto
    value = widget_value(widget)
    if isinstance(value, Exception):
        return f"its value cannot be read ({type(value).__name__}: {value})"
    raw = raw_options(at, widget)
    if kind in ("selectbox", "radio"):
        if value is None and not (raw and None in raw):
            return None if not proto.HasField("default") or not widget.options else "nothing chosen"
        if raw is not None and value not in raw:
            return f"{value!r} is not one of its options {raw[:8]}"
        try:
            label = widget.format_func(value)
        except Exception as err:  # noqa: BLE001
            return f"{value!r} cannot be shown ({type(err).__name__}: {err})"
        return None if str(label) in widget.options else f"{value!r} shows as {label!r}, not an option"
    if kind == "multiselect":
        bad = [v for v in value if raw is not None and v not in raw and not proto.accept_new_options]
        if bad:
            return f"{bad!r} are not options"
        if proto.max_selections and len(value) > proto.max_selections:
            return f"{len(value)} chosen, at most {proto.max_selections}"
        return None
    if kind == "button_group":
        items = value if isinstance(value, list) else ([] if value is None else [value])
        if proto.click_mode == ButtonGroupProto.ClickMode.SINGLE_SELECT and proto.required and value is None:
            return "a required segmented control has nothing chosen"
        bad = [v for v in items if raw is not None and v not in raw]
        return f"{bad!r} are not options" if bad else None
    if kind in ("slider", "select_slider", "number_input"):
        items = list(value) if isinstance(value, (list, tuple)) else [value]
        if kind == "select_slider":
            bad = [v for v in items if raw is not None and v not in raw]
            return f"{bad!r} are not options" if bad else None
        if any(v is None for v in items):
            return None if kind == "number_input" and not proto.HasField("default") else "empty"
        low = proto.min if kind == "slider" or proto.has_min else -math.inf
        high = proto.max if kind == "slider" or proto.has_max else math.inf
        if any(not low <= v <= high for v in items):
            return f"{value!r} outside [{low}, {high}]"
        if proto.data_type == proto.DataType.INT and any(v != int(v) for v in items):
            return f"{value!r} is not an integer"
        return None
    if kind in ("toggle", "checkbox"):
        return None if isinstance(value, bool) else f"{value!r} is not on or off"
    return None


def _settings_problems(at: AppTest) -> list[str]:
    """The settings shown in the sidebar, the settings the page's data is evaluated with,
    and the settings in the link must be the same."""
    state = at.session_state
    settings = state[SETTINGS_KEY] if SETTINGS_KEY in state else None
    if settings is None:
        return []
    problems = []
    for key in SETTING_WIDGETS:
        widget = find(at, key)
        if widget is None:
            continue
        shown = widget_value(widget)
        if key == "round":
            shown = None if shown in (None, "off") else int(shown)
        if shown != getattr(settings, key):
            problems.append(f"the sidebar shows {key} = {shown!r}, the pages use {getattr(settings, key)!r}")
    context = state[CONTEXT_KEY] if CONTEXT_KEY in state else None
    if context is not None and context.settings != settings:
        problems.append(f"the data is evaluated with {context.settings}, the sidebar says {settings}")
    source = state["dataset"] if "dataset" in state else None
    if context is not None and source in BUNDLED and context.dataset_label != BUNDLED[source].label:
        problems.append(f"the sidebar shows {source}, the pages show {context.dataset_label!r}")
    wanted = params_from_settings({k: state[k] for k in URL_NAMES if k in state})
    link = {name: at.query_params.get(name) for name in wanted}
    if link != wanted:
        problems.append(f"the link says {link}, the settings are {wanted}")
    return problems


def violations(at: AppTest) -> list[Violation]:
    """Every invariant the page shown breaks (see the module's docstring)."""
    page = current_page(at)
    found = [Violation("exception", page, f"{e.message}"[:300]) for e in at.exception]
    alerts = [n for n in nodes(at) if n.type in ALERT_TYPES]
    for alert in alerts:
        text = str(alert.value)
        if NOT_DRAWN in text:
            found.append(Violation("not drawn", page, text[:200]))
        elif python_words(text):
            found.append(Violation("python words", page, f"{python_words(text)} in {text[:200]!r}"))
    for node in nodes(at):
        if isinstance(node, Widget) and node.key:
            problem = widget_problem(at, node)
            if problem:
                found.append(Violation("widget state", page, f"{node.key}: {problem}"))
    if not any(n.type == "page_link" for n in at.sidebar if not isinstance(n, Block)):
        found.append(Violation("no menu", page, "the sidebar's page menu is missing (app.py did not run)"))
    main = [n for n in at.main if not isinstance(n, Block)]
    if not any(n.type in ALERT_TYPES for n in main) and not (
            any(n.type == "title" for n in main) and any(n.type in CONTENT_TYPES for n in main)):
        found.append(Violation("empty page", page, "neither a titled page with content nor a message"))
    found += [Violation("settings", page, p) for p in _settings_problems(at)]
    settings = at.session_state[SETTINGS_KEY] if SETTINGS_KEY in at.session_state else None
    if settings is not None:
        found += [Violation("settings", page, p) for p in echo_problems(
            "\n".join(main_words(at)), dataclasses.asdict(settings), page)]
    return found


def main_words(at: AppTest) -> list[str]:
    """What the main area says: text, messages, titles, and the widgets' labels, options and
    help (a help tooltip repeats the setting it uses: "k = 10 from the sidebar")."""
    words = []
    for node in at.main:
        if isinstance(node, Block):
            continue
        proto = getattr(node, "proto", None)
        if node.type in ("markdown", "caption", "title", "header", "subheader", "text", "code",
                         *ALERT_TYPES):
            words.append(str(node.value))
        elif isinstance(node, Widget):
            words += [str(getattr(node, "label", "")), str(getattr(proto, "help", ""))]
            words += [str(o) for o in getattr(node, "options", [])]
    return words
