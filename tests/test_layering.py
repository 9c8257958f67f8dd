"""The package's layers: the core never imports Streamlit or plotly, page logic never imports
Streamlit (only ``tiedrank.dashboard.ui``, ``widgets`` and ``session_uploads`` do), the CLI never imports the dashboard, no
module reaches into another module's private names, and no module outgrows one job."""
from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import tiedrank

ROOT = Path(tiedrank.__file__).parent
STREAMLIT_GLUE = {"tiedrank.dashboard.ui", "tiedrank.dashboard.widgets",
                  "tiedrank.dashboard.session_uploads"}
"""The dashboard's Streamlit side: the data context and caches, the widget helpers, and the
uploads' session state."""
MODULES = sorted(m.name for m in pkgutil.walk_packages(tiedrank.__path__, "tiedrank.")
                 if m.name != "tiedrank.__main__")


def _imports_after(code: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", code + "\nimport sys\nprint(' '.join(sys.modules))"],
                          capture_output=True, text=True, check=True)
    return {name.split(".")[0] for name in done.stdout.split()}


def test_import_tiedrank_loads_neither_streamlit_nor_plotly_nor_scipy():
    """No dashboard library in the core; and scipy (0.6 s of import) only when a statistic
    is computed, so the ``tiedrank`` command starts in half a second."""
    loaded = _imports_after("import tiedrank, tiedrank.cli, tiedrank.stats, tiedrank.io, "
                            "tiedrank.sampling, tiedrank.distributed")
    assert not {"streamlit", "plotly", "scipy"} & loaded


PAGE_LOGIC = [m for m in MODULES if m.startswith("tiedrank.dashboard") and m not in STREAMLIT_GLUE]

# One interpreter imports the modules one after the other and says, after each, whether
# Streamlit is loaded. Until a module loads it, each answer is that module's alone: what the
# modules before it loaded had no Streamlit in it. After the first module that loads it, a
# fresh interpreter goes on with the rest. As exact as an interpreter per module, at the cost
# of one (27 interpreters were half a minute of the suite's CPU).
_PROBE = """
import importlib, sys
for name in sys.argv[1:]:
    try:
        importlib.import_module(name)
    except ImportError as error:
        if (error.name or "").split(".")[0] != "plotly":
            raise
        print(name, "skipped", flush=True)  # no plotly (lowest-versions step): not this test's job
        continue
    loaded = "streamlit" in sys.modules
    print(name, "streamlit" if loaded else "free", flush=True)
    if loaded:
        break
"""


@pytest.fixture(scope="module")
def streamlit_after_import() -> dict[str, str]:
    """``{module: "free" | "streamlit" | "skipped"}`` for every page-logic module."""
    verdicts: dict[str, str] = {}
    while len(verdicts) < len(PAGE_LOGIC):
        rest = [m for m in PAGE_LOGIC if m not in verdicts]
        done = subprocess.run([sys.executable, "-c", _PROBE, *rest],
                              capture_output=True, text=True, check=True)
        for line in done.stdout.splitlines():
            name, verdict, *_ = line.split()
            verdicts[name] = verdict
        if not done.stdout.strip():
            raise AssertionError(f"the import probe printed nothing: {done.stderr[-2000:]}")
    return verdicts


@pytest.mark.parametrize("module", [
    pytest.param(m, marks=pytest.mark.app) if m.startswith("tiedrank.dashboard.figures") else m
    for m in PAGE_LOGIC])
def test_page_logic_is_streamlit_free(module, streamlit_after_import):
    verdict = streamlit_after_import[module]
    if verdict == "skipped":
        pytest.skip(f"{module} needs a dependency this install lacks")
    assert verdict == "free", f"importing {module} loads Streamlit"


@pytest.mark.parametrize("path", sorted(ROOT.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_modules_stay_small(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= 700


# ---- the CLI imports only the core ----------------------------------------------------------
def _resolve(node: ast.ImportFrom, package: list[str]) -> list[str]:
    """The absolute dotted target of a ``from ... import`` in a module of ``package``."""
    if node.level == 0:
        return node.module.split(".")
    base = package[:len(package) - (node.level - 1)]
    return base + (node.module.split(".") if node.module else [])


def _package_of(path: Path) -> list[str]:
    parts = ["tiedrank", *path.relative_to(ROOT).with_suffix("").parts]
    return parts[:-1]  # a package's __init__ is in the package; a module's package is its parent


def _imported_modules(path: Path) -> set[str]:
    """Every tiedrank module ``path`` imports (at the top or inside a function)."""
    package, found = _package_of(path), set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            target = ".".join(_resolve(node, package))
            found |= {target} | {f"{target}.{a.name}" for a in node.names}
    return {name for name in found if name.split(".")[0] == "tiedrank"}


@pytest.mark.parametrize("path", sorted((ROOT / "cli").glob("*.py")), ids=lambda p: p.name)
def test_cli_source_never_imports_the_dashboard(path):
    dashboard = {m for m in _imported_modules(path) if m.startswith("tiedrank.dashboard")}
    assert not dashboard, f"{path.name} imports {sorted(dashboard)}: the CLI imports only the core"


def test_importing_the_cli_loads_no_dashboard_module():
    done = subprocess.run(
        [sys.executable, "-c", "import tiedrank.cli, sys\n"
         "print(' '.join(m for m in sys.modules if m.startswith('tiedrank.dashboard')))"],
        capture_output=True, text=True, check=True)
    assert done.stdout.split() == []


# ---- no module imports another module's private names ---------------------------------------
def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _private_reaches(path: Path) -> list[str]:
    """``from x import _y`` of another module's private name, and imports of a private module
    (``_load``) from outside its own package. A package's private modules are its own:
    ``tiedrank.io.read`` may import ``tiedrank.io._load``, ``tiedrank.cli`` may not."""
    package = _package_of(path)
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            target = _resolve(node, package)
            if target[0] != "tiedrank":
                continue
            for alias in node.names:
                if not _private(alias.name):
                    continue
                sibling_module = target == package and (
                    (ROOT.parent / Path(*target) / f"{alias.name}.py").exists()
                    or (ROOT.parent / Path(*target) / alias.name).is_dir())
                if not sibling_module:
                    found.append(f"line {node.lineno}: from {'.' * node.level}{node.module or ''} "
                                 f"import {alias.name}")
            modules = [target]
        elif isinstance(node, ast.Import):
            modules = [a.name.split(".") for a in node.names if a.name.startswith("tiedrank.")]
        else:
            continue
        for target in modules:
            for depth, part in enumerate(target):
                if _private(part) and target[:depth] != package:
                    found.append(f"line {node.lineno}: private module {'.'.join(target[:depth + 1])}"
                                 f" imported from {'.'.join(package)}")
    return found


@pytest.mark.parametrize("path", sorted(ROOT.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_imports_another_modules_private_names(path):
    assert _private_reaches(path) == []


def test_the_private_name_rule_sees_what_it_should(tmp_path, monkeypatch):
    """The rule flags a private name and a private module of another package, not a
    package's own private module."""
    fake = ROOT / "cli" / "_layering_probe_does_not_exist.py"
    source = ("from ..io._load import LIMITS\nfrom ..ties import _segment_sum\n"
              "from ._common import run_handler\nfrom . import _common\n")
    monkeypatch.setattr(Path, "read_text", lambda self, encoding=None: source)
    found = _private_reaches(fake)
    assert len(found) == 2 and "tiedrank.io._load" in found[0] and "_segment_sum" in found[1]
