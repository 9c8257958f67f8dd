"""The package's layers: the core never imports Streamlit or plotly, page logic never imports
Streamlit (only ``tiedrank.dashboard.ui``, ``widgets`` and ``session_uploads`` do), the CLI
never imports the dashboard, no module reaches into another module's private names, and no
module outgrows one job. The import graph (every import, at the top or inside a function)
has no circle and no import from a lower layer to a higher one (the core imports no
``interop``, ``distributed``, ``cli`` or ``dashboard``); a page imports no other page, and
the dashboard's shared layer no page's logic; every metric family of the registry has an
entry in ``docs/metrics-reference.md``."""
from __future__ import annotations

import ast
import collections
import pkgutil
import re
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


def test_the_command_starts_a_local_cluster_before_pandas():
    """``import tiedrank`` is lazy (PEP 562): the ``tiedrank`` command imports neither pandas
    nor numpy before it can start a local Dask cluster (its fork server then preloads on
    another core while the command imports the rest); the public names and the
    subpackages are there on first use, and the outer layers plug into the core's sockets at
    the first read of a slot, wherever that read comes from."""
    loaded = _imports_after("import tiedrank, tiedrank.cli, tiedrank.distributed.cluster")
    assert not {"pandas", "numpy", "pyarrow", "distributed"} & loaded
    done = subprocess.run([sys.executable, "-c", """
import sys
from tiedrank.core.peers import PEERS
from tiedrank.core.report_socket import REPORT
print("tiedrank.interop" in sys.modules, "tiedrank.report" in sys.modules)
print("ranx" in PEERS.accepted, REPORT.build.__module__, "tiedrank.interop" in sys.modules)
import tiedrank
from tiedrank import evaluate, POLICIES
print(evaluate.__module__, tiedrank.stats.__name__, sorted(set(tiedrank.__all__) - set(dir(tiedrank))))
"""], capture_output=True, text=True, check=True)
    assert done.stdout.split("\n")[:3] == [
        "False False", "True tiedrank.report.grid True",
        "tiedrank.evaluation.door tiedrank.stats []"]


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


# ---- the import graph: no circle, no import from a lower layer to a higher one ---------------
def _module_name(path: Path) -> str:
    parts = ["tiedrank", *path.relative_to(ROOT).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


ALL_MODULES = {_module_name(p): p for p in ROOT.rglob("*.py")}


def _as_module(name: str) -> str:
    """The module a dotted import name lands in: ``tiedrank.metrics.parse_metric`` ->
    ``tiedrank.metrics`` (a package counts as its ``__init__``)."""
    parts = name.split(".")
    while ".".join(parts) not in ALL_MODULES:
        parts.pop()
    return ".".join(parts)


def _edges(path: Path) -> set[str]:
    """The tiedrank modules ``path`` imports, at the top, inside a function or under
    ``TYPE_CHECKING`` alike: ``from ..metrics import parse_metric`` is an edge to the package
    ``tiedrank.metrics`` (its ``__init__``), ``from . import kernels`` one to the module.
    (Importing a module runs its package's ``__init__`` too; that is not an edge of its own.)"""
    package, found = _package_of(path), set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {_as_module(a.name) for a in node.names if a.name.split(".")[0] == "tiedrank"}
        elif isinstance(node, ast.ImportFrom):
            target = ".".join(_resolve(node, package))
            if target.split(".")[0] != "tiedrank":
                continue
            found |= {f"{target}.{a.name}" if f"{target}.{a.name}" in ALL_MODULES
                      else _as_module(target) for a in node.names}
    return found - {_module_name(path)}


IMPORT_GRAPH = {name: _edges(path) for name, path in ALL_MODULES.items()}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of ``graph`` with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            part = []
            while True:
                member = stack.pop()
                part.append(member)
                if member == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _cycle_through(graph: dict[str, set[str]], part: list[str]) -> list[str]:
    """The shortest cycle inside the circle ``part``, as a path back to where it starts."""
    members, best = set(part), None
    for start in part:  # breadth first from each member: the first way back is the shortest
        queue, seen = collections.deque([[start]]), {start}
        while queue:
            path = queue.popleft()
            if best is not None and len(path) >= len(best):
                break
            for target in sorted(graph[path[-1]] & members):
                if target == start:
                    best = path + [start]
                    queue.clear()
                    break
                if target not in seen:
                    seen.add(target)
                    queue.append(path + [target])
    return best


def test_the_import_graph_has_no_circle():
    """A circle (``a`` imports ``b`` imports ``a``, directly or round several modules, at the
    top or inside a function) means neither layer can be read, tested or moved alone."""
    circles = [" -> ".join(_cycle_through(IMPORT_GRAPH, part))
               + (f" (a circle of {len(part)} modules: {', '.join(part)})" if len(part) > 2 else "")
               for part in _circles(IMPORT_GRAPH)]
    assert circles == [], "import circles:\n" + "\n".join(circles)


LAYERS = (
    ("core", ("tiedrank.core",)),
    ("readers and metrics", ("tiedrank.io", "tiedrank.metrics")),
    ("evaluation", ("tiedrank.evaluation",)),
    ("sampling", ("tiedrank.sampling",)),
    ("stats", ("tiedrank.stats",)),
    ("report", ("tiedrank.report",)),
    ("public face", ("tiedrank", "tiedrank._moved", "tiedrank.plugins", "tiedrank.app_files")),
    ("translators", ("tiedrank.interop", "tiedrank.simulate")),
    ("scale and dashboard", ("tiedrank.distributed", "tiedrank.dashboard")),
    ("cli", ("tiedrank.cli",)),
    ("entry point", ("tiedrank.__main__",)),
)
"""The floors, lowest first (docs/ARCHITECTURE.md says why in this order): a module imports
its own package, the packages of the floors below, never a floor above, and never a
neighbour on its own floor (``io`` and ``metrics``, ``interop`` and ``simulate``,
``distributed`` and ``dashboard`` stand side by side; the public face's modules are one
package's). The core imports no other subpackage. What the core needs from above it reaches
through a socket whose provider :mod:`tiedrank.plugins` names
(``test_every_provider_sits_above_its_socket``)."""


def _layer(module: str) -> tuple[int, str, str]:
    """(height, layer, top package) of ``module``: the longest prefix of :data:`LAYERS`."""
    best = max(((len(prefix), height, name, prefix) for height, (name, prefixes) in enumerate(LAYERS)
                for prefix in prefixes if module == prefix or module.startswith(prefix + ".")))
    return best[1], best[2], best[3]


def test_every_module_has_a_layer():
    assert [m for m in ALL_MODULES if not any(
        m == p or m.startswith(p + ".") for _, prefixes in LAYERS for p in prefixes)] == []


def _wrong_edges(graph: dict[str, set[str]], module: str) -> list[str]:
    """The imports of ``module`` that go to a higher floor or to a neighbour on its floor."""
    height, layer, package = _layer(module)
    wrong = []
    for target in sorted(graph[module]):
        target_height, target_layer, target_package = _layer(target)
        neighbour = target_height == height and target_package != package \
            and layer != "public face"
        if target_height > height or neighbour:
            wrong.append(f"{target} ({target_layer})")
    return wrong


@pytest.mark.parametrize("module", sorted(ALL_MODULES))
def test_no_import_from_a_lower_layer_to_a_higher_one(module):
    """``core`` imports no other subpackage; ``io`` and ``metrics`` only ``core``; the
    evaluation no sampling, stats, report or outer package (not even inside a function);
    neighbours on one floor not each other."""
    wrong = _wrong_edges(IMPORT_GRAPH, module)
    assert wrong == [], f"{module} ({_layer(module)[1]}) imports {', '.join(wrong)}"


def _subpackage(module: str) -> str:
    """``tiedrank.core`` for ``tiedrank.core.ties``; the root's own modules (``tiedrank``,
    ``tiedrank.plugins``) are ``tiedrank``; the entry point ``tiedrank.__main__`` its own."""
    parts = module.split(".")
    if len(parts) > 1 and (ROOT / parts[1]).is_dir():
        return ".".join(parts[:2])
    return module if module == "tiedrank.__main__" else "tiedrank"


def _subpackage_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Which subpackage imports which (``tiedrank.core`` -> ``tiedrank.io`` when any module
    of the first imports one of the second)."""
    packages: dict[str, set[str]] = collections.defaultdict(set)
    for module, targets in graph.items():
        packages[_subpackage(module)] |= {_subpackage(t) for t in targets} - {_subpackage(module)}
    return dict(packages)


def test_no_circle_between_subpackages():
    """No two subpackages import each other, directly or round several (``core`` -> ``io``
    -> ``core`` was such a circle in earlier versions)."""
    graph = _subpackage_graph(IMPORT_GRAPH)
    assert _circles(graph) == [], f"circles between subpackages: {_circles(graph)}"


def test_the_floor_and_circle_checks_fail_on_a_circle():
    """The checks can fail: a core module importing the evaluation (the knot of 0.2), added
    to a copy of the graph, is a circle between subpackages and an import from a lower floor."""
    graph = {module: set(targets) for module, targets in IMPORT_GRAPH.items()}
    graph["tiedrank.core.options"].add("tiedrank.evaluation.scoring")
    assert _wrong_edges(graph, "tiedrank.core.options") == [
        "tiedrank.evaluation.scoring (evaluation)"]
    assert any({"tiedrank.core", "tiedrank.evaluation"} <= set(circle)
               for circle in _circles(_subpackage_graph(graph)))


def test_core_imports_no_other_subpackage():
    assert _subpackage_graph(IMPORT_GRAPH).get("tiedrank.core", set()) == set()


def test_every_provider_sits_above_its_socket():
    """:mod:`tiedrank.plugins` names each socket's provider: an import the graph above cannot
    see (it runs at the first read of a slot), so its direction is checked here."""
    from tiedrank.plugins import PROVIDERS

    for socket, provider in PROVIDERS.items():
        assert socket.startswith("tiedrank.core.") and provider in ALL_MODULES
        assert _layer(provider)[0] > _layer(socket)[0]


# ---- the dashboard: pages import no other page; the shared layer imports no page logic ------
PAGES = sorted(p.stem for p in (ROOT.parent / "pages").glob("*.py"))
SHARED_DASHBOARD = {
    "tiedrank.dashboard", "tiedrank.dashboard.cache", "tiedrank.dashboard.datasets",
    "tiedrank.dashboard.drilldown", "tiedrank.dashboard.labels", "tiedrank.dashboard.local_files",
    "tiedrank.dashboard.my_runs",
    "tiedrank.dashboard.recipes", "tiedrank.dashboard.server", "tiedrank.dashboard.shared_queries",
    "tiedrank.dashboard.session_uploads", "tiedrank.dashboard.settings", "tiedrank.dashboard.ui",
    "tiedrank.dashboard.upload_store", "tiedrank.dashboard.warmup", "tiedrank.dashboard.widgets",
    "tiedrank.dashboard.figures", "tiedrank.dashboard.figures.style",
    "tiedrank.dashboard.figures.paper"}
"""The dashboard's shared layer: context, caches, settings, uploads, links between pages,
labels, widgets, the figures' style and the figures for papers; every page may use it."""
OWN_LOGIC = {"tiedrank.dashboard.walkthrough": "learn", "tiedrank.dashboard.flips": "compare",
             "tiedrank.dashboard.figures.flips": "compare",
             "tiedrank.dashboard.run_overlap": "compare"}
"""Page-logic modules not named after their page."""


def _page_of(module: str) -> str | None:
    """The page whose logic ``module`` is (``tiedrank.dashboard.spread`` and
    ``tiedrank.dashboard.figures.spread``: ``spread``), None for the shared layer."""
    if module in SHARED_DASHBOARD:
        return None
    return OWN_LOGIC.get(module, module.rsplit(".", 1)[-1])


def test_every_dashboard_module_is_shared_or_a_pages_logic():
    dashboard = [m for m in ALL_MODULES if m.startswith("tiedrank.dashboard")]
    assert [m for m in dashboard if _page_of(m) not in (None, *PAGES)] == []


def _page_imports(path: Path) -> set[str]:
    """The tiedrank modules and other pages a page file imports."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
    return {_as_module(n) if n.startswith("tiedrank") else n for n in found
            if n.startswith(("tiedrank", "pages"))}


@pytest.mark.parametrize("page", [*PAGES, "app"])
def test_pages_import_no_other_page(page):
    """A page file imports its own logic (``tiedrank.dashboard.<page>``, its figures) and
    the shared layer, never another page: neither its file nor its logic. Pages link to each
    other through the shared layer (``drilldown``), and a page that shows what another
    computes asks its own logic for it."""
    path = ROOT.parent / ("app.py" if page == "app" else f"pages/{page}.py")
    other = sorted(m for m in _page_imports(path) if m.startswith("pages") or (
        m.startswith("tiedrank.dashboard") and _page_of(m) not in (None, page)))
    assert other == [], f"{path.name} imports {', '.join(other)}"


@pytest.mark.parametrize("module", sorted(SHARED_DASHBOARD & set(ALL_MODULES)))
def test_the_shared_dashboard_layer_imports_no_page_logic(module):
    logic = sorted(m for m in IMPORT_GRAPH[module] if m.startswith("tiedrank.dashboard")
                   and _page_of(m) is not None)
    assert logic == [], f"{module} (shared) imports page logic: {', '.join(logic)}"


# ---- the metric reference covers every family ------------------------------------------------
def test_every_registry_family_has_an_entry_in_the_metric_reference():
    """``docs/metrics-reference.md`` names each family where it defines it: in a code span or
    block (``set_F(beta) = ...``), a bold lead (**bpref**) or a heading. A family registered
    without one fails here, so the reference cannot fall behind the registry."""
    from tiedrank.metrics import REGISTRY

    text = (ROOT.parent / "docs" / "metrics-reference.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```.*?```", text, re.S)
    spans = re.findall(r"`[^`\n]+`", re.sub(r"```.*?```", "", text, flags=re.S))
    named = "\n".join(blocks + spans + re.findall(r"\*\*[^*\n]+\*\*", text)
                      + re.findall(r"^#+ .*$", text, re.M))
    missing = [family for family in REGISTRY if not re.search(
        rf"(?<![A-Za-z0-9_]){re.escape(family)}(?![A-Za-z0-9_])", named)]
    assert missing == [], f"families without an entry in docs/metrics-reference.md: {missing}"
