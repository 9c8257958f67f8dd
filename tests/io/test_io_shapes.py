"""Readers are shape-blind: the same content as TREC text, CRLF, a BOM, gzip in one or two
members, Parquet, CSV, a DataFrame, a pytrec_eval dict or (query, doc, score) tuples gives
the same run, bit for bit, and so the same numbers."""
from __future__ import annotations

import gzip
import io

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from tiedrank import evaluate, read_run

ID = st.text(alphabet="abcdefXYZ019_-.:", min_size=1, max_size=6)
SCORE = st.one_of(st.sampled_from([0.0, 0.5, 1.0, -2.0, 1e300, 2e300]),
                  st.integers(-2**60, 2**60).map(float),
                  st.floats(allow_nan=False, allow_infinity=False, width=64))


@st.composite
def runs(draw):
    rows = draw(st.lists(st.tuples(ID, ID, SCORE), min_size=1, max_size=12,
                         unique_by=lambda r: (r[0], r[1])))
    return pd.DataFrame(rows, columns=["query", "doc", "score"])


def _shapes(frame: pd.DataFrame) -> dict:
    text = "".join(f"{q} Q0 {d} {i} {float(s)!r} r\n" for i, (q, d, s) in
                   enumerate(frame.itertuples(index=False)))
    half = len(text.splitlines(keepends=True)) // 2
    lines = text.splitlines(keepends=True)
    parquet = io.BytesIO()
    frame.to_parquet(parquet, index=False)
    csv = "query,doc,score\n" + "".join(f"{q},{d},{float(v)!r}\n" for q, d, v in
                                         frame.itertuples(index=False))
    shapes = {
        "text": text.encode(),
        "crlf": text.replace("\n", "\r\n").encode(),
        "bom": b"\xef\xbb\xbf" + text.encode(),
        "gzip": gzip.compress(text.encode(), mtime=0),
        "gzip, two members": gzip.compress("".join(lines[:half]).encode(), mtime=0)
        + gzip.compress("".join(lines[half:]).encode(), mtime=0),
        "parquet": parquet.getvalue(),
        "csv": csv.encode(),
        "frame": frame,
        "dict": {q: dict(zip(g["doc"], g["score"])) for q, g in frame.groupby("query", sort=False)},
        "tuples": list(frame.itertuples(index=False, name=None)),
    }
    return shapes


def _canonical(run) -> pd.DataFrame:
    out = run.frame[["query", "doc", "score"]].astype({"query": str, "doc": str})
    return out.sort_values(["query", "doc"]).reset_index(drop=True)


@settings(max_examples=60, deadline=None)
@given(frame=runs())
def test_the_same_content_in_any_shape_is_the_same_run(frame):
    expected = _canonical(read_run(_shapes(frame)["text"], name="r"))
    for shape, source in _shapes(frame).items():
        got = _canonical(read_run(source, name="r"))
        assert got["score"].to_numpy().view(np.int64).tolist() == \
            expected["score"].to_numpy().view(np.int64).tolist(), shape
        pd.testing.assert_frame_equal(got, expected, check_dtype=False, obj=shape)


def test_integer_scores_past_2_53_read_as_the_text_reads_them():
    frame = pd.DataFrame({"query": ["q", "q"], "doc": ["a", "b"],
                          "score": np.array([2**53 + 1, 3], dtype=np.int64)})
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False)
    text = b"q Q0 a 1 9007199254740993 r\nq Q0 b 2 3 r\n"
    assert read_run(buffer.getvalue()).frame["score"].tolist() == \
        read_run(text).frame["score"].tolist() == [2.0**53, 3.0]
    qrels = pd.DataFrame({"query": ["q"], "doc": ["b"], "relevance": [1]})
    assert evaluate(buffer.getvalue(), qrels, ["RR"]).summary["value"].tolist() == [0.5]
