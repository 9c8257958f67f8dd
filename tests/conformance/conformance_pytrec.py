"""pytrec_eval in a process of its own, for the conformance suite.

trec_eval's C code keeps global state between evaluators (measure parameters, the last
query's cached relevance lists), and after some hundreds of evaluations in one process a
later evaluation can loop forever, even with every evaluator kept alive. The same input
in a fresh process answers at once.

So each evaluation runs in a fresh process: a fork of a small server process of ours (a
plain interpreter talking pickles over its stdin and stdout) that imported pytrec_eval once
and never evaluates, so every fork starts with clean trec_eval state and nothing to import
(about 10 ms, where a new interpreter took 0.3 s). The server gives each evaluation a
deadline and kills a fork that passes it: a hang fails the test instead of stalling CI.
Not multiprocessing: its spawn and fork-server children re-run the parent's ``__main__``,
which after an AppTest in the same pytest worker is app.py (the children died at start).
"""
from __future__ import annotations

import os
import pickle
import select
import signal
import subprocess
import sys

DEADLINE_SECONDS = 60
_SERVER: subprocess.Popen | None = None


def _evaluate(qrels: dict, run: dict, measures: list[str], rel_level: int,
              judged_only: bool) -> dict:
    import pytrec_eval

    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(measures), relevance_level=rel_level,
                                               judged_docs_only_flag=judged_only)
    return evaluator.evaluate(run)


def _in_a_fork(job: tuple) -> tuple[str, object]:
    """Run ``_evaluate(*job)`` in a fork of this process, within the deadline."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the fork: evaluate, send the answer, leave without cleanup, whatever happens
        try:
            os.close(read)
            try:
                answer = ("ok", _evaluate(*job))
            except BaseException as error:  # noqa: BLE001 - sent back to the test as text
                answer = ("error", repr(error))
            with os.fdopen(write, "wb") as out:
                pickle.dump(answer, out)
        finally:
            os._exit(0)
    os.close(write)
    chunks = []
    with os.fdopen(read, "rb") as answer:
        while True:
            ready, _, _ = select.select([answer], [], [], DEADLINE_SECONDS)
            if not ready:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return "timeout", None
            chunk = answer.read1(1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    os.waitpid(pid, 0)
    return pickle.loads(b"".join(chunks)) if chunks else ("error", "the fork died")


def _serve() -> None:
    """The server's loop: a job (pickled) on stdin, its answer (pickled) on stdout."""
    import pytrec_eval  # noqa: F401 - imported once, here; used only in the forks

    jobs, answers = sys.stdin.buffer, sys.stdout.buffer
    while True:
        try:
            job = pickle.load(jobs)
        except EOFError:
            return
        try:
            answer = _in_a_fork(job)
        except Exception as error:  # noqa: BLE001 - the server stays up for the next job
            answer = ("error", f"the server could not fork: {error!r}")
        pickle.dump(answer, answers)
        answers.flush()  # also: nothing buffered is copied into the next fork


def _start_server() -> subprocess.Popen:
    # A plain interpreter, not multiprocessing: its spawn re-runs the parent's __main__, and
    # after an AppTest in the same pytest worker that is app.py (the server died at start).
    here = os.path.dirname(os.path.abspath(__file__))
    return subprocess.Popen(
        [sys.executable, "-c", f"import sys; sys.path.insert(0, {here!r}); "
                               "import conformance_pytrec; conformance_pytrec._serve()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def _ask(job: tuple) -> tuple[str, object] | None:
    """The server's answer, or None when the server is gone or silent (it is then stopped)."""
    global _SERVER
    if _SERVER is None:
        _SERVER = _start_server()
    server = _SERVER
    try:
        pickle.dump(job, server.stdin)
        server.stdin.flush()
        ready, _, _ = select.select([server.stdout], [], [], DEADLINE_SECONDS + 30)
        if ready:
            return pickle.load(server.stdout)
    except (EOFError, OSError, pickle.UnpicklingError):
        pass
    server.kill()
    server.wait(10)
    _SERVER = None
    return None


def trec_eval(qrels: dict, run: dict, measures: list[str], rel_level: int,
              judged_only: bool) -> dict:
    """pytrec_eval's per-query values, computed in a fresh fork of the clean server."""
    job = (qrels, run, list(measures), rel_level, judged_only)
    answer = _ask(job) or _ask(job)  # a server that died (not a hang: see _in_a_fork): once more
    if answer is None:
        raise AssertionError("the pytrec_eval server died twice")
    status, value = answer
    if status == "timeout":
        raise AssertionError(f"pytrec_eval did not answer within {DEADLINE_SECONDS} s "
                             f"(qrels={qrels!r}, run={run!r})")
    if status == "error":
        raise AssertionError(f"pytrec_eval failed: {value}")
    return value
