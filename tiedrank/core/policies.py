"""The tie-policy vocabulary: names, labels, ``ties=`` parsing (one place for every layer).

The policies are named by their keys (:data:`POLICIES`: ``best``, ...) everywhere: in
``ties=``, in widget state, in the frames (:attr:`Policy.label`, the key, or
``random(seed=N)``). What people read is derived from the keys in one table,
:data:`POLICY_WORDS`: the report's column (``best``) and the label of pages and figures
(``best case``).
"""
from __future__ import annotations

import os
import re
import sys
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .validation import Options, Pattern, check

POLICIES = ("expected", "best", "worst", "trec_eval", "input", "random")
"""Every tie policy: the exact expectation, best case, worst case, trec_eval's order (score
descending, then docno descending), the file order, and a seeded uniform random order."""


RENAMED = {"optimistic": "best", "pessimistic": "worst"}
"""The policies' names in earlier versions -> today's: still read (``ties="optimistic"``, a link's
``?ties=optimistic``, ``--ties pessimistic``, ``table.resolve("optimistic")``), with a
:class:`DeprecationWarning` naming the new one."""


def canonical_policy(name: str, argument: str = "ties") -> str:
    """``name`` in today's vocabulary: an old name (:data:`RENAMED`) becomes its new one, with
    a :class:`DeprecationWarning` that says what to type; any other name is returned as it is.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     canonical_policy("optimistic"), canonical_policy("best")
    ('best', 'best')
    >>> str(caught[0].message)
    "ties='optimistic' is deprecated: type ties='best' (the same policy; the old name goes in the next release)"
    """
    new = RENAMED.get(name) if isinstance(name, str) else None
    if new is None:
        return name
    warnings.warn(f"{argument}={name!r} is deprecated: type {argument}={new!r} (the same policy; "
                  "the old name goes in the next release)", DeprecationWarning,
                  stacklevel=_caller_level())
    return new


def _caller_level() -> int:
    """The ``stacklevel`` of the first frame outside tiedrank: the user's line that named
    the old policy, however deep in tiedrank the name was read (a dataclass's generated
    ``__init__``, file ``<string>``, called from tiedrank counts as tiedrank's)."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep

    def inside(frame) -> bool:
        name = frame.f_code.co_filename
        return name.startswith(package) or (name.startswith("<") and frame.f_back is not None
                                             and frame.f_back.f_code.co_filename.startswith(package))

    frame, level = sys._getframe(2), 2
    while frame is not None and inside(frame):
        frame, level = frame.f_back, level + 1
    return level


@dataclass(frozen=True)
class PolicyWords:
    """How a policy key is shown: ``column`` in :meth:`~tiedrank.Evaluation.report` and the
    CLI's table (short), ``label`` on pages and figures (for people)."""

    column: str
    label: str


POLICY_WORDS = {
    "expected": PolicyWords("expected", "expected (exact)"),
    "best": PolicyWords("best", "best case"),
    "worst": PolicyWords("worst", "worst case"),
    "trec_eval": PolicyWords("trec_eval", "trec_eval order"),
    "input": PolicyWords("input", "file order"),
    "random": PolicyWords("random", "random tie-break"),
}
"""Policy key -> its words: the one mapping from the vocabulary (the keys) to what is shown."""
POLICY_LABELS = {key: words.label for key, words in POLICY_WORDS.items()}
"""What people read for each policy, on every page, figure and table (from :data:`POLICY_WORDS`)."""
ALL_POLICIES = ("expected", "best", "worst", "trec_eval")
"""What ``ties="all"`` evaluates: the expectation, best, worst and trec_eval's order."""
POLICY_WRAPPERS = {"Expected": "expected", "Best": "best", "Worst": "worst",
                   "TrecEvalOrder": "trec_eval"}
"""The ir_measures wrappers of :mod:`tiedrank.interop.measures` and the policy each fixes:
``Expected(nDCG@10)`` is nDCG@10 under ``expected`` only (as a string or an object)."""
WRAPPER_ALIASES = {"TrecEval": "TrecEvalOrder"}
"""Other spellings of a wrapper (``TrecEval(nDCG@10)`` is ``TrecEvalOrder(nDCG@10)``)."""
REPORT_COLUMNS = {key: words.column for key, words in POLICY_WORDS.items() if key != "random"}
"""Policy key -> its column in the report (from :data:`POLICY_WORDS`); a random policy keeps
its label (``random(seed=3)``) as its column."""


@dataclass(frozen=True)
class Policy:
    """A tie policy; ``seed`` only for ``random``. ``label`` is what results show."""

    name: str
    seed: int | None = None

    @property
    def label(self) -> str:
        return f"random(seed={self.seed})" if self.name == "random" else self.name


_RANDOM = r"random\s*(?:\(\s*(?:seed\s*=\s*)?(-?\d+)\s*\))?"
_TIES = [Options(*POLICIES, "all"), Pattern(_RANDOM, "random(seed=N)")]
"""What ``ties=`` accepts, item by item."""


def policy_items(ties: Any) -> list[Any]:
    """``ties=`` as a list of items: a string is one, or several separated by commas as the
    CLI's ``--ties input,expected``; another iterable (not bytes, not a mapping) its items;
    anything else (None, a number) raises the one message of ``ties=``.

    >>> policy_items("all"), policy_items(("expected", "best"))
    (['all'], ['expected', 'best'])
    >>> policy_items("input, expected")
    ['input', 'expected']
    >>> policy_items(None)
    Traceback (most recent call last):
    ...
    tiedrank.core.validation.InvalidParameterError: ties= must be one of 'expected', 'best', \
'worst', 'trec_eval', 'input', 'random', 'all' or 'random(seed=N)'; got None
    """
    if isinstance(ties, str):
        return [item.strip() for item in ties.split(",") if item.strip()] if "," in ties \
            else [ties]
    if isinstance(ties, Iterable) and not isinstance(ties, (bytes, bytearray, Mapping)):
        return list(ties)
    check("ties", ties, _TIES)  # not a str: raises
    raise AssertionError(ties)  # pragma: no cover


def parse_policies(ties: "str | Iterable[str]", seed: int = 0) -> list[Policy]:
    """Parse ``ties=``: a policy, ``"all"``, ``"random(seed=3)"`` or a list of those (also
    as one comma-separated string, ``"input,expected"``, as the CLI's ``--ties`` takes it).

    Examples
    --------
    >>> [p.label for p in parse_policies(["all", "random(seed=3)"])]
    ['expected', 'best', 'worst', 'trec_eval', 'random(seed=3)']
    >>> parse_policies("median")
    Traceback (most recent call last):
    ...
    tiedrank.core.validation.InvalidParameterError: ties= must be one of 'expected', 'best', \
'worst', 'trec_eval', 'input', 'random', 'all' or 'random(seed=N)'; got 'median'
    """
    items = policy_items(ties)
    policies: list[Policy] = []
    for item in items:
        text = canonical_policy(str(item).strip())
        check("ties", text, _TIES)
        if text == "all":
            policies += [Policy(p) for p in ALL_POLICIES]
            continue
        match = re.fullmatch(_RANDOM, text)
        if match:
            policies.append(Policy("random", int(match.group(1)) if match.group(1) else seed))
        else:
            policies.append(Policy(text))
    if not policies:  # ties=[] or the CLI's "--ties ,": nothing would be evaluated
        check("ties", ties if isinstance(ties, str) else "", _TIES)
    return list(dict.fromkeys(policies))
