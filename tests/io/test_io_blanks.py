"""One whitespace rule for every TREC reader path (issue 29, item 5).

``printf 'q1 Q0 d1\\x0b 1 2.0 r\\n'``: the vertical tab is a blank to trec_eval (C's
``isspace``), so the docno is ``d1``; the fast path split on spaces only and kept ``d1\\v``,
so the run missed its relevant document (RR 0 where trec_eval gives 1). Files whose fields
are separated by any mix of space, tab, vertical tab and form feed are read here as
trec_eval splits them, by the fast path, the slow path, gzip, qrels and the buckets alike.
"""
from __future__ import annotations

import gzip
import random
import re

import pytest

from tiedrank import evaluate, read_qrels, read_run
from tiedrank.distributed import evaluate as evaluate_in_buckets

SEPARATORS = [" ", "\t", "\v", "\f", "  ", " \v", "\f ", "\t\v", "\v ", " \f\t"]
_ISSPACE = re.compile(r"[ \t\v\f\r]+")


def _oracle(text: str) -> list[list[str]]:
    """trec_eval's reading: fields split on C's isspace, blank lines skipped."""
    return [_ISSPACE.split(line.strip(" \t\v\f\r")) for line in text.split("\n")
            if line.strip(" \t\v\f\r")]


def _file(rng: random.Random, ncols: int, rows: int) -> str:
    """Mostly one separator (so that the fast path is tried), with a few odd lines."""
    usual = rng.choice([" ", "\t"])
    lines = []
    for row in range(rows):
        fields = [f"q{row % 3}", "Q0" if ncols == 6 else "0", f"d{row}"]
        fields += [str(row + 1), f"{rng.randint(0, 5)}.5", "tag"] if ncols == 6 \
            else [str(rng.randint(0, 3))]
        odd = rng.random() < 0.15
        if odd and rng.random() < 0.5:  # the usual separator beside a \v or \f: one field
            blanks = [rng.choice([usual + "\v", "\f" + usual, usual]) for _ in fields[1:]]
        else:
            blanks = [rng.choice(SEPARATORS) if odd else usual for _ in fields[1:]]
        line = fields[0] + "".join(b + f for b, f in zip(blanks, fields[1:]))
        if odd and rng.random() < 0.5:
            line = rng.choice(SEPARATORS) + line + rng.choice(SEPARATORS)
        lines.append(line)
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("kind", ["run", "qrels"])
@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gzip"])
def test_every_path_splits_fields_as_trec_eval(kind, compress):
    rng = random.Random(5)
    ncols = 6 if kind == "run" else 4
    for _ in range(60):
        text = _file(rng, ncols, rng.randint(1, 12))
        data = text.encode()
        frame = (read_run if kind == "run" else read_qrels)(
            gzip.compress(data) if compress else data).frame
        expected = _oracle(text)
        assert frame["query"].tolist() == [f[0] for f in expected], repr(text)
        assert frame["doc"].tolist() == [f[2] for f in expected], repr(text)
        values = frame["score" if kind == "run" else "relevance"].tolist()
        assert values == [float(f[4]) if kind == "run" else int(f[3]) for f in expected]


@pytest.mark.parametrize("blank", ["\v", "\f"], ids=["vertical tab", "form feed"])
def test_the_issue_case_scores_as_trec_eval_in_one_pass_and_in_buckets(tmp_path, blank):
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\nq2 0 d3 1\n")
    run = tmp_path / "run"
    run.write_text(f"q1 Q0 d1{blank} 1 2.0 r\nq1 Q0 d2 2 1.0 r\n"
                   "q2 Q0 d3 1 2.0 r\nq2 Q0 d4 2 1.0 r\n")
    assert read_run(run).frame["doc"].tolist() == ["d1", "d2", "d3", "d4"]
    one_pass = evaluate([run], qrels, ["RR"]).per_query["value"].tolist()
    assert one_pass == [1.0, 1.0]  # trec_eval: recip_rank 1 for both queries
    # buckets read the file in blocks, each choosing its own path
    bucketed = evaluate_in_buckets([run], qrels, ["RR"], buckets=2, block_bytes=40)
    assert sorted(bucketed.per_query["value"].tolist()) == [1.0, 1.0]
