"""One JSON object ``{query: {doc: value}}`` (ranx's JSON files) is detected and read with the
checks of every other format; JSON lines stay JSON lines. (Files written by ranx itself:
tests/interop/test_interop_ranx_forms.py.)"""
from __future__ import annotations

import json

import pytest

from tiedrank import read_qrels, read_run
from tiedrank.core.errors import InputError
from tiedrank.io import detect_format

NESTED = {"q1": {"d1": 2.5, "d2": 1.0}, "q2": {"d1": 0.5}}


@pytest.mark.parametrize("indent", [None, 2])
def test_nested_object_is_read_as_the_dict_itself(tmp_path, indent):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(NESTED, indent=indent))
    assert detect_format(path.read_bytes(), "run.json") == "json"
    run = read_run(path)
    assert run.frame.values.tolist() == read_run(NESTED).frame.values.tolist()
    assert run.name == "run"  # no tag in the object: the file stem
    qrels = read_qrels(json.dumps({"q1": {"d1": 2, "d2": 0}}, indent=indent).encode())
    assert qrels.frame.values.tolist() == [["q1", "d1", 2], ["q1", "d2", 0]]


def test_json_lines_are_still_json_lines():
    assert detect_format(b'{"query": "q1", "doc": "d1", "score": 1.5}\n') == "jsonl"


@pytest.mark.parametrize("data, reader, words", [
    (b'{"q1": {"d1": "high"}}', read_run, "non-numeric score"),
    (b'{"q1": {"d1": 1.5}}', read_qrels, "grade"),
    (b'{"q1": {"d1": 1.0,}}', read_run, "invalid JSON"),
    (b'{\n  "q1": {"d1": 1},\n  "q2": [1]\n}', read_run, "query 'q2' maps to"),
    (b'{"q1": {}}', read_run, "empty input"),
])
def test_bad_objects_name_the_problem(data, reader, words):
    with pytest.raises(InputError, match=words):
        reader(data)
