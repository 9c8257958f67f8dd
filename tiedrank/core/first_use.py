"""Dataclass fields made on first use: :class:`MadeOnFirstUse`.

A field whose value is costly and often never read (a 7M-line table's ``group_above``,
37 MB; the per-query frame of ``-m all_trec``, 2.5M rows) is given a placeholder when the
object is made; the descriptor makes the value the first time the field is read, keeps it
in the instance and hands it out from then on. Frozen dataclasses allow it: the value is
kept in the instance's ``__dict__``, as the dataclass's own ``__init__`` stores it.

Examples
--------
>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Box:
...     size: int
...     area: int = MadeOnFirstUse(lambda box, stored: box.size ** 2)
>>> Box(3, area=None).area, Box(3, area=10).area
(9, 10)
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any


class MadeOnFirstUse:
    """A dataclass field descriptor: a stored value that is a placeholder (``None``, or
    whatever ``pending`` says) is replaced by ``make(instance, stored)`` when first read.

    The field has no default: a dataclass asks the descriptor for one at class creation,
    and the ``AttributeError`` it gets says there is none, so the field stays required.
    """

    def __init__(self, make: Callable[[Any, Any], Any],
                 pending: Callable[[Any], bool] = lambda stored: stored is None) -> None:
        self.make, self.pending = make, pending

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = f"_{name}"

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            raise AttributeError("a required field")  # no default (dataclasses asks)
        stored = instance.__dict__[self.slot]
        if self.pending(stored):
            stored = instance.__dict__[self.slot] = self.make(instance, stored)
        return stored

    def __set__(self, instance: Any, value: Any) -> None:
        instance.__dict__[self.slot] = value
