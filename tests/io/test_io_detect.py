"""Format detection and the format= option."""
from __future__ import annotations

import gzip

import pandas as pd
import pytest

from tiedrank.io import detect_format, list_columns, read_qrels, read_run
from tiedrank.core.validation import InvalidParameterError

from io_support import GOOD, error_of

# ------------------------------------------------------------------------------------------
# Detection
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("data, name, expected", [
    (b"q Q0 d 1 1.5 tag\n", None, "trec_run"),
    (b"\n\n301\tQ0\td\t1\t  1.5\tSTANDARD\n", "results.test", "trec_run"),
    (b"q 0 d 1\n", "qrels.txt", "trec_qrels"),
    (b"q 0 d,1 1\n", None, "trec_qrels"),                       # a comma inside an id
    (b"q Q0 d 1 1.5 tag\n", "run.csv", "csv"),                  # the extension decides
    (b"anything", "x.parquet", "parquet"),
    (b"anything", "x.ndjson", "jsonl"),
    (b"anything", "x.TSV.gz", "tsv"),
    (b"PAR1....", "run.txt", "parquet"),                        # magic beats extension
    (b'  {"qid": 1}\n', None, "jsonl"),
    (b"qid,docno,score\n1,a,2\n", "run.txt", "csv"),
    (b"qid\tdocno\tscore\n1\ta\t2\n", None, "tsv"),
    (b"query id\tdoc id\tscore\n", None, "tsv"),
    (gzip.compress(b"qid,docno,score\n1,a,2\n", mtime=0), None, "csv"),  # fixed mtime: one test id in every xdist worker
])
def test_detect_format(data, name, expected):
    assert detect_format(data, name) == expected


def test_explicit_format_overrides_detection():
    run = read_run(b"q Q0 d 1 1.5 tag\n", format="TREC_RUN", source_name="x.csv")
    assert len(run) == 1
    exc = error_of(read_run, b"q Q0 d 1 1.5 tag\n", format="trec_qrels")
    assert exc.problem == "wrong number of columns (found 6)"


@pytest.mark.parametrize("data", [b"hello world\n", b"a,1\nb,2\n", b"1 2 3\n",
                                  b"\x80\x04\x95pickle\x00", b"PK\x03\x04zip"])
def test_unknown_format(data):
    exc = error_of(read_run, data)
    assert exc.problem == "unknown format"
    for accepted in ("TREC run", "TREC qrels", "CSV", "TSV", "Parquet", "JSON lines"):
        assert accepted in exc.expected


ALLOWED_FORMATS = ("one of 'trec_run', 'trec_qrels', 'csv', 'tsv', 'parquet', 'jsonl', 'json' "
                   "or None")


@pytest.mark.parametrize("reader", [read_run, read_qrels, list_columns])
def test_unknown_format_name(reader):
    """format= is an option: a bad one reads like every other option error."""
    with pytest.raises(InvalidParameterError) as info:
        reader(GOOD, format="xlsx")
    assert str(info.value) == f"{reader.__name__}(): format= must be {ALLOWED_FORMATS}; got 'xlsx'"
    with pytest.raises(InvalidParameterError):  # checked whatever the source
        reader(pd.DataFrame({"qid": ["q"], "docno": ["d"], "score": [1.0]}), format=3)
