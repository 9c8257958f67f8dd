"""``tiedrank dashboard QRELS RUN`` starts a server that answers, on 127.0.0.1; and
``tiedrank.show()`` from a Python process serves its data, and leaves neither a server nor
a temporary file behind when that process ends, even when it is killed (issue 41)."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from server_support import answers, free_port, stop, wait_until_answering

from tiedrank.app_files import FILES_ENV
from tiedrank.cli import main

ROOT = Path(__file__).resolve().parents[2]
TREC = ROOT / "sample_data" / "trec_eval"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(
    p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}


def _port_closed(port: int, within: float = 20.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) != 0:
                return True
        time.sleep(0.2)
    return False


def test_the_files_reach_the_server_as_a_manifest(monkeypatch):
    from streamlit.web import cli as streamlit_cli

    handed = []
    monkeypatch.setenv(FILES_ENV, "")  # recorded: undone after the test
    monkeypatch.setattr(streamlit_cli, "main", lambda args, prog_name: handed.append(
        (args, os.environ[FILES_ENV])))
    assert main(["dashboard", str(TREC / "qrels.test"), str(TREC / "results.test"),
                 "--server.port", "8502", "-l", "2", "-k", "5", str(TREC / "results.test")]) == 0
    (args, manifest), = handed
    assert args[2:] == ["--server.port", "8502"]
    found = json.loads(manifest)
    assert found["paths"] == [str(TREC / "results.test")]  # a path named twice is read once
    assert found["start"]["rel_level"] == 2 and found["start"]["k"] == 5
    assert not os.environ.get(FILES_ENV)  # the server has ended: the manifest with it


def test_tiedrank_dashboard_qrels_run_serves_them():
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "tiedrank", "dashboard", str(TREC / "qrels.test"),
         str(TREC / "results.test"), "--server.port", str(port), "--server.address",
         "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until_answering(process, f"http://127.0.0.1:{port}/_stcore/health")
    finally:
        stop(process)
    assert _port_closed(port)


SHOW = """
import sys
import pandas as pd
import tiedrank
run = pd.DataFrame({"query": ["q1"] * 3, "doc": ["a", "b", "c"], "score": [1.0, 1.0, 0.5]})
qrels = pd.DataFrame({"query": ["q1"], "doc": ["b"], "relevance": [1]})
url = tiedrank.show({"mine": run}, qrels, k=5)
from tiedrank.dashboard import server
print("URL", url, server._CURRENT.folder, flush=True)
if sys.argv[1] == "again":
    url = tiedrank.evaluate({"mine": run}, qrels, ["RR"]).show()
    print("URL", url, server._CURRENT.folder, flush=True)
sys.stdin.read() if sys.argv[1] == "wait" else None
"""


def _shown(process) -> tuple[str, int, str]:
    line = process.stdout.readline()
    while line and not line.startswith("URL"):
        line = process.stdout.readline()
    assert line, "show() printed no URL"
    _, url, folder = line.split()
    return url, int(url.rsplit(":", 1)[1]), folder


@pytest.mark.parametrize("how", ["exits", "killed"])
def test_show_serves_and_ends_with_the_python_that_called_it(how, tmp_path):
    process = subprocess.Popen([sys.executable, "-c", SHOW, "wait"], cwd=tmp_path, env=ENV,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        url, port, folder = _shown(process)
        assert url.startswith("http://127.0.0.1:") and answers(f"{url}/_stcore/health")
        assert Path(folder).is_dir()
        if how == "killed":
            process.send_signal(signal.SIGKILL)  # no atexit: the child's pipe watch ends it
        else:
            process.stdin.close()  # the script ends: atexit stops the server
        process.wait(timeout=30)
        assert _port_closed(port), "the server outlived the Python that started it"
        deadline = time.monotonic() + 15
        while Path(folder).exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not Path(folder).exists(), "a temporary file was left behind"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_a_second_show_replaces_the_first(tmp_path):
    process = subprocess.Popen([sys.executable, "-c", SHOW, "again"], cwd=tmp_path, env=ENV,
                               stdout=subprocess.PIPE, text=True)
    try:
        first_url, first_port, first_folder = _shown(process)
        second_url, second_port, second_folder = _shown(process)
        assert first_url != second_url and not Path(first_folder).exists()
        process.wait(timeout=30)
        assert _port_closed(first_port) and _port_closed(second_port)
        assert not Path(second_folder).exists()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
