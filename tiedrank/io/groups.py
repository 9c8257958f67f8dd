"""Query -> group mappings (for per-group breakdowns): a CSV ``query,group`` or a dict."""
from __future__ import annotations

import io as _io
import os
from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..core.errors import InputError


def read_groups(source, *, source_name: str | None = None) -> pd.DataFrame:
    """Read a query -> group mapping: a CSV with a header holding ``query`` and ``group``.

    ``source`` is a path, bytes, a file-like, a DataFrame or a dict {query: group}. Query
    and group ids are read as strings ("NA" stays "NA"); blank lines are ignored; extra
    columns are ignored.

    Raises
    ------
    InputError
        Missing columns, an empty query or group id, or a query listed twice (names the
        line of the repeat and the line it first appeared on).

    Examples
    --------
    >>> read_groups(b"query,group\\nq1,short\\nq2,long\\n").values.tolist()
    [['q1', 'short'], ['q2', 'long']]
    """
    if isinstance(source, Mapping):
        frame = pd.DataFrame({"query": list(map(str, source)),
                              "group": list(map(str, source.values()))})
        name, offset = source_name or "<dict>", 1
    elif isinstance(source, pd.DataFrame):
        frame, name, offset = source.astype(str), source_name or "<DataFrame>", 1
    else:
        if isinstance(source, (bytes, bytearray)):
            name, handle = source_name or "<bytes>", _io.BytesIO(bytes(source))
        elif isinstance(source, (str, os.PathLike)):
            name, handle = source_name or os.fspath(source), source
        else:
            name, handle = source_name or getattr(source, "name", "<file>"), source
        try:
            # skip_blank_lines=False keeps row i on line i + 2, so errors name the true line
            frame = pd.read_csv(handle, dtype=str, keep_default_na=False,
                                skip_blank_lines=False)
        except pd.errors.EmptyDataError:
            raise InputError("empty file", source=name, expected="a header 'query,group'") from None
        except pd.errors.ParserError as error:
            raise InputError(f"unreadable CSV ({error})", source=name,
                             expected="two columns: query,group") from None
        except UnicodeDecodeError:
            raise InputError("not UTF-8 text", source=name) from None
        offset = 2
    frame = frame.rename(columns=lambda c: str(c).strip().lower())
    missing = [c for c in ("query", "group") if c not in frame.columns]
    if missing:
        raise InputError(f"missing column(s) {', '.join(missing)}", source=name, line=1,
                         text=",".join(map(str, frame.columns)),
                         expected="a header with query,group")
    frame = frame[["query", "group"]].astype(str).apply(lambda s: s.str.strip())
    frame["line"] = np.arange(len(frame)) + offset
    frame = frame[(frame["query"] != "") | (frame["group"] != "")]  # blank lines
    for column in ("query", "group"):
        empty = frame[frame[column] == ""]
        if len(empty):
            row = empty.iloc[0]
            raise InputError(f"empty {column} id", source=name, line=int(row["line"]),
                             text=f"{row['query']},{row['group']}", expected="query,group")
    repeated = frame[frame.duplicated("query", keep="first")]
    if len(repeated):
        row = repeated.iloc[0]
        first = int(frame.loc[frame["query"] == row["query"], "line"].iloc[0])
        raise InputError(f"query {row['query']!r} listed twice (first on line {first})",
                         source=name, line=int(row["line"]), text=f"{row['query']},{row['group']}",
                         expected="one group per query")
    return frame[["query", "group"]].reset_index(drop=True)
