"""Small details: nothing fetched from a font CDN for the favicon, the verdict-stability
histogram's best/worst-case marks not in the win/loss colours, "the qrels's fields" wording."""
from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pandas as pd

from tiedrank.dashboard.figures.compare import LOSS_COLOR, WIN_COLOR, stability_figure

ROOT = Path(__file__).resolve().parents[2]


def _page_icon() -> str:
    tree = ast.parse((ROOT / "app.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "set_page_config":
            return next(k.value.value for k in node.keywords if k.arg == "page_icon")
    raise AssertionError("no st.set_page_config in app.py")


def test_favicon_is_not_an_icon_font():
    icon = _page_icon()
    assert not icon.startswith(":material/") and not icon.startswith("http"), icon


def test_stability_best_case_is_not_green_when_the_baseline_is_ahead():
    draws = pd.DataFrame({"diff": np.linspace(-0.05, -0.01, 200)})
    verdicts = pd.DataFrame({"policy": ["best", "worst", "expected"],
                             "diff": [-0.01, -0.05, -0.03]})
    fig = stability_figure(draws, verdicts, "run", "base", "AP")
    marks = {t.name.split(":")[0]: t for t in fig.data if t.type == "scatter"}
    best = next(t for name, t in marks.items() if "best" in name.lower())
    worst = next(t for name, t in marks.items() if "worst" in name.lower())
    for trace in (best, worst):
        assert trace.line.color not in (WIN_COLOR, LOSS_COLOR)
        assert trace.marker.color not in (WIN_COLOR, LOSS_COLOR)


def test_no_qrels_s_wording():
    for path in [ROOT / "app.py", *(ROOT / "pages").glob("*.py"),
                 *(ROOT / "tiedrank" / "dashboard").rglob("*.py")]:
        text = path.read_text()
        assert "qrels's" not in text and "{role}'s" not in text, path
