"""The stateful tester of the whole dashboard (issue 28): seeded random walks of a user over
every widget of every page through AppTest, with the invariants checked after each step
(tests/dashboard/app_walk.py; the user model in tests/walk_model.py).

Budget: the quick profile (default, CI) walks two fixed seeds for about 20 s of one worker;
``TIEDRANK_STATEFUL=deep`` (or ``HYPOTHESIS_PROFILE=deep``) walks many fresh seeds. A
failure prints the shrunk steps as a regression test for test_app_stateful_regressions.py.
Coverage (steps, distinct states, known defects met) goes to build/stateful/.
"""
from __future__ import annotations

import json

import pytest
from app_walk import WalkReport, as_test, shrink, walk
from walk_model import REPORT_DIR, profile

pytestmark = pytest.mark.usefixtures("navigation_pages")

PROFILE = profile()


def _write(report: WalkReport, seed: int) -> None:
    REPORT_DIR.mkdir(parents=True, exist_ok=True)
    path = REPORT_DIR / f"apptest-{PROFILE.name}-{seed}.json"
    path.write_text(json.dumps({"profile": PROFILE.name, "seed": seed, **report.summary()}, indent=1))


@pytest.mark.parametrize("seed", PROFILE.seeds)
def test_a_user_cannot_break_the_dashboard(seed):
    report = WalkReport()
    walk(seed, PROFILE.steps, PROFILE, report, stop_on_failure=True)
    _write(report, seed)
    print(f"seed {seed}: {report.steps} steps, {len(report.states)} distinct states, "
          f"{report.seconds:.1f} s, known defects met: {[k[0] for k in report.known]}")
    if report.failures:
        violation, trail = report.failures[0]
        shrunk = shrink(trail, violation, PROFILE.shrink_seconds)
        pytest.fail(f"After {len(trail)} steps of seed {seed} (TIEDRANK_STATEFUL_SEED={seed} "
                    f"walks them again): {violation}\nShrunk to {len(shrunk)} steps; as a "
                    f"regression test:\n\n{as_test(shrunk, violation, seed)}", pytrace=False)
