"""Query texts: ``qid<TAB>text`` lines (TREC topics TSV) -> {qid: text}."""
from __future__ import annotations

import os
from pathlib import Path


def read_query_text(data: bytes | str | os.PathLike | None) -> dict[str, str]:
    """``qid<TAB>text`` lines (TREC topics TSV) -> {qid: text}; blank lines are skipped.

    ``data`` is the file's bytes, a path, or None (no texts: ``{}``).  A line without a tab
    is split at its first space.

    Examples
    --------
    >>> read_query_text(b"301\\tinternational organized crime\\n\\n302 poliomyelitis\\n")
    {'301': 'international organized crime', '302': 'poliomyelitis'}
    """
    if data is None:
        return {}
    if isinstance(data, (str, os.PathLike)):
        data = Path(data).read_bytes()
    out: dict[str, str] = {}
    for line in data.decode("utf-8", errors="replace").splitlines():
        if not line.strip():
            continue
        qid, _, text = line.partition("\t")
        if not _:
            qid, _, text = line.strip().partition(" ")
        out[qid.strip()] = text.strip()
    return out
