"""Uploads survive a reload: the link names them by content hash (``?dataset=upload&upload_key=…``)
and a new session on the same server gets the files, their column mapping, the duplicates
choice and every setting back; a link whose uploads are gone says so in one line."""
from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from apptest_support import assert_no_trouble, new_app, shown_table

pytestmark = pytest.mark.usefixtures("navigation_pages")

QRELS = b"q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 e1 1\nq2 0 e2 2\n"
# d3 twice for q1: readable only with "Duplicate documents: keep the highest score"
TREC_RUN = (b"q1 Q0 d1 1 0.5 mine\nq1 Q0 d2 2 0.5 mine\nq1 Q0 d3 3 0.2 mine\n"
            b"q1 Q0 d3 4 0.1 mine\nq2 Q0 e1 1 0.9 mine\nq2 Q0 e2 2 0.9 mine\n")
# the readers guess "qid" only: doc and score need the sidebar's column mapping
CSV_RUN = b"qid,passage,bm25\nq1,d3,0.7\nq1,d1,0.5\nq1,d2,0.5\nq2,e2,0.9\nq2,e1,0.8\n"


def _link(at: AppTest) -> dict[str, str]:
    return {name: at.query_params[name] for name in at.query_params}


def _open(link: dict[str, str]) -> AppTest:
    """A new session (a reload, or the link in another tab) on the same server process."""
    at = new_app()
    for name, value in link.items():
        at.query_params[name] = value
    return at.run()


def _colmap(at: AppTest) -> list[tuple[str, str | None]]:
    """(field, chosen column) of every column-mapping box in the sidebar."""
    return sorted((box.label, box.value) for box in at.selectbox
                  if box.key and box.key.startswith("colmap_"))


def _uploaded_with_choices() -> AppTest:
    """A session that uploaded qrels and three runs, mapped the CSV runs' columns, kept the
    highest score of a repeated document, and set k and the relevance level."""
    at = _open({"dataset": "upload"})
    at.radio(key="upload_duplicates").set_value("max")
    at.file_uploader(key="upload_qrels").set_value(("qrels.txt", QRELS, "text/plain"))
    at.file_uploader(key="upload_runs").set_value([("mine.txt", TREC_RUN, "text/plain"),
                                                   ("bm25.csv", CSV_RUN, "text/csv"),
                                                   ("bm25.csv", CSV_RUN, "text/csv")])
    at.run()
    for box in at.selectbox:
        if box.key and box.key.startswith("colmap_") and box.value is None:
            box.set_value({"doc": "passage", "score": "bm25"}[box.label])
    at.number_input(key="k").set_value(3)
    at.number_input(key="rel_level").set_value(2)
    at.run()
    assert_no_trouble(at)
    return at


def test_a_reload_restores_the_uploads_and_every_setting():
    first = _uploaded_with_choices()
    link = _link(first)
    assert link["dataset"] == "upload" and re.fullmatch(r"[0-9a-f]{16}", link["upload_key"])
    before = shown_table(first.dataframe[0])
    assert before["run"].tolist() == ["mine", "bm25", "bm25 (2)"]

    again = _open(link)
    assert_no_trouble(again)
    assert again.radio(key="dataset").value == "upload"
    assert again.number_input(key="k").value == 3 and again.number_input(key="rel_level").value == 2
    assert again.radio(key="upload_duplicates").value == "max"
    assert _colmap(again) == _colmap(first) == sorted(
        [("query", "qid"), ("doc", "passage"), ("score", "bm25")] * 2)
    assert any("Still using the files uploaded before: qrels.txt, mine.txt, bm25.csv, bm25.csv"
               in c.value for c in again.sidebar.caption)
    # the same runs and the same numbers on the Overview, and a link naming the same data
    assert shown_table(again.dataframe[0]).equals(before)
    assert _link(again) == link
    # a bundled dataset's link names no uploads
    first.radio(key="dataset").set_value("trec_eval").run()
    assert_no_trouble(first)
    assert "upload_key" not in _link(first) and first.query_params["dataset"] == "trec_eval"


def test_a_link_whose_uploads_are_gone_says_so_and_offers_the_uploads():
    at = _open({"dataset": "upload", "upload_key": "0123456789abcdef"})
    assert not at.exception and not at.error
    infos = [i.value for i in at.info]
    assert ("The uploaded data of this link is no longer on this server (kept up to 2 hours). "
            "Upload the files again.") in infos
    assert at.file_uploader(key="upload_qrels") is not None
    assert at.file_uploader(key="upload_runs") is not None
    # uploading answers the link: the page works and the link names the new data
    at.file_uploader(key="upload_qrels").set_value(("qrels.txt", QRELS, "text/plain"))
    at.file_uploader(key="upload_runs").set_value([("bm25.csv", CSV_RUN.replace(b"passage", b"doc")
                                                    .replace(b"bm25\n", b"score\n"), "text/csv")])
    at.run()
    assert_no_trouble(at)
    assert at.dataframe[0].value["run"].tolist() == ["bm25"]
    assert at.query_params["upload_key"] != "0123456789abcdef"


def test_forgetting_the_uploads_takes_their_key_out_of_the_link():
    at = _open(_link(_uploaded_with_choices()))
    at.button(key="forget_uploads").click().run()
    assert not at.exception
    assert "upload_key" not in _link(at)
    assert any("Upload a qrels file" in i.value for i in at.info)


def test_a_bundled_dataset_and_back_brings_the_uploads_back():
    """Issue 20: "Upload your own" after a bundled dataset shows the uploads kept in the
    server's store (files, column mapping, duplicates choice), not the empty upload form."""
    at = _uploaded_with_choices()
    link = _link(at)
    before = shown_table(at.dataframe[0])
    at.radio(key="dataset").set_value("llmjudge").run()
    assert_no_trouble(at)
    assert "upload_key" not in _link(at)
    at.radio(key="dataset").set_value("upload").run()
    assert_no_trouble(at)
    assert not any("Upload a qrels file" in i.value for i in at.info)
    assert any("Still using the files uploaded before: qrels.txt, mine.txt, bm25.csv, bm25.csv"
               in c.value for c in at.sidebar.caption)
    assert at.radio(key="upload_duplicates").value == "max"
    assert _colmap(at) == sorted([("query", "qid"), ("doc", "passage"), ("score", "bm25")] * 2)
    assert shown_table(at.dataframe[0]).equals(before)
    assert _link(at)["upload_key"] == link["upload_key"]
    # removing them afterwards still empties the form (the kept files are not forced back)
    at.button(key="forget_uploads").click().run()
    assert any("Upload a qrels file" in i.value for i in at.info)


@pytest.mark.parametrize("how", ["menu", "link"])
def test_uploads_start_at_the_relevance_level_of_the_other_doors(how):
    """Issue 29 item 7: after LLMJudge (level 2) an upload kept level 2, while the CLI (-l)
    and tiedrank.evaluate (rel_level=) default to 1: the same files gave other numbers."""
    at = new_app().run()
    assert at.number_input(key="rel_level").value == 2  # LLMJudge's own level
    if how == "menu":
        at.radio(key="dataset").set_value("upload").run()
    else:
        at = _open({"dataset": "upload"})
    at.file_uploader(key="upload_qrels").set_value(("qrels.txt", QRELS, "text/plain"))
    at.file_uploader(key="upload_runs").set_value([("mine.txt", TREC_RUN, "text/plain")])
    at.radio(key="upload_duplicates").set_value("max")
    at.run()
    assert_no_trouble(at)
    assert at.number_input(key="rel_level").value == 1
