r"""An LLM judge fitted to human qrels, and simulated on any qrels: :func:`fit_judge`, :class:`JudgeModel`.

The model (an ordinal probit with three correlated query effects)
------------------------------------------------------------------
A judge labels document ``d`` of query ``q``, whose human grade is ``g``, by a latent

.. math::

    z_{qd} = u_q + a_q\,\mu_{g} + c_g\,\sigma_q\,\varepsilon_{qd}, \qquad
    \text{label} = \ell_k \text{ when } \tau_{k-1} < z_{qd} \le \tau_k,

with ``eps ~ N(0, 1)`` independent per document, ``mu[lowest grade] = 0``, a noise
scale ``c[g]`` per human grade (``c[lowest] = 1``; ``grade_scales=False``: all 1),
ordered thresholds ``tau_1 < ... < tau_{K-1}`` (``tau_0 = -inf``, ``tau_K = +inf``)
between the judge's ``K`` labels ``l_1 < ... < l_K`` (the distinct values it emitted),
and per-query effects:

* **leniency** ``u_q = s_u x_u``: the whole query labelled higher or lower;
* **discrimination** ``a_q = exp(s_a x_a)``: how far apart the judge puts the grades in
  this query (``a_q = 1`` in the median query);
* **spread** ``sigma_q = exp(s_w x_w)``: how widely it scatters labels within a grade,

with ``x_q = (x_u, x_a, x_w) ~ N(0, R)`` independent across queries, ``R`` a correlation
matrix (``correlated=False``: ``R = I``). Optionally (``pool_effects=True``) the mean of
``x_q`` moves with the query's pool make-up, ``x_q ~ N(gamma h_q, R)``
(:func:`~tiedrank.simulate.judge_input.pool_covariate`). A ranking's quality within a
query is driven by ``a_q / (c_g sigma_q)``, which is what makes some queries judged far
better than the pooled noise suggests and others far worse.

**Fit**: maximum marginal likelihood. Labels enter through the counts ``n[q, g, l]``; the
query effects are integrated out on a fixed trapezoidal grid over the standardised
effects (41 x 21 x 15 nodes over +-5 sd, weights ``phi_R``), with the analytic gradient
and L-BFGS-B (:mod:`~tiedrank.simulate.judge_fit`). Standard errors: the inverse observed
information (central differences of the gradient), mapped to the natural parameters
(``mu``, ``tau``, ``s``, ``c``, the correlations) by the delta method. Per-query effects:
posterior means on the grid.

**Simulation** (:meth:`JudgeModel.simulate`): per replicate, the parameters are drawn
from their estimate's normal approximation ``N(theta_hat, I^{-1})`` (parameter
uncertainty; ``parameter_uncertainty=False`` holds them), every query's effects are
drawn (from their grid posterior for queries the judge was fitted on, from the prior for
new queries), then one ``eps`` per document. Three seeded streams (parameters, query
effects, noise), so ``levels`` and ``precision`` only change how the same latent is
written out.

Examples
--------
>>> import tiedrank
>>> qrels = tiedrank.read_qrels("sample_data/llmjudge/qrels.test.txt")
>>> judge = fit_judge("sample_data/llmjudge/runs/Olz-gpt4o.txt", qrels, correlated=False)
>>> judge.labels, judge.grades
((0.0, 1.0, 2.0, 3.0), (0, 1, 2, 3))
>>> run = judge.simulate(qrels, seed=0)
>>> len(run) == len(qrels), sorted(run.frame["score"].unique().tolist())
(True, [0.0, 1.0, 2.0, 3.0])
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import special

from ..core.data import Qrels, Run
from ..core.validation import Interval, InvalidParameterError, check
from ..evaluation.inputs import read_qrels_input
from .judge_fit import (EFFECTS, CountFit, Layout, cell_log_probs, fit_counts, grid, query_log_lik,
                        query_log_weights)
from .judge_input import JudgePairs, judge_pairs, pool_covariate, target_pairs
from .quantize import LEVELS, cast_scores, normalize_precision

_STREAM_PARAMS, _STREAM_EFFECTS, _STREAM_NOISE = 20, 21, 22
_MAX_REPLICATES = 100_000


@dataclass(frozen=True, eq=False)
class JudgeModel:
    """A fitted judge (returned by :func:`fit_judge`); see the module docstring for the model.

    Attributes
    ----------
    name : str
        The judge's name (the run's name).
    labels : tuple of float
        The judge's own labels, ascending (the model's ordinal categories).
    grades : tuple of int
        The human grades it was fitted on, ascending.
    effects : tuple of str
        The query effects in the model (``"leniency"``, ``"discrimination"``, ``"spread"``).
    fit : CountFit
        Estimate ``theta``, its covariance, log-likelihood, convergence.
    queries : tuple of str
        The queries fitted on (their effects have a posterior).
    notes : tuple of str
        What the fit left out or assumed (unjudged labels, stray labels, bounds).
    """

    name: str
    labels: tuple[float, ...]
    grades: tuple[int, ...]
    effects: tuple[str, ...]
    fit: CountFit
    queries: tuple[str, ...]
    counts: np.ndarray = field(repr=False)
    grade_share: np.ndarray = field(repr=False)
    pool: np.ndarray = field(repr=False)
    pool_center: float = 0.0
    notes: tuple[str, ...] = ()

    # ---- the fit ---------------------------------------------------------------------

    @property
    def log_likelihood(self) -> float:
        """The maximised marginal log-likelihood."""
        return self.fit.log_lik

    def parameters(self) -> pd.DataFrame:
        """Natural parameters with standard errors (delta method on the inverse observed
        information): ``mu[g]``, ``tau[k]``, ``s_<effect>``.

        >>> judge = _example()
        >>> judge.parameters().columns.tolist()
        ['parameter', 'estimate', 'se']
        """
        names, values = _natural_names(self), _natural(self.fit.layout, self.fit.theta)
        jac = _jacobian(self.fit.layout, self.fit.theta)
        se = np.sqrt(np.maximum(np.diag(jac @ self.fit.cov @ jac.T), 0.0))
        return pd.DataFrame({"parameter": names, "estimate": values, "se": se})

    def confusion(self) -> pd.DataFrame:
        """Observed vs fitted label distribution per human grade on the fitted queries.

        ``fitted[g, l] = sum_q n[q, g] sum_m post_q(m) P(l | g, m) / n[g]``: the model's
        probabilities at each query's posterior effects, what :meth:`simulate` draws on
        these queries. ``tv`` is the total variation ``1/2 sum_l |observed - fitted|``.
        """
        obs = self.counts.sum(axis=0)
        post = self._posterior()
        prob = np.exp(cell_log_probs(self.fit.theta, self.fit.layout, self._nodes()[0]))
        per_grade = self.counts.sum(axis=2)  # (Q, G)
        fitted = np.einsum("qg,qm,glm->gl", per_grade, post, prob)
        rows = []
        for g, grade in enumerate(self.grades):
            n = obs[g].sum()
            o, f = obs[g] / max(n, 1), fitted[g] / max(fitted[g].sum(), 1e-300)
            tv = 0.5 * float(np.abs(o - f).sum())
            for k, label in enumerate(self.labels):
                rows.append((grade, label, int(obs[g, k]), o[k], f[k], tv))
        return pd.DataFrame(rows, columns=["grade", "label", "count", "observed", "fitted", "tv"])

    def query_effects(self) -> pd.DataFrame:
        """Posterior means of each fitted query's standardised effects ``x`` and of
        ``u_q``, ``a_q``, ``sigma_q`` (at the estimate)."""
        post = self._posterior()
        nodes = self._nodes()[0]
        _, _, sds = self.fit.layout.unpack(self.fit.theta)
        out = {"query": list(self.queries), "documents": self.counts.sum(axis=(1, 2)).astype(int)}
        for i, e in enumerate(self.effects):
            value = {"leniency": lambda x: sds[e] * x, "discrimination": lambda x: np.exp(sds[e] * x),
                     "spread": lambda x: np.exp(sds[e] * x)}[e](nodes[i])
            out[_EFFECT_SYMBOL[e]] = post @ value
        return pd.DataFrame(out)

    def report(self) -> str:
        """The fit report: sizes, log-likelihood, parameters with SE, observed vs fitted
        label distribution per grade, per-query effects, notes.

        >>> print(_example().report().splitlines()[0])  # doctest: +ELLIPSIS
        judge 'Olz-gpt4o': 4423 labels, 25 queries, grades (0, 1, 2, 3), labels (0, 1, 2, 3)
        """
        conf = self.confusion()
        table = conf.pivot(index="grade", columns="label", values=["observed", "fitted"])
        tv = conf.groupby("grade")["tv"].first()
        lines = [f"judge {self.name!r}: {int(self.counts.sum())} labels, {len(self.queries)} "
                 f"queries, grades {self.grades}, labels ({', '.join(map(_show, self.labels))})",
                 f"model: z = u_q + a_q mu[g] + c[g] sigma_q eps; effects {', '.join(self.effects) or 'none'}"
                 + ("" if self.fit.layout.grade_scales else "; c[g] = 1"),
                 f"log-likelihood {self.log_likelihood:.2f} ({'converged' if self.fit.converged else 'NOT converged: ' + self.fit.message})",
                 "", "parameters (estimate, standard error):"]
        lines += [f"  {r.parameter:<16} {r.estimate:9.4f}  {r.se:8.4f}" for r in self.parameters().itertuples()]
        lines += ["", "label distribution per human grade (observed / fitted), total variation:"]
        for grade in self.grades:
            cells = "  ".join(f"{_show(label)}: {table.loc[grade, ('observed', label)]:.3f}/"
                              f"{table.loc[grade, ('fitted', label)]:.3f}" for label in self.labels)
            lines.append(f"  grade {grade}: {cells}  TV {tv[grade]:.3f}")
        lines += ["", "query effects (posterior means):",
                  self.query_effects().round(3).to_string(index=False)]
        if self.notes:
            lines += ["", "notes:"] + [f"  - {n}" for n in self.notes]
        return "\n".join(lines)

    # ---- simulation ------------------------------------------------------------------

    def simulate(self, qrels: Any, *, seed: int, levels: int | None = None,
                 precision: str | None = None, replicates: int | None = None,
                 parameter_uncertainty: bool = True, new_queries: bool = False
                 ) -> Run | list[Run]:
        """The judge's labels for every judged (query, doc) pair of ``qrels``, as a run.

        Parameters
        ----------
        qrels : Qrels, path or DataFrame
            The pairs to label and their human grades (grades must be among the model's).
        seed : int
            Seeds three independent streams (parameters, query effects, noise).
        levels : int, optional
            ``None``: the judge's own labels. ``N``: the same latent on an ``N``-point
            scale ``0..N-1``, cut at the equal-probability points ``t_j = F^{-1}(j / N)``
            of the latent's marginal ``F`` over the fitted pool at the estimate (so each
            label is used ~1/N of the time on a pool like the fitted one).
        precision : {"bfloat16", "float16", "float32"}, optional
            The latent itself as a continuous score, cast to that precision
            (:func:`~tiedrank.simulate.quantize.cast_scores`); with ``levels``, the cast is
            applied to the labels.
        replicates : int, optional
            ``None``: one run; ``R``: a list of ``R`` runs (one per replicate).
        parameter_uncertainty : bool, default True
            Draw the parameters per replicate from ``N(theta_hat, I^{-1})``.
        new_queries : bool, default False
            Draw every query's effects from the prior, even for queries fitted on.

        Returns
        -------
        Run or list of Run
            Columns query, doc, score in the order of ``qrels``.

        Examples
        --------
        >>> judge, qrels = _example(), _example_qrels()
        >>> a = judge.simulate(qrels, seed=3, levels=11).frame["score"]
        >>> b = judge.simulate(qrels, seed=3, precision="float32").frame["score"]
        >>> bool((a.rank() - b.rank()).abs().max() < len(a))  # the same latent
        True
        """
        frame, scores = self.simulate_scores(qrels, seed=seed, levels=levels, precision=precision,
                                             replicates=1 if replicates is None else replicates,
                                             parameter_uncertainty=parameter_uncertainty,
                                             new_queries=new_queries)
        source = f"<simulated judge {self.name}, seed={seed}>"
        runs = [Run(f"{self.name}-sim{'' if replicates is None else f'-{r}'}",
                    pd.DataFrame({"query": frame["query"].to_numpy(), "doc": frame["doc"].to_numpy(),
                                  "score": row}), source=source) for r, row in enumerate(scores)]
        return runs[0] if replicates is None else runs

    def simulate_scores(self, qrels: Any, *, seed: int, levels: int | None = None,
                        precision: str | None = None, replicates: int = 1,
                        parameter_uncertainty: bool = True, new_queries: bool = False
                        ) -> tuple[pd.DataFrame, np.ndarray]:
        """:meth:`simulate` as arrays: the qrels' ``(query, doc, relevance)`` frame and the
        scores ``(replicates, documents)`` (no Run per replicate; for large sweeps)."""
        check("seed", seed, [Interval(int, 0, None)], function="simulate")
        check("replicates", replicates, [Interval(int, 1, _MAX_REPLICATES)], function="simulate")
        check("levels", levels, LEVELS, function="simulate")
        precision = normalize_precision(precision)
        frame, q_index, g_index, known = target_pairs(qrels, self, new_queries)
        pool = pool_covariate(q_index, g_index, len(self.grades)) - self.pool_center
        z, tau = self._latent(q_index, g_index, known, pool, seed, replicates, parameter_uncertainty)
        if levels is not None:  # the same latent, cut at the N-point scale's points
            z = np.searchsorted(self.cut_points(levels), z).astype(float)
        elif precision is None:  # the judge's own labels, at each replicate's thresholds
            index = (z[:, :, None] > tau[:, None, :]).sum(axis=2)
            return frame, np.asarray(self.labels, dtype=float)[index]
        return frame, z if precision is None else cast_scores(z, precision)

    def cut_points(self, levels: int) -> np.ndarray:
        """The ``levels - 1`` cut points of the ``levels``-point scale: equal-probability
        quantiles of the latent's marginal over the fitted pool, at the estimate.

        >>> len(_example().cut_points(5))
        4
        """
        check("levels", levels, [Interval(int, 1, 1000)], function="cut_points")
        nodes, log_w = self._nodes()
        mu, _, sds = self.fit.layout.unpack(self.fit.theta)
        loc, sigma = _location(mu, sds, nodes, self.effects)
        prior = np.exp(query_log_weights(self.fit.theta, self.fit.layout, nodes, log_w, self.pool))
        weight = np.einsum("qg,qm->gm", self.counts.sum(axis=2), prior) / self.counts.sum()  # (G, M)
        target = np.arange(1, levels) / levels
        low = np.full(levels - 1, float(loc.min() - 10 * sigma.max()))
        high = np.full(levels - 1, float(loc.max() + 10 * sigma.max()))
        for _ in range(60):  # bisection on all cut points at once
            mid = (low + high) / 2
            cdf = (weight[None] * special.ndtr((mid[:, None, None] - loc[None]) / sigma[None])).sum(axis=(1, 2))
            below = cdf < target
            low, high = np.where(below, mid, low), np.where(below, high, mid)
        return (low + high) / 2

    def _latent(self, q_index, g_index, known, pool, seed, replicates, uncertainty
                ) -> tuple[np.ndarray, np.ndarray]:
        """The latent ``(R, N)`` and each replicate's thresholds ``(R, K-1)``."""
        layout, theta = self.fit.layout, self.fit.theta
        n_queries = int(q_index.max()) + 1 if len(q_index) else 0
        rng_p = np.random.default_rng([_STREAM_PARAMS, seed])
        rng_e = np.random.default_rng([_STREAM_EFFECTS, seed])
        rng_n = np.random.default_rng([_STREAM_NOISE, seed])
        standard = rng_p.standard_normal((replicates, layout.size))
        if uncertainty:
            vals, vecs = np.linalg.eigh(self.fit.cov)
            thetas = theta + standard @ (vecs * np.sqrt(np.maximum(vals, 0.0))).T
        else:
            thetas = np.broadcast_to(theta, (replicates, layout.size))
        mu, tau, sds = layout.unpack(thetas)  # (R, G), (R, K-1), {e: (R,)}
        x = rng_e.standard_normal((replicates, n_queries, len(EFFECTS)))
        uniform = rng_e.random((replicates, n_queries, 1 + len(EFFECTS)))
        axes = [EFFECTS.index(e) for e in self.effects]
        if layout.n_corr:  # new queries: x ~ N(gamma h_q, R), R from each replicate's draw
            chol = np.linalg.cholesky(layout.correlation(thetas))  # (R, E, E)
            x[:, :, axes] = np.einsum("ref,rqf->rqe", chol, x[:, :, axes])
        for i, e in zip(axes, self.effects):
            x[:, :, i] += sds[f"gamma {e}"][:, None] * pool[None, :]
        x = self._posterior_effects(x, uniform, known)
        eps = rng_n.standard_normal((replicates, len(q_index)))
        sd = {e: sds.get(e, np.zeros(replicates))[:, None] for e in EFFECTS}
        xq = x[:, q_index, :]  # (R, N, 3)
        shift = sd["leniency"] * xq[..., 0]
        scale = np.exp(np.clip(sd["discrimination"] * xq[..., 1], -30, 30))
        sigma = np.exp(np.clip(sd["spread"] * xq[..., 2], -30, 30)) \
            * np.take_along_axis(sds["grade"], np.broadcast_to(g_index, (replicates, len(g_index))), 1)
        z = shift + scale * np.take_along_axis(mu, np.broadcast_to(g_index, (replicates, len(g_index))), 1) \
            + sigma * eps
        return z, tau

    def _posterior_effects(self, x: np.ndarray, uniform: np.ndarray, known: np.ndarray) -> np.ndarray:
        """Replace the prior draws of fitted queries by draws from their grid posterior
        (inverse CDF over the nodes, then uniform jitter within a node's cell)."""
        rows = np.flatnonzero(known >= 0)
        if not len(rows):
            return x
        nodes, _ = self._nodes()
        cdf = np.cumsum(self._posterior()[known[rows]], axis=1)  # (Qk, M)
        cdf /= cdf[:, -1:]
        pick = np.stack([np.minimum(np.searchsorted(c, u), len(c) - 1)
                         for c, u in zip(cdf, uniform[:, rows, 0].T)], axis=1)  # (R, Qk)
        x = x.copy()
        for i, e in enumerate(self.effects):
            axis = EFFECTS.index(e)
            step = nodes[i][nodes[i] > nodes[i].min()].min() - nodes[i].min()
            x[:, rows, axis] = nodes[i][pick] + (uniform[:, rows, 1 + axis] - 0.5) * step
        return x

    def _nodes(self) -> tuple[np.ndarray, np.ndarray]:
        return grid(len(self.effects))

    def _posterior(self) -> np.ndarray:
        nodes, log_w = self._nodes()
        joint = query_log_lik(self.fit.theta, self.fit.layout, self.counts, nodes) \
            + query_log_weights(self.fit.theta, self.fit.layout, nodes, log_w, self.pool)
        return np.exp(joint - special.logsumexp(joint, axis=1, keepdims=True))

    def to_dict(self) -> dict[str, Any]:
        """Parameters, log-likelihood and notes as plain values (for JSON)."""
        return {"name": self.name, "labels": list(self.labels), "grades": list(self.grades),
                "effects": list(self.effects), "log_likelihood": self.log_likelihood,
                "parameters": self.parameters().to_dict("records"), "notes": list(self.notes)}


_EFFECT_SYMBOL = {"leniency": "u", "discrimination": "a", "spread": "sigma"}


def _show(value: float) -> str:
    return f"{value:g}"


def _location(mu, sds, nodes, effects):
    from .judge_fit import latent_location

    return latent_location(mu, sds, nodes, effects)


def _natural(layout: Layout, theta: np.ndarray) -> np.ndarray:
    mu, tau, sds = layout.unpack(theta)
    rows, cols = np.tril_indices(len(layout.effects), -1)
    return np.concatenate([mu[1:], tau, [sds[e] for e in layout.effects],
                           sds["grade"][1:] if layout.grade_scales else [],
                           [sds[f"gamma {e}"] for e in layout.effects] if layout.pool else [],
                           layout.correlation(theta)[rows, cols] if layout.n_corr else []])


def _natural_names(model: JudgeModel) -> list[str]:
    return ([f"mu[{g}]" for g in model.grades[1:]]
            + [f"tau[{_show(a)}|{_show(b)}]" for a, b in zip(model.labels, model.labels[1:])]
            + [f"s_{_EFFECT_SYMBOL[e]} ({e})" for e in model.effects]
            + ([f"c[{g}]" for g in model.grades[1:]] if model.fit.layout.grade_scales else [])
            + ([f"gamma_{_EFFECT_SYMBOL[e]} (pool)" for e in model.effects] if model.fit.layout.pool else [])
            + [f"rho({_EFFECT_SYMBOL[model.effects[i]]},{_EFFECT_SYMBOL[model.effects[j]]})"
               for i, j in zip(*np.tril_indices(len(model.effects), -1))][:model.fit.layout.n_corr])


def _jacobian(layout: Layout, theta: np.ndarray, step: float = 1e-6) -> np.ndarray:
    eye = np.eye(len(theta)) * step
    return np.stack([(_natural(layout, theta + e) - _natural(layout, theta - e)) / (2 * step)
                     for e in eye], axis=1)


def fit_judge(labels: Any, qrels: Any, *, effects: tuple[str, ...] | list[str] = EFFECTS,
              grade_scales: bool = True, pool_effects: bool = False, correlated: bool = True,
              name: str | None = None, min_per_grade: int = 5) -> JudgeModel:
    """Fit the judge model (module docstring) to a judge's labels on judged documents.

    Parameters
    ----------
    labels : Run, path, DataFrame
        The judge's label per (query, doc), as a run whose score is the label (a label
        file like ``sample_data/llmjudge/runs/*.txt``). Any ordinal values: the distinct
        values present are the ordered categories.
    qrels : Qrels, path, DataFrame
        The human judgments; only labelled pairs with a human grade are fitted.
    effects : tuple of str, default ("leniency", "discrimination", "spread")
        The query effects in the model; ``()`` fits the pooled ordinal probit.
    grade_scales : bool, default True
        Fit a noise scale ``c[g]`` per human grade (``c[lowest] = 1``); False: one scale.
    pool_effects : bool, default False
        Let each query effect's mean depend on the query's pool make-up ``h_q`` (the
        ``gamma`` slopes); False: effects independent of the pool.
    correlated : bool, default True
        Let the query effects correlate (``x ~ N(gamma h_q, R)``, ``R`` a correlation
        matrix); False: independent effects.
    name : str, optional
        The judge's name (default: the run's name).
    min_per_grade : int, default 5
        Fewest labelled documents a human grade needs (its ``mu[g]`` is fitted from them).

    Returns
    -------
    JudgeModel

    Raises
    ------
    TypeError
        If ``labels`` and ``qrels`` look swapped.
    ValueError
        On one label only, a grade with fewer than ``min_per_grade`` documents, no
        labelled judged document.

    Examples
    --------
    >>> judge = _example()
    >>> judge.log_likelihood < 0, judge.effects
    (True, ('leniency', 'discrimination', 'spread'))
    """
    effects = tuple(effects)
    for e in effects:
        check("effects", e, [_Effects()], function="fit_judge")
    if len(set(effects)) != len(effects):
        raise InvalidParameterError("effects", effects, "distinct names", function="fit_judge")
    effects = tuple(e for e in EFFECTS if e in effects)  # canonical order
    check("min_per_grade", min_per_grade, [Interval(int, 1, None)], function="fit_judge")
    pairs: JudgePairs = judge_pairs(labels, qrels, min_per_grade=min_per_grade)
    notes = list(pairs.notes)
    if len(pairs.grades) == 1 and "discrimination" in effects:
        effects = tuple(e for e in effects if e != "discrimination")
        notes.append("one human grade: no grade effect, so no discrimination effect to fit")
    check("grade_scales", grade_scales, [bool], function="fit_judge")
    check("pool_effects", pool_effects, [bool], function="fit_judge")
    check("correlated", correlated, [bool], function="fit_judge")
    n_qg = pairs.counts.sum(axis=2)
    raw = pool_covariate(np.repeat(np.arange(len(n_qg)), len(pairs.grades)),
                         np.tile(np.arange(len(pairs.grades)), len(n_qg)), len(pairs.grades),
                         weights=n_qg.ravel())
    center = float(raw.mean())
    fit = fit_counts(pairs.counts, effects, grade_scales,
                     (raw - center) if pool_effects and len(pairs.grades) > 1 else None, correlated)
    if fit.at_bound:
        notes.append(f"at a bound of the search (held there, standard error 0): {', '.join(fit.at_bound)}")
    if not fit.converged:
        notes.append(f"the optimiser stopped before convergence: {fit.message}")
    share = pairs.counts.sum(axis=(0, 2)) / pairs.counts.sum()
    pool = (raw - center) if fit.layout.pool else np.zeros(len(raw))
    return JudgeModel(name or pairs.name, pairs.labels, pairs.grades, effects, fit, pairs.queries,
                      pairs.counts, share, pool, center if fit.layout.pool else 0.0, tuple(notes))


class _Effects:
    def accepts(self, value: Any) -> bool:
        return isinstance(value, str) and value in EFFECTS

    def describe(self) -> str:
        return "a tuple of names among " + ", ".join(map(repr, EFFECTS))


_CACHE: dict[str, Any] = {}


def _example_qrels() -> Qrels:
    if "qrels" not in _CACHE:
        _CACHE["qrels"] = read_qrels_input("sample_data/llmjudge/qrels.test.txt")
    return _CACHE["qrels"]


def _example() -> JudgeModel:
    """Olz-gpt4o fitted on the bundled LLMJudge qrels (for the docstrings)."""
    if "judge" not in _CACHE:
        _CACHE["judge"] = fit_judge("sample_data/llmjudge/runs/Olz-gpt4o.txt", _example_qrels(),
                                    correlated=False)  # the faster fit, for the examples
    return _CACHE["judge"]


__all__ = ["JudgeModel", "fit_judge"]
