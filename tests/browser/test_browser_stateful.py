"""The stateful tester in Chromium at 800 and 1280 px (issue 28): a seeded, bounded random
walk of a user over every widget the page shows, with the invariants of the AppTest walk
after each step (tests/browser/browser_walk.py). One session resizes its window between
the widths (half the steps at each; a user may too), which saves a page load of the quick
budget: 8 steps, about 20 s. ``TIEDRANK_STATEFUL=deep`` walks longer, from fresh seeds.
Coverage goes to build/stateful/."""
from __future__ import annotations

import hashlib
import json
import random
import time

import pytest
from browser_walk import BrowserReport, open_link, state_signature, take_step, violations, wait_answer
from walk_model import REPORT_DIR, Violation, known, profile

pytestmark = pytest.mark.browser

PROFILE = profile()
WIDTHS = (800, 1280)


def _walk(ui, seed: int, steps: int, folder, report: BrowserReport) -> None:
    rng = random.Random(seed)
    page = ui.page
    began = time.monotonic()
    report.trail.append(f"{WIDTHS[0]} px: " + open_link(rng, page, ui.url))
    taken = 0
    while True:
        answered = wait_answer(page)
        report.trail[-1] += f"  [{time.monotonic() - began:.1f} s]"
        found = violations(page) if answered else [Violation("no answer", page.url, report.trail[-1])]
        report.states.add((page.viewport_size["width"], *state_signature(page)))
        unknown = [v for v in found if known(v) is None]
        if unknown:
            report.failures.append((unknown[0], list(report.trail)))
            return
        if found:  # a known defect (walk_model.KNOWN): recorded; the user reloads the app
            report.known += [(known(v).name, str(v), list(report.trail)) for v in found]
            page.goto(ui.url)
            report.trail.append("opened / (after a known defect)")
            continue
        if taken >= steps:
            return
        width = WIDTHS[taken * len(WIDTHS) // steps]
        if page.viewport_size["width"] != width:
            page.set_viewport_size({"width": width, "height": 1000})
            report.trail.append(f"{width} px")
        try:
            report.trail.append(take_step(rng, page, ui.url, folder, PROFILE.slow_widgets))
            report.steps += 1
        except Exception as err:  # noqa: BLE001 - the element went away or never answered
            report.trail.append(f"(could not act: {type(err).__name__}: {str(err)[:150]})")
            report.skipped += 1
            page.keyboard.press("Escape")
        taken += 1


def test_a_user_cannot_break_the_dashboard_in_the_browser(sized_ui, tmp_path):
    report = BrowserReport()
    began = time.monotonic()
    walked = []
    for seed in PROFILE.seeds[: 1 if PROFILE.name == "quick" else None]:
        walked.append(seed)
        _walk(sized_ui(WIDTHS[0]), seed, PROFILE.browser_steps, tmp_path, report)
        if report.failures:
            break
    seconds = time.monotonic() - began
    REPORT_DIR.mkdir(parents=True, exist_ok=True)
    (REPORT_DIR / f"browser-{PROFILE.name}.json").write_text(json.dumps({
        "profile": PROFILE.name, "seeds": walked, "steps": report.steps,
        "skipped": report.skipped, "distinct_states": len(report.states), "seconds": round(seconds, 1),
        "known": report.known, "trail": report.trail,
        "state_hashes": sorted(hashlib.sha1(repr(s).encode()).hexdigest()[:12] for s in report.states),
        "failures": [(str(v), trail) for v, trail in report.failures]}, indent=1))
    print(f"browser: {report.steps} steps ({report.skipped} skipped), {len(report.states)} distinct "
          f"states, {seconds:.1f} s, known defects met: {[k[0] for k in report.known]}")
    if report.failures:
        violation, trail = report.failures[0]
        pytest.fail(f"{violation}\n(TIEDRANK_STATEFUL_SEED={PROFILE.seeds[0]} walks from the same "
                    "seed.) Steps:\n  " + "\n  ".join(trail), pytrace=False)
