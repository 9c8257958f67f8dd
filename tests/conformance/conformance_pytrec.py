"""pytrec_eval in a process of its own, for the conformance suite.

trec_eval's C code keeps global state between evaluators (measure parameters, the last
query's cached relevance lists), and after some hundreds of evaluations in one process a
later evaluation can loop forever, even with every evaluator kept alive. The same input
in a fresh process answers at once. So each evaluation runs in a fresh process forked
from Python's fork server (a clean process that never evaluates), and each call has a
deadline: a hang fails the test instead of stalling CI.
"""
from __future__ import annotations

import multiprocessing

DEADLINE_SECONDS = 60
_POOL = None


def _evaluate(qrels: dict, run: dict, measures: list[str], rel_level: int,
              judged_only: bool) -> dict:
    import pytrec_eval

    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(measures), relevance_level=rel_level,
                                               judged_docs_only_flag=judged_only)
    return evaluator.evaluate(run)


def trec_eval(qrels: dict, run: dict, measures: list[str], rel_level: int,
              judged_only: bool) -> dict:
    """pytrec_eval's per-query values, computed in the isolated child."""
    global _POOL
    if _POOL is None:
        context = multiprocessing.get_context("forkserver")
        # imported once in the fork server (which never evaluates, so its trec_eval state stays
        # clean); each child is a fork of it, ready at once (was 0.3 s a child importing them)
        context.set_forkserver_preload(["conformance_pytrec", "pytrec_eval"])
        _POOL = context.Pool(1, maxtasksperchild=1)
    try:
        return _POOL.apply_async(_evaluate, (qrels, run, list(measures), rel_level,
                                             judged_only)).get(DEADLINE_SECONDS)
    except multiprocessing.TimeoutError:
        _POOL.terminate()
        _POOL = None
        raise AssertionError(f"pytrec_eval did not answer within {DEADLINE_SECONDS} s "
                             f"(qrels={qrels!r}, run={run!r})") from None
