"""``evaluate``: runs x metrics x tie policies -> tidy per-query values and their means."""
from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .data import Qrels, Run
from .errors import Finding
from .metrics import GAINS, Metric, metric_values, parse_metric
from .ties import POLICIES, TieTable, build_tie_table

ALL_POLICIES = ("expected", "optimistic", "pessimistic", "trec_eval")
"""What ``ties="all"`` evaluates: the expectation, best, worst and trec_eval's order."""
REPORT_COLUMNS = {"expected": "expected", "optimistic": "best", "pessimistic": "worst",
                  "trec_eval": "trec_eval", "input": "input"}
MISSING_RULES = ("zero", "skip")


@dataclass(frozen=True)
class Policy:
    """A tie policy; ``seed`` only for ``random``. ``label`` is what results show."""

    name: str
    seed: int | None = None

    @property
    def label(self) -> str:
        return f"random(seed={self.seed})" if self.name == "random" else self.name


def parse_policies(ties: "str | Iterable[str]", seed: int = 0) -> list[Policy]:
    """Parse ``ties=``: a policy, ``"all"``, ``"random(seed=3)"`` or a list of those."""
    items = [ties] if isinstance(ties, str) else list(ties)
    policies: list[Policy] = []
    for item in items:
        text = str(item).strip()
        if text == "all":
            policies += [Policy(p) for p in ALL_POLICIES]
            continue
        match = re.fullmatch(r"random\s*(?:\(\s*(?:seed\s*=\s*)?(-?\d+)\s*\))?", text)
        if match:
            policies.append(Policy("random", int(match.group(1)) if match.group(1) else seed))
        elif text in POLICIES:
            policies.append(Policy(text))
        else:
            raise ValueError(f"unknown tie policy {text!r}; expected one of "
                             f"{', '.join(POLICIES)}, 'random(seed=N)' or 'all'")
    return list(dict.fromkeys(policies))


@dataclass(frozen=True, eq=False)
class Evaluation:
    """The result of :func:`evaluate`.

    Attributes
    ----------
    per_query : DataFrame
        One row per (run, query, metric, policy): the metric's value for that query.
    summary : DataFrame
        Mean over the evaluated queries: run, metric, policy, value, n_queries.
    tables : dict of str to TieTable
        The expected tie-group table of each run (for spreads and figures).
    findings : list of Finding
        Non-fatal observations (missing queries, unjudged documents, ...).
    rule : str
        The query-set rule applied, in words.
    """

    per_query: pd.DataFrame
    summary: pd.DataFrame
    tables: dict[str, TieTable]
    findings: list[Finding] = field(default_factory=list)
    rule: str = ""

    def report(self) -> pd.DataFrame:
        """Per run and metric: expected, best, worst, trec_eval (as evaluated) and bias.

        bias = trec_eval-order value - expected value (what TRM calls the bias of the
        conventional evaluator). Columns appear for the policies that were evaluated.
        """
        wide = self.summary.pivot_table(index=["run", "metric"], columns="policy",
                                        values="value", sort=False)
        order = [p for p in REPORT_COLUMNS if p in wide.columns]
        extra = [p for p in wide.columns if p not in REPORT_COLUMNS]
        wide = wide[order + extra].rename(columns=REPORT_COLUMNS)
        if "trec_eval" in wide and "expected" in wide:
            wide["bias"] = wide["trec_eval"] - wide["expected"]
        wide.columns.name = None
        return wide.reset_index()


def _as_run_mapping(runs) -> dict[str, Run]:
    from .io import read_run  # local: io imports pyarrow.csv, not needed for table use

    if isinstance(runs, Mapping):
        items = list(runs.items())
    elif isinstance(runs, (Run, pd.DataFrame, str, os.PathLike, bytes)):
        items = [(None, runs)]
    else:
        items = [(None, r) for r in runs]
    out: dict[str, Run] = {}
    for name, item in items:
        run = item if isinstance(item, Run) else read_run(item, name=name)
        if name is not None and run.name != name:
            run = Run(name, run.frame, run.source, run.findings)
        label, n = run.name, 2
        while label in out:  # two files with the same TREC tag stay apart
            label, n = f"{run.name} ({n})", n + 1
        if label != run.name:
            run = Run(label, run.frame, run.source, run.findings)
        out[label] = run
    if not out:
        raise ValueError("no runs to evaluate")
    return out


def _as_qrels(qrels) -> Qrels:
    if isinstance(qrels, Qrels):
        return qrels
    from .io import read_qrels

    return read_qrels(qrels)


RunInput = Run | pd.DataFrame | str | os.PathLike | bytes


def evaluate(runs: "RunInput | Sequence[RunInput] | Mapping[str, RunInput]",
             qrels: "Qrels | pd.DataFrame | str | os.PathLike | bytes",
             metrics: "str | Metric | Iterable[str | Metric]", *,
             ties: "str | Iterable[str]" = "expected", rel_level: int = 1, gain: str = "linear",
             judged_only: bool = False, round: int | None = None, missing: str = "zero",
             seed: int = 0) -> Evaluation:
    """Evaluate one or more runs under one or more tie policies.

    Parameters
    ----------
    runs : Run, DataFrame, path, or a list / dict of those
        A dict gives the run names; otherwise the TREC tag or file name does.
    qrels : Qrels, DataFrame or path
    metrics : str or list of str
        ir_measures-style names: ``RR``, ``RR@k``, ``Success@k`` (``Hits@k``), ``P@k``,
        ``R@k``, ``AP``, ``AP@k``, ``nDCG``, ``nDCG@k``, ``DCG@k``, ``Rprec``,
        ``TsRR(alpha=a)``, ``TsRR2``, ``MTRR_GRAG``, ``TMHits_GRAG@k``.
    ties : str or list of str, default "expected"
        ``expected``, ``optimistic``, ``pessimistic``, ``trec_eval``, ``input``, ``random``
        (seeded by ``seed``; or ``"random(seed=3)"``) or ``"all"`` (the first four).
    rel_level : int, default 1
        Minimum grade of a relevant document for binary metrics.
    gain : {"linear", "exp"}, default "linear"
        DCG gain: the grade, or 2**grade - 1.
    judged_only : bool, default False
        Drop unjudged documents before ranking (trec_eval ``-J``).
    round : int, optional
        Round scores to this many decimals so that near-ties merge.
    missing : {"zero", "skip"}, default "zero"
        A qrels query the run does not answer scores 0 (trec_eval ``-c``), or is skipped.
        Queries without any relevant document are always excluded from the means and
        reported in ``findings``.
    seed : int, default 0
        Seed of the ``random`` policy.

    Returns
    -------
    Evaluation
        ``per_query``, ``summary`` and ``report()`` (expected, best, worst, trec_eval, bias).

    Examples
    --------
    >>> import pandas as pd
    >>> run = pd.DataFrame({"query": "q", "doc": ["a", "b", "c"], "score": [1.0, 1.0, 0.5]})
    >>> qrels = pd.DataFrame({"query": ["q"], "doc": ["b"], "relevance": [1]})
    >>> ev = evaluate({"r": run}, qrels, ["RR"], ties="all")
    >>> ev.report()[["expected", "best", "worst", "trec_eval"]].round(3).values.tolist()
    [[0.75, 1.0, 0.5, 1.0]]
    """
    if gain not in GAINS:
        raise ValueError(f"unknown gain {gain!r}; expected one of {', '.join(GAINS)}")
    if missing not in MISSING_RULES:
        raise ValueError(f"missing must be one of {', '.join(MISSING_RULES)}, got {missing!r}")
    metric_list = [parse_metric(m) for m in ([metrics] if isinstance(metrics, (str, Metric))
                                             else metrics)]
    if not metric_list:
        raise ValueError("no metrics given")
    policies = parse_policies(ties, seed)
    run_map = _as_run_mapping(runs)
    qrels_obj = _as_qrels(qrels)

    tables: dict[str, TieTable] = {}
    findings: list[Finding] = []
    blocks: list[pd.DataFrame] = []
    for name, run in run_map.items():
        table = build_tie_table(run, qrels_obj, rel_level=rel_level, judged_only=judged_only,
                                round=round)
        tables[name] = table
        findings += [f for f in table.findings if f not in findings]
        included = table.n_relevant > 0
        if missing == "skip":
            included &= table.n_retrieved > 0
        query_ids = table.queries[included]
        scoring = table.scoring()  # policies only reorder inside groups: resolve the compact view
        for policy in policies:
            resolved = scoring.resolve(policy.name, policy.seed)
            for metric in metric_list:
                source = table if metric.tie_aware_by_definition else resolved
                values = metric_values(source, metric, gain=gain)[included]
                blocks.append((name, query_ids, metric.name, policy.label, values))
    per_query = _tidy(blocks)
    summary = (per_query.groupby(["run", "metric", "policy"], observed=True, sort=False)["value"]
               .agg(value="mean", n_queries="size").reset_index())
    summary["n_queries"] = summary["n_queries"].astype(np.int64)
    rule = ("mean over the qrels' queries with at least one relevant document (grade >= "
            f"{rel_level}); queries the run misses "
            + ("score 0" if missing == "zero" else "are skipped"))
    return Evaluation(per_query, summary, tables, findings, rule)


def _tidy(blocks: list[tuple[str, np.ndarray, str, str, np.ndarray]]) -> pd.DataFrame:
    """Stack per-(run, metric, policy) value blocks into the tidy per-query frame.

    run, metric and policy become categoricals in the order evaluated (built from codes,
    so no per-row string work on large query sets).
    """
    lengths = np.array([len(b[4]) for b in blocks])
    columns = {}
    for position, column in ((0, "run"), (2, "metric"), (3, "policy")):
        labels = list(dict.fromkeys(b[position] for b in blocks))
        codes = np.repeat([labels.index(b[position]) for b in blocks], lengths)
        columns[column] = pd.Categorical.from_codes(codes, categories=labels)
    query = np.concatenate([b[1] for b in blocks]) if blocks else np.zeros(0, dtype=object)
    return pd.DataFrame({"run": columns["run"], "query": pd.array(query, dtype="str"),
                         "metric": columns["metric"], "policy": columns["policy"],
                         "value": np.concatenate([b[4] for b in blocks])})


def tsrr_sweep(tables: Mapping[str, TieTable], alphas: Sequence[float] | np.ndarray) -> pd.DataFrame:
    """Mean TsRR of each run at every alpha, in one vectorised pass per run.

    Returns a tidy DataFrame with columns run, alpha, value.
    """
    alphas = np.asarray(alphas, dtype=np.float64)
    from .metrics import tsrr

    frames = []
    for name, table in tables.items():
        included = table.n_relevant > 0
        means = tsrr(table, alphas)[included].mean(axis=0) if included.any() else np.full(len(alphas), np.nan)
        frames.append(pd.DataFrame({"run": name, "alpha": alphas, "value": means}))
    return pd.concat(frames, ignore_index=True)
