"""Helpers of the report-grid tests: a small evaluation with ties, and pdflatex."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tiedrank import evaluate

PDFLATEX = shutil.which("pdflatex")
NO_PDFLATEX = ("pdflatex is not installed: the LaTeX the project writes is not compiled here "
               "(apt-get install -y texlive-latex-base texlive-latex-recommended)")
HOSTILE_NAME = "a_b&c%d$e#f{g}h~i^j\\k<l>m|n[o]p caf\u00e9 \u2603"
"""A run name holding every character LaTeX, Markdown or HTML could read as markup."""


def small_evaluation(names: tuple[str, ...] = ("base", "better", "tied")):
    """Three runs on 12 queries, each with a tie group at the top, so the policies differ:
    the second run is clearly better than the first, the third has its relevant document
    tied with three others (its verdict moves with the tie-break)."""
    rng = np.random.default_rng(7)
    queries = [f"q{i}" for i in range(12)]
    qrels = pd.DataFrame({"query": queries, "doc": "rel", "relevance": 1})
    rows = {name: [] for name in names}
    for q in queries:
        for name, rank in zip(names, (int(rng.integers(2, 6)), 1 + int(rng.integers(0, 2)), 1)):
            docs = [f"d{j}" for j in range(6)]
            docs.insert(rank - 1, "rel")
            scores = np.arange(len(docs), 0, -1, dtype=float)
            if name == names[2]:
                scores[:4] = scores[0]  # the relevant document tied with three others
            rows[name] += [(q, d, s) for d, s in zip(docs, scores)]
    runs = {name: pd.DataFrame(r, columns=["query", "doc", "score"]) for name, r in rows.items()}
    return evaluate(runs, qrels, ["RR", "P@1"], ties="all")


def compile_latex(body: str, directory: Path, name: str = "doc") -> str:
    """Compile ``body`` in an article with booktabs; returns the log, fails the test with
    its error lines when pdflatex stops."""
    if PDFLATEX is None:
        pytest.skip(NO_PDFLATEX)
    source = directory / f"{name}.tex"
    source.write_text("\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
                      + body + "\n\\end{document}\n", encoding="utf-8")
    done = subprocess.run([PDFLATEX, "-interaction=nonstopmode", "-halt-on-error",
                           "-no-shell-escape", source.name], cwd=directory,
                          capture_output=True, text=True, timeout=120)
    log = (directory / f"{name}.log").read_text(encoding="latin-1", errors="replace")
    errors = [line for line in log.splitlines() if line.startswith("!")]
    assert done.returncode == 0 and (directory / f"{name}.pdf").exists(), \
        f"pdflatex failed on {name}: {errors or done.stdout[-2000:]}"
    missing = [line for line in log.splitlines() if "Missing character" in line]
    assert not missing, f"{name}: glyphs missing: {missing[:5]}"
    return log
