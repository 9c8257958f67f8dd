"""Remedies are fields, worded by each door: no door rewrites a message's text.

An error that says what to set (``duplicates='max'``, a ``columns=`` mapping, a longer
``timeout=``, ``ties='trec_eval'``) keeps a :class:`~tiedrank.core.errors.Remedy`; Python
shows ``pass duplicates='max'``, the CLI words the same fields as its flags. The oracle is the
remedy's fields themselves, not a pattern over the English.
"""
import pickle
import subprocess
import sys

import pytest

from tiedrank.cli._common import cli_message, cli_remedy
from tiedrank.core.errors import InputError, Remedied, Remedy, RemediedValueError
from tiedrank.distributed.cluster import SchedulerUnreachable
from tiedrank.io import read_qrels, read_run

TRICKY = "pass duplicates='max'"  # a document id that reads like the Python remedy


def _error(call) -> BaseException:
    with pytest.raises(ValueError) as caught:
        call()
    return caught.value


def test_a_duplicate_document_names_its_remedy_in_each_doors_words():
    error = _error(lambda: read_run(b"q1 Q0 d1 1 2.0 r\nq1 Q0 d1 2 1.0 r\n"))
    assert error.remedy == Remedy("duplicates", "max", "to keep the highest score")
    assert str(error).endswith("; pass duplicates='max' to keep the highest score)")
    assert cli_message(error) == str(error).replace("pass duplicates='max'", "add --duplicates max")


def test_the_cli_words_the_remedy_never_the_users_text(tmp_path):
    # the document id itself reads like the remedy: only the remedy is worded as a flag
    # (a pattern over the message turned the id into "add --duplicates max")
    run = tmp_path / "run.csv"
    run.write_text(f'query,doc,score\nq1,"{TRICKY}",2\nq1,"{TRICKY}",1\n')
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 x 1\n")
    done = subprocess.run([sys.executable, "-m", "tiedrank", "evaluate", str(qrels), str(run),
                           "-m", "RR"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert repr(TRICKY) in done.stderr  # the id, as the file has it
    assert done.stderr.rstrip().endswith("add --duplicates max to keep the highest score)")


@pytest.mark.parametrize("reader, data, flag", [
    (read_run, b"qid,doc,value\nq1,d1,1\n", "--columns score=<column>"),
    (read_qrels, b"query,doc,verdict\nq1,d1,1\n", "--qrels-columns relevance=<column>"),
])
def test_missing_columns_name_the_readers_mapping(reader, data, flag):
    error = _error(lambda: reader(data, format="csv"))
    assert error.remedy.parameter == "columns" and error.remedy.function == reader.__name__
    assert f"or pass columns={error.remedy.value!r} to {reader.__name__})" in str(error)
    assert cli_message(error).endswith(f"or add {flag})")
    assert "found columns:" in error.expected  # the reader's own words stay as they are


def test_scheduler_timeout_and_tie_policy_remedies():
    error = SchedulerUnreachable("cannot reach the Dask scheduler; ")
    assert str(error) == "cannot reach the Dask scheduler; pass timeout=SECONDS to wait longer."
    assert cli_message(error) == ("cannot reach the Dask scheduler; add --dask-timeout SECONDS "
                                  "to wait longer.")
    error = RemediedValueError("G: too many; ", Remedy("ties", "trec_eval", "to score G"),
                               ", or merge grades")
    assert cli_message(error) == "G: too many; add --ties trec_eval to score G, or merge grades"
    # a parameter the CLI has no flag for keeps the Python wording
    assert cli_remedy(Remedy("spill_dir", "/big")) == "pass spill_dir='/big'"


@pytest.mark.parametrize("error", [
    InputError("duplicate document within a query", source="r.txt", line=3, text="q1 Q0 d1",
               expected="each document at most once per query",
               remedy=Remedy("duplicates", "max", "to keep the highest score")),
    InputError("empty file", source="r.txt"),
    RemediedValueError("G: too many; ", Remedy("ties", "trec_eval"), "."),
    SchedulerUnreachable("cannot reach; "),
])
def test_errors_cross_processes_whole(error):
    # what a Dask worker raises reaches the client with its message and fields
    # (an InputError used to come back as "<input>: r.txt, line 3: ...")
    back = pickle.loads(pickle.dumps(error))
    assert type(back) is type(error) and str(back) == str(error)
    assert isinstance(back, Remedied) and back.remedy == error.remedy
    assert back.worded_with(cli_remedy) == error.worded_with(cli_remedy)
