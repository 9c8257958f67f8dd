"""Chromium: the document text on Tie structure (bundled corpus) and the flip heatmap on Compare."""
import pytest

# Deep profile (`--slow`): the default run reaches Tie structure's document text and Compare's flip heatmap through the layout walks
# (every page at 800 and 1280 px, no exception box) and the AppTests; this journey runs
# on demand and in CI's browser step.
pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _simulated(ui) -> None:
    ui.page.get_by_text("Simulated rerankers", exact=False).first.click()
    ui.wait()


def test_tie_structure_shows_document_text(ui):
    ui.open("tie_structure")
    ui.wait('h1:has-text("Tie structure")')
    _simulated(ui)
    ui.wait('h2:has-text("Document text of this query")')
    ui.page.get_by_text("Group 1", exact=False).first.wait_for(state="visible")
    assert ui.exceptions() == 0


def test_compare_shows_flip_heatmap(ui):
    """The flip matrix is computed on demand (its button), unless a session computed it
    already for this data; then its heatmap is drawn."""
    ui.open("compare")
    ui.wait('h1')
    _simulated(ui)
    ui.wait('h2:has-text("Verdict-flip matrix")')
    button = ui.page.get_by_role("button", name="Compute the verdict-flip matrix")
    if button.count():
        button.click()
    ui.wait(".st-key-compare_flip_chart .js-plotly-plot")
    assert ui.exceptions() == 0
