"""Helpers shared by the tests of tiedrank.io (tests/io/)."""
from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tiedrank.core.errors import InputError

REPO = Path(__file__).resolve().parents[2]
# The dtype of tiedrank's id columns: pandas 3's default string dtype ("str"); on pandas 2.3
# the same dtype, which is opt-in there (pd.Series(["x"]).dtype is object).
STR = pd.StringDtype(storage="pyarrow", na_value=np.nan)


def data_file(relative: str) -> Path:
    """A real data file: the repo's sample_data/ copy, else the shared data directory."""
    for base in (REPO / "sample_data", REPO.parent / "shared" / "data"):
        path = base / relative
        if path.exists():
            return path
    pytest.skip(f"{relative} not available")


def error_of(call, *args, **kwargs) -> InputError:
    with pytest.raises(InputError) as info:
        call(*args, **kwargs)
    return info.value


def run_frame(rows) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=["query", "doc", "score"])
    return frame.astype({"query": STR, "doc": STR, "score": "float64"})


def assert_run_frame(frame: pd.DataFrame) -> None:
    assert list(frame.columns) == ["query", "doc", "score"]
    assert frame["query"].dtype == STR and frame["doc"].dtype == STR
    assert frame["score"].dtype == np.float64
    assert isinstance(frame.index, pd.RangeIndex) and frame.index.start == 0


def assert_qrels_frame(frame: pd.DataFrame) -> None:
    assert list(frame.columns) == ["query", "doc", "relevance"]
    assert frame["query"].dtype == STR and frame["doc"].dtype == STR
    assert frame["relevance"].dtype == np.int64
    assert isinstance(frame.index, pd.RangeIndex) and frame.index.start == 0


GOOD = b"q1 Q0 d1 1 2.5 t\n"


def tricky_scores(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    scores = rng.standard_normal(n) * 10.0 ** rng.integers(-30, 30, n)
    special = [0.1, 1 / 3, -0.0, 0.0, 5e-324, 1.7976931348623157e308, 2.0 ** 53 + 2,
               123456.0, 1e16, 1e-7, -2.5]
    scores[:len(special)] = special
    scores[len(special):len(special) + 50] = 7.25  # a tie group
    return scores


class FakeUpload:
    """Like streamlit's UploadedFile: .name, .getvalue(), .read()."""

    def __init__(self, name: str, data: bytes) -> None:
        self.name = name
        self._buffer = io.BytesIO(data)

    def getvalue(self) -> bytes:
        return self._buffer.getvalue()

    def read(self, size: int = -1) -> bytes:
        return self._buffer.read(size)


RUN_ROWS = {"query": ["0301", "0301", "302"], "doc": ["d1", "d,2", "d1"], "score": [2.5, -1.0, 3.0]}


def tabular_bytes(fmt: str, names=("qid", "docno", "score")) -> bytes:
    frame = pd.DataFrame(dict(zip(names, RUN_ROWS.values())))
    if fmt == "csv":
        return frame.to_csv(index=False).encode()
    if fmt == "tsv":
        return frame.to_csv(index=False, sep="\t").encode()
    if fmt == "jsonl":
        return frame.to_json(orient="records", lines=True).encode()
    sink = io.BytesIO()
    frame.to_parquet(sink, index=False)
    return sink.getvalue()
