"""Error and warning types shared by every reader and the engine.

Readers never drop a row silently: a problem that makes the input unusable raises
:class:`InputError`; a finding that leaves the input usable (a query in the run but not in
the qrels, unjudged documents) is returned as a :class:`Finding` for the caller to show.
"""
from __future__ import annotations

from dataclasses import dataclass, field


class InputError(ValueError):
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

    Examples
    --------
    >>> str(InputError("non-numeric score", source="run.txt", line=3, text="q1 Q0 d1 1 abc x",
    ...                expected="a finite number"))
    "run.txt, line 3: non-numeric score: 'q1 Q0 d1 1 abc x' (expected a finite number)"
    """

    def __init__(self, problem: str, *, source: str | None = None, line: int | None = None,
                 text: str | None = None, expected: str | None = None) -> None:
        self.problem = problem
        self.source = source
        self.line = line
        self.text = text
        self.expected = expected
        super().__init__(self._format())

    def _format(self) -> str:
        where = self.source or "<input>"
        if self.line is not None:
            where += f", line {self.line}"
        message = f"{where}: {self.problem}"
        if self.text is not None:
            shown = self.text if len(self.text) <= 200 else self.text[:197] + "..."
            message += f": {shown!r}"
        if self.expected:
            message += f" (expected {self.expected})"
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
