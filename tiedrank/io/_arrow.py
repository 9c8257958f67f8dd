"""Small Arrow helpers shared by the readers, the duplicate check and the writers."""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..core.machine import release_arrow_memory

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
    """Dictionary-encoded and string-view columns as plain columns of their values.

    A dictionary of any value type is decoded chunk by chunk, its values made plain first
    (polars' Categorical and Enum export ``dictionary<values=string_view>``, which Arrow
    can neither cast nor take from).

    >>> values = pa.array(["x", "y"], pa.string_view())
    >>> codes = pa.DictionaryArray.from_arrays(pa.array([1, 0, None], pa.uint32()), values)
    >>> decode(pa.chunked_array([codes])).to_pylist(), decode(pa.chunked_array([codes])).type
    (['y', 'x', None], DataType(string))
    """
    if pa.types.is_dictionary(column.type):
        kind = _plain(pa.array([], column.type.value_type)).type
        column = pa.chunked_array([pc.take(_plain(chunk.dictionary), chunk.indices)
                                   for chunk in column.chunks], type=kind)
    return pa.chunked_array([_plain(chunk) for chunk in column.chunks],
                            type=_plain(pa.array([], column.type)).type) \
        if _is_view(column.type) else column


def _is_view(kind: pa.DataType) -> bool:
    return pa.types.is_string_view(kind) or pa.types.is_binary_view(kind)


def _plain(array: pa.Array) -> pa.Array:
    """A string or binary view array as a plain string or binary array (others as given)."""
    if not _is_view(array.type):
        return array
    plain = pa.string() if pa.types.is_string_view(array.type) else pa.binary()
    try:
        return array.cast(plain)
    except pa.ArrowNotImplementedError:  # pyarrow before 17 cannot cast views: by value
        return pa.array(array.to_pylist(), plain)


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


def to_frame(columns: "pa.Table | list[pa.ChunkedArray]", names: tuple[str, ...]) -> pd.DataFrame:
    """A pandas frame of ``columns`` named ``names``, pandas' default string dtype for text.

    Given a list (``table.columns``, the table let go), the list is emptied column by
    column as the frame takes them: each Arrow column is freed once converted (pandas
    keeps text with 64-bit offsets, so a converted column is a new array), and the
    conversion of a 7M-line run holds one column twice at a time, not all three.

    >>> frame = to_frame([pa.chunked_array([["q"]]), pa.chunked_array([[1.5]])], ("query", "score"))
    >>> frame["query"].tolist(), frame["score"].tolist()
    (['q'], [1.5])
    """
    if isinstance(columns, pa.Table):
        columns = columns.columns
    data: dict[str, Any] = {}
    for name in names:
        column = columns.pop(0)
        data[name] = STR_DTYPE.__from_arrow__(column) if is_text(column.type) else \
            column.to_pandas()
        del column
        release_arrow_memory()  # else pyarrow's pool keeps the column for its own reuse
    return pd.DataFrame(data, copy=False)
