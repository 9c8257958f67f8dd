"""tiedrank docs: groups, grades and texts checked against the raw files (pandas as oracle)."""
import gzip
from pathlib import Path

import pandas as pd

from tiedrank.cli import main

SIM = str(Path(__file__).resolve().parents[2] / "sample_data" / "simulated")


def test_docs_prints_each_group_with_grades_and_text(capsys):
    assert main(["docs", f"{SIM}/qrels.txt", f"{SIM}/runs/3-point.txt", "--query", "q002",
                 "--corpus", f"{SIM}/corpus.tsv.gz", "--top", "8"]) == 0
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


# ---- docs reads its files as evaluate does: --round, -J, --duplicates ----------------------
RUN = "q1 Q0 a 1 0.901 r\nq1 Q0 b 2 0.899 r\nq1 Q0 c 3 0.5 r\n"
QRELS = "q1 0 a 1\nq1 0 c 0\n"  # b is unjudged


def _docs(tmp_path, capsys, *flags, run=RUN):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(run)
    code = main(["docs", str(tmp_path / "qrels"), str(tmp_path / "run"), "--query", "q1", *flags])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _groups(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("group ")]


def test_docs_round_merges_near_ties_as_evaluate_does(tmp_path, capsys):
    code, out, _ = _docs(tmp_path, capsys)
    assert code == 0 and len(_groups(out)) == 3  # 0.901, 0.899 and 0.5 apart
    code, out, _ = _docs(tmp_path, capsys, "--round", "2")
    # 0.901 and 0.899 round to 0.90: one group of two at ranks 1-2, as evaluate --round 2
    assert code == 0 and _groups(out) == ["group 1  ranks 1-2  (2 documents, score 0.9)",
                                          "group 2  ranks 3  (1 document, score 0.5)"]


def test_docs_judged_only_drops_unjudged_documents(tmp_path, capsys):
    code, out, _ = _docs(tmp_path, capsys, "-J")
    assert code == 0 and "  b  grade" not in out  # b is not in the qrels
    assert _groups(out) == ["group 1  ranks 1  (1 document, score 0.901)",
                            "group 2  ranks 2  (1 document, score 0.5)"]  # c moves up, as -J


def test_docs_duplicates_max_keeps_the_highest_score(tmp_path, capsys):
    twice = RUN + "q1 Q0 c 4 0.95 r\n"
    code, _, err = _docs(tmp_path, capsys, run=twice)
    assert code == 2 and "add --duplicates max" in err  # the CLI's own words
    code, out, _ = _docs(tmp_path, capsys, "--duplicates", "max", run=twice)
    assert code == 0 and _groups(out)[0] == "group 1  ranks 1  (1 document, score 0.95)"
    assert out.count("  c  grade 0") == 1


def test_docs_top_and_its_deprecated_name(tmp_path, capsys):
    code, out, err = _docs(tmp_path, capsys, "--top", "1")
    assert code == 0 and len(_groups(out)) == 1 and err == ""
    code, out, err = _docs(tmp_path, capsys, "--depth", "1")  # the old name of --top
    assert code == 0 and len(_groups(out)) == 1 and "--depth is deprecated" in err
    code, _, err = _docs(tmp_path, capsys, "--top", "0")
    assert code == 2 and err == "tiedrank: error: --top must be an integer >= 1; got 0\n"


def test_a_long_unbroken_document_is_cut_with_a_note(tmp_path, capsys):
    """textwrap is quadratic in an unbroken word (38 s CPU for one 10 MB document): the
    text printed is cut at MAX_SHOWN_CHARS, the rest named (issue 43, class 1)."""
    import subprocess
    import sys

    from tiedrank.cli.docs import MAX_SHOWN_CHARS

    (tmp_path / "q").write_text("1 0 d1 1\n")
    (tmp_path / "r").write_text("1 Q0 d1 1 2.0 r\n1 Q0 d2 2 1.0 r\n")
    word = "x" * 2_000_000
    (tmp_path / "c.tsv").write_text(f"d1\t{word}\nd2\tshort text\n")
    assert main(["docs", str(tmp_path / "q"), str(tmp_path / "r"), "--query", "1",
                 "--corpus", str(tmp_path / "c.tsv")]) == 0
    out = capsys.readouterr().out
    assert sum(line.count("x") for line in out.splitlines() if set(line.strip()) == {"x"}) \
        == MAX_SHOWN_CHARS
    assert f"[... {2_000_000 - MAX_SHOWN_CHARS:,} more characters of this document not shown]" in out
    assert "      short text" in out
    done = subprocess.run([sys.executable, "-m", "tiedrank", "docs", "q", "r", "--query", "1",
                           "--corpus", "c.tsv"], capture_output=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0 and b"more characters of this document not shown" in done.stdout
