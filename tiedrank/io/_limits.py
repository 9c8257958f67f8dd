"""The bounds on what one source may expand to in memory, which every reader applies."""
from __future__ import annotations

from dataclasses import dataclass

from ..core.errors import InputError

CHUNK = 1 << 20
"""The step of every bounded read and decompression (1 MB)."""


@dataclass
class InputLimits:
    """Bounds on what one source may expand to in memory (decompression bombs, /dev/zero).

    ``max_bytes``: the most bytes a file may hold once decompressed; ``max_ratio``: the most
    a gzip stream may expand per compressed byte once past ``ratio_floor`` bytes (TREC runs
    compress 4-10 fold; a stream of one repeated line, a thousand fold).
    """

    max_bytes: int = 4 << 30
    max_ratio: int = 200
    ratio_floor: int = 64 << 20


LIMITS = InputLimits()
"""The limits every reader applies; change them with :func:`set_input_limits`."""


def input_limits() -> InputLimits:
    """The input limits in force now (a copy: change them with :func:`set_input_limits`)."""
    return InputLimits(LIMITS.max_bytes, LIMITS.max_ratio, LIMITS.ratio_floor)


def set_input_limits(*, max_bytes: int | None = None, max_ratio: int | None = None) -> InputLimits:
    """Raise or lower the input limits (the CLI's ``--max-input-size``); returns the old ones."""
    old = input_limits()
    if max_bytes is not None:
        LIMITS.max_bytes = int(max_bytes)
    if max_ratio is not None:
        LIMITS.max_ratio = int(max_ratio)
    return old


def too_large(source: str, what: str) -> InputError:
    return InputError(f"{what} is larger than the input limit of {LIMITS.max_bytes:,} bytes",
                      source=source, expected="a smaller file, or a higher limit (CLI: "
                      "--max-input-size 8GB; Python: tiedrank.io.set_input_limits(max_bytes=...))")
