"""A test's own server: a free port on 127.0.0.1, a bounded wait until it answers, and a
stop that always reaps it (the browser session, the ``tiedrank dashboard`` files tests)."""
from __future__ import annotations

import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def wait_until_answering(process: subprocess.Popen, url: str, within: float = 60,
                         why: Callable[[], str] = lambda: "no answer") -> None:
    """Wait (at most ``within`` s) for ``url`` to answer; ``AssertionError`` with ``why()``
    if the process ends or the time runs out first."""
    deadline = time.monotonic() + within
    while not answers(url):
        assert process.poll() is None and time.monotonic() < deadline, why()
        time.sleep(0.3)


def stop(process: subprocess.Popen) -> None:
    """Terminate, then kill after 15 s; always reaped."""
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
