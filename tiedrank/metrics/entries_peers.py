"""The entries of the registry for measures other tools print beyond trec_eval: ir_measures'
``Judged@k``, TRM's and McSherry & Najork's ``F1@k``, ``NCG@k``, and gdeval's ``ERR@k`` with
its normalisation ``nERR@k``, each tie-aware (kernels in :mod:`tiedrank.metrics.peer_kernels`
and :mod:`tiedrank.metrics.cascade`).
"""
from __future__ import annotations

from .registry import register  # noqa: F401
