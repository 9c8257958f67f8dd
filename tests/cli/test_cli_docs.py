"""tiedrank docs: groups, grades and texts checked against the raw files (pandas as oracle)."""
import gzip
from pathlib import Path

import pandas as pd

from tiedrank.cli import main

SIM = str(Path(__file__).resolve().parents[2] / "sample_data" / "simulated")


def test_docs_prints_each_group_with_grades_and_text(capsys):
    assert main(["docs", f"{SIM}/qrels.txt", f"{SIM}/runs/3-point.txt", "--query", "q002",
                 "--corpus", f"{SIM}/corpus.tsv.gz", "--depth", "8"]) == 0
    out = capsys.readouterr().out
    run = pd.read_csv(f"{SIM}/runs/3-point.txt", sep=" ", header=None,
                      names=["q", "x", "doc", "rank", "score", "tag"], dtype={"doc": str})
    run = run[run.q == "q002"].sort_values("rank").head(8)
    qrels = pd.read_csv(f"{SIM}/qrels.txt", sep=" ", header=None, names=["q", "x", "doc", "g"])
    grades = qrels[qrels.q == "q002"].set_index("doc")["g"]
    with gzip.open(f"{SIM}/corpus.tsv.gz", "rt") as fh:
        texts = dict(line.rstrip("\n").split("\t", 1) for line in fh)
    top_score = run["score"].iloc[0]
    size = int((run["score"] == top_score).sum())
    assert "group 1  ranks 1" in out and f"score {top_score:g}" in out
    for doc in run["doc"]:
        assert f"  {doc}  grade {grades.get(doc, 0)}" in out
        assert texts[doc][:40] in out.replace("\n      ", " ")
    assert size >= 1


def test_docs_unknown_query_is_one_message(capsys):
    assert main(["docs", f"{SIM}/qrels.txt", f"{SIM}/runs/3-point.txt", "--query", "zzz"]) == 2
    assert "type a query id" in capsys.readouterr().err
