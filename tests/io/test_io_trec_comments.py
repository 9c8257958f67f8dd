"""Comment lines in TREC files, exactly as trec_eval 9.0.8 (pytrec_eval's) skips them.

get_trec_results.c skips a run line whose first non-blank character is '#'; get_qrels.c
skips a qrels line whose first character is '#', one at a time (the line after a comment is
parsed as a judgement).  A '#' inside a field is data.  Qrels '#' lines trec_eval would not
skip are refused, so that we never read a file differently from trec_eval.
"""
from __future__ import annotations

import gzip

import pytest

from tiedrank import evaluate
from tiedrank.cli import main
from tiedrank.io import detect_format, read_qrels, read_run

from io_support import data_file, error_of

RESULTS = data_file("trec_eval/results.test").read_bytes()
QRELS = data_file("trec_eval/qrels.test").read_bytes()


def _with_comments(data: bytes, comment: bytes, every: int) -> bytes:
    """``comment`` before the file and after every ``every``-th line."""
    lines = data.splitlines(keepends=True)
    out = [comment + b"\n"]
    for index, line in enumerate(lines, 1):
        out.append(line)
        if index % every == 0:
            out.append(comment + b"\n")
    return b"".join(out)


@pytest.mark.parametrize("comment", [b"# STANDARD run, 2024", b"#", b"  \t# indented note",
                                     b"#q1 Q0 d1 1 2.5 t"])
def test_run_comments_are_skipped_as_trec_eval_does(comment):
    plain = read_run(RESULTS, source_name="results.test")
    commented = read_run(_with_comments(RESULTS, comment, 97), source_name="results.test")
    assert commented.name == plain.name == "STANDARD"
    assert commented.frame.equals(plain.frame)


def test_qrels_single_comment_lines_are_skipped():
    plain = read_qrels(QRELS)
    assert read_qrels(_with_comments(QRELS, b"# judged by NIST", 500)).frame.equals(plain.frame)


def test_evaluation_of_commented_sample_files_is_unchanged(tmp_path):
    (tmp_path / "r").write_bytes(_with_comments(RESULTS, b"# note", 10))
    (tmp_path / "q").write_bytes(_with_comments(QRELS, b"# note", 10))
    metrics = ["AP", "nDCG@10", "RR"]
    got = evaluate(read_run(tmp_path / "r"), read_qrels(tmp_path / "q"), metrics).report()
    want = evaluate(read_run(data_file("trec_eval/results.test")),
                    read_qrels(data_file("trec_eval/qrels.test")), metrics).report()
    assert got.equals(want)


def test_hash_inside_a_field_is_data():
    run = read_run(b"q1 Q0 d#1 1 2.5 t#a\nq#2 Q0 #d 1 1.5 t\n")
    assert run.frame["doc"].tolist() == ["d#1", "#d"]
    assert run.frame["query"].tolist() == ["q1", "q#2"]
    assert run.name == "t#a"
    assert read_qrels(b"q#1 0 #d 1\n").frame["doc"].tolist() == ["#d"]


def test_comments_with_crlf_gzip_and_a_last_line_without_newline():
    data = b"# head\r\nq1 Q0 d1 1 2.5 t\r\n  # mid\r\nq1 Q0 d2 2 1.5 t\r\n# tail"
    for source in (data, gzip.compress(data)):
        run = read_run(source)
        assert run.frame["doc"].tolist() == ["d1", "d2"]
    assert read_qrels(b"1 0 a 1\r\n#x\r\n1 0 b 0\r\n#end").frame["doc"].tolist() == ["a", "b"]


def test_line_numbers_count_comment_lines():
    exc = error_of(read_run, b"# a\nq1 Q0 d1 1 2.5 t\n# b\n\nq1 Q0 d2 1 oops t\n")
    assert (exc.problem, exc.line, exc.text) == ("non-numeric score", 5, "q1 Q0 d2 1 oops t")
    exc = error_of(read_qrels, b"# a\n1 0 a 1\n#b\n1 0 a 2\n")
    assert (exc.problem, exc.line, exc.text) == ("duplicate judgement", 4, "1 0 a 2")


@pytest.mark.parametrize("data, problem, line, text", [
    (b"# a\n# b\n1 0 a 1\n", "a second comment line in a row", 2, "# b"),
    (b"1 0 a 1\n#a\r\n#b\r\n", "a second comment line in a row", 3, "#b"),
    (b"1 0 a 1\n  # note\n", "an indented '#' line", 2, "  # note"),
])
def test_qrels_comments_trec_eval_would_misread_are_refused(data, problem, line, text):
    exc = error_of(read_qrels, data)
    assert exc.problem.startswith(problem)
    assert "trec_eval does not skip" in exc.problem
    assert (exc.line, exc.text) == (line, text)
    assert "grep -v '^#'" in exc.expected


def test_detection_looks_past_leading_comments():
    assert detect_format(b"# header\n# more\nq1 Q0 d1 1 2.5 t\n") == "trec_run"
    assert detect_format(b"# header\n1 0 d1 1\n") == "trec_qrels"
    # issue 19: a file of comment lines only says so, whether detected or told the format
    assert error_of(read_run, b"#x\n").problem == "no data lines (only comments)"
    assert error_of(read_run, b"# nothing but comments\n").problem == \
        "no data lines (only comments)"
    exc = error_of(read_run, b"# nothing but comments\n", format="trec_run")
    assert exc.problem == "no data lines (only comments)"


def test_cli_reads_commented_files(tmp_path, capsys):
    (tmp_path / "r").write_bytes(_with_comments(RESULTS, b"# note", 50))
    (tmp_path / "q").write_bytes(_with_comments(QRELS, b"# note", 50))
    assert main(["evaluate", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "AP",
                 "--format", "csv"]) == 0
    got = capsys.readouterr().out
    assert main(["evaluate", str(data_file("trec_eval/qrels.test")),
                 str(data_file("trec_eval/results.test")), "-m", "AP", "--format", "csv"]) == 0
    assert capsys.readouterr().out == got
