"""read_corpus against independently written files (pandas/pyarrow/gzip as the oracles)."""
import gzip
import json

import pandas as pd
import pytest

from tiedrank.core.errors import InputError
from tiedrank.io import read_corpus

DOCS = {f"D{i}": f"passage number {i} about tie\tbreaking".replace("\t", " ") for i in range(50)}


def test_tsv_gz_jsonl_parquet_agree(tmp_path):
    tsv = tmp_path / "c.tsv.gz"
    with gzip.open(tsv, "wt") as fh:
        fh.writelines(f"{d}\t{t}\n" for d, t in DOCS.items())
    jsonl = tmp_path / "c.jsonl"
    jsonl.write_text("".join(json.dumps({"_id": d, "body": t}) + "\n" for d, t in DOCS.items()))
    parquet = tmp_path / "c.parquet"
    pd.DataFrame({"docno": list(DOCS), "text": list(DOCS.values())}).to_parquet(parquet)
    wanted = ["D3", "D17", "missing"]
    expected = {d: DOCS[d] for d in ("D3", "D17")}
    for path in (tsv, jsonl, parquet):
        assert read_corpus(path, docnos=wanted) == expected
        assert read_corpus(path.read_bytes(), docnos=wanted) == expected
    assert read_corpus(tsv) == DOCS


def test_bad_line_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_text("D1\tok\nno tab here\n")
    with pytest.raises(InputError) as err:
        read_corpus(bad)
    assert err.value.line == 2 and "docno<TAB>text" in str(err.value)


def test_bundled_corpus_is_reproduced_and_covers_the_qrels(tmp_path):
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root / "scripts"))
    import make_simulated_sample

    make_simulated_sample.generate(tmp_path)
    committed = root / "sample_data" / "simulated" / "corpus.tsv.gz"
    assert (tmp_path / "corpus.tsv.gz").read_bytes() == committed.read_bytes()
    qrels = pd.read_csv(root / "sample_data" / "simulated" / "qrels.txt", sep=" ", header=None)
    assert set(read_corpus(committed)) == set(qrels[2].astype(str))


@pytest.mark.parametrize("data, problem", [
    (b"\x1f\x8b\x08\x00garbage", "gzip"),                              # a damaged gzip header
    (gzip.compress(b"d1\tthe first\n" * 2000)[:40], "gzip"),          # cut short (EOFError)
    (gzip.compress(b"d1\tx\n")[:-8] + b"\x00" * 8, "gzip"),           # a wrong checksum
    (b"PAR1 not a parquet file", "Parquet"),
], ids=["damaged", "truncated", "checksum", "parquet"])
def test_an_unreadable_corpus_is_one_clear_input_error(data, problem):
    """Found by the stateful tester (issue 28): a damaged .gz corpus made the Tie structure
    and Two runs pages "could not be drawn (EOFError)"."""
    with pytest.raises(InputError) as caught:
        read_corpus(data, docnos=["d1"])
    assert problem in str(caught.value) and "corpus" in str(caught.value)
