"""The package's layers: the core never imports Streamlit or plotly, page logic never imports
Streamlit (only ``tiedrank.dashboard.ui`` does), and no module outgrows one job."""
from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import tiedrank

ROOT = Path(tiedrank.__file__).parent
MODULES = sorted(m.name for m in pkgutil.walk_packages(tiedrank.__path__, "tiedrank.")
                 if m.name != "tiedrank.__main__")


def _imports_after(code: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", code + "\nimport sys\nprint(' '.join(sys.modules))"],
                          capture_output=True, text=True, check=True)
    return {name.split(".")[0] for name in done.stdout.split()}


def test_import_tiedrank_loads_neither_streamlit_nor_plotly():
    loaded = _imports_after("import tiedrank, tiedrank.cli, tiedrank.stats, tiedrank.io, "
                            "tiedrank.sampling, tiedrank.distributed")
    assert "streamlit" not in loaded and "plotly" not in loaded


@pytest.mark.parametrize("module", [
    pytest.param(m, marks=pytest.mark.app) if m.startswith("tiedrank.dashboard.figures") else m
    for m in MODULES if m.startswith("tiedrank.dashboard") and m != "tiedrank.dashboard.ui"])
def test_page_logic_is_streamlit_free(module):
    assert "streamlit" not in _imports_after(f"import {module}")


@pytest.mark.parametrize("path", sorted(ROOT.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_modules_stay_small(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= 700
