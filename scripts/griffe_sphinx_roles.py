"""A Griffe extension for the documentation site (mkdocs.yml): reStructuredText bits that
Markdown cannot show.

The docstrings are numpydoc, written for ``help()`` and Sphinx. Two of their habits would
reach the site as noise:

* Sphinx roles (:func:`evaluate`, :mod:`tiedrank.io`, :class:`~tiedrank.core.ties.TieTable`)
  become inline code, the last dotted part only when the name starts with ``~`` (as
  Sphinx shows it);
* a simple table (rows between ``=====  =====`` borders, as a package's overview of its
  modules) becomes a Markdown table.
"""
from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:func|meth|class|mod|data|attr|exc|obj|const):`(~?)([^`]+)`")
BORDER = re.compile(r"^\s*=+(\s+=+)+\s*$")


def _name(match: re.Match[str]) -> str:
    name = match[2].strip()
    return name.rsplit(".", 1)[-1] if match[1] else name


def _columns(border: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"=+", border)]


def _table(block: list[str]) -> list[str]:
    """A simple table (its lines, borders included) as a Markdown table: a row starts where
    the first column has text, and the lines below it continue its cells."""
    spans = _columns(block[0])
    starts = [a for a, _ in spans] + [10**6]
    rows: list[list[str]] = []
    header: list[str] | None = None
    for line in block[1:]:
        if BORDER.match(line):
            if header is None and len(rows) == 1 and line is not block[-1]:
                header, rows = rows[0], []
            continue
        cells = [line[starts[i]:starts[i + 1]].strip() for i in range(len(spans))]
        if cells[0] or not rows:
            rows.append(cells)
        else:
            rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells)]
    header = header or [" "] * len(spans)
    return ["", "| " + " | ".join(header) + " |", "|" + "---|" * len(spans),
            *("| " + " | ".join(row) + " |" for row in rows), ""]


def _tables_as_markdown(text: str) -> str:
    """Each simple table of ``text`` (between ``=====  =====`` borders) as a Markdown table."""
    out: list[str] = []
    block: list[str] = []
    for line in text.splitlines():
        if block:
            block.append(line)
            if BORDER.match(line) and (len(block) > 2 and not _is_header_border(block)):
                out += _table(block)
                block = []
            continue
        if BORDER.match(line):
            block = [line]
        else:
            out.append(line)
    return "\n".join(out + block)


def _is_header_border(block: list[str]) -> bool:
    """Whether the border just read separates a header (one row read, more rows follow)."""
    borders = sum(1 for line in block if BORDER.match(line))
    return borders == 2 and len(block) == 3


def markdown_docstring(text: str) -> str:
    """``text`` with its simple tables in Markdown and its Sphinx roles as inline code.

    >>> markdown_docstring("See :func:`~tiedrank.io.read_run` and :mod:`tiedrank.io`.")
    'See `read_run` and `tiedrank.io`.'
    """
    return ROLE.sub(lambda m: f"`{_name(m)}`", _tables_as_markdown(text))


class SphinxRolesAsCode(griffe.Extension):
    """Rewrite every docstring once the tree is loaded (:func:`markdown_docstring`)."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown_docstring(obj.docstring.value)
