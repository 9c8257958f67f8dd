"""Long ids: reading cost is linear in the bytes whatever the longest id, and format
detection reads whole first lines (a long id on line 1 is data, not an unknown format)."""
from __future__ import annotations

import gzip

import pytest

from tiedrank import read_qrels, read_run


def test_long_ids_are_compared_whole_in_the_duplicate_check():
    """The tail of a long id is hashed in one pass (cost linear in the bytes); a repeat is
    still found, and ids that differ only far into the tail are still told apart."""
    import pyarrow as pa

    from tiedrank.core.errors import InputError
    from tiedrank.io.duplicates import hash_strings

    base = "d" * 70_000
    ids = [base + "x", base + "y", base[:-9] + "y" + "d" * 9 + "x", "short", base + "x"]
    hashes = hash_strings(pa.chunked_array([ids[:2], ids[2:]]))
    assert hashes[0] == hashes[4] and len(set(hashes[:4].tolist())) == 4
    text = "".join(f"q Q0 {d} {i} 1.0 r\n" for i, d in enumerate(ids[:4]))
    assert len(read_run(text.encode()).frame) == 4
    with pytest.raises(InputError, match="line 5: duplicate document within a query"):
        read_run((text + f"q Q0 {ids[4]} 5 0.5 r\n").encode())



@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gzip"])
def test_a_long_id_on_line_one_is_detected_as_trec(tmp_path, compress):
    text = f"q Q0 {'y' * 300_000} 1 1.0 r\nq Q0 a 2 0.5 r\n".encode()
    qrels = f"q 0 {'y' * 300_000} 1\nq 0 a 0\n".encode()
    if compress:
        text, qrels = gzip.compress(text), gzip.compress(qrels)
    (tmp_path / "run").write_bytes(text)
    (tmp_path / "qrels").write_bytes(qrels)
    run = read_run(str(tmp_path / "run"))
    assert run.frame["doc"].str.len().tolist() == [300_000, 1]
    assert read_qrels(str(tmp_path / "qrels")).frame["relevance"].tolist() == [1, 0]
