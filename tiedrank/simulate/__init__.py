"""Simulated rerankers with a tie structure you can dial, and degradation of real runs.

Split by job: :mod:`~tiedrank.simulate.rerankers` (the spec, the presets, synthetic queries
and runs), :mod:`~tiedrank.simulate.quantize` (precision casts, binning, degrading a real
run), :mod:`~tiedrank.simulate.sweep` (one spec field varied, the tie range along it) and
:mod:`~tiedrank.simulate.judge` (an LLM judge fitted to human qrels by an ordinal model
with query effects, :func:`fit_judge`, and simulated on any qrels; see docs/simulation.md).

LLM rerankers emit discrete labels (0-10, 0-3, ...), so many candidates of a query share a
score; production systems add more ties by serving scores in bfloat16 or float16. This
package produces such runs, seeded and fully reproducible, to review evaluation under ties
and to teach it.

The model (every step vectorised over all documents of all queries)
--------------------------------------------------------------------
1. **Queries** (:func:`make_queries`): every query has ``docs_per_query`` candidates, all
   judged; ``R`` of them (uniform in ``relevant_per_query``) are relevant with a grade
   1-3 drawn from ``grade_probs``, the rest are judged 0. Which document ids are
   relevant is random, so any fixed tie-break by id (trec_eval's docno order, the file
   order) is unrelated to relevance.
2. **Latent score** (:func:`simulate_run`): ``score = quality * grade + N(0, 1)``.
   ``quality`` is a signal-to-noise ratio: 0 is a random ranker, 1 separates grade 0 from
   grade 3 by three noise standard deviations.
3. **Levels** (``RerankerSpec.levels``): the latent score is cut into ``levels``
   equal-width bins over a *fixed* range and replaced by the bin index ``0..levels-1``
   (so ``levels=11`` emits labels 0-10, as an LLM asked for a 0-10 score). The range is
   ``[min(0, q*G) - 2, max(0, q*G) + 2]`` with ``q`` the quality and ``G`` the qrels'
   highest grade: the span of the noiseless scores widened by two noise standard
   deviations (``score_range`` overrides it); scores outside fall into the end bins.
   *Why a fixed range and not quantiles*: an LLM reranker labels each document on its
   own, so its label cannot depend on the other candidates. Per-query quantiles would
   give every query the same number of top labels whether or not it has relevant
   documents, and would make the tie structure independent of the reranker's quality;
   fixed bins are pointwise (rank-free), and a weak reranker then crowds its labels in
   the middle of the scale, as hedging LLMs do.
4. **Extra ties** (``RerankerSpec.tie_prob = p``): inside each query, documents are
   sorted by score (descending); every document except the top one is, independently
   with probability ``p``, *snapped* to the score of the document directly above it.
   Snaps chain, so a run of consecutive snapped documents joins the group of the first
   unsnapped document above them. Snapping merges neighbours only: it never reorders
   documents, every snap of a not-yet-tied neighbour adds a tie, ``p = 0`` changes
   nothing and ``p = 1`` ties the whole query. The uniform draw deciding each snap
   belongs to the document, so with one seed the snapped sets are nested as ``p`` grows.
5. **Precision** (``RerankerSpec.precision``): the scores are cast as a model serving
   them would; see :func:`cast_scores`. ``"float16"`` uses numpy's IEEE half cast;
   ``"bfloat16"`` rounds the float32 bit pattern to its upper 16 bits with
   round-to-nearest-even (what hardware and ``torch`` do); ``"float32"`` is a plain cast.

Seeds: each stage draws from its own stream ``numpy.random.default_rng([stage, seed])``,
so the qrels and the scores are independent even with the same ``seed``, and two specs
simulated with one seed share their noise (common random numbers): differences along a
:func:`sweep` come from the swept parameter, not from new noise.

Examples
--------
>>> run, qrels = simulate("3-point", n_queries=5, seed=1)
>>> sorted(run.frame["score"].unique().tolist())
[0.0, 1.0, 2.0]
>>> len(run), len(qrels)
(500, 500)
"""
from __future__ import annotations

from .quantize import (
           PRECISION_ALIASES,
           PRECISIONS,
           QUANTIZE_METHODS,
           bfloat16_round,
           bin_scores,
           cast_scores,
           normalize_precision,
           quantize_run,
)
from .judge import JudgeModel, fit_judge
from .rerankers import PRESETS, RerankerSpec, get_spec, make_queries, preset_table, simulate, simulate_run
from .sweep import SWEEP_COLUMNS, SWEEP_PARAMETERS, sweep

__all__ = ["JudgeModel", "PRECISIONS", "PRECISION_ALIASES", "PRESETS", "QUANTIZE_METHODS",
           "SWEEP_COLUMNS", "SWEEP_PARAMETERS", "RerankerSpec", "fit_judge", "bfloat16_round", "bin_scores", "cast_scores",
           "get_spec", "make_queries", "normalize_precision", "preset_table", "quantize_run",
           "simulate", "simulate_run", "sweep"]
