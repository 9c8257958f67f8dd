"""How every page names things: a query with its text, a finding with its queries. Part of
the dashboard's shared layer (``ui`` and ``widgets`` read it), so it imports no page's logic.
Streamlit-free.

Examples
--------
>>> query_label("q1", {"q1": "dog age by teeth"})
'q1 — dog age by teeth'
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..core.errors import Finding


def query_label(query: str, query_text: Mapping[str, str] | None = None, width: int = 70) -> str:
    """``q49 — how does a bounty hunter make money`` (the id alone when there is no text)."""
    text = (query_text or {}).get(query)
    if not text:
        return str(query)
    text = text if len(text) <= width else text[: width - 1] + "…"
    return f"{query} — {text}"


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
