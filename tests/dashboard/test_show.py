"""``tiedrank.show`` without a server (issue 41): what it writes for inputs that are not
paths, the flags it hands the command, the IFrame in Jupyter, and ``Evaluation.show``
through the SHOW socket. (The server itself: tests/cli/test_cli_dashboard_files.py.)"""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import tiedrank
from tiedrank.dashboard import server
from tiedrank.io import read_qrels, read_run

RUN = pd.DataFrame({"query": ["q1"] * 3, "doc": ["a", "b", "c"], "score": [1.0, 1.0, 0.5]})
QRELS = pd.DataFrame({"query": ["q1"], "doc": ["b"], "relevance": [1]})


@pytest.fixture()
def started(monkeypatch):
    """Record what _start would run, and run nothing."""
    calls = []

    def fake(qrels, runs, flags, folder, wait):
        calls.append((qrels, list(runs), flags, folder))
        return server.Server(process=_Done(), folder=folder, url="http://127.0.0.1:1")

    monkeypatch.setattr(server, "_start", fake)
    yield calls
    server.stop()


class _Done:
    stdin = None

    def poll(self):
        return 0


def test_frames_are_written_as_trec_files_named_by_run(started, capsys):
    url = tiedrank.show({"mine": RUN, "../odd": RUN}, QRELS, k=5, rel_level=2)
    assert url == "http://127.0.0.1:1" and "http://127.0.0.1:1" in capsys.readouterr().out
    qrels, runs, flags, folder = started[0]
    assert [Path(r).name for r in runs] == ["mine.run", "_odd.run"]
    assert read_run(runs[0]).frame["score"].tolist() == [1.0, 1.0, 0.5]
    assert len(read_qrels(qrels)) == 1
    assert flags == ["-l", "2", "-k", "5", "--duplicates", "error"]
    server.stop()
    assert not Path(folder).exists()  # no temporary file left behind


def test_paths_are_served_as_given(started, tmp_path):
    root = Path(__file__).resolve().parents[2] / "sample_data" / "trec_eval"
    tiedrank.show(str(root / "results.test"), root / "qrels.test", columns={"score": "s"})
    qrels, runs, flags, _ = started[0]
    assert runs == [str(root / "results.test")] and qrels == str(root / "qrels.test")
    assert flags[-2:] == ["--columns", "score=s"]


def test_in_jupyter_an_iframe_shows_the_dashboard(started, monkeypatch, capsys):
    """A stand-in IPython (a kernel running, display and IFrame): the dashboard shows below
    the cell, and no URL is printed."""
    import sys
    import types

    shown = []
    ipython, display = types.ModuleType("IPython"), types.ModuleType("IPython.display")
    ipython.get_ipython = lambda: types.SimpleNamespace(kernel=object())
    display.IFrame = lambda src, width, height: ("IFrame", src, width, height)
    display.display = shown.append
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    monkeypatch.setitem(sys.modules, "IPython.display", display)
    assert server._in_notebook()
    tiedrank.show({"mine": RUN}, QRELS, height=600)
    assert shown == [("IFrame", "http://127.0.0.1:1", "100%", 600)]
    assert "127.0.0.1" not in capsys.readouterr().out
    ipython.get_ipython = lambda: types.SimpleNamespace()  # IPython in a terminal: no kernel
    assert not server._in_notebook()


def test_evaluation_show_reaches_the_server_through_the_socket(started):
    from tiedrank.core.show_socket import SHOW

    ev = tiedrank.evaluate({"mine": RUN}, QRELS, ["RR"], rel_level=1, round=3)
    ev.show(k=7)
    assert SHOW.show is server.show
    assert started[0][2] == ["-l", "1", "--gain", "linear", "-k", "7", "--round", "3",
                             "--query-set", "trec_eval", "--duplicates", "error"]
    from dataclasses import replace

    with pytest.raises(ValueError, match="does not keep its runs and qrels"):
        replace(ev, inputs=None).show()
