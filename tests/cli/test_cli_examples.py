"""Every example of every subcommand's ``--help`` runs as written (from a directory that
holds the checkout's ``sample_data``), in the order shown: ``simulate``'s last example reads
what its first one wrote. In process (:func:`tiedrank.cli.main`), so that the examples cost
no interpreter each. The dashboard's examples start a server: tests/cli/test_cli_dashboard*.
"""
from __future__ import annotations

import argparse
import re
import shlex
from pathlib import Path

import pytest

from tiedrank.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[2]
_COMMENT = re.compile(r"\s{2,}\(.*\)\s*$")


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in build_parser()._actions
                  if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def examples(epilog: str | None) -> list[str]:
    """The commands of an epilog's ``examples:`` (continuations joined, comments dropped)."""
    text = (epilog or "").partition("examples:")[2]
    joined = re.sub(r"\\\n\s*", " ", text)
    commands = [_COMMENT.sub("", line).strip() for line in joined.splitlines()]
    return [c for c in commands if c.startswith("tiedrank ")]


SUBCOMMANDS = sorted(name for name in _subparsers() if name != "dashboard")


def test_every_subcommand_has_examples():
    missing = [name for name, parser in _subparsers().items() if not examples(parser.epilog)]
    assert missing == []


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_the_examples_run(name, tmp_path, monkeypatch, capsys):
    (tmp_path / "sample_data").symlink_to(ROOT / "sample_data")
    monkeypatch.chdir(tmp_path)
    for command in examples(_subparsers()[name].epilog):
        argv = shlex.split(command)[1:]
        status = main(argv)
        captured = capsys.readouterr()
        assert status == 0, f"{command}\n{captured.err[-2000:]}"
        assert captured.out.strip(), command
