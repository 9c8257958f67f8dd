"""Example budgets of the property tests: a quick default, and a deep profile.

The default run (the README's command, CI) gives each property test the examples that find
bugs in seconds; ``deep`` gives them the larger budgets they had before the suite was timed
(a nightly-style run, or after touching the engine)::

    HYPOTHESIS_PROFILE=deep python -m pytest -m "not browser"
    python -m pytest --hypothesis-profile=deep tests/metrics tests/sampling

A test reads its count at import time: ``@settings(max_examples=examples(300, deep=1500))``.
"""
from __future__ import annotations

from hypothesis import settings

PROFILES = ("default", "deep")


def register(name: str | None = None) -> None:
    """Register the ``deep`` profile (no other change than the counts of :func:`examples`)
    and load ``name`` if given (tests/conftest.py passes $HYPOTHESIS_PROFILE)."""
    settings.register_profile("deep", deadline=None, print_blob=True)
    if name:
        if name not in PROFILES:
            raise ValueError(f"HYPOTHESIS_PROFILE={name!r}: expected one of {PROFILES}")
        settings.load_profile(name)


def examples(quick: int, deep: int) -> int:
    """``quick`` examples in the default profile, ``deep`` in the deep one."""
    return deep if settings.get_current_profile_name() == "deep" else quick
