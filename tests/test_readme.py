"""Every shell example in README.md runs exactly as written.

``bash`` blocks run line by line through bash (continuation lines joined), with
``tiedrank`` on PATH, in a scratch directory holding a link to ``sample_data`` so that what
the examples write never lands in the checkout. The two set-up commands (they create a
virtual environment) are checked by CI itself, so blocks that create one are not run here.
The Python blocks, with their shown output, are tests/test_docs.py's (README.md is one of
its pages).
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)


def _blocks(language: str) -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return [body for lang, body in BLOCK.findall(text) if lang == language]


def _commands(block: str) -> list[str]:
    joined = re.sub(r"\\\n\s*", " ", block)
    return [line.split("  #")[0].strip() for line in joined.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


@pytest.fixture()
def scratch(tmp_path, monkeypatch):
    (tmp_path / "sample_data").symlink_to(ROOT / "sample_data")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_readme_has_examples():
    assert _blocks("python") and _blocks("bash")


COMMANDS = [c for b in _blocks("bash") if "python -m venv" not in b for c in _commands(b)]


@pytest.mark.parametrize("command", COMMANDS, ids=[c[:60] for c in COMMANDS])
def test_shell_examples_run(scratch, command):
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
               PYTHONPATH=str(ROOT))
    done = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=scratch, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    assert "Traceback" not in done.stderr
