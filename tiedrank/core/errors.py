"""Error and warning types shared by every reader and the engine.

Readers never drop a row silently: a problem that makes the input unusable raises
:class:`InputError`; a finding that leaves the input usable (a query in the run but not in
the qrels, unjudged documents) is returned as a :class:`Finding` for the caller to show.

An error that says what to set to get past it keeps that :class:`Remedy` apart from its
words (:class:`Remedied`): ``str(error)`` names the Python argument (``pass
duplicates='max'``), and each door words the same fields in its own terms
(:meth:`Remedied.worded_with`: ``add --duplicates max`` on the CLI, the upload control in the
dashboard), so no door rewrites English.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Remedy:
    """What to set to get past an error: ``parameter`` (as Python spells it) set to
    ``value``, and why (``purpose``, in words).

    ``function`` names the Python function that takes the argument when it is not the one
    the user called (``read_qrels``); ``placeholder`` marks a value shown as typed
    (``SECONDS``) rather than as a Python literal; ``lead`` is the word that joins it to
    the sentence (``"or"``).

    Examples
    --------
    >>> Remedy("duplicates", "max", "to keep the highest score").python()
    "pass duplicates='max' to keep the highest score"
    >>> Remedy("columns", {"score": "<column>"}, function="read_run", lead="or").python()
    "or pass columns={'score': '<column>'} to read_run"
    >>> Remedy("timeout", "SECONDS", "to wait longer", placeholder=True).python()
    'pass timeout=SECONDS to wait longer'
    """

    parameter: str
    value: Any
    purpose: str = ""
    function: str | None = None
    placeholder: bool = False
    lead: str = ""

    def python(self) -> str:
        """The remedy as a Python caller types it (the default wording of every error)."""
        value = self.value if self.placeholder else repr(self.value)
        return self.sentence(f"pass {self.parameter}={value}"
                             + (f" to {self.function}" if self.function else ""))

    def sentence(self, action: str) -> str:
        """``action`` (a door's words for setting the parameter) with the lead and purpose."""
        return " ".join(part for part in (self.lead, action, self.purpose) if part)


Wording = Callable[[Remedy], str]
"""How a door words a :class:`Remedy` (``Remedy.python`` in Python)."""


class Remedied:
    """A message with one :class:`Remedy` kept apart from its words.

    ``str(error)`` is the Python wording; :meth:`worded_with` gives the same message with
    the remedy worded by a door (the CLI's flags, the dashboard's controls).
    """

    remedy: Remedy | None = None
    _around: tuple[str, str] = ("", "")  # the message before and after the remedy

    def worded_with(self, say: Wording) -> str:
        """The message with its remedy worded by ``say`` (unchanged without a remedy)."""
        if self.remedy is None:
            return str(self)
        before, after = self._around
        return before + say(self.remedy) + after

    def __reduce__(self):
        # as it is, fields and message: an error raised on a Dask worker reaches the client
        # whole (the default would call __init__ with the message as its first argument)
        return _restore, (type(self), self.args, dict(self.__dict__))


def _restore(cls: type, args: tuple, state: dict) -> BaseException:
    """An error of ``cls`` with its ``args`` and fields, made without calling ``__init__``."""
    error = cls.__new__(cls)
    error.args = args
    error.__dict__.update(state)
    return error


class RemediedValueError(Remedied, ValueError):
    """A :class:`ValueError` whose message is ``before``, the remedy, then ``after``.

    Examples
    --------
    >>> error = RemediedValueError("too many orderings; ", Remedy("ties", "trec_eval",
    ...                            "to score one ordering"), ", or merge grades")
    >>> str(error)
    "too many orderings; pass ties='trec_eval' to score one ordering, or merge grades"
    >>> error.worded_with(lambda r: r.sentence(f"add --ties {r.value}"))
    'too many orderings; add --ties trec_eval to score one ordering, or merge grades'
    """

    def __init__(self, before: str, remedy: Remedy, after: str = "") -> None:
        self.remedy, self._around = remedy, (before, after)
        super().__init__(self.worded_with(Remedy.python))


class InputError(Remedied, ValueError):
    """Bad input: names the file, the line, the offending text and what was expected.

    Parameters
    ----------
    problem : str
        What is wrong, e.g. ``"non-numeric score"``.
    source : str, optional
        File name (or ``"<bytes>"``, ``"<DataFrame>"``) the input came from.
    line : int, optional
        1-based line number in the file (row number + 1 for DataFrames).
    text : str, optional
        The offending line or value, as read.
    expected : str, optional
        What the reader expected there, e.g. ``"qid Q0 docno rank score tag"``.
    remedy : Remedy, optional
        What to set to read the input anyway (``duplicates='max'``), worded after
        ``expected`` by each door (:meth:`Remedied.worded_with`).

    Examples
    --------
    >>> str(InputError("non-numeric score", source="run.txt", line=3, text="q1 Q0 d1 1 abc x",
    ...                expected="a finite number"))
    "run.txt, line 3: non-numeric score: 'q1 Q0 d1 1 abc x' (expected a finite number)"
    """

    def __init__(self, problem: str, *, source: str | None = None, line: int | None = None,
                 text: str | None = None, expected: str | None = None,
                 remedy: Remedy | None = None) -> None:
        self.problem = problem
        self.source = source
        self.line = line
        self.text = text
        self.expected = expected
        self.remedy = remedy
        super().__init__(self._format())

    def worded_with(self, say: Wording) -> str:
        return self._format(say)

    def _format(self, say: Wording = Remedy.python) -> str:
        where = self.source or "<input>"
        if self.line is not None:
            where += f", line {self.line}"
        message = f"{where}: {self.problem}"
        if self.text is not None:
            shown = self.text if len(self.text) <= 200 else self.text[:197] + "..."
            message += f": {shown!r}"
        remedy = say(self.remedy) if self.remedy is not None else ""
        if self.expected:
            message += f" (expected {self.expected}" + (f"; {remedy})" if remedy else ")")
        elif remedy:
            message += f" ({remedy})"
        return message


@dataclass(frozen=True)
class Finding:
    """A non-fatal observation about the input, for the caller to display.

    ``kind`` is a stable machine-readable key (``"queries_missing_from_run"``,
    ``"queries_not_in_qrels"``, ``"queries_without_relevant"``, ``"unjudged_documents"``,
    ``"duplicates_kept_max"`` ...); ``message`` is one human sentence; ``queries`` lists the
    query ids concerned (possibly truncated by the producer) and ``count`` their full number.
    """

    kind: str
    message: str
    source: str | None = None
    count: int = 0
    queries: tuple[str, ...] = field(default_factory=tuple)

    def __str__(self) -> str:
        return self.message
