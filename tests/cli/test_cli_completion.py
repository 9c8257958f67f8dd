"""Shell completion (the optional ``completion`` extra): asked as bash asks through
``register-python-argcomplete tiedrank``, the command answers with the flags that fit."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _complete(line: str, answers: Path) -> list[str]:
    env = dict(os.environ, _ARGCOMPLETE="1", COMP_LINE=line, COMP_POINT=str(len(line)),
               _ARGCOMPLETE_STDOUT_FILENAME=str(answers), PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-m", "tiedrank"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return answers.read_text().split()


def test_flags_complete(tmp_path):
    pytest.importorskip("argcomplete")
    assert _complete("tiedrank metrics --f", tmp_path / "answers") == ["--format"]
