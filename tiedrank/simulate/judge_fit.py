"""The judge model's likelihood and its maximum-likelihood fit (the engine of :mod:`~tiedrank.simulate.judge`).

The labels enter only through their counts ``n[q, g, l]`` (query ``q``, human grade ``g``,
label ``l``): documents of one query with one grade are exchangeable under the model, so
these counts are sufficient. The query effects are integrated out on a fixed grid over
the standardised effects (the trapezoidal rule with ``N(0, 1)`` weights, spectrally
accurate for the smooth, near-Gaussian integrands here), so one evaluation of the
likelihood is one array of normal CDFs ``(grades, labels, nodes)`` and one matrix product
``counts @ log P``, whatever the number of documents.

Examples
--------
>>> counts = np.array([[[8, 2], [2, 8]], [[9, 1], [3, 7]]], dtype=float)  # 2 queries
>>> fit = fit_counts(counts, effects=("leniency",), grade_scales=False)
>>> [round(v, 1) for v in fit.natural["mu"]]
[0.0, 1.7]
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import optimize, special

EFFECTS = ("leniency", "discrimination", "spread")
"""The query effects the model can carry: ``leniency`` ``u_q`` (a shift of the latent),
``discrimination`` ``a_q`` (a scale on the grade effect) and ``spread`` ``w_q`` (a scale
on the noise, how far a judge spreads its labels within a query)."""

_GRID = {1: (81,), 2: (51, 25), 3: (41, 21, 15)}  # nodes per standardised effect
_SEARCH = {1: (81,), 2: (51, 15), 3: (41, 15, 11)}  # the first search's (coarser) grid
_HALF_WIDTH = 5.0  # the grid covers [-5, 5] standard deviations of each effect
_LOG_SCALE_BOUNDS = (-6.0, 2.0)  # log of an effect's standard deviation
_FLOOR = -1e4  # log-probability floor (a cell the model calls impossible)


def grid(n_effects: int, sizes: tuple[int, ...] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Nodes ``(n_effects, M)`` and log-weights ``(M,)`` of the trapezoidal grid
    (``sizes``: nodes per effect, default the module's grid).

    >>> nodes, log_w = grid(1)
    >>> nodes.shape, round(float(np.exp(log_w).sum()), 12)
    ((1, 81), 1.0)
    """
    if n_effects == 0:
        return np.zeros((0, 1)), np.zeros(1)
    axes = [np.linspace(-_HALF_WIDTH, _HALF_WIDTH, m) for m in (sizes or _GRID[n_effects])]
    mesh = np.meshgrid(*axes, indexing="ij")
    nodes = np.stack([m.ravel() for m in mesh])
    log_w = -0.5 * (nodes ** 2).sum(axis=0)
    return nodes, log_w - special.logsumexp(log_w)


def _lse(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """``log sum exp`` along ``axis`` with the axis kept (scipy's is 5x slower here)."""
    top = x.max(axis=axis, keepdims=True)
    return top + np.log(np.exp(x - top).sum(axis=axis, keepdims=True))


def log_interval(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """``log(Phi(high) - Phi(low))`` without cancellation (both tails).

    >>> float(np.exp(log_interval(np.array(-np.inf), np.array(0.0))))
    0.5
    """
    low, high = np.broadcast_arrays(low, high)
    flip = (low + high) > 0  # upper tail: Phi(h) - Phi(l) = Phi(-l) - Phi(-h)
    a = np.where(flip, -high, low)
    b = np.where(flip, -low, high)
    log_b, log_a = special.log_ndtr(b), special.log_ndtr(a)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = log_b + np.log1p(-np.exp(np.minimum(log_a - log_b, 0.0)))
    return np.where(np.isfinite(out), np.maximum(out, _FLOOR), _FLOOR)


@dataclass(frozen=True)
class Layout:
    """Where each parameter sits in the unconstrained vector ``theta``."""

    n_grades: int
    n_labels: int
    effects: tuple[str, ...]
    grade_scales: bool = False
    pool: bool = False
    correlated: bool = False

    @property
    def n_corr(self) -> int:
        e = len(self.effects)
        return e * (e - 1) // 2 if self.correlated else 0

    @property
    def size(self) -> int:
        return (self.n_grades - 1) * (1 + self.grade_scales) + (self.n_labels - 1) \
            + len(self.effects) * (1 + self.pool) + self.n_corr

    def names(self) -> list[str]:
        return ([f"mu[{g}]" for g in range(1, self.n_grades)]
                + ["tau[1]"] + [f"log gap[{k}]" for k in range(2, self.n_labels)]
                + [f"log s_{e}" for e in self.effects]
                + ([f"log c[{g}]" for g in range(1, self.n_grades)] if self.grade_scales else [])
                + ([f"gamma_{e}" for e in self.effects] if self.pool else [])
                + [f"chol[{i},{j}]" for i in range(len(self.effects)) for j in range(i)][:self.n_corr])

    def unpack(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        """``mu (..., G)``, thresholds ``(..., K-1)``, effect sds ``{name: (...)}`` from
        ``theta (..., p)`` (a leading replicate axis allowed); the grades' noise scales
        ``c (..., G)`` are ``sds["grade"]`` (ones without ``grade_scales``), the pool
        slopes ``sds["gamma <effect>"]`` (zeros without ``pool``)."""
        theta = np.asarray(theta, dtype=float)
        g, k, e = self.n_grades - 1, self.n_labels - 1, len(self.effects)
        mu = np.concatenate([np.zeros(theta.shape[:-1] + (1,)), theta[..., :g]], axis=-1)
        steps = np.concatenate([theta[..., g:g + 1], np.exp(theta[..., g + 1:g + k])], axis=-1)
        tau = np.cumsum(steps, axis=-1)
        sds = {name: np.exp(theta[..., g + k + i]) for i, name in enumerate(self.effects)}
        at = g + k + e
        logs = theta[..., at:at + g] if self.grade_scales else np.zeros(theta.shape[:-1] + (g,))
        at += g if self.grade_scales else 0
        sds["grade"] = np.exp(np.concatenate([np.zeros(theta.shape[:-1] + (1,)), logs], axis=-1))
        for i, name in enumerate(self.effects):
            sds[f"gamma {name}"] = theta[..., at + i] if self.pool else np.zeros(theta.shape[:-1])
        at += e if self.pool else 0
        sds["chol"] = theta[..., at:at + self.n_corr]
        return mu, tau, sds

    def correlation(self, theta: np.ndarray) -> np.ndarray:
        """The effects' correlation matrix ``R = D^-1/2 L L^T D^-1/2`` (``L`` unit lower
        triangular with the free entries ``chol``), ``(..., E, E)``."""
        theta = np.asarray(theta, dtype=float)
        e = len(self.effects)
        lower = np.broadcast_to(np.eye(e), theta.shape[:-1] + (e, e)).copy()
        if self.n_corr:
            rows, cols = np.tril_indices(e, -1)
            lower[..., rows, cols] = self.unpack(theta)[2]["chol"]
        cov = lower @ np.swapaxes(lower, -1, -2)
        d = np.sqrt(np.diagonal(cov, axis1=-2, axis2=-1))
        return cov / d[..., :, None] / d[..., None, :]


def latent_location(mu: np.ndarray, sds: dict[str, np.ndarray], nodes: np.ndarray,
                    effects: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Location ``(G, M)`` and noise scale ``(G, M)`` of the latent at the grid's nodes:
    ``m = s_u x_u + exp(s_a x_a) mu[g]``, ``sigma = c[g] exp(s_w x_w)``."""
    m = np.ones(nodes.shape[1])
    shift, sigma = np.zeros(nodes.shape[1]), np.ones(nodes.shape[1])
    for i, e in enumerate(effects):
        if e == "leniency":
            shift = sds[e] * nodes[i]
        elif e == "discrimination":
            m = np.exp(sds[e] * nodes[i])
        else:
            sigma = np.exp(sds[e] * nodes[i])
    return shift[None, :] + mu[:, None] * m[None, :], sds["grade"][:, None] * sigma[None, :]


def cell_log_probs(theta: np.ndarray, layout: Layout, nodes: np.ndarray) -> np.ndarray:
    """``log P(label l | grade g, node)`` as an array ``(G, K, M)``."""
    mu, tau, sds = layout.unpack(theta)
    loc, sigma = latent_location(mu, sds, nodes, layout.effects)
    cuts = np.concatenate([[-np.inf], tau, [np.inf]])
    scaled = (cuts[None, :, None] - loc[:, None, :]) / sigma[:, None, :]
    return log_interval(scaled[:, :-1, :], scaled[:, 1:, :])


def query_log_weights(theta: np.ndarray, layout: Layout, nodes: np.ndarray, log_w: np.ndarray,
                      pool: np.ndarray) -> np.ndarray:
    """Each query's log-weights ``(Q, M)`` on the grid: the effects' standardised values
    ``x_e ~ N(gamma_e h_q, 1)`` (``h_q`` the query's pool covariate), i.e.
    ``log phi(x - gamma h_q)`` renormalised over the nodes."""
    _, _, sds = layout.unpack(theta)
    gamma = np.array([float(sds[f"gamma {e}"]) for e in layout.effects])
    if not layout.n_corr:
        shift = np.zeros((len(pool), nodes.shape[1]))
        for i in range(len(layout.effects)):
            shift += gamma[i] * pool[:, None] * nodes[i][None, :] - 0.5 * (gamma[i] * pool[:, None]) ** 2
        out = log_w[None, :] + shift
    else:  # x ~ N(gamma h_q, R): log phi_R(x - gamma h_q) + |x|^2 / 2 replaces log phi(x)
        inverse = np.linalg.inv(layout.correlation(theta))
        mean = gamma[None, :] * pool[:, None]  # (Q, E)
        # (x - b)^T A (x - b) = x^T A x - 2 b^T A x + b^T A b, without a (Q, E, M) array
        quad = ((inverse @ nodes) * nodes).sum(axis=0)[None, :] - 2 * (mean @ inverse) @ nodes \
            + np.einsum("qe,ef,qf->q", mean, inverse, mean)[:, None]
        out = log_w[None, :] + 0.5 * (nodes ** 2).sum(axis=0)[None, :] - 0.5 * quad
    return out - _lse(out, axis=1)


def query_log_lik(theta: np.ndarray, layout: Layout, counts: np.ndarray, nodes: np.ndarray
                  ) -> np.ndarray:
    """``log P(labels of q | node)`` for every query and node, ``(Q, M)``."""
    logp = cell_log_probs(theta, layout, nodes).reshape(-1, nodes.shape[1])
    return counts.reshape(counts.shape[0], -1) @ logp


def _node_effects(layout: Layout, nodes: np.ndarray) -> dict[str, np.ndarray]:
    zero = np.zeros(nodes.shape[1])
    return {e: (nodes[layout.effects.index(e)] if e in layout.effects else zero) for e in EFFECTS}


def neg_log_lik(theta: np.ndarray, layout: Layout, counts: np.ndarray, nodes: np.ndarray,
                log_w: np.ndarray, pool: np.ndarray | None = None) -> tuple[float, np.ndarray]:
    """Minus the marginal log-likelihood ``sum_q log sum_m w_m P(labels of q | node m)``
    and its gradient in ``theta`` (analytic: the posterior-weighted cell counts times the
    derivative of each cell's log-probability)."""
    mu, tau, sds = layout.unpack(theta)
    x = _node_effects(layout, nodes)
    s_u, s_a, s_w = (float(sds.get(e, 0.0)) for e in EFFECTS)
    e_a = np.exp(s_a * x["discrimination"])
    sigma = sds["grade"][:, None] * np.exp(s_w * x["spread"])[None, :]  # (G, M)
    loc = s_u * x["leniency"][None, :] + mu[:, None] * e_a[None, :]
    cuts = np.concatenate([[-np.inf], tau, [np.inf]])
    scaled = (cuts[None, :, None] - loc[:, None, :]) / sigma[:, None, :]  # (G, K+1, M)
    logp = log_interval(scaled[:, :-1, :], scaled[:, 1:, :])  # (G, K, M)
    g_, k_, m_ = logp.shape
    flat = counts.reshape(counts.shape[0], -1)
    pool = np.zeros(counts.shape[0]) if pool is None else pool
    weights = query_log_weights(theta, layout, nodes, log_w, pool)
    joint = flat @ logp.reshape(-1, m_) + weights
    per_query = _lse(joint, axis=1)[:, 0]
    value = -float(per_query.sum())
    if not np.isfinite(value):
        return 1e300, np.zeros_like(theta)
    post = np.exp(joint - per_query[:, None])
    weighted = (flat.T @ post).reshape(g_, k_, m_)  # sum_q n[q,g,l] posterior[q,m]
    finite = np.isfinite(scaled)
    safe = np.where(finite, scaled, 0.0)
    log_density = np.where(finite, -0.5 * safe ** 2 - 0.5 * np.log(2 * np.pi), -np.inf)
    r_hi = np.exp(np.minimum(log_density[:, 1:, :] - logp, 50.0))  # phi(upper) / P
    r_lo = np.exp(np.minimum(log_density[:, :-1, :] - logp, 50.0))  # phi(lower) / P
    d_loc = -(weighted * (r_hi - r_lo)).sum(axis=1) / sigma  # (G, M)
    d_log_sigma = -(weighted * (r_hi * safe[:, 1:, :] - r_lo * safe[:, :-1, :])).sum(axis=1)  # (G, M)
    d_cut = ((weighted[:, :-1, :] * r_hi[:, :-1, :] - weighted[:, 1:, :] * r_lo[:, 1:, :])
             / sigma[:, None, :]).sum(axis=(0, 2))  # (K-1,)
    grad = [(d_loc[1:] * e_a).sum(axis=1), [d_cut.sum()],
            np.exp(theta[g_ - 1 + 1:g_ - 1 + k_ - 1]) * np.cumsum(d_cut[::-1])[::-1][1:]]
    chain = {"leniency": (d_loc * s_u * x["leniency"]).sum(),
             "discrimination": (d_loc * mu[:, None] * e_a * s_a * x["discrimination"]).sum(),
             "spread": (d_log_sigma * s_w * x["spread"]).sum()}
    grad.append([chain[e] for e in layout.effects])
    if layout.grade_scales:
        grad.append(d_log_sigma[1:].sum(axis=1))
    if layout.pool or layout.n_corr:  # the weights' parameters: d log w = -d quad / 2
        excess = post - np.exp(weights)  # posterior minus prior weights, (Q, M)
        inverse = np.linalg.inv(layout.correlation(theta))
        if layout.pool:  # d quad / d gamma_e = -2 h_q (A (x - b_q))_e; the b_q part cancels
            grad.append(((excess * pool[:, None]) @ (inverse @ nodes).T).sum(axis=0))
        if layout.n_corr:  # dA by differences of the 3 x 3 inverse, then the quadratic form
            gamma = np.array([float(sds[f"gamma {e}"]) for e in layout.effects])
            mean = gamma[None, :] * pool[:, None]
            first, part = layout.size - layout.n_corr, []
            for j in range(first, layout.size):  # at most 3 correlations
                up, down = theta.copy(), theta.copy()
                up[j] += 1e-6
                down[j] -= 1e-6
                d_inv = (np.linalg.inv(layout.correlation(up))
                         - np.linalg.inv(layout.correlation(down))) / 2e-6
                d_quad = ((d_inv @ nodes) * nodes).sum(axis=0)[None, :] \
                    - 2 * (mean @ d_inv) @ nodes + np.einsum("qe,ef,qf->q", mean, d_inv, mean)[:, None]
                part.append(-0.5 * (excess * d_quad).sum())
            grad.append(part)
    return value, -np.concatenate([np.ravel(part) for part in grad])


@dataclass
class CountFit:
    """The raw result of :func:`fit_counts`: ``theta``, its covariance, the log-likelihood
    and the natural parameters (``mu``, ``tau``, effect sds)."""

    layout: Layout
    theta: np.ndarray
    cov: np.ndarray
    log_lik: float
    converged: bool
    message: str
    natural: dict = field(default_factory=dict)
    at_bound: tuple[str, ...] = ()


def start_values(counts: np.ndarray, layout: Layout) -> np.ndarray:
    """Moment starts: thresholds from the pooled label frequencies, ``mu[g]`` from the mean
    normal score of grade ``g``'s labels minus grade 0's."""
    pooled = counts.sum(axis=(0, 1)) + 0.5
    cum = np.cumsum(pooled)[:-1] / pooled.sum()
    tau = special.ndtri(cum)
    mids = np.concatenate([[tau[0] - 1.0], (tau[:-1] + tau[1:]) / 2, [tau[-1] + 1.0]]) \
        if len(tau) > 1 else np.array([tau[0] - 0.8, tau[0] + 0.8])
    per_grade = counts.sum(axis=0) + 0.1
    score = (per_grade * mids).sum(axis=1) / per_grade.sum(axis=1)
    mu = (score - score[0])[1:]
    gaps = np.log(np.maximum(np.diff(tau), 0.05))
    return np.concatenate([mu, tau[:1], gaps, np.full(len(layout.effects), np.log(0.3)),
                           np.zeros(layout.size - len(mu) - len(tau) - len(layout.effects))])


def fit_counts(counts: np.ndarray, effects: tuple[str, ...] = EFFECTS,
               grade_scales: bool = True, pool: np.ndarray | None = None,
               correlated: bool = True, start: np.ndarray | None = None) -> CountFit:
    """Maximum likelihood for the counts ``(Q, G, K)`` (L-BFGS-B on ``theta``, then the
    observed information by central differences for the covariance)."""
    counts = np.asarray(counts, dtype=float)
    layout = Layout(counts.shape[1], counts.shape[2], tuple(effects),
                    grade_scales and counts.shape[1] > 1, pool is not None and bool(effects),
                    correlated and len(effects) > 1)
    pool = np.zeros(counts.shape[0]) if pool is None else np.asarray(pool, dtype=float)
    x0 = start_values(counts, layout) if start is None else start
    n_scales = len(layout.effects) + (layout.n_grades - 1) * layout.grade_scales
    n_slopes = len(layout.effects) * layout.pool
    bounds = [(-15.0, 15.0)] * (layout.size - n_scales - n_slopes - layout.n_corr) \
        + [_LOG_SCALE_BOUNDS] * n_scales + [(-4.0, 4.0)] * n_slopes + [(-3.0, 3.0)] * layout.n_corr
    bounds[layout.n_grades - 1 + 1:layout.n_grades - 1 + layout.n_labels - 1] = \
        [(-8.0, 3.0)] * (layout.n_labels - 2)
    x0 = np.clip(x0, [b[0] for b in bounds], [b[1] for b in bounds])
    for sizes in (_SEARCH[len(layout.effects)] if layout.effects else None, None):
        nodes, log_w = grid(len(layout.effects), sizes)  # a coarser search, then the polish
        result = optimize.minimize(neg_log_lik, x0, args=(layout, counts, nodes, log_w, pool), jac=True,
                                   method="L-BFGS-B", bounds=bounds,
                                   options={"maxiter": 500, "ftol": 1e-10, "gtol": 1e-4})
        x0 = result.x
    theta = result.x
    at_bound = tuple(name for name, value, (lo, hi) in zip(layout.names(), theta, bounds)
                     if (lo is not None and value <= lo + 1e-6) or (hi is not None and value >= hi - 1e-6))
    cov = covariance(theta, layout, counts, nodes, log_w, pool, [n in at_bound for n in layout.names()])
    mu, tau, sds = layout.unpack(theta)
    natural = {"mu": mu.tolist(), "tau": tau.tolist(), "c": sds.pop("grade").tolist(),
               "sd": {e: float(v) for e, v in sds.items() if e in EFFECTS},
               "correlation": layout.correlation(theta).tolist(),
               "gamma": {e[6:]: float(v) for e, v in sds.items() if e.startswith("gamma")}}
    return CountFit(layout, theta, cov, -float(result.fun), bool(result.success),
                    str(result.message), natural, at_bound)


def hessian(grad, x: np.ndarray, step: float = 1e-4) -> np.ndarray:
    """Hessian by central differences of the analytic gradient ``grad`` at ``x``."""
    eye = np.eye(len(x)) * step
    rows = [(grad(x + e) - grad(x - e)) / (2 * step) for e in eye]  # one pair per parameter
    h = np.array(rows)
    return (h + h.T) / 2


def covariance(theta, layout, counts, nodes, log_w, pool, fixed) -> np.ndarray:
    """Inverse observed information; a parameter at its bound gets variance 0 (it is held
    there), and a non-positive curvature is clipped so the matrix stays a covariance."""
    free = ~np.asarray(fixed, dtype=bool)
    cov = np.zeros((layout.size, layout.size))
    if not free.any():
        return cov

    def grad(sub):
        full = theta.copy()
        full[free] = sub
        return neg_log_lik(full, layout, counts, nodes, log_w, pool)[1][free]

    vals, vecs = np.linalg.eigh(hessian(grad, theta[free]))
    vals = np.maximum(vals, 1e-8 * max(1.0, float(np.abs(vals).max())))
    cov[np.ix_(free, free)] = (vecs / vals) @ vecs.T
    return cov
