"""Packaging: the core (library + CLI) works without the dashboard's dependencies; the
declared ranges, the README's pins and the lowest-versions CI step agree; the build puts the
dashboard and its data into the wheel, with the licences, and the version has one source.
(CI's third step, .ci/package-check, builds and installs the real wheel.)"""
from __future__ import annotations

import filecmp
import importlib.util
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TREC = ROOT / "sample_data" / "trec_eval"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
CORE = {"numpy", "pandas", "scipy", "pyarrow"}
APP = {"streamlit", "plotly", "kaleido"}

BLOCKED = """
import sys
for name in ("streamlit", "plotly", "kaleido"):
    sys.modules[name] = None  # any import of them raises ImportError
import tiedrank
from tiedrank.cli import main
run = tiedrank.read_run({run!r})
qrels = tiedrank.read_qrels({qrels!r})
print(tiedrank.evaluate(run, qrels, ["AP", "nDCG@10"]).report().shape)
for argv in (["evaluate", {qrels!r}, {run!r}, "-m", "RR", "--format", "csv"],
             ["docs", {qrels!r}, {run!r}, "--query", "301", "--depth", "3"],
             ["compare", {qrels!r}, {run!r}, {run!r}, "-m", "RR", "--draws", "5",
              "--resamples", "99"]):
    status = main(argv)
    assert status == 0, argv
print("loaded:", sorted(m for m in sys.modules if m.split(".")[0] in ("streamlit", "plotly", "kaleido") and sys.modules[m] is not None))
"""


def test_library_and_cli_work_with_the_app_dependencies_blocked():
    code = BLOCKED.format(run=str(TREC / "results.test"), qrels=str(TREC / "qrels.test"))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "(2, " in done.stdout
    assert done.stdout.rstrip().endswith("loaded: []")


def _name(requirement: str) -> str:
    return re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0].lower()


def test_core_dependencies_and_extras():
    assert {_name(r) for r in PYPROJECT["dependencies"]} == CORE
    assert {_name(r) for r in PYPROJECT["optional-dependencies"]["app"]} == APP
    assert "dask" in PYPROJECT["optional-dependencies"]
    assert "dynamic" not in PYPROJECT or "dependencies" not in PYPROJECT["dynamic"]


def _pins(path: Path) -> dict[str, str]:
    pins = {}
    for line in path.read_text().splitlines():
        line = line.split("#")[0].strip()
        if "==" in line:
            name, version = line.split("==")
            pins[_name(name)] = version.strip()
    return pins


def test_pins_fall_in_the_declared_ranges_and_floors_are_what_ci_tests():
    specifiers = pytest.importorskip("packaging.specifiers")
    declared = {_name(r): specifiers.SpecifierSet(r[len(_name(r)):].split(";")[0])
                for r in PYPROJECT["dependencies"] + PYPROJECT["optional-dependencies"]["app"]}
    pinned = _pins(ROOT / "requirements.txt")
    for name, spec in declared.items():
        assert pinned[name] in spec, (name, pinned[name], str(spec))
    lowest = _pins(ROOT / ".ci" / "lowest-versions.txt")
    for name in CORE:
        floor = next(s.version for s in declared[name] if s.operator == ">=")
        assert lowest[name] == floor, (name, lowest[name], floor)


def test_ci_runs_the_readme_test_command_verbatim_then_the_lowest_versions():
    readme = (ROOT / "README.md").read_text()
    command = next(line for line in readme.splitlines()
                   if "requirements-dev.txt" in line and line.startswith("python -m venv"))
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert command in ci
    after = "\n".join(ci[ci.index(command):])
    assert "pip install -r .ci/lowest-versions.txt -e ." in after
    assert '-m "not app and not browser"' in after


# ---- what the build puts into the wheel (setup.py) -----------------------------------------
def _setup_module():
    """setup.py as a module (its ``setup()`` call runs only as ``__main__``, as the build
    backend runs it)."""
    pytest.importorskip("setuptools")  # not in every virtual environment (Python >= 3.12)
    spec = importlib.util.spec_from_file_location("tiedrank_setup", ROOT / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts}


def test_build_py_puts_the_dashboard_and_its_data_into_the_package(tmp_path):
    """The wheel's tiedrank/_app/ holds app.py, every page, the Streamlit configuration and
    every sample-data file (licences included), byte for byte; nothing else, no bytecode."""
    setup = _setup_module()
    from setuptools.dist import Distribution

    dist = Distribution({"name": "tiedrank", "script_name": str(ROOT / "setup.py"),
                         "packages": []})  # the package's own modules: setuptools' job
    command = setup.BuildPyWithDashboard(dist)
    command.build_lib = str(tmp_path)
    command.ensure_finalized()
    command.run()
    packaged = tmp_path / "tiedrank" / "_app"
    expected = ({"app.py", ".streamlit/config.toml"}
                | {f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py")}
                | {f"sample_data/{name}" for name in _files(ROOT / "sample_data")})
    assert _files(packaged) == expected
    assert {"sample_data/llmjudge/LICENSE", "sample_data/trec_eval/LICENSE.md"} <= expected
    for name in expected:
        assert filecmp.cmp(packaged / name, ROOT / name, shallow=False), name
    assert {str(packaged / name) for name in expected} <= set(command.get_outputs())


def test_the_sdist_carries_what_the_wheel_is_built_from():
    """python -m build makes the wheel from the sdist: MANIFEST.in must carry every file and
    folder setup.py copies, and the licence files the metadata lists must exist."""
    setup = _setup_module()
    manifest = (ROOT / "MANIFEST.in").read_text().split("\n")
    for name in setup.APP_FILES:
        assert f"include {name}" in manifest, name
    for name in setup.APP_TREES:
        assert any(line.split()[:2] in (["graft", name], ["recursive-include", name])
                   for line in manifest if line.strip()), name
    for name in PYPROJECT["license-files"]:
        assert (ROOT / name).is_file(), name
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")


def test_one_source_for_the_version():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in PYPROJECT and "version" in PYPROJECT["dynamic"]
    assert config["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "tiedrank.__version__"}
    import tiedrank

    assert re.fullmatch(r"\d+\.\d+\.\d+", tiedrank.__version__)
    assert f"## {tiedrank.__version__}" in (ROOT / "CHANGELOG.md").read_text()


def test_app_files_prefer_the_packaged_copy_and_fall_back_to_the_checkout(tmp_path, monkeypatch):
    """In a checkout (no tiedrank/_app) the top level is used; an installed package with
    the build's copy uses that copy."""
    from tiedrank import app_files

    monkeypatch.delenv("TIEDRANK_SAMPLE_DATA", raising=False)
    assert app_files.APP_DIR == ROOT and app_files.APP_SCRIPT == ROOT / "app.py"
    installed = tmp_path / "site-packages" / "tiedrank"
    (installed / "_app").mkdir(parents=True)
    shutil.copy(Path(app_files.__file__), installed / "app_files.py")
    (installed / "_app" / "app.py").write_text("")
    spec = importlib.util.spec_from_file_location("installed_app_files", installed / "app_files.py")
    copy = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, copy)  # its dataclasses look their module up
    spec.loader.exec_module(copy)
    assert copy.APP_DIR == installed / "_app"
    assert copy.SAMPLE_DIR == installed / "_app" / "sample_data"
