"""Issue 41 item 4, "a lesson in a link": the ``lesson=`` parameter that carries Learn's
scenario, controls and edited toy table. Any table the page can hold encodes and decodes to
itself within the size bound; a malformed, oversized or later-versioned parameter gives the
page's one message and the seed, and no string whatsoever raises."""
from __future__ import annotations

import re
from urllib.parse import quote

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_profiles import examples
from tiedrank.dashboard import learn, walkthrough
from tiedrank.dashboard.learn import (
    LESSON_MAX_CHARS,
    LESSON_MAX_ROWS,
    Lesson,
    decode_lesson,
    encode_lesson,
    lesson_rows,
)

URL_SAFE = re.compile(r"[A-Za-z0-9._~-]*")  # RFC 3986's unreserved characters: nothing to escape

texts = st.one_of(st.none(), st.text(min_size=1, max_size=12).map(str.strip).filter(bool))
scores = st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False))
rows = st.tuples(texts, scores, texts).filter(lambda row: any(v is not None for v in row))
lessons = st.builds(
    Lesson, scenario=st.sampled_from(list(learn.SCENARIOS)), k=st.integers(1, 50),
    alpha=st.floats(0.01, 100), rel_level=st.integers(1, 10),
    gain=st.sampled_from(learn.LESSON_GAINS), rows=st.lists(rows, max_size=LESSON_MAX_ROWS).map(tuple))


def _length(lesson: Lesson) -> int:
    """The encoded length, counted another way: a text's character is one character or
    ``_XX`` per UTF-8 byte, as ``quote`` writes ``%XX``, except that ``_`` and ``~`` are escaped."""
    def text(value):
        return 0 if value is None else len(quote(value, safe="")) + 2 * sum(c in "_~" for c in value)

    def number(value):
        return 0 if value is None else len(repr(float(value)).replace("e+", "e"))

    head = ["v1", lesson.scenario, str(lesson.k), repr(lesson.alpha), str(lesson.rel_level), lesson.gain]
    cells = sum(text(d) + number(s) + text(g) for d, s, g in lesson.rows)
    return sum(map(len, head)) + cells + 5 + 3 * len(lesson.rows)


@settings(max_examples=examples(300, deep=3000))
@given(lessons)
def test_a_lesson_encodes_and_decodes_to_itself_within_its_bound(lesson):
    encoded = encode_lesson(lesson)
    if encoded is None:  # too big to travel: only past the character bound
        assert _length(lesson) > LESSON_MAX_CHARS
        return
    assert len(encoded) == _length(lesson)
    assert len(encoded) <= LESSON_MAX_CHARS and URL_SAFE.fullmatch(encoded)
    assert encoded.startswith("v1~")
    assert decode_lesson(encoded) == (lesson, None)


@settings(max_examples=examples(100, deep=1000))
@given(st.lists(st.tuples(st.text(alphabet="abcd_ -", min_size=1, max_size=4).map(str.strip)
                          .filter(bool), scores, st.sampled_from(["0", "1", "2", "1.5", "x", None])),
                min_size=1, max_size=8))
def test_an_editor_table_comes_back_as_the_same_table(table):
    """The page's side: the editor's frame -> the link -> the editor's frame, the same rows
    (so the same edit: ``table_rows`` is how the page compares tables)."""
    frame = learn.editor_frame(pd.DataFrame(table, columns=["doc", "score", "grade"]))
    lesson = Lesson("S1", rows=lesson_rows(frame))
    back = decode_lesson(encode_lesson(lesson))[0]
    assert learn.table_rows(back.frame()) == learn.table_rows(frame)


def test_the_seed_scenarios_are_short_readable_links():
    encoded = encode_lesson(Lesson("S1", rows=lesson_rows(learn.SCENARIOS["S1"].frame())))
    assert encoded == "v1~S1~3~1.0~1~linear~d1~0.9~0~d2~0.8~1~d3~0.7~0~d4~0.6~0~d5~0.5~0"
    assert encode_lesson(Lesson(rows=(("doc_1 ü", 1e300, "<b>2</b>"),))).endswith(
        "~doc_5F1_20_C3_BC~1e300~_3Cb_3E2_3C_2Fb_3E")


def test_a_lesson_past_its_bounds_does_not_travel():
    many = Lesson(rows=tuple((f"d{i}", 0.5, "0") for i in range(LESSON_MAX_ROWS + 1)))
    assert encode_lesson(many) is None
    assert encode_lesson(Lesson(rows=(("x" * LESSON_MAX_CHARS, 0.5, "1"),))) is None
    fifty = Lesson(rows=tuple((f"d{i}", 0.5, "0") for i in range(LESSON_MAX_ROWS)))
    assert decode_lesson(encode_lesson(fifty))[0] == fifty


SEED_MESSAGE = "so Learn opens on the seed scenario S2"
BAD = {
    "empty": "",
    "no version": "S1~3~1.0~1~linear",
    "version zero": "v0~S1~3~1.0~1~linear",
    "unknown scenario": "v1~S9~3~1.0~1~linear",
    "k out of range": "v1~S1~51~1.0~1~linear",
    "k not whole": "v1~S1~2.5~1.0~1~linear",
    "alpha zero": "v1~S1~3~0~1~linear",
    "alpha infinite": "v1~S1~3~inf~1~linear",
    "level too high": "v1~S1~3~1.0~11~linear",
    "gain": "v1~S1~3~1.0~1~log",
    "a row cut short": "v1~S1~3~1.0~1~linear~d1~0.5",
    "score not a number": "v1~S1~3~1.0~1~linear~d1~nan~1",
    "score with underscores": "v1~S1~3~1.0~1~linear~d1~1_0~1",
    "bad escape": "v1~S1~3~1.0~1~linear~d_G1~0.5~1",
    "lower-case escape": "v1~S1~3~1.0~1~linear~d_c3~0.5~1",
    "not UTF-8": "v1~S1~3~1.0~1~linear~d_FF~0.5~1",
    "markup unescaped": "v1~S1~3~1.0~1~linear~<script>~0.5~1",
    "too many rows": "v1~S1~3~1.0~1~linear" + "~d~0.5~0" * (LESSON_MAX_ROWS + 1),
    "too long": "v1~S1~3~1.0~1~linear~" + "d" * LESSON_MAX_CHARS + "~0.5~1",
}


@pytest.mark.parametrize("text", BAD.values(), ids=BAD.keys())
def test_a_bad_parameter_gives_one_message_and_no_lesson(text):
    lesson, message = decode_lesson(text)
    assert lesson is None and SEED_MESSAGE in message


def test_a_later_version_says_so():
    lesson, message = decode_lesson("v2~S1~3~1.0~1~linear~d1~0.9~1~new-field")
    assert lesson is None and "newer version of tiedrank" in message and "v2" in message
    assert SEED_MESSAGE.split("so ")[1] in message


@settings(max_examples=examples(500, deep=5000))
@given(st.one_of(st.text(max_size=300), st.text(alphabet="v1~S2_0.9-eAF3", max_size=300),
                 st.lists(st.text(alphabet="0123456789.-_ABCDEFdS~", max_size=6), max_size=60)
                 .map(lambda parts: "v1~S2~3~1~1~exp~" + "~".join(parts))))
def test_no_string_makes_the_decoder_raise(text):
    lesson, message = decode_lesson(text)
    assert (lesson is None) != (message is None)
    if lesson is not None:  # whatever it read is a lesson the page can show and write again
        assert len(lesson.rows) <= LESSON_MAX_ROWS
        assert decode_lesson(encode_lesson(lesson))[0] == lesson
        lesson.frame()


def test_an_opened_lesson_undoes_to_its_scenario():
    lesson = Lesson("S1", rows=lesson_rows(learn.SCENARIOS["S1"].frame().assign(
        score=[.9, .9, .7, .6, .5])))
    history = learn.EditHistory.opened(lesson)
    assert history.editor_key == "learn_editor_S1" and history.edits == 1
    assert lesson_rows(history.base) == lesson.rows
    history.reset()
    assert lesson_rows(history.base) == lesson_rows(learn.SCENARIOS["S1"].frame())
    again = learn.EditHistory.opened(learn.seed_lesson("S1"), history)
    assert again.edits == 0 and again.editor_key == "learn_editor_S1_2"  # a key new to the session


def test_document_ids_in_the_page_s_sentences_are_text_not_markup():
    frame = pd.DataFrame({"doc": ["![x](http://t.example/p.png)", "**b**", "c"],
                          "score": [0.5, 0.5, 0.1], "grade": [1, 0, 0]})
    hint = walkthrough.ranking_hint(frame)
    assert "![x](" not in hint and "**b**" not in hint and r"\*\*b\*\*" in hint
    bad = frame.astype(object)
    bad.iat[1, 2] = "<img src=x>"
    try:
        learn.evaluate_toy(bad)
    except ValueError as err:
        message = learn.toy_problem(err, bad)
    assert "'<img" not in message and r"'\<img src=x\>'" in message and r"\*\*b\*\*" in message
