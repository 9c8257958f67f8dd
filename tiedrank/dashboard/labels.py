"""How every page names things: a query with its text, a query without a relevant document (in
the words of the sidebar setting in force), a finding with its queries. Part of the
dashboard's shared layer (``ui`` and ``widgets`` read it), so it imports no page's logic.
Streamlit-free.

Examples
--------
>>> query_label("q1", {"q1": "dog age by teeth"})
'q1 — dog age by teeth'
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..core.errors import Finding
from .settings import ZERO_RELEVANT_CHOICES

BEST_CASE, WORST_CASE = "best", "worst"
"""The keys of the best-case and worst-case tie policies (:data:`tiedrank.core.policies.POLICIES`;
``optimistic``/``pessimistic`` in earlier versions)."""


def query_label(query: str, query_text: Mapping[str, str] | None = None, width: int = 70) -> str:
    """``q49 — how does a bounty hunter make money`` (the id alone when there is no text)."""
    text = (query_text or {}).get(query)
    if not text:
        return str(query)
    text = text if len(text) <= width else text[: width - 1] + "…"
    return f"{query} — {text}"


def no_relevant_message(query: str, rel_level: int, query_set: str = "trec_eval") -> str:
    """What the page says of a query without a relevant document, in the words of the
    sidebar's setting in force ("Queries without a relevant document": ``query_set`` of
    :class:`~tiedrank.dashboard.settings.ViewSettings`): counted as 0 in the means, as trec_eval
    does, or left out of them.

    >>> no_relevant_message("q0", 2)[:62]
    'Query **q0** has no relevant document at relevance level 2: ev'
    >>> "the means leave it out" in no_relevant_message("q0", 2, "relevant")
    True
    """
    start = f"Query **{query}** has no relevant document at relevance level {rel_level}: "
    if query_set == "relevant":
        middle = ("the means leave it out (sidebar: Queries without a relevant document: "
                  f"**{ZERO_RELEVANT_CHOICES['relevant']}**), and every binary metric would be 0 "
                  "for it.")
    else:
        middle = ("every binary metric is 0 for it, and the means count it as 0, as trec_eval "
                  "does (sidebar: Queries without a relevant document: "
                  f"**{ZERO_RELEVANT_CHOICES['trec_eval']}**).")
    return start + middle + " Its tie groups are still drawn."


def findings_messages(findings: Iterable[Finding]) -> list[str]:
    """Distinct finding messages, each with a short list of the queries concerned."""
    out: list[str] = []
    for finding in findings:
        text = finding.message
        if finding.queries:
            shown = ", ".join(finding.queries[:8])
            more = finding.count - min(len(finding.queries), 8)
            text += f" ({shown}{f', … {more} more' if more > 0 else ''})"
        if text not in out:
            out.append(text)
    return out
