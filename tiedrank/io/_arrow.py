"""Small Arrow helpers shared by the readers, the duplicate check and the writers."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

# pandas' default string dtype in pandas 3 ("str"): pyarrow-backed, NaN as missing value.
STR_DTYPE = pd.StringDtype(storage="pyarrow", na_value=np.nan)


def first_true(mask: pa.ChunkedArray | pa.Array | np.ndarray) -> int | None:
    """Index of the first true value (null counts as false), or None.

    Examples
    --------
    >>> first_true(pa.array([False, None, True])), first_true(np.array([False]))
    (2, None)
    """
    if isinstance(mask, np.ndarray):
        hits = np.flatnonzero(mask)
        return int(hits[0]) if len(hits) else None
    index = pc.index(pc.fill_null(mask, False), True).as_py()
    return None if index < 0 else index


def is_text(kind: pa.DataType) -> bool:
    """Whether an Arrow type is a (large) UTF-8 string."""
    return pa.types.is_string(kind) or pa.types.is_large_string(kind)


def decode(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """Dictionary-encoded and string-view columns as plain columns of their values."""
    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    if pa.types.is_string_view(column.type):
        column = column.cast(pa.string())
    return column


def integral(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """Per value of a float column: finite and a whole number."""
    return pc.and_(pc.is_finite(column), pc.equal(pc.floor(column), column))


def string_layout(chunk: pa.Array) -> tuple[np.ndarray, pa.Buffer]:
    """A string array's offsets (int64, ``len(chunk) + 1`` of them) and its data buffer.

    The offsets index the data buffer directly (an array slice keeps its parent's buffers).

    Examples
    --------
    >>> offsets, data = string_layout(pa.array(["ab", "", "cde"]).slice(1))
    >>> offsets.tolist(), data.to_pybytes()[offsets[0]:offsets[-1]]
    ([2, 2, 5], b'cde')
    """
    large = pa.types.is_large_string(chunk.type)
    _, offsets_buffer, data_buffer = chunk.buffers()
    offsets = np.frombuffer(offsets_buffer, dtype=np.int64 if large else np.int32,
                            count=len(chunk) + 1, offset=chunk.offset * (8 if large else 4))
    return offsets.astype(np.int64), data_buffer


def to_frame(table: pa.Table, names: tuple[str, ...]) -> pd.DataFrame:
    """A pandas frame with pandas' default string dtype for text and columns ``names``."""
    frame = table.to_pandas(types_mapper=lambda t: STR_DTYPE if is_text(t) else None)
    frame.columns = list(names)
    return frame
