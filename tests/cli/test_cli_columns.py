"""``--columns`` / ``--qrels-columns``: tabular files with unusual column names, on every
subcommand that reads runs or qrels, and the hints worded as flags on the CLI, as
``columns=`` in Python."""
from __future__ import annotations

import pandas as pd
import pytest

from tiedrank import evaluate
from tiedrank.cli import main
from tiedrank.core.errors import InputError
from tiedrank.io import read_qrels, read_run

RUN = "qid,docid,s\n1,a,2.5\n1,b,2.5\n1,c,1.0\n2,c,1.0\n2,d,0.5\n"
QRELS = "qid,docid,judg\n1,b,1\n2,d,2\n"
RUN_MAP = "query=qid,doc=docid,score=s"
QRELS_MAP = "query=qid,doc=docid,relevance=judg"


@pytest.fixture()
def files(tmp_path):
    (tmp_path / "run.csv").write_text(RUN)
    (tmp_path / "qrels.csv").write_text(QRELS)
    return tmp_path / "qrels.csv", tmp_path / "run.csv"


def _cli(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_evaluate_with_both_mappings_matches_python(files, capsys):
    qrels, run = files
    status, out, err = _cli(capsys, "evaluate", qrels, run, "-m", "RR", "--format", "csv",
                            "--columns", RUN_MAP, "--qrels-columns", QRELS_MAP)
    assert status == 0, err
    expected = evaluate(read_run(run, columns={"score": "s"}),
                        read_qrels(qrels, columns={"relevance": "judg"}), ["RR"]).report()
    got = pd.read_csv(__import__("io").StringIO(out))
    assert got["expected"].round(4).tolist() == expected["expected"].round(4).tolist()


def test_partial_mappings_and_other_subcommands(files, capsys, tmp_path):
    qrels, run = files
    assert _cli(capsys, "compare", qrels, run, run, "-m", "RR", "--draws", "10",
                "--resamples", "99", "--columns", "score=s",
                "--qrels-columns", "relevance=judg")[0] == 0
    status, out, err = _cli(capsys, "docs", qrels, run, "--query", "1", "--columns", "score=s",
                            "--qrels-columns", "relevance=judg")
    assert status == 0, err
    assert "ranks 1-2" in out
    status, out, err = _cli(capsys, "quantize", run, "--columns", "score=s", "--levels", "2",
                            "--out", tmp_path / "q.txt")
    assert status == 0, err
    assert len((tmp_path / "q.txt").read_text().splitlines()) == 5


@pytest.mark.parametrize("argv, flag, hint", [
    (["evaluate", "Q", "R", "--qrels-columns", "relevance=judg"], "--columns",
     "add --columns score=<column>"),
    (["evaluate", "Q", "R", "--columns", "score=s"], "--qrels-columns",
     "add --qrels-columns relevance=<column>"),
    (["evaluate", "Q", "R", "--columns", "score=bm25", "--qrels-columns", "relevance=judg"],
     "--columns", "add --columns score=<column>"),
    (["docs", "Q", "R", "--query", "1", "--columns", "score=s"], "--qrels-columns",
     "add --qrels-columns relevance=<column>"),
    (["quantize", "R", "--levels", "2", "--out", "OUT"], "--columns",
     "add --columns score=<column>"),
])
def test_missing_column_hints_name_the_flag(files, capsys, tmp_path, argv, flag, hint):
    qrels, run = files
    names = {"Q": qrels, "R": run, "OUT": tmp_path / "out.txt"}
    status, out, err = _cli(capsys, *[names.get(a, a) for a in argv])
    assert status == 2
    assert len(err.strip().splitlines()) == 1
    assert hint in err and "columns=" not in err


def test_python_hint_names_the_argument():
    with pytest.raises(InputError) as caught:
        read_run(RUN.encode(), format="csv")
    assert "pass columns={'score': '<column>'} to read_run" in str(caught.value)
    with pytest.raises(InputError) as caught:
        read_qrels(QRELS.encode(), format="csv")
    assert "pass columns={'relevance': '<column>'} to read_qrels" in str(caught.value)


@pytest.mark.parametrize("flag, text, problem", [
    ("--columns", "score", "'score' is not ROLE=COLUMN"),
    ("--columns", "scor=s", "unknown role 'scor'"),
    ("--columns", "score=s,,doc=d", "empty item"),
    ("--columns", "score=a,score=b", "role 'score' given twice"),
    ("--columns", "relevance=r", "unknown role 'relevance'"),
    ("--qrels-columns", "score=s", "unknown role 'score'"),
    ("--qrels-columns", "relevance=", "'relevance=' is not ROLE=COLUMN"),
])
def test_bad_mapping_text_is_one_line_naming_flag_problem_and_remedy(files, capsys, flag, text,
                                                                    problem):
    qrels, run = files
    with pytest.raises(SystemExit) as exit_:
        main(["evaluate", str(qrels), str(run), flag, text])
    assert exit_.value.code == 2
    error = [line for line in capsys.readouterr().err.splitlines() if "error:" in line]
    assert len(error) == 1
    assert f"argument {flag}: {problem}" in error[0]
    assert f"type e.g. {flag} query=qid,doc=docid," in error[0]


@pytest.mark.parametrize("buckets", ["1", "2", "3"])
def test_columns_with_buckets_match_one_pass(files, capsys, buckets):
    """--buckets with tabular files and both mappings prints what one pass prints (the
    record-batch path of Parquet is tested in Python below)."""
    qrels, run = files
    one = _cli(capsys, "evaluate", qrels, run, "-m", "RR", "-m", "AP", "--ties", "all",
               "--format", "csv", "--columns", RUN_MAP, "--qrels-columns", QRELS_MAP)
    bucketed = _cli(capsys, "evaluate", qrels, run, "-m", "RR", "-m", "AP", "--ties", "all",
                    "--format", "csv", "--columns", RUN_MAP, "--qrels-columns", QRELS_MAP,
                    "--buckets", buckets)
    assert one[0] == bucketed[0] == 0, bucketed[2]
    assert bucketed[1] == one[1]


def test_distributed_evaluate_takes_columns_for_csv_and_parquet(tmp_path):
    """Python: tiedrank.distributed.evaluate(columns=, qrels_columns=) on a CSV run, a
    Parquet run of 150,000 rows (read in several record batches of 65,536) and a DataFrame,
    against one pass over the runs read with read_run(columns=)."""
    import numpy as np
    import pyarrow.parquet as pq

    from tiedrank import distributed

    rng = np.random.default_rng(7)
    n_queries, depth = 1500, 100
    big = pd.DataFrame({"qid": np.repeat([f"q{i}" for i in range(n_queries)], depth),
                        "docid": np.tile([f"d{j}" for j in range(depth)], n_queries),
                        "s": rng.integers(0, 4, n_queries * depth).astype(float)})  # ties
    parquet = tmp_path / "run.parquet"
    big.to_parquet(parquet, index=False)
    assert pq.ParquetFile(parquet).metadata.num_rows > 2 * 65536  # three batches at least
    run = tmp_path / "run.csv"
    big.head(5 * depth).to_csv(run, index=False)
    frame = big.tail(5 * depth).reset_index(drop=True)
    qrels = tmp_path / "qrels.csv"
    pd.DataFrame({"qid": [f"q{i}" for i in range(n_queries)] * 2,
                  "docid": [f"d{i % depth}" for i in range(n_queries)]
                  + [f"d{(7 * i + 3) % depth}" for i in range(n_queries)],
                  "judg": [1] * n_queries + [2] * n_queries}).to_csv(qrels, index=False)
    columns = {"query": "qid", "doc": "docid", "score": "s"}
    qrels_columns = {"query": "qid", "doc": "docid", "relevance": "judg"}
    expected = evaluate({"csv": read_run(run, columns=columns),
                         "parquet": read_run(parquet, columns=columns),
                         "frame": read_run(frame, columns=columns)},
                        read_qrels(qrels, columns=qrels_columns), ["RR", "AP"], ties="all")
    for buckets in (0, 1, 3):
        got = distributed.evaluate({"csv": run, "parquet": parquet, "frame": frame}, qrels,
                                   ["RR", "AP"], ties="all", columns=columns,
                                   qrels_columns=qrels_columns, buckets=buckets,
                                   block_bytes=1 << 12)
        assert got.per_query.to_csv(float_format="%.16g") == \
            expected.per_query.to_csv(float_format="%.16g"), buckets
        assert got.summary.to_csv(float_format="%.16g") == \
            expected.summary.to_csv(float_format="%.16g"), buckets


def test_distributed_missing_column_hint_names_the_argument(files):
    from tiedrank import distributed

    qrels, run = files
    with pytest.raises(InputError, match=r"pass columns=\{'score': '<column>'\}"):
        distributed.evaluate([run], qrels, ["RR"], qrels_columns={"relevance": "judg"},
                             buckets=2)
