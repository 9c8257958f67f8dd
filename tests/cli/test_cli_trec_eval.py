"""trec_eval habits on the command line: -q -c -J -l N -m name -M N, '-' for stdin, --version.

The per-query numbers under trec_eval's order are checked against pytrec_eval (trec_eval's C
code) on the LLMJudge data, where LLM labels make many ties.
"""
from __future__ import annotations

import io
import subprocess
import sys

import pandas as pd
import pytest

from tiedrank import evaluate, read_qrels, read_run

LLM = "sample_data/llmjudge"
QRELS, RUN = f"{LLM}/qrels.test.txt", f"{LLM}/runs/Olz-gpt4o.txt"


def _tiedrank(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tiedrank", *args], input=stdin,
                          capture_output=True, text=True)


def test_trec_eval_flags_give_trec_evals_per_query_numbers():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    done = _tiedrank("evaluate", "-q", "-c", "-l2", "-m", "P.10", "-m", "recip_rank",
                     "--ties", "trec_eval", "--format", "csv", "--digits", "17", QRELS, RUN)
    assert done.returncode == 0, done.stderr
    ours = pd.read_csv(io.StringIO(done.stdout), dtype={"query": str})
    qrels, run = read_qrels(QRELS), read_run(RUN, format="trec_qrels")
    evaluator = pytrec_eval.RelevanceEvaluator(
        {q: dict(zip(g["doc"], g["relevance"].astype(int))) for q, g in qrels.frame.groupby("query")},
        {"P_10", "recip_rank"}, relevance_level=2)
    theirs = evaluator.evaluate(
        {q: dict(zip(g["doc"], g["score"])) for q, g in run.frame.groupby("query")})
    names = {"P@10": "P_10", "RR": "recip_rank"}
    for row in ours.itertuples():
        assert row.trec_eval == pytest.approx(theirs[row.query][names[row.metric]], abs=1e-12)
    queries = ours["query"].drop_duplicates().tolist()
    assert queries.index("q2") < queries.index("q10") if "q10" in queries else True  # natural


def test_depth_keeps_trec_evals_first_n():
    qrels, run = read_qrels(QRELS), read_run(RUN, format="trec_qrels")
    full = evaluate(run, qrels, ["P@5", "Hits@100"], ties="trec_eval", rel_level=2).per_query
    cut = evaluate(run, qrels, ["P@5", "Hits@100"], ties="trec_eval", rel_level=2, depth=5).per_query
    p5 = lambda f: f[f["metric"] == "P@5"]["value"].to_numpy()  # noqa: E731
    pd.testing.assert_series_equal(pd.Series(p5(full)), pd.Series(p5(cut)))  # top 5 unchanged
    hits = cut[cut["metric"] == "Hits@100"]["value"]
    assert (hits <= 5).all() and (hits.to_numpy() == 5 * p5(cut)).all()


def test_stdin_version_and_junk_tag():
    text = open(RUN).read()
    piped = _tiedrank("evaluate", "-m", "RR", "-l", "2", "--format", "csv", QRELS, "-", stdin=text)
    plain = _tiedrank("evaluate", "-m", "RR", "-l", "2", "--format", "csv", QRELS, RUN)
    assert piped.returncode == 0, piped.stderr
    strip = lambda out: [line.split(",", 1)[-1] for line in out.splitlines()]  # noqa: E731
    assert strip(piped.stdout) == strip(plain.stdout)  # same numbers; the run is named "run"
    version = _tiedrank("--version")
    assert version.returncode == 0 and version.stdout.startswith("tiedrank ")


def test_duplicate_hint_names_the_flag():
    done = _tiedrank("evaluate", QRELS, "-", stdin="q1 Q0 d1 1 1 r\nq1 Q0 d1 2 1 r\n")
    assert done.returncode == 2 and "--duplicates max" in done.stderr
    assert "duplicates='max'" not in done.stderr
