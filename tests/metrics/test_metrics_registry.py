"""The metric registry: every listed name parses, aliases resolve, names agree with
ir_measures, and the tie-aware flag matches what evaluation actually does."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tiedrank import evaluate
from tiedrank.metrics import (METRIC_NAMES, REGISTRY, Metric, MetricFamily, metric_values,
                              parse_metric, register, relevant_in_top)
from tiedrank.metrics import registry as registry_module

# a small run with ties above, at and below the relevant documents
RUN = pd.DataFrame({"query": ["q"] * 6 + ["r"] * 4,
                    "doc": list("abcdef") + list("wxyz"),
                    "score": [3, 2, 2, 2, 1, 1, 5, 5, 5, 1]})
QRELS = pd.DataFrame({"query": ["q", "q", "r", "r", "q", "r"], "doc": ["c", "f", "x", "z", "b", "w"],
                      "relevance": [1, 2, 1, 3, 0, 0]})  # b, w: judged non-relevant (bpref)


def _example(form: str) -> str:
    return (form.replace("@k", "@2").replace("alpha=a", "alpha=2").replace("beta=b", "beta=2")
            .replace("p=p", "p=0.5").replace("mult=m", "mult=0.5")
            .replace("=c1", "=2").replace("=c2", "=-1").replace("=c3", "=0.5").replace("=c4", "=0")
            .replace("recall=r", "recall=0.5").replace("docs=N", "docs=100")
            .replace("levels=r1 r2 ...", "levels=0.25 0.5").replace("max_rel=g1", "max_rel=3"))


@pytest.mark.parametrize("form", METRIC_NAMES)
def test_every_listed_name_parses_and_round_trips(form):
    metric = parse_metric(_example(form))
    assert parse_metric(metric.name) == metric
    shouted = metric.family.upper() + metric.name[len(metric.family):]
    assert parse_metric(shouted) == metric  # case of the family name is ignored
    assert metric.name == _example(form) or form == "Hits@k"  # the one listed alias
    assert (metric.k == 2) == ("@k" in form)


def test_listed_names_cover_every_family_once_per_cutoff_form():
    families = {parse_metric(_example(form)).family for form in METRIC_NAMES}
    assert families == set(REGISTRY)
    assert len(set(METRIC_NAMES)) == len(METRIC_NAMES)


@pytest.mark.parametrize("alias, canonical", [
    ("MRR", "RR"), ("mtrr@3", "RR@3"), ("hit_rate@3", "Success@3"), ("hits@3", "Hits@3"), ("tmhits@3", "Success@3"),
    ("MAP", "AP"), ("map@7", "AP@7"), ("NDCG@10", "nDCG@10"), ("precision@2", "P@2"),
    ("Recall@4", "R@4"), ("tsrr", "TsRR(alpha=1)"), ("TsRR(0.5)", "TsRR(alpha=0.5)")])
def test_aliases_resolve(alias, canonical):
    assert parse_metric(alias).name == canonical


@pytest.mark.parametrize("name", ["nDCG@10", "nDCG", "P@5", "R@5", "AP", "AP@5", "RR", "RR@5",
                                  "Success@5", "Rprec", "MRR", "MAP", "NDCG@10", "MRR@10"])
def test_canonical_names_agree_with_ir_measures(name):
    """ir_measures is the naming model: the same string names the same measure."""
    ir_measures = pytest.importorskip("ir_measures")  # only this test needs it
    assert parse_metric(name).name == str(ir_measures.parse_measure(name))


def test_cutoff_rules_are_enforced_per_entry():
    for entry in REGISTRY.values():
        args = ", ".join(f"{p.name}={p.default:g}" for p in entry.parameters)
        base = entry.name + (f"({args})" if args else "")
        if entry.cutoff == "required":
            with pytest.raises(ValueError, match="needs a cutoff"):
                parse_metric(base)
        else:
            assert parse_metric(base).k is None
        if entry.cutoff == "none":
            with pytest.raises(ValueError, match="takes no cutoff"):
                parse_metric(base + "@3")
        else:
            assert parse_metric(base + "@3").k == 3


def test_every_entry_has_a_one_line_description():
    for entry in REGISTRY.values():
        assert entry.description and "\n" not in entry.description


def test_tie_aware_flag_matches_the_values_under_every_policy():
    """Tie-aware-by-definition and order-independent metrics are policy-invariant; the
    others move on this run."""
    from tiedrank.metrics.entries_intent import NDEVAL  # need diversity qrels: their own test

    names = [parse_metric(_example(form)).name for form in METRIC_NAMES if form != "Hits@k"
             and parse_metric(_example(form)).family not in NDEVAL]
    summary = evaluate({"r": RUN}, QRELS, names, ties="all").summary
    spread = summary.groupby("metric", observed=True)["value"].agg(lambda v: v.max() - v.min())
    for name in names:
        invariant = spread[name] < 1e-12
        assert invariant == parse_metric(name).policy_invariant, name


def test_a_new_metric_is_one_entry(monkeypatch):
    """Registering an entry is all it takes for parse_metric, metric_values and evaluate."""
    monkeypatch.setattr(registry_module, "REGISTRY", dict(REGISTRY))
    monkeypatch.setattr(registry_module, "_BY_LOWER", dict(registry_module._BY_LOWER))
    register(MetricFamily("NumRel", lambda t, m, g: relevant_in_top(t, m.k), cutoff="required",
                          aliases=("NumRelRet",), description="relevant documents in the top k"))
    assert parse_metric("numrelret@2") == Metric("NumRel", 2)
    ev = evaluate({"r": RUN}, QRELS, ["NumRel@2", "P@2"], ties="expected")
    values = ev.summary.set_index("metric")["value"]
    assert values["NumRel@2"] == pytest.approx(2 * values["P@2"])  # P@k = NumRel@k / k
    with pytest.raises(ValueError, match="unknown metric 'NumRl@2'. Did you mean 'NumRel'"):
        parse_metric("NumRl@2")


def test_a_taken_name_cannot_be_registered_twice(monkeypatch):
    monkeypatch.setattr(registry_module, "REGISTRY", dict(REGISTRY))
    monkeypatch.setattr(registry_module, "_BY_LOWER", dict(registry_module._BY_LOWER))
    with pytest.raises(ValueError, match="already registered"):
        register(MetricFamily("Hits", lambda t, m, g: np.zeros(t.n_queries), description="x"))


def test_dispatch_refuses_a_bad_gain_in_the_shared_wording():
    table = evaluate({"r": RUN}, QRELS, ["RR"]).tables["r"]
    with pytest.raises(ValueError, match=r"metric_values\(\): gain= must be one of 'linear', 'exp'; got 'log'"):
        metric_values(table, "nDCG@3", gain="log")
