"""Diversity qrels (ndeval's ``query subtopic docno grade``) through the reader and the doors:
detected from a document judged under two subtopics, or asked for; plain qrels read as
before; one message naming the file and line for a bad line or a repeated judgement."""
from __future__ import annotations

import pandas as pd
import pytest

import tiedrank
from tiedrank.core.errors import InputError
from tiedrank.io import read_qrels

DIVERSITY = b"1 1 a 1\n1 2 a 0\n1 2 b 2\n1 3 c 0\n2 1 x 1\n"


def test_a_document_judged_under_two_subtopics_makes_diversity_qrels():
    qrels = read_qrels(DIVERSITY, source_name="div.qrels")
    assert qrels.subtopics.values.tolist() == [
        ["1", "1", "a", 1], ["1", "2", "a", 0], ["1", "2", "b", 2], ["1", "3", "c", 0],
        ["2", "1", "x", 1]]
    # each (query, doc) once, first-judged order, its largest grade (ndeval: relevant to any)
    assert qrels.frame.values.tolist() == [["1", "a", 1], ["1", "b", 2], ["1", "c", 0],
                                           ["2", "x", 1]]
    assert [f.kind for f in qrels.findings] == ["subtopic_qrels"]


def test_plain_qrels_stay_plain_and_can_be_read_as_one_subtopic_each():
    plain = b"1 0 a 1\n1 0 b 0\n"
    assert read_qrels(plain).subtopics is None
    forced = read_qrels(plain, subtopics=True)
    assert forced.subtopics["subtopic"].tolist() == ["0", "0"]
    assert forced.frame["relevance"].tolist() == [1, 0]


def test_refusing_subtopics_keeps_the_plain_readers_duplicate_message():
    with pytest.raises(InputError, match=r"line 2: duplicate judgement.*first judged for "
                                         r"query '1' on line 1"):
        read_qrels(DIVERSITY, subtopics=False)


def test_a_subtopic_judged_twice_names_both_lines():
    with pytest.raises(InputError, match=r"div.qrels, line 4: duplicate judgement: '1 2 a 1' "
                                         r"\(expected one judgement per \(query, subtopic, doc\);"
                                         r" 'a' was first judged for query '1', subtopic '2' "
                                         r"on line 2\)"):
        read_qrels(b"1 1 a 1\n1 2 a 0\n1 1 b 1\n1 2 a 1\n", source_name="div.qrels")


@pytest.mark.parametrize("text, problem", [
    (b"1 1 a 1\n1 2 a\n", r"line 2: wrong number of columns \(found 3\)"),
    (b"1 1 a 1\n1 2 a one\n", r"line 2: non-integer grade"),
])
def test_a_malformed_line_names_the_file_and_line(text, problem):
    with pytest.raises(InputError, match=r"div.qrels, " + problem):
        read_qrels(text, source_name="div.qrels")


def test_subtopics_are_read_from_trec_columns_or_a_frame_only():
    with pytest.raises(InputError, match="subtopic qrels are read from TREC's four columns or "
                                         "a DataFrame with a column .* this is csv without one"):
        read_qrels(b"query,doc,relevance\n1,a,1\n", subtopics=True)


def test_evaluate_reads_a_diversity_qrels_file_and_scores_every_measure(tmp_path):
    qrels = tmp_path / "div.qrels"
    qrels.write_bytes(DIVERSITY)
    run = pd.DataFrame({"query": ["1", "1", "1", "2"], "doc": ["a", "b", "c", "x"],
                        "score": [1.0, 1.0, 0.5, 1.0]})
    report = tiedrank.evaluate({"r": run}, qrels, ["alpha_nDCG@2", "AP", "StRecall@1"],
                               ties="all").report().set_index("metric")
    # query 1: a (subtopic 1), b (subtopic 2) tied at the top; query 2: x alone
    assert report.loc["StRecall@1", "expected"] == pytest.approx((0.5 + 1.0) / 2)
    assert report.loc["AP", "expected"] == pytest.approx(1.0)  # grades: a 1, b 2, c 0


def test_the_cli_reads_diversity_qrels_and_refuses_intent_measures_on_plain_ones(tmp_path, capsys):
    from tiedrank.cli import main

    qrels, plain, run = tmp_path / "div.qrels", tmp_path / "plain.qrels", tmp_path / "r.run"
    qrels.write_bytes(DIVERSITY)
    plain.write_bytes(b"1 0 a 1\n")
    run.write_bytes(b"1 Q0 a 1 1.0 r\n1 Q0 b 2 1.0 r\n2 Q0 x 1 1.0 r\n")
    capsys.readouterr()
    try:
        status = main(["evaluate", str(qrels), str(run), "-m", "StRecall@1"])
    except SystemExit as stop:
        status = stop.code
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "StRecall@1" in out and "0.7500" in out
    try:
        status = main(["evaluate", str(plain), str(run), "-m", "alpha_nDCG@2"])
    except SystemExit as stop:
        status = stop.code
    out, err = capsys.readouterr()
    assert status != 0 and "Traceback" not in err
    assert "alpha_nDCG needs diversity qrels" in err


def test_a_frame_or_ir_measures_qrels_with_an_iteration_column_are_diversity_qrels():
    frame = pd.DataFrame({"query_id": ["1", "1", "1"], "iteration": [1, 2, 2],
                          "doc_id": [" a", "a", "b"], "relevance": [1, 0, 1]})
    qrels = read_qrels(frame)
    assert qrels.subtopics.values.tolist() == [["1", "1", "a", 1], ["1", "2", "a", 0],
                                               ["1", "2", "b", 1]]
    assert read_qrels(frame.iloc[[0, 2]]).subtopics is None  # nothing judged twice
    assert read_qrels(frame.iloc[[0, 2]], subtopics=True).subtopics is not None
    with pytest.raises(InputError, match="a DataFrame with a column subtopic, subtopic_id, "
                                         "iteration, intent; this is dataframe without one"):
        read_qrels(frame.drop(columns="iteration"), subtopics=True)
    ir_measures = pytest.importorskip("ir_measures")
    rows = [ir_measures.Qrel("1", "a", 1, "1"), ir_measures.Qrel("1", "a", 0, "2"),
            ir_measures.Qrel("1", "b", 1, "2")]
    assert read_qrels(rows).subtopics["subtopic"].tolist() == ["1", "2", "2"]
    assert read_qrels(rows[:1]).subtopics is None  # ir_measures' plain qrels: iteration '0'


def test_the_cli_is_told_with_subtopics(tmp_path, capsys):
    from tiedrank.cli import main

    qrels, run = tmp_path / "one.qrels", tmp_path / "r.run"
    qrels.write_bytes(b"1 1 a 1\n1 2 b 1\n")  # no document judged twice
    run.write_bytes(b"1 Q0 a 1 1.0 r\n1 Q0 b 2 1.0 r\n")
    capsys.readouterr()
    assert main(["evaluate", str(qrels), str(run), "-m", "StRecall@1", "--subtopics",
                 "--ties", "expected"]) == 0
    assert "0.5000" in capsys.readouterr().out  # one of the two subtopics at rank 1


def test_diversity_qrels_are_written_as_ndeval_reads_them(tmp_path):
    from tiedrank.io import write_qrels

    qrels = read_qrels(DIVERSITY)
    write_qrels(qrels, tmp_path / "out.qrels")
    assert (tmp_path / "out.qrels").read_bytes() == DIVERSITY
    again = read_qrels(tmp_path / "out.qrels")
    assert again.subtopics.values.tolist() == qrels.subtopics.values.tolist()


def test_the_cli_is_told_with_subtopics_on_the_scaled_path_too(tmp_path, capsys):
    from tiedrank.cli import main

    qrels, run = tmp_path / "one.qrels", tmp_path / "r.run"
    qrels.write_bytes(b"1 1 a 1\n1 2 b 1\n2 1 x 1\n")  # no document judged twice
    run.write_bytes(b"1 Q0 a 1 1.0 r\n1 Q0 b 2 1.0 r\n2 Q0 x 1 1.0 r\n")
    capsys.readouterr()
    assert main(["evaluate", str(qrels), str(run), "-m", "StRecall@1", "--subtopics",
                 "--ties", "expected", "--buckets", "2"]) == 0
    assert "0.7500" in capsys.readouterr().out  # (1/2 + 1) / 2
