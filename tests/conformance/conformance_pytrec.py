"""pytrec_eval in a process of its own, for the conformance suite.

trec_eval's C code keeps global state between evaluators (measure parameters, the last
query's cached relevance lists), and after some hundreds of evaluations in one process a
later evaluation can loop forever, even with every evaluator kept alive. The same input
in a fresh process answers at once.

So each evaluation runs in a fresh process: a fork of a small server process of ours that
imported pytrec_eval once and never evaluates (so every fork starts with clean trec_eval
state and nothing to import: about 10 ms, where a new interpreter took 0.3 s). The server
gives each evaluation a deadline and kills a fork that passes it: a hang fails the test
instead of stalling CI. (Python's shared fork server was used before; when another test
of the same process, such as a Dask cluster, had started it first, our preload was ignored
and each example paid the imports again: 150 examples took minutes under load.)
"""
from __future__ import annotations

import multiprocessing
import os
import pickle
import select
import signal

DEADLINE_SECONDS = 60
_SERVER: tuple | None = None


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


def _serve(connection) -> None:
    import pytrec_eval  # noqa: F401 - imported once, here; used only in the forks

    while True:
        try:
            job = connection.recv()
        except EOFError:
            return
        try:
            connection.send(_in_a_fork(job))
        except Exception as error:  # noqa: BLE001 - the server stays up for the next job
            connection.send(("error", f"the server could not fork: {error!r}"))


def _start_server() -> tuple:
    context = multiprocessing.get_context("spawn")
    mine, theirs = context.Pipe()
    server = context.Process(target=_serve, args=(theirs,), daemon=True)
    server.start()
    theirs.close()  # only the server holds that end: its death is an EOF here, not a hang
    return server, mine


def _ask(job: tuple) -> tuple[str, object] | None:
    """The server's answer, or None when the server is gone or silent (it is then stopped)."""
    global _SERVER
    if _SERVER is None:
        _SERVER = _start_server()
    server, connection = _SERVER
    try:
        connection.send(job)
        if connection.poll(DEADLINE_SECONDS + 30):
            return connection.recv()
    except (EOFError, OSError):
        pass
    server.kill()
    server.join(10)
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
