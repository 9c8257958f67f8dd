"""Issue 41 item 4 in Chromium, "a lesson in a link": on Learn, pick S1, edit d2's score to
0.9 (E[RR] 0.7500), take "Link to this view" and open it in a new browser context (another
session, as a student would): the same edited ranking, the same E[RR]. A link of a later
lesson format opens the seed with one message."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from browser_support import MENU, wait_idle
from learn_editor import WAIT, card, edit, editor, healthy, scenario, settled

pytestmark = pytest.mark.browser


def _pick_scenario(page, text: str) -> None:
    box = page.get_by_test_id("stMain").get_by_test_id("stSelectbox").first
    box.click()
    box.locator("input").fill(text.split(":")[0])
    page.get_by_role("option").filter(has_text=text).first.click()
    settled(page)


def _link_to_this_view(page) -> str:
    page.get_by_role("button", name="Link to this view").click()
    code = page.get_by_test_id("stPopoverBody").get_by_test_id("stCode")
    code.wait_for(state="visible")
    link = code.inner_text().strip()
    page.keyboard.press("Escape")
    return link


def _new_page(chromium, url: str):
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(url)
    return context, page


def test_a_lesson_link_opens_the_edited_ranking_in_another_browser(chromium, app_url):
    teacher, page = _new_page(chromium, app_url)
    student = None
    try:
        page.locator(MENU).get_by_text("Learn", exact=True).click()
        wait_idle(page, 'h1:has-text("Learn")')
        expect(card(page, "E[RR]")).to_have_text("0.4167", timeout=WAIT)  # S2, the seed
        _pick_scenario(page, "S1: no ties")
        expect(card(page, "E[RR]")).to_have_text("0.5000", timeout=WAIT)
        edit(page, 2, 1, "0.9")  # d2's score 0.8 -> 0.9: tied with d1 at the top
        expect(card(page, "E[RR]")).to_have_text("0.7500", timeout=WAIT)
        healthy(page)
        link = _link_to_this_view(page)
        assert "/learn?" in link and "lesson=v1~S1~3~1.0~1~linear~d1~0.9~0~d2~0.9~1~" in link

        student, other = _new_page(chromium, link)  # a new context: its own session, no state
        wait_idle(other, 'h1:has-text("Learn")')
        expect(card(other, "E[RR]")).to_have_text("0.7500", timeout=WAIT)
        expect(editor(other).locator("#glide-cell-2-1")).to_have_text("0.9", timeout=WAIT)
        expect(editor(other).locator("#glide-cell-2-0")).to_have_text("0.9", timeout=WAIT)
        expect(scenario(other)).to_have_value("Custom: your edit of S1", timeout=WAIT)
        expect(other.get_by_role("button", name="Reset to S1")).to_be_enabled(timeout=WAIT)
        assert other.get_by_test_id("stAlertContentWarning").count() == 0
        healthy(other)
        assert _link_to_this_view(other) == link  # the student's link is the teacher's
    finally:
        teacher.close()
        if student is not None:
            student.close()


def test_a_link_of_a_later_lesson_format_opens_the_seed_with_one_message(chromium, app_url):
    context, page = _new_page(chromium, f"{app_url}/learn?lesson=v9~S1~3~1.0~1~linear~x")
    try:
        wait_idle(page, 'h1:has-text("Learn")')
        expect(card(page, "E[RR]")).to_have_text("0.4167", timeout=WAIT)
        warnings = page.get_by_test_id("stAlertContentWarning")
        expect(warnings).to_have_count(1, timeout=WAIT)
        assert "newer version of tiedrank" in warnings.first.inner_text()
        healthy(page)
        assert "lesson=" not in page.url
    finally:
        context.close()
