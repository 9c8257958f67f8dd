"""Sources (paths, bytes, file-likes, gzip), empty input, encodings and the message format."""
from __future__ import annotations

import gzip
import io

import pandas as pd
import pytest

from tiedrank.io import read_qrels, read_run

from io_support import GOOD, FakeUpload, data_file, error_of

# ------------------------------------------------------------------------------------------
# Sources: paths, bytes, file-likes, gzip, DataFrames
# ------------------------------------------------------------------------------------------


def test_sources_agree(tmp_path):
    path = data_file("llmjudge/runs/Olz-gpt4o.txt")
    raw = path.read_bytes()
    reference = read_run(path).frame
    upload = FakeUpload("Olz-gpt4o.txt", raw)
    upload.read()  # already consumed by someone: getvalue() still has everything
    sources = [str(path), raw, bytearray(raw), memoryview(raw), io.BytesIO(raw), upload,
               gzip.compress(raw)]
    for source in sources:
        pd.testing.assert_frame_equal(read_run(source).frame, reference, check_exact=True)
    assert read_run(upload).source == "Olz-gpt4o.txt"
    assert read_run(upload).name == "Olz-gpt4o"
    with open(path, "rb") as handle:
        assert read_run(handle).source == str(path)
    assert read_run(io.BytesIO(raw)).source == "<file>"
    assert read_run(raw, source_name="judge.txt").name == "judge"
    gz = tmp_path / "judge.txt.gz"
    gz.write_bytes(gzip.compress(raw))
    assert read_run(gz).name == "judge"
    hidden = tmp_path / "judge.dat"  # gzip recognised by magic bytes, not the extension
    hidden.write_bytes(gzip.compress(raw))
    pd.testing.assert_frame_equal(read_run(hidden).frame, reference)


def test_source_name_in_errors():
    exc = error_of(read_run, FakeUpload("up.txt", b"q Q0 d 1 x t\n"))
    assert str(exc).startswith("up.txt, line 1: non-numeric score")
    exc = error_of(read_run, b"q Q0 d 1 x t\n", source_name="mine")
    assert exc.source == "mine"


def test_str_source_is_a_path():
    with pytest.raises(FileNotFoundError):
        read_run("/nonexistent/run.txt")
    with pytest.raises(FileNotFoundError, match="a str source is a path; file contents go "
                                                "in as bytes"):
        read_run("q Q0 d 1 1 t\n")


# ------------------------------------------------------------------------------------------
# Bad input: every class, its message and its line
# ------------------------------------------------------------------------------------------


def test_message_format():
    exc = error_of(read_run, b"q1 Q0 d1 1 1 x\nq1 Q0 d2 1 abc x\n", source_name="run.txt")
    assert str(exc) == ("run.txt, line 2: non-numeric score: 'q1 Q0 d2 1 abc x' "
                        "(expected a finite number)")
    assert (exc.problem, exc.source, exc.line, exc.text) == (
        "non-numeric score", "run.txt", 2, "q1 Q0 d2 1 abc x")


@pytest.mark.parametrize("data", [b"", b"\n\n", b"  \n\t\n"])
@pytest.mark.parametrize("reader", [read_run, read_qrels])
def test_empty_input(data, reader):
    exc = error_of(reader, data)
    assert exc.problem == "empty input" and "at least one data row" in str(exc)


def test_non_utf8_detected_by_line():
    exc = error_of(read_qrels, b"1 0 a 1\n1 0 b 1\n1 0 \xe9t\xe9 1\n")
    assert exc.problem == "undecodable bytes (not UTF-8)" and exc.line == 3
    assert exc.expected == "UTF-8 text"


def test_corrupt_gzip():
    exc = error_of(read_run, gzip.compress(GOOD * 10)[:-12])
    assert exc.problem == "corrupt gzip data"
