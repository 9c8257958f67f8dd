"""The values a subcommand's flags become: parsed once, at the door, then handed down.

Each subcommand's handler (``evaluate``'s ``_evaluate``, ``compare``'s ``_compare``, ...) is
the one function that reads the :class:`argparse.Namespace`: it turns the flags into the
engine's :class:`~tiedrank.core.options.EvaluationOptions` (:func:`tiedrank.cli._common.
evaluation_options`) and the frozen values below, and passes those on. Nothing past it reads
or writes the namespace (``tests/cli/test_cli_values.py`` checks it).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.peers import MetricRequest


@dataclass(frozen=True)
class Output:
    """How results are printed: ``--format``, ``--digits``, ``-q`` and ``-n``."""

    format: str = "table"
    digits: int | str = 4
    per_query: bool = False
    no_summary: bool = False


@dataclass(frozen=True)
class Scaling:
    """``--buckets``, ``--dask``, ``--dask-timeout``, ``--out`` and ``--spill-dir``.

    ``buckets_given`` tells ``--buckets auto`` (``buckets`` None) from no ``--buckets``."""

    buckets_given: bool = False
    buckets: int | None = None
    dask: str | None = None
    timeout: float | None = None
    out: str | None = None
    spill_dir: str | None = None

    @property
    def asked(self) -> bool:
        """Whether any of them was given (else the one-pass path runs)."""
        return self.buckets_given or self.dask is not None or self.out is not None


@dataclass(frozen=True)
class EvaluateRequest:
    """What ``tiedrank evaluate`` was asked, past its flags: the input paths, the metrics
    (``-m``, read once: :class:`~tiedrank.core.peers.MetricRequest`, with ``-N`` applied in
    ``metrics``), how to print and how to scale."""

    qrels: str
    runs: tuple[str, ...]
    request: MetricRequest
    metrics: tuple[Any, ...]
    output: Output
    scaling: Scaling
    subtopics: bool = False


@dataclass(frozen=True)
class CompareRequest:
    """What ``tiedrank compare`` was asked, past its flags (the options aside)."""

    qrels: str
    baseline: str
    runs: tuple[str, ...]
    metrics: tuple[str, ...]
    policy: str
    test: str
    correction: str
    alpha: float
    all_pairs: bool
    seed: int
    draws: int
    resamples: int
    gain: str
    rel_level: int
    output: Output


@dataclass(frozen=True)
class DocsRequest:
    """What ``tiedrank docs`` was asked, past its flags (the options aside)."""

    qrels: str
    run: str
    query: str
    corpus: str | None
    queries: str | None
    top: int
