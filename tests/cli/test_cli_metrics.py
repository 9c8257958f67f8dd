"""``tiedrank metrics``: every measure with the names it answers to, each of which the parser
(and, for ir_measures' names, ir_measures itself) reads as that measure."""
from __future__ import annotations

import json
import re

import pytest

from tiedrank import parse_metric
from tiedrank.cli import main
from tiedrank.evaluation import metric_request
from tiedrank.interop.names import metric_catalogue
from tiedrank.metrics import REGISTRY


def _names(cell: str) -> list[str]:
    """The names of a cell, ``@k`` / ``.k`` read as a cutoff of 10, placeholders filled."""
    filled = {"alpha=a": "alpha=2", "beta=b": "beta=2", "p=p": "p=0.8", "mult=m": "mult=2",
              "recall=r": "recall=0.2", "levels=r1 r2 ...": "levels=0.2 0.5",
              "max_rel=g1": "max_rel=3"}
    names = []
    for name in (n.strip() for n in re.split(r", (?![^()]*\))", cell) if n.strip()):
        if name.startswith("utility("):
            name = "utility(rel_ret=1, nonrel_ret=-1, rel_missed=0, nonrel_missed=0, docs=5)"
        for placeholder, value in filled.items():
            name = name.replace(placeholder, value)
        names.append(name.replace("@k", "@10").replace(".k", ".10"))
    return names


def test_every_listed_name_is_its_measure():
    table = metric_catalogue()
    assert table["metric"].tolist() == list(REGISTRY)
    for row in table.itertuples(index=False):
        for column in ("forms", "aliases", "trec_eval", "ranx"):
            for name in _names(getattr(row, column)):
                if column == "aliases" and REGISTRY[row.metric].cutoff == "required":
                    name += "@10"  # an alias is the family's name: Success's HitRate@10
                # trec_eval's names as its -m reads them (its rbp is RBP_graded; ours, RBP)
                read = (metric_request([name]).metrics[0] if column == "trec_eval"
                        else parse_metric(name))
                assert read.entry.name == row.metric, (column, name)
        assert row.definition and "\n" not in row.definition


def test_ir_measures_names_are_ir_measures_measures():
    ir_measures = pytest.importorskip("ir_measures")
    for row in metric_catalogue().itertuples(index=False):
        for name in _names(row.ir_measures):
            assert parse_metric(ir_measures.parse_measure(name)).entry.name == row.metric, name


def test_the_command_lists_and_filters(capsys):
    assert main(["metrics", "--format", "json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == len(REGISTRY)
    assert main(["metrics", "RECIP_RANK", "--format", "tsv"]) == 0
    header, *rows = capsys.readouterr().out.splitlines()
    assert header.split("\t")[:2] == ["metric", "forms"] and [r.split("\t")[0] for r in rows] == ["RR"]
    assert main(["metrics"]) == 0
    assert "trec_eval: recip_rank, recip_rank_cut.k" in capsys.readouterr().out
    assert main(["metrics", "no-such-measure"]) == 2
    assert "no measure has a name containing 'no-such-measure'" in capsys.readouterr().err
