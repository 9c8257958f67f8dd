"""Writers and round trips (write, then read back: the identical frame)."""
from __future__ import annotations

import gzip
import io

import numpy as np
import pandas as pd
from tiedrank.core.data import Qrels, Run
from tiedrank.io import read_qrels, read_run, write_qrels, write_run

from io_support import STR, data_file, error_of, run_frame, tricky_scores

# ------------------------------------------------------------------------------------------
# Writers and round trips
# ------------------------------------------------------------------------------------------


def test_run_round_trip_exact(tmp_path):
    n = 3000
    rng = np.random.default_rng(1)
    frame = run_frame({"query": [f"q{int(i)}" for i in rng.integers(0, 17, n)],
                       "doc": [f"doc-{i}" for i in rng.permutation(n)],
                       "score": tricky_scores(n)})
    run = Run(name="my run", frame=frame)
    for dest in (tmp_path / "run.txt", tmp_path / "run.txt.gz"):
        write_run(run, dest)
        back = read_run(dest)
        pd.testing.assert_frame_equal(back.frame, frame, check_exact=True)
        assert np.array_equal(back.frame["score"].to_numpy().view(np.int64),
                              frame["score"].to_numpy().view(np.int64))  # even -0.0
        assert back.name == "my_run"
    assert (tmp_path / "run.txt.gz").read_bytes()[:2] == b"\x1f\x8b"


def test_write_run_ranks_and_layout():
    frame = run_frame([("q2", "a", 1.0), ("q1", "x", 0.5), ("q2", "b", 3.0),
                       ("q2", "c", 1.0), ("q1", "y", 0.7)])
    buf = io.BytesIO()
    write_run(Run(name="r", frame=frame), buf, tag="sys1")
    assert buf.getvalue().decode().splitlines() == [
        "q2 Q0 a 2 1 sys1", "q1 Q0 x 2 0.5 sys1", "q2 Q0 b 1 3 sys1",
        "q2 Q0 c 3 1 sys1", "q1 Q0 y 1 0.7 sys1"]


def test_write_run_text_stream_round_trip():
    run = read_run(data_file("trec_eval/results.test"))
    text = io.StringIO()
    write_run(run, text)
    back = read_run(text.getvalue().encode())
    pd.testing.assert_frame_equal(back.frame, run.frame, check_exact=True)
    assert back.name == "STANDARD"


def test_write_run_rejects_blank_ids():
    frame = run_frame([("q 1", "a", 1.0)])
    exc = error_of(write_run, Run(name="r", frame=frame), io.BytesIO())
    assert exc.problem == "query id cannot be written to a TREC file" and exc.line == 1


def test_qrels_round_trip(tmp_path):
    qrels = read_qrels(data_file("llmjudge/qrels.test.txt"))
    frame = pd.concat([qrels.frame, pd.DataFrame({"query": ["x"], "doc": ["y"],
                                                  "relevance": [-2]})], ignore_index=True)
    frame = frame.astype({"query": STR, "doc": STR})
    dest = tmp_path / "qrels.txt"
    write_qrels(Qrels(frame=frame), dest)
    assert dest.read_text().splitlines()[-1] == "x 0 y -2"
    pd.testing.assert_frame_equal(read_qrels(dest).frame, frame, check_exact=True)
    original = data_file("llmjudge/qrels.test.txt").read_bytes()
    buf = io.BytesIO()
    write_qrels(qrels, buf)
    assert buf.getvalue() == original  # the file was already in our layout


def test_round_trip_through_gzip_bytes():
    run = read_run(data_file("llmjudge/runs/TREMA-all.txt"))
    buf = io.BytesIO()
    write_run(run, buf)
    back = read_run(gzip.compress(buf.getvalue()))
    pd.testing.assert_frame_equal(back.frame, run.frame, check_exact=True)
    assert back.name == "TREMA-all"
