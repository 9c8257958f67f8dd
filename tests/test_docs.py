"""Every page of the documentation runs as written: docs/*.md and README.md.

Each page's ```python blocks run top to bottom in ONE namespace, as a notebook reader runs
them, in a scratch directory holding a link to ``sample_data`` (what a block writes never
lands in the checkout). The convention (tests/README.md, "Docs that run"):

* A block's shown output is the ```text block right after it (only blank lines between;
  ```latex for LaTeX output).
  The printed output must match it, as doctest matches (``...`` stands for any text,
  runs of whitespace are equal). A block that prints must show its output.
* ``<!-- skip: reason -->`` on the line before a ```python fence: the block cannot run here
  (a Dask cluster, a file the reader brings, the network, PyTerrier); it is counted, not run.
* No silent NaN or all-zero output: a shown output holding ``nan`` or only zero decimals
  fails unless the line before the fence says ``<!-- expect: nan -->`` / ``<!-- expect: zeros -->``.
* No block rebinds a name an earlier block bound when a later block reads it (block 2 of
  python-api.md once rebound ``qrels`` to a 4-line toy file, and blocks 3 and 4 printed
  0.0 and NaN); ``<!-- rebinds: name -->`` says it is meant.

Pandas prints frames at ``display.width`` 120 with every column (a notebook shows HTML).
"""
from __future__ import annotations

import ast
import contextlib
import doctest
import importlib.util
import io
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "docs").rglob("*.md")) + [ROOT / "README.md"]
FENCE = re.compile(r"^(\s*)```(\w*)\s*$")
MARKER = re.compile(r"^\s*<!--\s*(skip|expect|rebinds):\s*(.*?)\s*-->\s*$")
CHECKER = doctest.OutputChecker()
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
OUTPUT = ("text", "latex")  # the languages of a shown output (LaTeX for to_latex's)
NEEDS = ("ranx", "ir_measures")  # the peers' examples need them (requirements-dev.txt has them)


@dataclass
class Block:
    line: int
    code: str
    shown: str | None = None
    markers: dict[str, str] = field(default_factory=dict)


def blocks(path: Path) -> list[Block]:
    """The page's ```python blocks, each with the ```text block after it and its markers."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[tuple[int, int, str, str]] = []  # (first line, last line, language, body)
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if opening is None:
            i += 1
            continue
        indent, language, start = opening.group(1), opening.group(2), i
        i += 1
        body = []
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i].lstrip())
            i += 1
        found.append((start, i, language, "\n".join(body) + "\n"))
        i += 1
    out: list[Block] = []
    for n, (start, end, language, body) in enumerate(found):
        if language != "python":
            continue
        markers, above = {}, start - 1
        while above >= 0 and (match := MARKER.match(lines[above])):
            markers[match.group(1)] = match.group(2)
            above -= 1
        shown = None
        if n + 1 < len(found) and found[n + 1][2] in OUTPUT:
            between = lines[end + 1:found[n + 1][0]]
            if all(not line.strip() for line in between):
                shown = found[n + 1][3]
        out.append(Block(start + 1, body, shown, markers))
    return out


def _names(code: str) -> tuple[set[str], set[str]]:
    """(names bound at the top level, names read anywhere) of a block."""
    tree = ast.parse(code)
    bound: set[str] = set()
    for node in tree.body:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                bound.add(sub.id)
            elif isinstance(sub, ast.alias):
                bound.add((sub.asname or sub.name).split(".")[0])
            elif isinstance(sub, (ast.FunctionDef, ast.ClassDef)):
                bound.add(sub.name)
    read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return bound, read


def rebinding_problems(page: list[Block]) -> list[str]:
    """Blocks that rebind a name bound earlier on the page while a later block reads it."""
    problems, seen = [], set()
    names = [_names(b.code) for b in page]
    for i, (block, (bound, _)) in enumerate(zip(page, names)):
        meant = set(block.markers.get("rebinds", "").replace(",", " ").split())
        for name in sorted((bound & seen) - meant):
            readers = [page[k].line for k in range(i + 1, len(page)) if name in names[k][1]]
            if readers and not _is_import(block.code, name):
                problems.append(f"block at line {block.line} rebinds {name!r}, which the block(s) "
                                f"at line(s) {readers} read: rename it (or mark <!-- rebinds: {name} -->)")
        seen |= bound
    return problems


def _is_import(code: str, name: str) -> bool:
    """Importing the same module again is no rebinding of data."""
    return any(isinstance(node, (ast.Import, ast.ImportFrom))
               and any((a.asname or a.name).split(".")[0] == name for a in node.names)
               for node in ast.parse(code).body)


def _suspicious(output: str, markers: dict[str, str]) -> str | None:
    expected = markers.get("expect", "")
    if re.search(r"\bnan\b", output, re.I) and "nan" not in expected:
        return "prints NaN"
    decimals = re.findall(r"(?<![\w.])-?\d+\.\d+(?:e-?\d+)?", output)
    if len(decimals) >= 2 and all(float(d) == 0 for d in decimals) and "zeros" not in expected:
        return "prints only zeros"
    return None


def run_page(path: Path, scratch: Path) -> tuple[int, int]:
    """Run one page's blocks in one namespace; returns (run, skipped)."""
    page = blocks(path)
    problems = rebinding_problems(page)
    namespace: dict = {"__name__": "__docs__"}
    ran = skipped = 0
    for block in page:
        where = f"{path.relative_to(ROOT)}, line {block.line}"
        if "skip" in block.markers:
            assert block.markers["skip"], f"{where}: <!-- skip: --> needs a reason"
            skipped += 1
            continue
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer), warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            exec(compile(block.code, where, "exec"), namespace)  # noqa: S102 - our own docs
        ran += 1
        printed = buffer.getvalue()
        if block.shown is None:
            if printed:
                problems.append(f"{where}: prints but shows no output (add a ```text block "
                                f"after it); it printed:\n{printed[:1500]}")
            continue
        if not CHECKER.check_output(block.shown, printed, FLAGS):
            problems.append(f"{where}: printed output differs from the page's:\n"
                            + CHECKER.output_difference(doctest.Example("", block.shown), printed, FLAGS))
        if (why := _suspicious(printed, block.markers)) is not None:
            problems.append(f"{where}: {why} (mark <!-- expect: ... --> if that is the point)")
    assert not problems, "\n\n".join(problems)
    return ran, skipped


@pytest.fixture()
def scratch(tmp_path, monkeypatch):
    (tmp_path / "sample_data").symlink_to(ROOT / "sample_data")
    monkeypatch.chdir(tmp_path)
    with pd.option_context("display.width", 120, "display.max_columns", None):
        yield tmp_path


@pytest.mark.parametrize("path", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_page_runs_as_written(path, scratch):
    page = blocks(path)
    if any(b.markers.get("skip") is None and any(n in b.code for n in NEEDS) for b in page):
        for name in NEEDS:
            if importlib.util.find_spec(name) is None:
                pytest.skip(f"{path.name}'s examples use {name}, which is not installed")
    ran, skipped = run_page(path, scratch)
    print(f"{path.relative_to(ROOT)}: {ran} run, {skipped} skipped")


# ---- the checks themselves catch what they are for -----------------------------------------
def test_the_toy_rebinding_of_qrels_is_caught(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```python\nqrels = 1\n```\n\n```python\nqrels = 2\n```\n\n"
                    "```python\nprint(qrels)\n```\n\n```text\n2\n```\n")
    assert rebinding_problems(blocks(page)) == [
        "block at line 5 rebinds 'qrels', which the block(s) at line(s) [9] read: rename it "
        "(or mark <!-- rebinds: qrels -->)"]


def test_nan_and_all_zero_outputs_are_caught():
    assert _suspicious("   run metric  expected\n0  run     RR       NaN\n", {}) == "prints NaN"
    assert _suspicious("RR 0.0 0.0\nP@10 0.0 0.0\n", {}) == "prints only zeros"
    assert _suspicious("RR 0.0 0.75\n", {}) is None
    assert _suspicious("kappa NaN\n", {"expect": "nan"}) is None


def test_markers_and_shown_output_are_read(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("<!-- skip: needs a cluster -->\n```python\nboom()\n```\n\n"
                    "```python\nprint(1)\n```\n\n```text\n1\n```\n")
    found = blocks(page)
    assert [(b.markers, b.shown) for b in found] == [({"skip": "needs a cluster"}, None), ({}, "1\n")]
