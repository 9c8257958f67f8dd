"""One option checker for the library, the CLI and the dashboard.

Modelled on scikit-learn's ``validate_params``: a public function declares the constraints
of its arguments once, and every violation reads the same way, naming the allowed values::

    @validate_params({"ties": [Options(*POLICIES)], "n_draws": [Interval(int, 1, MAX_DRAWS)]})
    def sample(table, *, ties="expected", n_draws=1000): ...

    sample(t, n_draws=0)
    InvalidParameterError: sample(): n_draws= must be an integer in [1, 1000000]; got 0

:class:`InvalidParameterError` keeps the parameter, the value and the allowed values apart,
so the CLI re-words the same error in its own terms (``--draws must be ...``) and the
dashboard in the label of its control.
"""
from __future__ import annotations

import functools
import inspect
import math
import numbers
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

__all__ = ["MAX_REL_LEVEL", "REL_LEVEL", "Interval", "InvalidParameterError", "Options", "Pattern",
           "ascii_int", "check", "check_arguments", "validate_params"]

F = TypeVar("F", bound=Callable[..., Any])

_ASCII_INT = re.compile(r"[+-]?[0-9]+")


def ascii_int(text: str) -> int | None:
    """The integer ``text`` spells in ASCII digits (an optional sign), else None: the one
    rule for integers read from text a user controls (a link, an id). ``str.isdigit()`` is
    true for ``'²'``, which ``int()`` refuses, and ``int()`` takes ``'٣'`` and ``' 3'``, so
    neither is a check.

    >>> ascii_int("10"), ascii_int("-2"), ascii_int("²"), ascii_int("٣"), ascii_int(" 3")
    (10, -2, None, None, None)
    >>> ascii_int("9" * 5000) is None  # past int()'s 4,300 digits
    True
    """
    if not isinstance(text, str) or not _ASCII_INT.fullmatch(text):
        return None
    try:
        return int(text)
    except ValueError:  # more than 4,300 digits (sys.get_int_max_str_digits)
        return None



class InvalidParameterError(ValueError):
    """An argument outside its allowed values.

    ``str(error)`` names the argument as Python spells it (``ties=``); :meth:`worded` names
    it as another interface does (``--ties`` on the CLI, ``Tie policy`` in the dashboard).
    """

    def __init__(self, parameter: str, value: Any, allowed: str, *, function: str | None = None,
                 subject: str | None = None):
        self.parameter = parameter
        self.value = value
        self.allowed = allowed
        self.function = function
        self.subject = subject  # what the argument belongs to when not a function: "metric 'RR(rel=0)'"
        super().__init__(self.worded())

    def worded(self, name: str | None = None) -> str:
        """The message with the argument called ``name`` (default: ``parameter=``)."""
        where = f"{self.function}(): " if self.function and name is None else ""
        if self.subject and name is None:
            where = f"{self.subject}: "
        label = name if name is not None else f"{self.parameter}="
        return f"{where}{label} must be {self.allowed}; got {_show(self.value)}"


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class Options:
    """One of a fixed set of values (strings compare exactly)."""

    def __init__(self, *values: Any):
        self.values = tuple(values)

    def accepts(self, value: Any) -> bool:
        return isinstance(value, (str, int, float)) and not isinstance(value, bool) and value in self.values

    def describe(self) -> str:
        shown = ", ".join(repr(v) for v in self.values)
        return f"one of {shown}" if len(self.values) > 1 else shown


class Pattern:
    r"""A string of a given form, e.g. ``random(seed=N)``: ``regex`` must match all of it
    (surrounding spaces ignored) and ``form`` is how messages show it.

    Examples
    --------
    >>> check("ties", "random(seed=3)", [Options("all"), Pattern(r"random\(seed=\d+\)", "random(seed=N)")])
    'random(seed=3)'
    """

    def __init__(self, regex: str, form: str):
        self.regex, self.form = re.compile(regex), form

    def accepts(self, value: Any) -> bool:
        return isinstance(value, str) and self.regex.fullmatch(value.strip()) is not None

    def describe(self) -> str:
        return repr(self.form)


class Interval:
    """A real or integer number in a range; ``None`` bounds are open-ended.

    ``closed`` is ``"both"``, ``"left"``, ``"right"`` or ``"neither"``. Booleans, NaN and
    infinities are never numbers here (``True`` as a seed is a mistake, not a 1).
    """

    def __init__(self, kind: type, left: float | None, right: float | None, closed: str = "both"):
        if kind not in (int, float):
            raise TypeError("Interval kind must be int or float")
        self.kind, self.left, self.right, self.closed = kind, left, right, closed

    def accepts(self, value: Any) -> bool:
        if isinstance(value, bool):
            return False
        if self.kind is int and not isinstance(value, numbers.Integral):
            return False
        if not isinstance(value, numbers.Real) or not math.isfinite(value):
            return False
        if self.left is not None and (value < self.left or (value == self.left and self.closed in ("right", "neither"))):
            return False
        if self.right is not None and (value > self.right or (value == self.right and self.closed in ("left", "neither"))):
            return False
        return True

    def describe(self) -> str:
        noun = "an integer" if self.kind is int else "a number"
        if self.left is None and self.right is None:
            return "an integer" if self.kind is int else "a finite number"
        if self.right is None:
            return f"{noun} {'>=' if self.closed in ('both', 'left') else '>'} {_num(self.left)}"
        if self.left is None:
            return f"{noun} {'<=' if self.closed in ('both', 'right') else '<'} {_num(self.right)}"
        lo = "[" if self.closed in ("both", "left") else "("
        hi = "]" if self.closed in ("both", "right") else ")"
        return f"{noun} in {lo}{_num(self.left)}, {_num(self.right)}{hi}"


def _num(x: float | None) -> str:
    return f"{x:,}" if isinstance(x, int) and abs(x) >= 10_000 else f"{x:g}"


Constraint = Any  # Options | Interval | type | None

MAX_REL_LEVEL = 2**31 - 1
"""Largest relevance level: the largest grade a qrels file may hold
(:data:`tiedrank.io.columns.MAX_GRADE`); a level above it could make nothing relevant."""


class _Level(Interval):
    """:class:`Interval` of relevance levels, worded with the rule it sets."""

    def describe(self) -> str:
        return f"an integer >= 1 and <= {self.right:,} (grade >= level is relevant)"


REL_LEVEL = _Level(int, 1, MAX_REL_LEVEL)
"""The one check of a relevance level, wherever it is set: ``rel_level=`` (Python, the
options), ``--rel-level`` (CLI), the dashboard's control and its link, a measure's own
``rel=`` (``RR(rel=2)``) and ranx's ``-l2`` suffix: grade >= level is relevant."""


def _accepts(constraint: Constraint, value: Any) -> bool:
    if constraint is None:
        return value is None
    if isinstance(constraint, type):
        return isinstance(value, constraint) and not (constraint is not bool and isinstance(value, bool))
    return constraint.accepts(value)


def _describe(constraint: Constraint) -> str:
    if constraint is None:
        return "None"
    if isinstance(constraint, type):
        return {bool: "True or False", str: "a string"}.get(constraint, f"a {constraint.__name__}")
    return constraint.describe()


def check(parameter: str, value: Any, constraints: Iterable[Constraint], *,
          function: str | None = None, subject: str | None = None) -> Any:
    """Return ``value`` if one of ``constraints`` accepts it, else raise
    :class:`InvalidParameterError` naming every allowed form (and ``function`` or the
    ``subject`` the argument belongs to, e.g. ``"metric 'RR(rel=0)'"``).

    Examples
    --------
    >>> check("gain", "exp", [Options("linear", "exp")])
    'exp'
    >>> check("digits", -1, [Interval(int, 0, 15)])
    Traceback (most recent call last):
    ...
    tiedrank.core.validation.InvalidParameterError: digits= must be an integer in [0, 15]; got -1
    """
    constraints = list(constraints)
    if any(_accepts(c, value) for c in constraints):
        return value
    allowed = " or ".join(_describe(c) for c in constraints)
    raise InvalidParameterError(parameter, value, allowed, function=function, subject=subject)


def validate_params(constraints: Mapping[str, Iterable[Constraint]]) -> Callable[[F], F]:
    """Decorate a public function so its arguments are checked before it runs.

    Only the named parameters are checked; the first one that fails raises
    :class:`InvalidParameterError` naming the function.
    """
    constraints = {name: list(allowed) for name, allowed in constraints.items()}

    def decorate(func: F) -> F:
        signature = inspect.signature(func)
        unknown = set(constraints) - set(signature.parameters)
        if unknown:
            raise TypeError(f"{func.__qualname__} has no parameter(s) {sorted(unknown)}")

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            for name, allowed in constraints.items():
                check(name, bound.arguments[name], allowed, function=func.__name__)
            return func(*args, **kwargs)

        wrapper.__wrapped_constraints__ = constraints  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate


def check_arguments(func: Callable[..., Any], **values: Any) -> None:
    """Check ``values`` against the constraints ``func`` declares with :func:`validate_params`,
    without calling it: a caller (the CLI) refuses a bad option before hours of work rather
    than at the end.

    Examples
    --------
    >>> @validate_params({"digits": [Interval(int, 0, 15)]})
    ... def show(x, digits=4): return round(x, digits)
    >>> check_arguments(show, digits=20)
    Traceback (most recent call last):
    ...
    tiedrank.core.validation.InvalidParameterError: show(): digits= must be an integer in [0, 15]; got 20
    """
    constraints = getattr(func, "__wrapped_constraints__", {})
    for name, value in values.items():
        check(name, value, constraints[name], function=func.__name__)
