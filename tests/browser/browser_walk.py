"""The stateful tester in the real browser: a seeded, bounded random walk of a user in
Chromium, with the invariants of the AppTest walk (tests/dashboard/app_walk.py) read from
the page as drawn. The browser reaches states AppTest does not (a data editor edited cell by
cell, a number typed and clamped by the widget, a segmented control clicked off, widgets
remounted by the frontend), so it walks too, on a small budget.

Widgets are found on the page shown by their Streamlit test ids, never from a list of the
app's widgets. The user model (files, links, the words a message may not use, known
defects) is tests/walk_model.py.
"""
from __future__ import annotations

import random
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlparse

from browser_support import IDLE, MENU
from walk_model import (
    HOSTILE_VALUES,
    NOT_DRAWN,
    UPLOADS,
    Violation,
    pick_files,
    pick_link,
    python_words,
)

from tiedrank.dashboard.settings import ZERO_RELEVANT_CHOICES

STEP_MS = 8_000
"""How long one interaction may wait for its element (not for the app's answer)."""
ANSWER_MS = 60_000
"""How long the app may take to answer an interaction (a longer wait is a violation)."""
PAGES = ("", "tie_structure", "spread", "tsrr", "learn", "compare", "agreement", "side_by_side",
         "simulator")
CONTENT = ('[data-testid="stDataFrame"], .js-plotly-plot, [data-testid="stMetric"], .katex')


def page_script(url: str) -> str:
    """``pages/<name>.py`` of the page a browser URL shows (as the AppTest walk names it)."""
    path = urlparse(url).path.strip("/") or "overview"
    return f"pages/{path}.py"


def wait_answer(page) -> bool:
    """Wait until the app has answered the last interaction and settled (a drill-down or a
    page opened by its address runs the script twice, with the address changing between
    the runs); False if it did not within ANSWER_MS."""
    page.wait_for_timeout(250)  # the rerun starts a moment after the interaction
    deadline = time.monotonic() + ANSWER_MS / 1000
    last = None
    try:
        while time.monotonic() < deadline:
            page.locator(IDLE).wait_for(state="attached", timeout=ANSWER_MS)
            page.locator('[data-testid="stMain"] h1, [data-testid="stMain"] [data-testid="stAlert"]'
                         ).first.wait_for(state="visible", timeout=ANSWER_MS)
            now = (page.url, page.locator(IDLE).count())
            if now == last and now[1]:
                _wait_for_content(page)
                return True
            last = now
            page.wait_for_timeout(300)
    except Exception:  # noqa: BLE001 - playwright's TimeoutError
        return False
    return False


def _wait_for_content(page) -> None:
    """Charts and tables are drawn by the browser after the run ends (plotly loads lazily):
    give them a moment before the content invariant is read."""
    try:
        page.locator(", ".join(f'[data-testid="stMain"] {c.strip()}' for c in CONTENT.split(","))
                     + ', [data-testid="stMain"] [data-testid="stAlert"]').first.wait_for(
            state="attached", timeout=15_000)
    except Exception:  # noqa: BLE001 - not there in time: the invariant says so
        pass


def _options(page) -> list:
    """The options of the list a click just opened (drawn a moment after the click)."""
    try:
        page.get_by_role("option").first.wait_for(state="visible", timeout=6_000)
    except Exception:  # noqa: BLE001 - an empty list
        return []
    return _visible(page.get_by_role("option"))


def _visible(locator) -> list:
    return [item for item in locator.all() if item.is_visible()]


# ---------------------------------------------------------------------------------------
# The user's steps
# ---------------------------------------------------------------------------------------

def _pick_selectbox(rng, page, box) -> str:
    label = box.get_by_test_id("stWidgetLabel").inner_text().strip()
    box.locator("input").first.click(timeout=STEP_MS)
    options = _options(page)
    if not options:
        page.keyboard.press("Escape")
        return f"opened {label!r}: no option"
    option = rng.choice(options)
    text = option.inner_text().strip()
    option.click(timeout=STEP_MS)
    return f"{label!r} := {text!r}"


def _pick_multiselect(rng, page, box) -> str:
    label = box.get_by_test_id("stWidgetLabel").inner_text().strip()
    tags = _visible(box.locator('[data-testid="stMultiSelectTag"] [role="button"], '
                                '[data-testid="stMultiSelectTag"] svg'))
    if tags and rng.random() < 0.4:
        rng.choice(tags).click(timeout=STEP_MS)
        return f"{label!r}: removed a choice"
    box.locator("input").first.click(timeout=STEP_MS)
    if rng.random() < 0.2:
        typed = rng.choice(["P@7", "RR@", "nDCG@0", "<b>x</b>", "P@²"])
        page.keyboard.type(typed)
        page.keyboard.press("Enter")
        page.keyboard.press("Escape")
        return f"{label!r}: typed {typed!r}"
    options = _options(page)
    if not options:
        page.keyboard.press("Escape")
        return f"{label!r}: no option"
    option = rng.choice(options)
    text = option.inner_text().strip()
    option.click(timeout=STEP_MS)
    page.keyboard.press("Escape")
    return f"{label!r}: added {text!r}"


def _number(rng, page, box) -> str:
    label = box.get_by_test_id("stWidgetLabel").inner_text().strip()
    if rng.random() < 0.4:
        button = box.get_by_test_id(rng.choice(["stNumberInputStepUp", "stNumberInputStepDown"]))
        button.click(timeout=STEP_MS)
        return f"{label!r}: stepped"
    field_ = box.locator("input").first
    current = field_.input_value()
    try:
        number = float(current)
    except ValueError:
        number = 1.0
    typed = rng.choice([str(int(number) + rng.choice([-1, 1, 2, 10])), "0", "1", "-5", "1e9",
                        "2.5", rng.choice(HOSTILE_VALUES)])
    field_.click(timeout=STEP_MS)
    page.keyboard.press("Control+a")
    page.keyboard.type(typed)  # the field drops what is not a number, as for a user
    page.keyboard.press("Enter")
    return f"{label!r}: typed {typed!r}"


def _slider(rng, page, box) -> str:
    label = box.get_by_test_id("stWidgetLabel").inner_text().strip()
    thumbs = _visible(box.get_by_role("slider"))
    if not thumbs:
        return f"{label!r}: no thumb"
    thumb = rng.choice(thumbs)
    thumb.focus()
    keys = rng.choice([["ArrowRight"] * rng.randint(1, 4), ["ArrowLeft"] * rng.randint(1, 4),
                       ["Home"], ["End"], ["PageUp"], ["PageDown"]])
    for key in keys:
        thumb.press(key)
    return f"{label!r}: {keys[0]} x{len(keys)}"


def _edit_grid(rng, page, grid) -> str:
    """A user's edit of a data editor: type into a cell (good, tied, empty or bad), clear a
    cell, add a row or delete one."""
    grid.scroll_into_view_if_needed(timeout=STEP_MS)
    box = grid.bounding_box()
    rows = grid.locator("tbody tr").count()
    what = rng.choices(["type", "clear", "add", "delete"], [6, 1, 2, 1])[0]
    if what == "add":
        grid.get_by_label("Add row").click(timeout=STEP_MS)
        page.keyboard.press("Escape")
        return "editor: added a row"
    row = rng.randrange(max(rows, 1))
    y = box["y"] + 35 + 35 * row + 17
    if what == "delete":
        page.mouse.click(box["x"] + 12, y)  # the row marker selects the row
        page.keyboard.press("Delete")
        return f"editor: deleted row {row + 1}"
    x = box["x"] + 40 + rng.random() * (box["width"] - 50)
    page.mouse.click(x, y)
    if what == "clear":
        page.keyboard.press("Delete")
        return f"editor: cleared a cell of row {row + 1}"
    page.keyboard.press("Enter")  # opens the cell's editor (typed keys before it opens are lost)
    page.wait_for_timeout(150)
    typed = rng.choice(["0.8", "0.9", "2", "0", "1", "-1", "1.5", "d1", "d9", "", "abc", "1e300"])
    page.keyboard.press("Control+a")
    page.keyboard.type(typed)
    page.keyboard.press("Enter")
    return f"editor: typed {typed!r} in row {row + 1}"


def _upload(rng, page, box, folder: Path) -> str:
    label = box.get_by_test_id("stWidgetLabel").inner_text().strip()
    field_ = box.locator('input[type="file"]').first
    accept = (field_.get_attribute("accept") or "").replace(".", "").split(",")
    names = pick_files(rng, label, [a.strip() for a in accept if a.strip()],
                       field_.get_attribute("multiple") is not None)
    paths = []
    for i, name in enumerate(names):
        path = folder / str(i) / re.sub(r"[/\\]", "_", name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(UPLOADS[name][0])
        paths.append(str(path))
    field_.set_input_files(paths, timeout=STEP_MS)
    return f"{label!r}: uploaded {list(names)}"


SELECTORS = {
    "page": (10, f"{MENU} a"),
    "selectbox": (12, '[data-testid="stSelectbox"]'),
    "multiselect": (8, '[data-testid="stMultiSelect"]'),
    "number": (10, '[data-testid="stNumberInput"]'),
    "slider": (8, '[data-testid="stSlider"]'),
    "segment": (8, '[data-testid="stButtonGroup"] button'),
    "radio": (6, '[data-testid="stRadio"] label:has(input)'),
    "toggle": (5, '[data-testid="stCheckbox"] label'),
    "button": (5, '[data-testid="stButton"] button'),
    "editor": (25, '[data-testid="stDataFrame"]:has(td[aria-readonly="false"])'),
    "upload": (14, '[data-testid="stFileUploader"]'),
    "chart": (6, ".js-plotly-plot .points .point"),
}
"""What a user can act on, by Streamlit test id: kind -> (how often a user does that kind of
thing when the page offers it, selector); then any element of that kind, uniformly."""

_VISIBLE_JS = """selectors => Object.fromEntries(Object.entries(selectors).map(([kind, sel]) => [kind,
  [...document.querySelectorAll(sel)].map((e, i) => [i, e.getClientRects().length > 0,
   (e.innerText || e.textContent || '').slice(0, 60)]).filter(x => x[1]).map(x => [x[0], x[2]])]))"""


def take_step(rng: random.Random, page, url: str, folder: Path, slow_widgets: bool) -> str:
    """One random step of the user on the page shown; returns what was done."""
    roll = rng.random()
    if roll < 0.04:
        page.reload()
        return "reload"
    if roll < 0.08:
        return open_link(rng, page, url)
    found = page.evaluate(_VISIBLE_JS, {kind: sel for kind, (_, sel) in SELECTORS.items()})
    offered = {kind: [(i, text) for i, text in items if slow_widgets or not (
        kind == "button" and "PNG" in text)] for kind, items in found.items()}
    offered = {kind: items for kind, items in offered.items() if items}
    # a kind of thing first, then one of them: a chart's 500 points are one choice, not 500
    kind = rng.choices(list(offered), [SELECTORS[k][0] for k in offered])[0]
    index, text = rng.choice(offered[kind])
    element = page.locator(SELECTORS[kind][1]).nth(index)
    if kind == "selectbox":
        return _pick_selectbox(rng, page, element)
    if kind == "multiselect":
        return _pick_multiselect(rng, page, element)
    if kind == "number":
        return _number(rng, page, element)
    if kind == "slider":
        return _slider(rng, page, element)
    if kind == "editor":
        return _edit_grid(rng, page, element)
    if kind == "upload":
        return _upload(rng, page, element, folder)
    element.click(timeout=STEP_MS, force=kind == "chart")
    return f"{kind}: clicked {' '.join(text.split())[:40]!r}"


def open_link(rng: random.Random, page, url: str) -> str:
    """Open a link someone sent: a page with good, odd or hostile query parameters."""
    path = rng.choice(PAGES)
    query = urlencode(pick_link(rng), doseq=True)
    page.goto(f"{url}/{path}" + (f"?{query}" if query else ""))
    return f"opened /{path}?{query}"


# ---------------------------------------------------------------------------------------
# The invariants, read from the page
# ---------------------------------------------------------------------------------------

_READ_JS = """content => {
  const text = e => e ? (e.innerText || '').trim() : '';
  const main = document.querySelector('[data-testid="stMain"]');
  const side = document.querySelector('[data-testid="stSidebar"]');
  const all = sel => [...document.querySelectorAll(sel)];
  const labelled = (tid, label) => side ? [...side.querySelectorAll(`[data-testid="${tid}"]`)].find(
      b => text(b.querySelector('[data-testid="stWidgetLabel"]')) === label) : undefined;
  const settings = {};
  for (const [name, label] of [['rel_level', 'Relevance level'], ['k', 'Cutoff k']]) {
    const box = labelled('stNumberInput', label); settings[name] = box ? box.querySelector('input').value : null; }
  const gain = labelled('stButtonGroup', 'nDCG gain');
  settings.gain = gain ? text(gain.querySelector('[aria-checked="true"]')) : null;
  const round = labelled('stSelectbox', 'Round scores');
  settings.round = round ? round.querySelector('input').value : null;
  const queries = labelled('stSelectbox', 'Queries without a relevant document');
  settings.query_set = queries ? queries.querySelector('input').value : null;
  const complete = side ? side.querySelector('input[role="switch"]') : null;
  settings.complete = complete ? (complete.checked ? '1' : '0') : null;
  return {
    exceptions: all('[data-testid="stException"]').map(text),
    alerts: all('[data-testid="stAlert"]').map(text),
    titled: !!(main && main.querySelector('h1') && main.querySelector(content)),
    menu: document.querySelectorAll('.st-key-menu a').length,
    mainAlerts: main ? main.querySelectorAll('[data-testid="stAlert"]').length : 0,
    requiredEmpty: all('[role="radiogroup"][aria-required="true"]')
      .filter(g => !g.querySelector('[aria-checked="true"]')).map(g => g.getAttribute('aria-label')),
    emptySelects: all('[data-testid="stSelectbox"]').filter(b => { const i = b.querySelector('input');
      return i && i.value === '' && (!i.placeholder || i.placeholder === 'Choose an option'); })
      .map(b => text(b.querySelector('[data-testid="stWidgetLabel"]'))),
    sliders: all('[role="slider"]').map(t => ['aria-valuenow', 'aria-valuemin', 'aria-valuemax']
      .map(a => t.getAttribute(a))),
    settings };
}"""


def _in_link_words(settings: dict) -> dict:
    """The sidebar's shown settings in the link's words (round 2, query_set relevant)."""
    out = dict(settings)
    if out.get("round") is not None:
        out["round"] = "off" if out["round"].startswith("off") else out["round"].split(" ")[0]
    if out.get("query_set") is not None:
        out["query_set"] = next((k for k, v in ZERO_RELEVANT_CHOICES.items() if v == out["query_set"]),
                                out["query_set"])
    return {name: value for name, value in out.items() if value is not None}


def violations(page) -> list[Violation]:
    """The invariants of the AppTest walk, as far as the drawn page shows them (one read of
    the page: a round trip per element would cost more than the step)."""
    where = page_script(page.url)
    read = page.evaluate(_READ_JS, CONTENT)
    found = [Violation("exception", where, text[:300]) for text in read["exceptions"]]
    for text in read["alerts"]:
        if NOT_DRAWN in text:
            found.append(Violation("not drawn", where, text[:200]))
        elif python_words(text):
            found.append(Violation("python words", where, f"{python_words(text)} in {text[:200]!r}"))
    if not read["menu"]:
        found.append(Violation("no menu", where, "the sidebar's page menu is missing (app.py did not run)"))
    if not read["titled"] and not read["mainAlerts"]:
        found.append(Violation("empty page", where, "neither a titled page with content nor a message"))
    found += [Violation("widget state", where, f"{label!r}: a required control shows no choice")
              for label in read["requiredEmpty"]]
    found += [Violation("widget state", where, f"{label!r}: shows no choice") for label in read["emptySelects"]]
    for now, low, high in read["sliders"]:
        if None not in (now, low, high) and not float(low) <= float(now) <= float(high):
            found.append(Violation("widget state", where, f"a slider at {now} outside [{low}, {high}]"))
    link = {name: values[-1] for name, values in parse_qs(urlparse(page.url).query,
                                                          keep_blank_values=True).items()}
    differ = {name: (value, link.get(name)) for name, value in _in_link_words(read["settings"]).items()
              if link.get(name) != value}
    if differ:
        found.append(Violation("settings", where, f"(sidebar, link): {differ}"))
    return found


@dataclass
class BrowserReport:
    steps: int = 0
    skipped: int = 0
    states: set = field(default_factory=set)
    trail: list = field(default_factory=list)
    known: list = field(default_factory=list)
    failures: list = field(default_factory=list)


def state_signature(page) -> tuple:
    """(page, link, what the sidebar and the main controls show): distinct states."""
    values = page.evaluate(
        "() => [...document.querySelectorAll('input')].map(i => i.type === 'checkbox' || "
        "i.type === 'radio' ? String(i.checked) : i.value).join('|') + '#' + "
        "[...document.querySelectorAll('[aria-checked=\"true\"]')].map(b => b.innerText).join('|')")
    return urlparse(page.url).path, urlparse(page.url).query, values
