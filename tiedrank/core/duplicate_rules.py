"""The rules for a (query, doc) pair listed twice: their names and what each does.

The names live in :mod:`tiedrank.core` because the options every door checks
(:mod:`tiedrank.core.options`) need them, and core imports no other subpackage; the rules
themselves are applied by :func:`tiedrank.io.duplicates.check_duplicates`.
"""
from __future__ import annotations

DUPLICATE_RULES: dict[str, str] = {
    "error": "refuse the input, naming the line of the repeat and the line first seen "
             "(the default; trec_eval refuses repeats too)",
    "max": "runs only: keep the highest-scoring row of each repeated (query, doc), the "
           "earliest among equal scores, and record a finding",
}
"""Each rule's name -> what it does."""

DUPLICATE_POLICIES: tuple[str, ...] = tuple(DUPLICATE_RULES)
"""The rule names, in the order they are offered: ``("error", "max")``."""
