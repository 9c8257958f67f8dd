"""Objects past the doors: a metric name is parsed once, where it comes in.

The door (here :func:`tiedrank.evaluation.parse_metrics`, as the CLI and the dashboard
call it) makes the :class:`~tiedrank.metrics.Metric` objects; the scoring, the summaries (one
pass and buckets), trec_eval's output and the CLI's note read them, and the evaluation keeps
them. The oracle is a count of the parser's calls, not a restatement of the code: before,
each summary row re-parsed its metric's name.
"""
from __future__ import annotations

import pandas as pd
import pytest

from tiedrank import EvaluationOptions, distributed
from tiedrank.evaluation import build_tables, parse_metrics, score_tables
from tiedrank.evaluation.summaries import summary_note
from tiedrank.metrics import registry

RUN = pd.DataFrame({"query": ["q1"] * 3 + ["q2"] * 3, "doc": list("abcdef"),
                    "score": [1.0, 1.0, 0.5, 2.0, 1.0, 1.0]})
QRELS = pd.DataFrame({"query": ["q1", "q1", "q2"], "doc": ["b", "c", "f"], "relevance": [1, 2, 1]})
NAMES = ["RR", "gm_map", "num_rel_ret", "Best(AP)", "nDCG(gain=exp)@2"]


@pytest.fixture()
def parsed(monkeypatch):
    """The metrics as a door parses them, then a counter on the parser of names."""
    metrics = parse_metrics(NAMES)
    calls: list[str] = []
    original = registry.parse_text
    monkeypatch.setattr(registry, "parse_text",
                        lambda text, subject: calls.append(text) or original(text, subject))
    return metrics, calls


def test_one_pass_reads_the_objects_and_keeps_them(parsed):
    metrics, calls = parsed
    options = EvaluationOptions(ties=("expected", "trec_eval"))
    ev = score_tables(build_tables({"r": RUN}, QRELS, options), metrics, options)
    ev.to_trec_eval("trec_eval")
    summary_note(list(ev.metrics))
    assert calls == []  # no name parsed past the door
    assert ev.metrics == tuple(metrics)
    assert [p.label for p in ev.policies] == ["expected", "trec_eval", "best"]
    assert ev.metric("gm_map") is metrics[1] and ev.metric(metrics[3]) is metrics[3]
    assert set(ev.summary["metric"].astype(str)) == {m.name for m in metrics}  # names shown
    with pytest.raises(KeyError, match="'AP' was not evaluated"):
        ev.metric("AP")


def test_buckets_read_the_objects_too(parsed):
    metrics, calls = parsed
    ev = distributed.evaluate({"r": RUN}, QRELS, metrics, ties=["expected", "trec_eval"],
                              buckets=2)
    assert calls == []  # the tasks' partial sums and their combination included
    assert ev.metrics == tuple(metrics)
    one = score_tables(build_tables({"r": RUN}, QRELS, ev.options), metrics, ev.options)
    # the same frame, categories included (a wrapped metric listed before another used to
    # take another place among the buckets' categories than in one pass)
    pd.testing.assert_frame_equal(ev.summary, one.summary)
    pd.testing.assert_frame_equal(ev.per_query, one.per_query)
