"""The floor: the least any evaluator of a TREC run must do, timed on the same file.

Reading the three columns an evaluator needs (query id, document id, score), encoding the
query ids as integers and one sort by (query, descending score) is work that no evaluator of
a ranked run can skip; every performance figure of tiedrank is stated as a multiple of this
floor measured in the same session (issue 33).

The file is read with pyarrow's multi-threaded CSV reader (single-space separated, as
``benchmarks/generate.py`` writes and as most TREC runs are; tiedrank's own reader also
accepts any run of C ``isspace`` blanks, which this floor does not pay for), the query ids
are dictionary-encoded and ``numpy.lexsort`` orders the rows. Phases are timed in process;
as a whole process (interpreter start and imports included) time it with ``farm-bench``
beside tiedrank, in turn, so that the ratio is taken pair by pair::

    python benchmarks/floor.py benchmarks/data/full/run.txt
    farm-bench -n 5 --timeout 900 --vs "python benchmarks/floor.py RUN" -- \\
        python -m tiedrank evaluate --ties all -m RR -m P@10 -m R@100 -m AP -m nDCG@10 QRELS RUN

Prints one JSON object: rows, queries and the seconds of each phase.
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np
import pyarrow as pa
import pyarrow.csv as pv

TREC_RUN = ["query", "iteration", "document", "rank", "score", "tag"]


def floor(path: str, *, keep_order: bool = False) -> dict:
    """Read, encode and sort ``path`` (a TREC run); the seconds of each phase (and the row
    order itself under ``keep_order``, for the smoke test)."""
    started = time.perf_counter()
    table = pv.read_csv(
        path,
        read_options=pv.ReadOptions(column_names=TREC_RUN),
        parse_options=pv.ParseOptions(delimiter=" "),
        convert_options=pv.ConvertOptions(
            include_columns=["query", "document", "score"],
            column_types={"query": pa.string(), "document": pa.string(), "score": pa.float64()}))
    read = time.perf_counter()
    queries = table.column("query").combine_chunks().dictionary_encode()
    codes = queries.indices.to_numpy(zero_copy_only=False)
    encoded = time.perf_counter()
    scores = table.column("score").to_numpy()
    order = np.lexsort((-scores, codes))
    sorted_at = time.perf_counter()
    return {"rows": table.num_rows, "queries": len(queries.dictionary),
            **({"order": order} if keep_order else {}), "read_s": round(read - started, 3),
            "encode_s": round(encoded - read, 3), "sort_s": round(sorted_at - encoded, 3),
            "total_s": round(sorted_at - started, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", help="a TREC run file (6 single-space separated columns)")
    print(json.dumps(floor(parser.parse_args().run)))


if __name__ == "__main__":
    main()
