"""Random tie-breaking, exactly where possible: samplers, exact moments, lattice laws.

* :mod:`~tiedrank.sampling.sampler` — :func:`sample_run_means`, :func:`iter_query_draws`:
  seeded draws of every metric from exact per-query structure, in bounded memory;
  :func:`samplable` says which metrics they draw.
* :mod:`~tiedrank.sampling.laws` — exact per-query laws of RR, Success, P, R, Rprec.
* :mod:`~tiedrank.sampling.groups` — AP and DCG as sums of independent group terms, with
  exact means and variances.
* :mod:`~tiedrank.sampling.moments` — exact mean and variance per query and of a run's mean.
* :mod:`~tiedrank.sampling.lattice` — exact law of a run's mean (and of A - B) for Success@k,
  P@k, R@k, Rprec by convolution; RR on a rounded grid with a stated error.
* :mod:`~tiedrank.sampling.first_relevant` — exact pmf of the first relevant rank, exact
  Var[RR] and Var[P@k].
* :mod:`~tiedrank.sampling.enumeration` — every ordering of a query's ties, scored: the
  oracle of tiny cases (teaching, tests, :mod:`tiedrank.stats.exact`).
* :mod:`~tiedrank.sampling.streams` — counter-based random streams per (seed, query id).
"""
from .enumeration import MAX_ORDERINGS, count_orderings, enumerate_orderings
from .first_relevant import first_relevant_distribution, precision_variance, rr_variance
from .groups import GroupSums, group_sums
from .lattice import (
           LatticeLaw,
           WinOutcome,
           difference_law,
           lattice_win_probability,
           run_mean_law,
)
from .laws import QueryLaws, metric_laws
from .moments import (
           QueryMoments,
           RunMoments,
           normal_win_probability,
           query_moments,
           run_moments,
)
from .sampler import (
           DEFAULT_CHUNK,
           iter_query_draws,
           samplable,
           sample_query_values,
           sample_run_means,
)

__all__ = ["DEFAULT_CHUNK", "GroupSums", "LatticeLaw", "MAX_ORDERINGS", "QueryLaws", "QueryMoments",
           "RunMoments", "WinOutcome", "count_orderings", "difference_law",
           "enumerate_orderings", "first_relevant_distribution", "group_sums",
           "iter_query_draws", "lattice_win_probability", "metric_laws",
           "normal_win_probability", "precision_variance", "query_moments", "rr_variance",
           "run_mean_law", "run_moments", "samplable", "sample_query_values", "sample_run_means"]
