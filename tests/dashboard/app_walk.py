"""A stateful tester of the whole dashboard through Streamlit's AppTest: a seeded random
walk of a user who, on the page shown, picks any widget the element tree holds (selectboxes,
multiselects, sliders, number inputs, segmented controls, radios, toggles, data-editor
edits with added, deleted and bad cells, buttons, form submits, chart and table clicks,
uploads of good and bad files, the page menu) or opens a link (hostile query parameters
included) or reloads the page, and after every step checks the invariants
(app_session.violations). A failure is shrunk (:func:`shrink`) to a short list of
:class:`Action` that :func:`replay` takes again: paste it into
test_app_stateful_regressions.py.

Nothing here names a page's widgets: they are found in the element tree of the page shown.
The user model (files, links, words a message may not use, known defects, profiles) is
tests/walk_model.py, shared with the browser's walk; the session (steps, what the browser
holds between them, invariants) is app_session.py.
"""
from __future__ import annotations

import base64
import copy
import hashlib
import json
import math
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from app_session import (  # noqa: F401 - Action and assert_survives are the regression tests' API
    Action,
    apply,
    current_page,
    nodes,
    proto_form,
    raw_options,
    violations,
    widget_value,
)
from streamlit.proto.ButtonGroup_pb2 import ButtonGroup as ButtonGroupProto
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import Block, Widget
from walk_model import HOSTILE_VALUES, Profile, Violation, known, pick_files, pick_link

TYPED_OPTIONS = ["P@7", "RR@", "nDCG@0", "TsRR(alpha=0.5)", "<b>x</b>", "P@²", "bpref@5", "9" * 5000]
"""What a user types into a multiselect that accepts new options."""


# ---------------------------------------------------------------------------------------
# Reading the element tree
# ---------------------------------------------------------------------------------------

def _plain(value: Any) -> Any:
    """numpy scalars and tuples as plain Python, so that an Action's repr is code."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _trace_values(values: Any) -> list:
    """A plotly trace's x / y / customdata, whether a list or a base64 typed array."""
    if isinstance(values, dict) and "bdata" in values:
        array = np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"])
        if "shape" in values:
            array = array.reshape([int(s) for s in str(values["shape"]).split(",")])
        return array.tolist()
    return list(values) if isinstance(values, (list, tuple)) else []


def state_signature(at: AppTest) -> tuple:
    """(page, every keyed widget's value): the walk's distinct states are distinct signatures."""
    values = []
    for node in nodes(at):
        if isinstance(node, Widget) and node.key and node.type not in ("button", "download_button"):
            value = widget_value(node)
            if node.type == "file_uploader":
                value = [f.name for f in (value if isinstance(value, list) else [value]) if f]
            values.append((node.key, repr(value)[:200]))
    return current_page(at), tuple(sorted(values))


# ---------------------------------------------------------------------------------------
# Drawing a step from the page shown
# ---------------------------------------------------------------------------------------

def _number(rng: random.Random, low: float | None, high: float | None, step: float, current,
            integer: bool):
    """A value a user types or clicks to: near the current one, an edge, or anywhere."""
    low = -1e6 if low is None else low
    high = 1e6 if high is None else high
    current = low if current is None or isinstance(current, Exception) else current
    step = step or (1 if integer else 0.1)
    candidates = [low, high, current + step, current - step, current * 2, current / 2,
                  rng.uniform(low, min(high, low + 50 * step)), rng.uniform(low, high)]
    value = min(high, max(low, rng.choice(candidates)))
    if integer:
        return int(round(value))
    decimals = max(0, -int(math.floor(math.log10(step)))) if step < 1 else 0
    return min(high, max(low, round(low + round((value - low) / step) * step, decimals + 1)))


def _choice_value(rng: random.Random, at: AppTest, widget) -> Any:
    options = raw_options(at, widget) or list(widget.options)
    if not options:
        return None
    kind = widget.type
    if kind == "multiselect":
        chosen = rng.sample(options, min(len(options), rng.choice([0, 1, 1, 2, 3])))
        if widget.proto.accept_new_options and rng.random() < 0.25:
            chosen.append(rng.choice(TYPED_OPTIONS))
        limit = widget.proto.max_selections
        return chosen[:limit] if limit else chosen
    if kind == "button_group" and widget.proto.click_mode != ButtonGroupProto.ClickMode.SINGLE_SELECT:
        return rng.sample(options, rng.randint(0, len(options)))
    if kind == "button_group" and not widget.proto.required and rng.random() < 0.15:
        return None  # a click on the chosen segment unselects it
    if kind == "select_slider" and isinstance(widget_value(widget), (list, tuple)):
        low, high = sorted(rng.randrange(len(options)) for _ in range(2))
        return (options[low], options[high])
    return rng.choice(options)


def _slider_value(rng: random.Random, widget) -> Any:
    proto = widget.proto
    integer = proto.data_type == proto.DataType.INT
    draw = lambda: _number(rng, proto.min, proto.max, proto.step, None, integer)  # noqa: E731
    if len(proto.default) == 2:
        return tuple(sorted((draw(), draw())))
    return draw()


def _edit_state(rng: random.Random, at: AppTest, editor) -> dict:
    """The editor's edit state plus one more edit: a cell (good, tied, empty or bad value),
    an added row (some cells missing) or a deleted row, as the browser sends it."""
    key = editor.key
    state = copy.deepcopy(at.session_state[key]) if key in at.session_state else {}
    state = {"edited_rows": dict(state.get("edited_rows") or {}),
             "added_rows": list(state.get("added_rows") or []),
             "deleted_rows": list(state.get("deleted_rows") or [])}
    frame = editor.value
    columns = list(frame.columns)
    alive = [i for i in range(len(frame)) if i not in state["deleted_rows"]]

    def cell(column: str) -> Any:
        values = [v for v in frame[column].tolist() if v == v]
        if frame[column].dtype.kind in "if":
            pool = values + [None, 0, 1, 2, -1, 1.5, 0.25, 1e300, 3]
        else:
            pool = values + [None, "", "d9", "<b>x</b>", " d1", "é"]
        return _plain(rng.choice(pool)) if pool else None

    what = rng.choices(["cell", "add", "delete"], [6, 2, 2])[0]
    if what == "cell" and alive and columns:
        row, column = str(rng.choice(alive)), rng.choice(columns)
        state["edited_rows"].setdefault(row, {})[column] = cell(column)
    elif what == "add" or not alive:
        state["added_rows"].append({c: cell(c) for c in columns if rng.random() < 0.8})
    else:
        state["deleted_rows"].append(rng.choice(alive))
    return state


def _point(rng: random.Random, chart) -> dict | None:
    """A click on one point of a plotly chart, as the browser reports it."""
    spec = json.loads(chart.proto.spec)
    traces = [(i, t) for i, t in enumerate(spec.get("data", []))
              if _trace_values(t.get("x")) or _trace_values(t.get("y"))]
    if not traces:
        return None
    number, trace = rng.choice(traces)
    xs, ys = _trace_values(trace.get("x")), _trace_values(trace.get("y"))
    index = rng.randrange(max(len(xs), len(ys)))
    point: dict[str, Any] = {"curve_number": number, "point_number": index, "point_index": index}
    if index < len(xs):
        point["x"] = xs[index]
    if index < len(ys):
        point["y"] = ys[index]
    custom = _trace_values(trace.get("customdata"))
    if index < len(custom):
        point["customdata"] = custom[index]
    return _plain(point)


CATEGORY_WEIGHTS = {"main": 40, "sidebar": 14, "page": 10, "edit": 25, "upload": 14, "click": 6,
                    "point": 5, "row": 5, "download": 0.5}
"""How often a user does each kind of thing when the page offers it (then any element of
that kind, uniformly): a page with twenty download buttons and one table editor is still
mostly edited, not downloaded."""


def step_choices(at: AppTest, profile: Profile) -> dict[str, list]:
    """Category -> the elements of the page shown a user can act on (see CATEGORY_WEIGHTS)."""
    sidebar = {id(n) for n in at.sidebar if not isinstance(n, Block)}
    choices: dict[str, list] = {}
    for node in nodes(at):
        kind, proto = node.type, getattr(node, "proto", None)
        if getattr(proto, "disabled", False):
            continue
        category = None
        if kind == "page_link":
            category = "page"
        elif kind == "plotly_chart" and node.key and len(proto.selection_mode):
            category = "point"
        elif kind == "dataframe" and node.key:
            category = "edit" if node.editing_mode != "read_only" else "row" if len(proto.selection_mode) else None
        elif isinstance(node, Widget) and node.key:
            if kind == "button" and node.key.endswith(("_png_prepare", "_svg_prepare", "_pdf_prepare")) and not profile.slow_widgets:
                continue  # figure export takes ~10 s of kaleido's Chromium: deep profile only
            category = {"download_button": "download", "button": "click", "file_uploader": "upload"}.get(
                kind, "sidebar" if id(node) in sidebar else "main")
        if category:
            choices.setdefault(category, []).append(node)
    return choices


def draw_action(rng: random.Random, at: AppTest, profile: Profile) -> Action:
    """The user's next step on the page shown."""
    roll = rng.random()
    if roll < 0.03:
        return Action("reload")
    if roll < 0.07:
        return Action("open", rng.choice([None, *sorted(_pages(at).values())]), pick_link(rng))
    choices = step_choices(at, profile)
    category = rng.choices(list(choices), [CATEGORY_WEIGHTS[c] for c in choices])[0]
    node = rng.choice(choices[category])
    if category == "page":
        return Action("page", _pages(at).get(node.proto.page_script_hash, "app.py"))
    if category == "point":
        point = _point(rng, node)
        return Action("point", node.key, point) if point else Action("reload")
    if category == "row":
        rows = len(node.value)
        return Action("row", node.key, [rng.randrange(rows)] if rows and rng.random() < 0.9 else [])
    if category == "edit":
        return Action("edit", node.key, _edit_state(rng, at, node))
    if category in ("click", "download"):
        return Action("click", node.key)
    if category == "upload":
        return Action("upload", node.key, pick_files(rng, node.label, node.allowed_type,
                                                     node.accept_multiple_files))
    kind = node.type
    value: Any
    if kind in ("toggle", "checkbox"):
        value = not widget_value(node)
    elif kind == "slider":
        value = _slider_value(rng, node)
    elif kind == "number_input":
        proto = node.proto
        value = _number(rng, node.min, node.max, proto.step, widget_value(node),
                        proto.data_type == proto.DataType.INT)
    elif kind in ("text_input", "text_area"):
        value = rng.choice(HOSTILE_VALUES + ["hello"])
    else:
        value = _choice_value(rng, at, node)
    value = _plain(value)
    if proto_form(node):
        return Action("submit", proto_form(node), {node.key: value})
    return Action("set", node.key, value)


def _pages(at: AppTest) -> dict[str, str]:
    """Script hash -> page script relative to app.py (what the menu links to)."""
    root = at._script_path.rsplit("/", 1)[0] + "/"
    return {h: str(info.get("script_path", "")).replace(root, "")
            for h, info in at._registered_pages.items() if info.get("script_path")}


# ---------------------------------------------------------------------------------------
# Walking, replaying, shrinking
# ---------------------------------------------------------------------------------------

def step(at: AppTest | None, action: Action) -> tuple[AppTest | None, bool, list[Violation]]:
    """:func:`apply` then :func:`violations`; a step that raises is a violation too (a
    timeout: a wait that is not bounded; an AppTest error: a state the tester cannot read)."""
    page = current_page(at) if at is not None else "app.py"
    try:
        at, applied, found = apply(at, action)
    except Exception as err:  # noqa: BLE001
        return None, True, [Violation("step raised", page, f"{type(err).__name__}: {err}"[:300])]
    return at, applied, (found + violations(at)) if applied else []


def replay(actions: list[Action], until: tuple | None = None) -> tuple[AppTest | None, list[Violation]]:
    """Take ``actions`` in a new session; every violation met, stopping at the first whose
    signature is ``until`` (skipped steps are those a user could not take any more)."""
    at, met = None, []
    for action in actions:
        at, _, found = step(at, action)
        met += found
        if until is not None and any(v.signature() == until for v in found):
            break
        if at is None:
            break
    return at, met


def shrink(actions: list[Action], target: Violation, seconds: float) -> list[Action]:
    """A shorter list of actions that still breaks ``target``'s invariant (same rule, page
    and message): chunks, then single steps are dropped while it still fails, the start
    link is tried bare; stops after ``seconds`` with the shortest found."""
    signature = target.signature()
    deadline = time.monotonic() + seconds

    def fails(candidate: list[Action]) -> bool:
        return any(v.signature() == signature for v in replay(candidate, until=signature)[1])

    if not fails(actions):
        return actions  # not reproducible alone: report the whole trail
    best = actions
    chunk = max(1, (len(best) - 1) // 2)
    while chunk >= 1 and time.monotonic() < deadline:
        start = len(best) - chunk
        while start >= 1 and time.monotonic() < deadline:
            candidate = best[:start] + best[start + chunk:]
            if fails(candidate):
                best = candidate
            start -= chunk
        chunk //= 2
    bare = [Action("open", best[0].target, {})] + best[1:]
    if best[0] != bare[0] and time.monotonic() < deadline and fails(bare):
        best = bare
    return best


def as_test(actions: list[Action], violation: Violation, seed: int) -> str:
    """The reproduction as a regression test for test_app_stateful_regressions.py."""
    steps = "".join(f"\n        {a!r}," for a in actions)
    return (f"def test_seed_{seed}_{violation.rule.replace(' ', '_')}():\n"
            f"    \"\"\"{violation}\"\"\"\n"
            f"    assert_survives([{steps}\n    ])\n")


def assert_survives(actions: list[Action]) -> AppTest:
    """Replay ``actions``; no step may break an invariant (the regression tests' check)."""
    at, met = replay(actions)
    assert not met, "\n".join(map(str, met))
    return at


@dataclass
class WalkReport:
    """What the walks covered: steps taken, distinct (page, widget values) states, pages,
    known defects met (with the steps that led there), the first unknown failure."""

    steps: int = 0
    skipped: int = 0
    states: set = field(default_factory=set)
    pages: Counter = field(default_factory=Counter)
    kinds: Counter = field(default_factory=Counter)
    known: list = field(default_factory=list)
    failures: list = field(default_factory=list)
    seconds: float = 0.0

    def summary(self) -> dict:
        return {"steps": self.steps, "skipped": self.skipped, "distinct_states": len(self.states),
                "state_hashes": sorted(hashlib.sha1(repr(s).encode()).hexdigest()[:12]
                                       for s in self.states),
                "pages": dict(self.pages), "actions": dict(self.kinds), "seconds": round(self.seconds, 1),
                "known": [(name, str(v), [repr(a) for a in trail]) for name, v, trail in self.known],
                "failures": [(str(v), [repr(a) for a in trail]) for v, trail in self.failures]}


def walk(seed: int, steps: int, profile: Profile, report: WalkReport, *, stop_on_failure: bool = True) -> None:
    """``steps`` random steps of a user from a random link (seeded by ``seed``), checking
    the invariants after each. A known defect (walk_model.KNOWN) is recorded and the walk
    goes on in a new session; an unknown one is recorded in ``report.failures`` (and ends
    the walk when ``stop_on_failure``)."""
    rng = random.Random(seed)
    began = time.monotonic()
    trail = [Action("open", rng.choice([None, None, "pages/learn.py", "pages/compare.py",
                                        "pages/spread.py"]), pick_link(rng))]
    at, _, found = step(None, trail[0])
    taken = restarts = 0
    while restarts <= steps:
        problems = [(v, known(v)) for v in found]
        for violation, defect in problems:
            if defect is None:
                report.failures.append((violation, list(trail)))
                if stop_on_failure:
                    report.seconds += time.monotonic() - began
                    return
        for violation, defect in problems:
            if defect is not None:
                report.known.append((defect.name, violation, list(trail)))
        if problems or at is None:  # a broken session: the user reloads without the link
            restarts += 1
            trail = [Action("open", None, {})]
            at, _, found = step(None, trail[0])
            continue
        if taken >= steps:
            break
        action = draw_action(rng, at, profile)
        trail = [action] if action.kind == "open" else trail + [action]
        at, applied, found = step(at, action)
        taken += 1
        report.steps += applied
        report.skipped += not applied
        report.kinds[action.kind] += 1
        if at is not None:
            report.states.add(state_signature(at))
            report.pages[current_page(at)] += 1
    report.seconds += time.monotonic() - began
