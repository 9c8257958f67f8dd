"""A large TREC run file read from its path (tiedrank.io.trec_stream) gives exactly what
the general reader gives for the same bytes: the same rows, name and findings, or the same
message; and the general reader's three-column parse of a run spaced by single spaces gives
what its six-column parse gives. The size threshold and the block size are shrunk so that
small files take the streamed path and its checks cross block boundaries."""
from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tiedrank.core.errors import InputError

from io_support import error_of
from tiedrank.io import _parallel, read, read_run, trec, trec_stream


@pytest.fixture
def streamed(monkeypatch):
    """Every file streams; returns the list of the paths the streamed path accepted."""
    monkeypatch.setattr(trec_stream, "STREAM_MIN_BYTES", 0)
    accepted: list[str] = []
    original = trec_stream.stream_trec_run

    def spy(source, format, source_name):
        result = original(source, format, source_name)
        if result is not None:
            accepted.append(str(source))
        return result

    monkeypatch.setattr(read, "stream_trec_run", spy)
    return accepted


def _outcome(source, **kwargs):
    try:
        run = read_run(source, **kwargs)
    except InputError as error:
        return "error", str(error)
    return "run", run.name, run.frame, [(f.kind, f.message) for f in run.findings]


def _same(path, data, **kwargs):
    by_path = _outcome(path, **kwargs)
    by_bytes = _outcome(data, source_name=str(path), **kwargs)
    assert by_path[0] == by_bytes[0], (by_path, by_bytes)
    if by_path[0] == "error":
        assert by_path == by_bytes
    else:
        assert by_path[1] == by_bytes[1] and by_path[3] == by_bytes[3]
        pd.testing.assert_frame_equal(by_path[2], by_bytes[2])
    return by_path


REGULAR = b"".join(f"q{i % 3} Q0 d{i} {i} {10 - i / 7} tag\n".encode() for i in range(40))


@pytest.mark.parametrize("step", [1, 2, 7, 64, 1 << 20])
def test_a_regular_file_streams_and_reads_as_bytes_do(tmp_path, streamed, monkeypatch, step):
    monkeypatch.setattr(trec_stream, "SCAN_STEP", step)
    monkeypatch.setattr(_parallel, "BLOCK_SIZE", 64)  # pyarrow: blocks longer than a line
    path = tmp_path / "run.txt"
    path.write_bytes(REGULAR)
    outcome = _same(path, REGULAR)
    assert outcome[0] == "run" and outcome[1] == "tag" and len(outcome[2]) == 40
    assert streamed == [str(path)]


# Lines that the streamed path must hand to the general one (or read the same way): every
# irregular blank, comments, CR line ends, non-ASCII ids, missing and extra fields, bad
# scores, duplicates, empty fields in the columns an evaluator skips.
LINES = st.sampled_from([
    "q1 Q0 d1 1 2.5 tag", "q1 Q0 d2 2 1.5 tag", "q2 Q0 d1 1 0.5 tag", "q2 Q0 d3 2 0.5 tag",
    "q1  d4 3 1 tag", "q1 Q0 d5  1 tag", "q1 Q0 d6 3 1 ", " q1 Q0 d7 1 1 tag",
    "q1 Q0 d8 1 1 tag ", "q1\tQ0\td9\t1\t1\ttag", "q1 Q0 d10 1 1 tag\r", "# comment",
    "  # indented comment", "q1 Q0 d#11 1 1 tag", "q1 Q0 d\u00e912 1 1 tag",
    "q1 Q0 d13 1 x tag", "q1 Q0 d14 1 nan tag", "q1 Q0 d15 1 inf tag", "q1 Q0 d16 1 1",
    "q1 Q0 d17 1 1 tag more", "", "   ", "q1 Q0 d1 9 0.1 tag", "q3 Q0 d18 1 1e3 tag",
    "q1 Q0 d19 1 1 tag\x0b", "q1\x0cQ0 d20 1 1 tag", "# Q0 d21 1 1 tag", "#q1 Q0 d22 1 1 tag",
])


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(LINES, min_size=1, max_size=8), step=st.sampled_from([1, 2, 5, 4096]))
def test_any_file_reads_by_path_as_its_bytes_do(tmp_path, streamed, monkeypatch, lines, step):
    monkeypatch.setattr(trec_stream, "SCAN_STEP", step)
    data = ("\n".join(["q0 Q0 d0 1 9 tag"] + lines) + "\n").encode()
    path = tmp_path / "run.txt"
    path.write_bytes(data)
    for duplicates in ("error", "max"):
        outcome = _same(path, data, duplicates=duplicates)
        with monkeypatch.context() as six_columns:  # the in-memory reader's other parse
            six_columns.setattr(trec, "_columns_to_convert", lambda *args: None)
            assert _same_outcome(outcome, _outcome(data, source_name=str(path),
                                                   duplicates=duplicates))


def _same_outcome(one, other) -> bool:
    if one[0] == "error" or other[0] == "error":
        return one == other
    pd.testing.assert_frame_equal(one[2], other[2])
    return one[1] == other[1] and one[3] == other[3]


def test_a_later_error_names_its_line_from_the_file(tmp_path, streamed):
    """A duplicate found after the parse: its line number read from the file again."""
    path = tmp_path / "run.txt"
    path.write_bytes(REGULAR + b"\nq1 Q0 d1 9 0 tag\n")
    kind, message = _same(path, path.read_bytes())
    assert kind == "error" and "line 42" in message and "on line 2" in message
    assert streamed == [str(path)]


def test_small_files_and_other_sources_are_not_streamed(tmp_path, monkeypatch):
    path = tmp_path / "run.txt"
    path.write_bytes(REGULAR)
    assert trec_stream.stream_trec_run(path, None, None) is None  # below the threshold
    monkeypatch.setattr(trec_stream, "STREAM_MIN_BYTES", 0)
    assert trec_stream.stream_trec_run(path, "trec_qrels", None) is None
    assert trec_stream.stream_trec_run(REGULAR, None, None) is None
    assert trec_stream.stream_trec_run(str(tmp_path / "missing.txt"), None, None) is None
    assert trec_stream.stream_trec_run(path, "TREC_RUN ", None) is not None


def test_a_file_the_detection_refuses_is_worded_by_the_general_reader(tmp_path, streamed):
    """An unreadable head (binary data) under a caller's name: one message, the general
    reader's, naming the source as asked."""
    path = tmp_path / "run.txt"
    path.write_bytes(b"q1 Q0 d1 1 2 t\x00\n" * 3)
    message = str(error_of(read_run, path, source_name="my run"))
    assert message == str(error_of(read_run, path.read_bytes(), source_name="my run"))
    assert message.startswith("my run") and streamed == []
