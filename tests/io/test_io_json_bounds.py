"""JSON is bounded before any parser sees it (issue 29, item 1): 20 KB of nested brackets
killed the process (Arrow's JSON reader recursed until the C stack overflowed: exit 139 on
the CLI, a dead Python process through ``tiedrank.evaluate``). Every JSON path (JSON lines,
ranx's nested JSON, list_columns, a corpus, an upload) now ends in one InputError naming the
line; the depth measured before parsing is checked against Python's own parse."""
from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from io_support import FakeUpload, error_of
from tiedrank import read_qrels, read_run
from tiedrank.io import list_columns, read_corpus
from tiedrank.io import _json
from tiedrank.core.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
QRELS = ROOT / "sample_data" / "trec_eval" / "qrels.test"
DEEP = 10_000


def _deep_line(depth: int = DEEP) -> str:
    """The issue's file: one JSON-lines record whose score nests ``depth`` lists."""
    return '{"qid":"q1","docno":"d1","score":' + "[" * depth + "]" * depth + "}\n"


@pytest.mark.parametrize("door", ["cli", "python"])
def test_the_deep_record_of_the_issue_ends_in_one_line(tmp_path, door):
    """A child process, so that a crash fails the test instead of killing pytest."""
    deep = tmp_path / "jd.jsonl"
    deep.write_text(_deep_line())
    if door == "cli":
        command = [sys.executable, "-m", "tiedrank", "evaluate", str(QRELS), str(deep)]
    else:
        command = [sys.executable, "-c",
                   "import sys, tiedrank\n"
                   "try:\n    tiedrank.evaluate([sys.argv[1]], sys.argv[2], ['RR'])\n"
                   "except tiedrank.InputError as error:\n    print(error)\n",
                   str(deep), str(QRELS)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == (2 if door == "cli" else 0), (done.returncode, done.stderr)
    message = (done.stderr if door == "cli" else done.stdout).strip()
    assert "\n" not in message and "Traceback" not in message
    assert "jd.jsonl, line 1: JSON nested 10001 levels deep" in message


DEEP_SCORE = "[" * 500 + "]" * 500


@pytest.mark.parametrize("path, reader", [
    ("run.jsonl", lambda p: read_run(p)),
    ("qrels.jsonl", lambda p: read_qrels(p)),
    ("run.jsonl", lambda p: list_columns(p)),
    ("run.jsonl", lambda p: read_run(FakeUpload("run.jsonl", Path(p).read_bytes()))),
    ("run.json", lambda p: read_run(p)),
    ("qrels.json", lambda p: read_qrels(p)),
    ("corpus.jsonl", lambda p: read_corpus(p)),
], ids=["jsonl run", "jsonl qrels", "list_columns", "upload", "ranx run", "ranx qrels",
        "corpus"])
def test_every_json_path_is_bounded(tmp_path, path, reader):
    """Line 2 nests 501 deep (Python's json would raise RecursionError past ~1000; Arrow
    would crash later): the message names the file and the line, whichever path reads it."""
    file = tmp_path / path
    if path == "corpus.jsonl":
        file.write_text('{"docno": "d0", "text": "ok"}\n{"docno": "d1", "text": '
                        f"{DEEP_SCORE}}}\n")
    elif path.endswith(".jsonl"):
        file.write_text(f'{{"qid": "q1", "docno": "d0", "relevance": 1, "score": 1}}\n'
                        f'{{"qid": "q1", "docno": "d1", "relevance": 1, "score": {DEEP_SCORE}}}\n')
    else:
        file.write_text(f'{{"q1": {{"d0": 1,\n "d1": {DEEP_SCORE}}}}}')
    message = str(error_of(reader, str(file)))
    shown = path if message.startswith(path) else str(file)  # an upload is named by its name
    assert message.startswith(f"{shown}, line 2: JSON nested "), message


def _value(rng: random.Random, depth: int):
    """A random JSON value nesting ``depth`` levels, strings full of brackets, quotes and
    backslashes (which must not count)."""
    strings = ['[', '{{', ']]', '"[', '\\', '\\"[', '\\\\', '\\\\"', 'a\\\\\\"{', "plain"]
    if depth == 0:
        return rng.choice([1, 2.5, None, True, rng.choice(strings) * rng.randint(1, 40)])
    inner = [_value(rng, depth - 1)] + [_value(rng, rng.randint(0, min(depth - 1, 2)))
                                        for _ in range(rng.randint(0, 2))]
    rng.shuffle(inner)
    if rng.random() < 0.5:
        return inner
    return {rng.choice(strings) * rng.randint(1, 5) + str(i): v for i, v in enumerate(inner)}


def _python_depth(value) -> int:
    """The oracle: the nesting of the value Python's json parsed."""
    if isinstance(value, list):
        return 1 + max((_python_depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((_python_depth(v) for v in value.values()), default=0)
    return 0


@pytest.mark.parametrize("lines", [True, False], ids=["lines", "one value"])
def test_the_depth_measured_on_bytes_is_the_depth_python_parses(lines):
    rng = random.Random(29)
    for case in range(150):
        depth = rng.choice([1, 2, 30, 62, 63, 64, 65, 66, 90])
        values = [_value(rng, rng.randint(0, depth)) for _ in range(rng.randint(0, 3))]
        values.insert(rng.randint(0, len(values)), _value(rng, depth))
        if lines:
            text = "".join(json.dumps(v) + "\n" for v in values)
        else:  # one value over several lines, as ranx indents it
            text = json.dumps(values, indent=rng.choice([None, 1]))
        if lines:  # the first record past the limit is named, with its line
            depths = [(number, _python_depth(json.loads(line)))
                      for number, line in enumerate(text.splitlines(), 1) if line.strip()]
            line, deepest = next(((n, d) for n, d in depths if d > _json.MAX_JSON_DEPTH),
                                 (None, max(d for _, d in depths)))
        else:
            line, deepest = None, _python_depth(json.loads(text))
        data = text.encode()
        if deepest > _json.MAX_JSON_DEPTH:
            with pytest.raises(InputError) as error:
                _json.check_json_depth(data, "x", lines=lines)
            assert f"JSON nested {deepest} levels deep" in str(error.value)
            assert line is None or str(error.value).startswith(f"x, line {line}:")
        else:
            _json.check_json_depth(data, "x", lines=lines)  # no false alarm


def test_slices_carry_the_depth_and_the_line_numbers(monkeypatch):
    """Big inputs are measured 16 MB at a time: the depth of one value over several slices
    adds up, and the line named is the line of the whole file."""
    monkeypatch.setattr(_json, "_CHUNK", 8)
    nested = ("[\n" * 70 + "]\n" * 70).encode()
    with pytest.raises(InputError, match="line 65: JSON nested 70 levels deep"):
        _json.check_json_depth(nested, "x", lines=False)
    records = b'{"s": 1}\n' * 5 + _deep_line(70).encode() + b'{"s": 1}\n'
    with pytest.raises(InputError, match="line 6: JSON nested 71 levels deep"):
        _json.check_json_depth(records, "x", lines=True)


def test_a_record_python_parses_is_bounded_in_size(monkeypatch):
    """Mixed types send JSON lines to Python's json, one record at a time: a record past
    MAX_JSON_RECORD is refused before it is parsed (its objects could be 20 times its text)."""
    monkeypatch.setattr(_json, "MAX_JSON_RECORD", 1000)
    data = (b'{"qid": "q1", "docno": "d1", "score": 1}\n'
            b'{"qid": 2, "docno": "d2", "score": 1, "x": [' + b"[]," * 400 + b"[]]}\n")
    error = error_of(read_run, data, format="jsonl", source_name="mixed.jsonl")
    assert str(error).startswith("mixed.jsonl, line 2: a JSON record of 1,248 bytes")
