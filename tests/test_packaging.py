"""Packaging: the core (library + CLI) works without the dashboard's dependencies, and the
declared ranges, the README's pins and the lowest-versions CI step agree."""
from __future__ import annotations

import re
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
