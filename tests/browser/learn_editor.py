"""Learn's toy editor in Chromium, as a user works it (shared by the Learn browser tests).

The toy editor is a canvas (glide-data-grid): a cell is edited by a double click on its
place (the header and every row are 35 px high, after a 33-px row-marker column; the three
columns share the rest), typing, and Enter; the grid's accessible copy (``td`` cells) tells
what the table holds.
"""
from __future__ import annotations

from playwright.sync_api import expect

from browser_support import MENU, wait_idle

WAIT = 30_000
"""ms an ``expect`` waits for a rerun's result (a loaded machine is slow)."""

ROW, MARKERS = 35, 33
NOT_DRAWN = "could not be drawn"


def fresh(chromium, app_url, width: int, height: int = 900):
    context = chromium.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(app_url)
    page.locator(MENU).get_by_text("Learn", exact=True).wait_for()  # a user clicks it as it shows
    return context, page


def settled(page) -> None:
    page.wait_for_timeout(400)  # the rerun starts
    wait_idle(page)


def editor(page):
    return page.get_by_test_id("stMain").get_by_test_id("stDataFrame").first


def cells(page) -> list[str]:
    return editor(page).locator("td").all_inner_texts()


def open_cell(page, column: int, row: int):
    """Double-click the editor's cell; the cell editor that opens (checked to sit on that
    cell: a late layout shift, such as a web font arriving, would open its neighbour)."""
    grid = editor(page)
    for _ in range(3):
        grid.scroll_into_view_if_needed()
        box = grid.bounding_box()
        width = (box["width"] - MARKERS) / 3
        page.mouse.dblclick(box["x"] + MARKERS + width * (column - 0.5), box["y"] + ROW * (row + 1.5))
        field = page.locator("#portal .gdg-input")
        field.wait_for()
        box, at = grid.bounding_box(), field.bounding_box()
        opened = (int((at["x"] + at["width"] / 2 - box["x"] - MARKERS) // width) + 1,
                  int((at["y"] + at["height"] / 2 - box["y"]) // ROW) - 1)
        if opened == (column, row):
            return field
        page.keyboard.press("Escape")
        page.wait_for_timeout(300)
    raise AssertionError(f"could not open cell {column, row} of the editor (opened {opened})")


def edit(page, column: int, row: int, text: str) -> None:
    """Edit the editor's cell (column 1 = doc, 2 = score, 3 = grade; row 0 = d1): double
    click, type ``text``, Enter, until the grid holds it. (Keys typed the moment the cell
    editor opens can reach the page before the editor's own state follows them; Enter then
    commits the old value: the grid keeps it and no rerun happens.)"""
    cell = editor(page).locator(f"#glide-cell-{column}-{row}")
    for _ in range(3):
        field = open_cell(page, column, row)
        expect(field).to_be_focused(timeout=WAIT)
        page.wait_for_timeout(200)
        page.keyboard.press("Control+a")
        page.keyboard.type(text, delay=40)
        expect(field).to_have_value(text, timeout=WAIT)
        page.wait_for_timeout(200)
        page.keyboard.press("Enter")
        expect(field).to_have_count(0, timeout=WAIT)
        try:
            expect(cell).to_have_text(text, timeout=3_000)
            break
        except AssertionError:
            continue
    expect(cell).to_have_text(text, timeout=WAIT)
    settled(page)


def card(page, label: str):
    """The value of a number card (a locator: ``expect`` waits for the rerun's value)."""
    box = page.get_by_test_id("stMain").get_by_test_id("stMetric").filter(has_text=label).first
    return box.get_by_test_id("stMetricValue")


def scenario(page):
    """The scenario selector's shown value (its input)."""
    return page.get_by_test_id("stMain").get_by_test_id("stSelectbox").first.locator("input")


def healthy(page) -> None:
    assert page.get_by_text(NOT_DRAWN).count() == 0
    assert page.get_by_test_id("stException").count() == 0
    assert editor(page).count() == 1
