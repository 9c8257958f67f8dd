"""trec_eval skips text after a run's tag (its own test run ``results.trunc`` has lines like
``301 Q0 FBIS3-27619 99 2.138276 STANDARD more junk``): the tag is the 6th field. tiedrank
names the run by its first line's (trec_eval's runid is the last line's: the two differ
only when the tag changes between lines)."""
from __future__ import annotations

import pandas as pd
import pytest

from tiedrank import evaluate, read_qrels, read_run
from tiedrank.core.errors import InputError

TREC = "sample_data/trec_eval"


@pytest.mark.parametrize("every", [1, 7])
def test_text_after_the_tag_changes_no_number(tmp_path, every):
    lines = open(f"{TREC}/results.test").read().splitlines()
    junk = [line + "  more\tjunk" if i % every == 0 else line for i, line in enumerate(lines)]
    path = tmp_path / "results.trunc"
    path.write_text("\n".join(junk) + "\n")
    qrels = read_qrels(f"{TREC}/qrels.test")
    plain, tailed = read_run(f"{TREC}/results.test"), read_run(path)
    assert tailed.name == "STANDARD"  # the 6th field, as trec_eval's runid
    pd.testing.assert_frame_equal(plain.frame, tailed.frame)
    a = evaluate(plain, qrels, ["AP", "P@10", "RR"], ties="all").summary
    b = evaluate(tailed, qrels, ["AP", "P@10", "RR"], ties="all").summary
    pd.testing.assert_frame_equal(a.drop(columns="run"), b.drop(columns="run"))


def test_a_short_run_line_is_still_an_error(tmp_path):
    path = tmp_path / "short.txt"
    path.write_text("q1 Q0 d1 1 2.0 tag\nq1 Q0 d2 2 1.0\n")
    with pytest.raises(InputError, match="line 2: wrong number of columns"):
        read_run(path)


def test_the_first_lines_6th_field_names_the_run(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 2.0 first  more\tjunk\nq1 Q0 d2 2 1.0 other\n")
    assert read_run(path).name == "first"
