"""The runtime graph (docs/ARCHITECTURE.md, "What runs when"): the core reaches the layers
above it only through the sockets :mod:`tiedrank.plugins` fills, and reads a slot only for
what it cannot answer itself. Evaluating tiedrank's own inputs (DataFrames, files, its own
metric names) loads no translator; another tool's object or name loads ``tiedrank.interop``,
which registered itself, and gives the same numbers.

The core answers tiedrank's canonical names alone, where it used to ask the peers first:
:func:`test_own_names_read_as_the_peers_read_them` checks, family by family, that the two
readings agree, so the shortcut changed no metric."""
from __future__ import annotations

import subprocess
import sys
import warnings

import pytest

from tiedrank.core.peers import PEERS, MetricRequest
from tiedrank.evaluation.metric_lists import _own_metrics
from tiedrank.metrics import REGISTRY, parse_metric


def _loaded_after(code: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", code + """
import sys
print(" ".join(sorted(m for m in sys.modules if m.startswith(("tiedrank.interop", "tiedrank.report")))))
"""], capture_output=True, text=True, check=True)
    return done.stdout.split()


SETUP = """
import pandas as pd, tiedrank
run = pd.DataFrame({"query": ["q1", "q1", "q2"], "doc": ["a", "b", "c"], "score": [1.0, 1.0, 0.5]})
qrels = pd.DataFrame({"query": ["q1", "q2"], "doc": ["b", "c"], "relevance": [1, 2]})
"""


def test_evaluating_a_dataframe_imports_no_translator():
    loaded = _loaded_after(SETUP + """
ev = tiedrank.evaluate({"bm25": run}, qrels, ["RR", "nDCG@10", "P(rel=2)@10", "Best(AP)"], ties="all")
ev.report(); ev.per_query
tiedrank.evaluate([run, run], qrels, "RR"); tiedrank.evaluate(run, qrels, ["AP", "R@100"])
""")
    assert loaded == []


def test_another_tools_name_or_object_loads_the_translators_that_registered():
    loaded = _loaded_after(SETUP + """
ev = tiedrank.evaluate({"bm25": run}, qrels, ["ndcg_cut_10", "recip_rank"])
assert ev.summary["metric"].tolist() == ["nDCG@10", "RR"], ev.summary
""")
    assert "tiedrank.interop" in loaded and "tiedrank.report" not in loaded
    assert "tiedrank.report" in _loaded_after(SETUP + "tiedrank.evaluate(run, qrels, 'RR').grid()")


def test_a_ranx_run_works_because_interop_registered_itself():
    ranx = pytest.importorskip("ranx")
    loaded = _loaded_after(SETUP + """
import ranx
as_dict = {"q1": {"a": 1.0, "b": 1.0}, "q2": {"c": 0.5}}
ranx_ev = tiedrank.evaluate(ranx.Run(as_dict, name="bm25"), ranx.Qrels({"q1": {"b": 1}, "q2": {"c": 2}}),
                            ["RR", "nDCG@10"], ties="all")
own_ev = tiedrank.evaluate({"bm25": run}, qrels, ["RR", "nDCG@10"], ties="all")
assert ranx_ev.summary.equals(own_ev.summary), (ranx_ev.summary, own_ev.summary)
""")
    assert "tiedrank.interop.adapters" in loaded
    del ranx


def _canonical_names() -> list[str]:
    """Every family's canonical spelling with and without a cutoff, a relevance level and a
    policy wrapper, where tiedrank's own grammar reads it back as itself."""
    texts = []
    for entry in REGISTRY.values():
        for base in (entry.name, f"{entry.name}(rel=2)"):
            for cut in ("", "@5", "@10", "@1000"):
                for text in (base + cut, f"Best({base + cut})", f"TrecEval({base + cut})"):
                    try:
                        metric = parse_metric(text)
                    except ValueError:
                        continue
                    if metric.name == text:
                        texts.append(text)
    return texts


CANONICAL = _canonical_names()


def test_the_canonical_names_cover_the_families():
    """Every family whose name alone, or with a cutoff, is a metric (the others need a
    parameter: ``TsRR(alpha=...)``, ``RBP(p=...)``)."""
    covered = {parse_metric(text).family for text in CANONICAL}
    assert set(REGISTRY) - covered <= {
        "BPM", "Compat", "INSQ", "INST", "RBP", "RBP_graded", "Rprec_mult", "SDCG", "TsRR",
        "iprec_at_recall", "rbp_resid", "set_F", "utility"}


@pytest.mark.parametrize("text", CANONICAL)
def test_own_names_read_as_the_peers_read_them(text):
    """The single-name reader: the peers (asked first in earlier versions) read no canonical name, so
    asking tiedrank's grammar first gives the same metric; and a list of such names (when no
    other tool spells one of them the same way) is what trec_eval's list reader made of it."""
    assert PEERS.read_metric(text, "x") is None or PEERS.read_metric(text, "x") == parse_metric(text)
    own = _own_metrics([text])
    if own is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert PEERS.expand_metrics([text]) == MetricRequest(tuple(own))
