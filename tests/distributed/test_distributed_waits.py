"""Every wait has an end (issue 19, items 8 and 9): a ``--dask tcp://`` address where
something accepts and never answers, or answers junk, is named "not a Dask scheduler"
within ``--dask-timeout`` seconds; nothing listening is "cannot reach" in the same time;
``--buckets`` is bounded by the open-file limit.  Servers bind to 127.0.0.1 only."""
from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager

import pandas as pd
import pytest

pytest.importorskip("distributed")

from tiedrank import distributed as D  # noqa: E402
from tiedrank.distributed.buckets import FILES_IN_RESERVE, max_buckets  # noqa: E402
from tiedrank.core.validation import InvalidParameterError  # noqa: E402

# Deep profile (`--slow`): bounded waits on silent servers and lowered file limits, 10 s of a
# worker; CI's lowest-versions step runs every core `slow` test.
pytestmark = pytest.mark.slow

QRELS, RUN = "sample_data/trec_eval/qrels.test", "sample_data/trec_eval/results.test"


@contextmanager
def _server(answer: bytes | None):
    """A TCP server on 127.0.0.1 that accepts and then says ``answer`` (None: nothing)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    stop, held = threading.Event(), []

    def serve() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            held.append(conn)
            if answer is not None:
                try:
                    conn.sendall(answer)
                except OSError:
                    pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(5)
        for conn in held:
            conn.close()
        listener.close()


def _cli(*args: str, timeout: float = 60) -> tuple[subprocess.CompletedProcess, float]:
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "tiedrank", "evaluate", QRELS, RUN, "-m", "RR",
                           *args], capture_output=True, text=True, timeout=timeout)
    return done, time.monotonic() - start


@pytest.mark.parametrize("answer", [None, b"HTTP/1.1 400 Bad Request\r\n\r\n" * 4,
                                    b"\xff" * 64], ids=["silent", "http", "junk"])
def test_a_server_that_is_not_a_scheduler_is_named_in_time(answer):
    with _server(answer) as address:
        done, elapsed = _cli("--dask", address, "--dask-timeout", "1.5")
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert f"{address} is not a Dask scheduler" in done.stderr
    assert "--dask-timeout" in done.stderr
    assert elapsed < 15


def test_nothing_listening_is_cannot_reach_in_time():
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # nothing listens there now
    done, elapsed = _cli("--dask", f"tcp://127.0.0.1:{port}", "--dask-timeout", "1")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert f"cannot reach the Dask scheduler at tcp://127.0.0.1:{port} within 1 s" in done.stderr
    assert "--dask-timeout" in done.stderr
    assert elapsed < 15


def test_python_client_string_has_the_deadline():
    run = pd.DataFrame({"query": ["q"], "doc": ["d"], "score": [1.0]})
    qrels = pd.DataFrame({"query": ["q"], "doc": ["d"], "relevance": [1]})
    with _server(None) as address:
        start = time.monotonic()
        with pytest.raises(D.SchedulerUnreachable, match="is not a Dask scheduler.*timeout="):
            D.evaluate({"r": run}, qrels, ["RR"], client=address, buckets=2, timeout=0.5)
        assert time.monotonic() - start < 10
    with pytest.raises(InvalidParameterError, match="timeout= must be a number in"):
        D.evaluate({"r": run}, qrels, ["RR"], client=address, buckets=2, timeout=float("inf"))


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "soon"])
def test_dask_timeout_flag_is_checked(value):
    done, _ = _cli("--dask", "tcp://127.0.0.1:1", "--dask-timeout", value)
    assert done.returncode == 2 and "--dask-timeout" in done.stderr
    assert "Traceback" not in done.stderr


def test_buckets_past_the_open_file_limit_are_refused_in_one_line():
    done, elapsed = _cli("--buckets", "100000000")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert f"--buckets must be an integer in [1, {max_buckets():,}]" in done.stderr
    assert "ulimit -n" in done.stderr and elapsed < 20
    with pytest.raises(InvalidParameterError, match="buckets= must be an integer in"):
        D.evaluate([RUN], QRELS, ["RR"], buckets=10**8)


def test_buckets_follow_a_lowered_open_file_limit(tmp_path):
    """With ``ulimit -n 256``, 256 - 64 buckets is the most; that many still run (no "Too
    many open files"), one more is refused."""
    run = tmp_path / "run.txt"
    run.write_text("".join(f"q{q} Q0 d{d} {d + 1} {1.0 / (d + 1)} r\n"
                           for q in range(600) for d in range(3)))
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{q} 0 d1 1\n" for q in range(600)))
    limited = ("import resource, runpy, sys\n"
               "resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))\n"
               "sys.argv = ['tiedrank'] + sys.argv[1:]\n"
               "runpy.run_module('tiedrank', run_name='__main__')\n")
    largest = 256 - FILES_IN_RESERVE
    common = ["evaluate", str(qrels), str(run), "-m", "RR", "--spill-dir", str(tmp_path),
              "--format", "csv"]
    ok = subprocess.run([sys.executable, "-c", limited, *common, "--buckets", str(largest)],
                        capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stderr
    refused = subprocess.run([sys.executable, "-c", limited, *common, "--buckets",
                              str(largest + 1)], capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2
    assert f"--buckets must be an integer in [1, {largest}]" in refused.stderr
