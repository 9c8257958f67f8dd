"""Dashboard logic that is not widgets: datasets, hashing, tables and per-query views.

Everything the Streamlit pages show is computed here (or in the engine) so that the pages
hold only widgets, layout and figures, and so that this logic is unit-tested without a
browser. No streamlit import.

Main entry points
-----------------
``BUNDLED``                       the bundled datasets (LLMJudge, trec_eval's example)
``content_hash``, ``dataset_key`` sha256 keys for caching loaded data by content
``read_bundled``, ``read_upload`` bytes -> Run / Qrels through :mod:`tiedrank.io`
``overview_cells``, ``overview_long``  the runs x metrics table of the overview page
``order_flips``, ``flip_sentences``    pairs of runs ranked differently by two policies
``tie_statistics_frame``          per-run tie statistics (:func:`tiedrank.ties.tie_statistics`)
``query_documents``, ``top_strip``, ``group_size_counts``, ``tie_ratio_vs_range``
                                  tidy frames for the tie-structure figures
``RunSet``, ``simulate_set``, ``add_runs``, ``quantized_set``, ``simulator_sweep``,
``trec_zip``                      the Simulator page: runs made in the session ("my runs")
"""
from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from .data import Qrels, Run
from .errors import Finding
from .metrics import parse_metric
from .ties import TieTable, tie_statistics

# ---------------------------------------------------------------------------------------
# Bundled datasets
# ---------------------------------------------------------------------------------------

SAMPLE_DIR = Path(os.environ.get("TIEDRANK_SAMPLE_DATA",
                                  Path(__file__).resolve().parent.parent / "sample_data"))
"""Where the bundled data lives (the repository's ``sample_data``; override with the
environment variable ``TIEDRANK_SAMPLE_DATA``)."""


@dataclass(frozen=True)
class BundledDataset:
    """A dataset shipped with the project.

    ``runs`` are paths relative to :data:`SAMPLE_DIR`; ``run_format`` is passed to
    :func:`tiedrank.io.read_run` (``None`` = detect).
    """

    key: str
    label: str
    description: str
    qrels: str
    runs: tuple[str, ...]
    queries: str | None = None
    rel_level: int = 1
    run_format: str | None = None
    qrels_format: str | None = None

    def path(self, relative: str) -> Path:
        return SAMPLE_DIR / relative

    @property
    def files(self) -> tuple[str, ...]:
        return (self.qrels, *self.runs) + ((self.queries,) if self.queries else ())


_LLMJUDGE_RUNS = ("NISTRetrieval-instruct0", "Olz-gpt4o", "RMITIR-llama38b", "RMITIR-llama70B",
                  "TREMA-all", "h2oloo-fewself", "prophet-setting1", "willia-umbrela1")

BUNDLED: dict[str, BundledDataset] = {
    "llmjudge": BundledDataset(
        key="llmjudge",
        label="LLMJudge: 8 LLM judges as rerankers (TREC DL 2023)",
        description=("Real data: eight LLM relevance judges of the LLMJudge challenge "
                     "(SIGIR 2024) used as rerankers. Each labels ~177 passages per query "
                     "with a grade 0-3, so each ranking has only four distinct scores: "
                     "massive ties. 25 queries, NIST judgements; relevance level 2 is the "
                     "TREC Deep Learning convention. MIT licence."),
        qrels="llmjudge/qrels.test.txt",
        runs=tuple(f"llmjudge/runs/{name}.txt" for name in _LLMJUDGE_RUNS),
        queries="llmjudge/queries.tsv",
        rel_level=2,
        run_format="trec_qrels",
        qrels_format="trec_qrels",
    ),
    "trec_eval": BundledDataset(
        key="trec_eval",
        label="trec_eval's example run (NIST, 3 topics)",
        description=("trec_eval's own test run: 3 topics x 500 documents with a few tied "
                     "scores, binary judgements. Under the trec_eval tie order the "
                     "values match trec_eval's reference output."),
        qrels="trec_eval/qrels.test",
        runs=("trec_eval/results.test",),
        rel_level=1,
        run_format="trec_run",
        qrels_format="trec_qrels",
    ),
    "simulated": BundledDataset(
        key="simulated",
        label="Simulated rerankers: one ranker, five score scales (synthetic)",
        description=("Synthetic data from tiedrank's simulator (seed 2026): 50 queries x 100 "
                     "judged candidates, grades 0-3, scored by one reranker emitted at five "
                     "granularities: fine-grained, 0-10, 5-point, 3-point labels and bfloat16. "
                     "Same noise for all five, so they differ only in how their scores tie. "
                     "Relevance level 1."),
        qrels="simulated/qrels.txt",
        runs=tuple(f"simulated/runs/{name}.txt"
                   for name in ("fine-grained", "0-10", "5-point", "3-point", "bf16")),
        rel_level=1,
        run_format="trec_run",
        qrels_format="trec_qrels",
    ),
}
DEFAULT_DATASET = "llmjudge"
UPLOAD = "upload"
"""The data-source key of user uploads (not a bundled dataset)."""
SESSION = "session"
"""The data-source key of the runs the user made in this session (Simulator page)."""
SESSION_LABEL = "Simulated in this session"


# ---------------------------------------------------------------------------------------
# Hashing
# ---------------------------------------------------------------------------------------

def content_hash(data: bytes | memoryview) -> str:
    """sha256 hex digest of ``data`` (the cache key of anything loaded from it)."""
    return hashlib.sha256(data).hexdigest()


@lru_cache(maxsize=256)
def _file_hash(path: str, size: int, mtime_ns: int) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def file_hash(path: str | os.PathLike) -> str:
    """sha256 of a file's bytes (memoised on path, size and modification time)."""
    stat = os.stat(path)
    return _file_hash(os.fspath(path), stat.st_size, stat.st_mtime_ns)


def dataset_key(parts: Iterable[object]) -> str:
    """One key for a whole dataset from its parts (roles, names, content hashes, mappings)."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(repr(part).encode())
        digest.update(b"\0")
    return digest.hexdigest()


# ---------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------

RUN_FIELDS = ("query", "doc", "score")
QRELS_FIELDS = ("query", "doc", "relevance")
TABULAR_FORMATS = ("csv", "tsv", "parquet", "jsonl")
"""Formats whose columns may need mapping (TREC formats have fixed positions)."""

def guess_columns(columns: Sequence[str], fields: Sequence[str]) -> dict[str, str | None]:
    """Which column holds each field, by the readers' own aliases (``tiedrank.io.ALIASES``,
    case-insensitive); ``None`` where no alias matches."""
    from .io import ALIASES

    folded: dict[str, str] = {}
    for name in columns:
        folded.setdefault(str(name).strip().casefold(), str(name))
    return {f: next((folded[a] for a in ALIASES[f] if a in folded), None) for f in fields}


def needs_mapping(columns: Sequence[str], fields: Sequence[str]) -> bool:
    """True when the readers cannot find every field among ``columns`` by name."""
    return any(v is None for v in guess_columns(columns, fields).values())


def inspect_upload(data: bytes, name: str, fields: Sequence[str]) -> tuple[str, list[str]]:
    """(format, columns) of an uploaded file; columns are empty for TREC formats.

    Raises ``InputError`` for an unknown or unreadable format.
    """
    from .io import detect_format, list_columns

    fmt = detect_format(data, name)
    columns = list_columns(data, format=fmt, source_name=name) if fmt in TABULAR_FORMATS else []
    return fmt, columns


def read_run_bytes(data: bytes, name: str, *, format: str | None = None,
                   columns: Mapping[str, str] | None = None, run_name: str | None = None) -> Run:
    """Read one run from bytes; errors (``InputError``) name the file ``name`` and line.

    The run is named ``run_name``, else by its TREC tag, else by the file name's stem.
    """
    from .io import read_run

    return read_run(data, format=format, name=run_name, columns=columns or None, source_name=name)


def read_qrels_bytes(data: bytes, name: str, *, format: str | None = None,
                     columns: Mapping[str, str] | None = None) -> Qrels:
    """Read qrels from bytes; errors (``InputError``) name the file ``name`` and line."""
    from .io import read_qrels

    return read_qrels(data, format=format, columns=columns or None, source_name=name)


def run_label(file_name: str) -> str:
    """Display name of a run file when it carries no tag: the file name without suffix."""
    base = Path(file_name).name
    if base.lower().endswith(".gz") and len(base) > 3:
        base = base[:-3]
    for suffix in (".txt", ".tsv", ".csv", ".jsonl", ".parquet", ".run", ".trec"):
        if base.lower().endswith(suffix) and len(base) > len(suffix):
            return base[: -len(suffix)]
    return base


def read_query_text(data: bytes | str | os.PathLike | None) -> dict[str, str]:
    """``qid<TAB>text`` lines (TREC topics TSV) -> {qid: text}; blank lines are skipped."""
    if data is None:
        return {}
    if isinstance(data, (str, os.PathLike)):
        data = Path(data).read_bytes()
    out: dict[str, str] = {}
    for line in data.decode("utf-8", errors="replace").splitlines():
        if not line.strip():
            continue
        qid, _, text = line.partition("\t")
        if not _:
            qid, _, text = line.strip().partition(" ")
        out[qid.strip()] = text.strip()
    return out


# ---------------------------------------------------------------------------------------
# Settings and metrics
# ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Settings:
    """The shared evaluation settings every page honours."""

    rel_level: int = 1
    gain: str = "linear"
    k: int = 10
    round: int | None = None

    def key(self) -> tuple:
        return (self.rel_level, self.gain, self.k, self.round)


ROUND_OPTIONS: tuple[str | int, ...] = ("off", 0, 1, 2, 3, 4, 5, 6)
"""Choices of the score-rounding setting ("off" = exact ties only; else decimals)."""


def round_setting(choice: str | int | None) -> int | None:
    """The ``round=`` argument of the engine for a :data:`ROUND_OPTIONS` choice."""
    return None if choice in (None, "off") else int(choice)


def default_metrics(k: int) -> list[str]:
    """The overview's default metrics at cutoff ``k``."""
    return ["RR", f"nDCG@{k}", f"P@{k}", "AP", f"R@{k}"]


def metric_options(k: int) -> list[str]:
    """Metric names offered by the metric pickers, at cutoff ``k``."""
    return ["RR", f"RR@{k}", f"Success@{k}", f"P@{k}", f"R@{k}", "AP", f"AP@{k}", "nDCG",
            f"nDCG@{k}", f"DCG@{k}", "Rprec", "TsRR(alpha=1)", "TsRR2", "MTRR_GRAG",
            f"TMHits_GRAG@{k}"]


_CUTOFF = re.compile(r"@\d+$")


def retarget_metrics(selected: Iterable[str], old_k: int | None, k: int) -> list[str]:
    """Move metrics that used the old shared cutoff to the new one (``P@10`` -> ``P@20``).

    Metrics with another explicit cutoff (typed by the user) are kept as they are.
    """
    out: list[str] = []
    for name in selected:
        if old_k is not None and name.endswith(f"@{old_k}"):
            name = _CUTOFF.sub(f"@{k}", name)
        if name not in out:
            out.append(name)
    return out


def validate_metrics(names: Iterable[str]) -> tuple[list[str], list[str]]:
    """Split ``names`` into canonical valid metric names and error messages."""
    valid: list[str] = []
    errors: list[str] = []
    for name in names:
        try:
            canonical = parse_metric(name).name
        except ValueError as err:
            errors.append(str(err))
            continue
        if canonical not in valid:
            valid.append(canonical)
    return valid, errors


# ---------------------------------------------------------------------------------------
# Overview
# ---------------------------------------------------------------------------------------

def fmt_value(value: float, digits: int = 3) -> str:
    return "–" if value is None or pd.isna(value) else f"{value:.{digits}f}"


def format_cell(expected: float, worst: float, best: float, trec: float, digits: int = 3) -> str:
    """``0.791 [0.455, 0.973] · trec 0.767``."""
    return (f"{fmt_value(expected, digits)} [{fmt_value(worst, digits)}, "
            f"{fmt_value(best, digits)}] · trec {fmt_value(trec, digits)}")


def overview_cells(report: pd.DataFrame, metrics: Sequence[str] | None = None, *,
                   flips: pd.DataFrame | None = None, digits: int = 3,
                   marker: str = "⚠") -> pd.DataFrame:
    """The overview table: one row per run, one text column per metric.

    Each cell reads ``expected [worst, best] · trec trec_eval``. Columns of metrics whose
    run order differs between the policies compared in ``flips`` get ``marker`` in their
    header, and so do the cells of the runs that swap.

    Parameters
    ----------
    report : DataFrame
        :meth:`tiedrank.Evaluation.report` of an evaluation with ``ties="all"``.
    metrics : list of str, optional
        Column order (default: the report's order).
    flips : DataFrame, optional
        :func:`order_flips` output.
    """
    metrics = list(metrics) if metrics is not None else list(dict.fromkeys(report["metric"].astype(str)))
    runs = list(dict.fromkeys(report["run"].astype(str)))
    indexed = report.assign(run=report["run"].astype(str), metric=report["metric"].astype(str)) \
        .set_index(["run", "metric"])
    flipped: dict[str, set[str]] = {}
    if flips is not None and len(flips):
        for row in flips.itertuples(index=False):
            flipped.setdefault(str(row.metric), set()).update((str(row.run_a), str(row.run_b)))
    table = pd.DataFrame({"run": runs})
    for metric in metrics:
        cells = []
        for run in runs:
            if (run, metric) not in indexed.index:
                cells.append("–")
                continue
            row = indexed.loc[(run, metric)]
            cell = format_cell(row.get("expected", np.nan), row.get("worst", np.nan),
                               row.get("best", np.nan), row.get("trec_eval", np.nan), digits)
            if run in flipped.get(metric, ()):
                cell = f"{marker} {cell}"
            cells.append(cell)
        header = f"{metric} {marker}" if metric in flipped else metric
        table[header] = cells
    return table


def overview_long(report: pd.DataFrame) -> pd.DataFrame:
    """The numeric long table: run, metric, expected, worst, best, trec_eval, bias, range."""
    out = report.copy()
    out["run"] = out["run"].astype(str)
    out["metric"] = out["metric"].astype(str)
    if {"best", "worst"} <= set(out.columns):
        out["range"] = out["best"] - out["worst"]
    order = [c for c in ("run", "metric", "expected", "worst", "best", "trec_eval", "bias", "range")
             if c in out.columns]
    return out[order + [c for c in out.columns if c not in order]].reset_index(drop=True)


def order_flips(report: pd.DataFrame, policy_a: str = "expected", policy_b: str = "trec_eval",
                tol: float = 1e-12) -> pd.DataFrame:
    """Pairs of runs whose order differs between two policies, per metric.

    A pair (run_a, run_b) is listed when ``policy_a`` puts run_a strictly above run_b and
    ``policy_b`` puts run_b strictly above run_a (differences within ``tol`` are ties and
    never count as a swap).

    Parameters
    ----------
    report : DataFrame
        :meth:`tiedrank.Evaluation.report` (columns ``expected``, ``best``, ``worst``,
        ``trec_eval``); ``policy_a``/``policy_b`` are its column names.

    Returns
    -------
    DataFrame
        metric, run_a, run_b, a_value_a, a_value_b, b_value_a, b_value_b: run_a is the run
        ranked higher by ``policy_a``; sorted by metric order, then by the size of the swap.
    """
    columns = ["metric", "run_a", "run_b", "a_value_a", "a_value_b", "b_value_a", "b_value_b"]
    if policy_a not in report.columns or policy_b not in report.columns:
        return pd.DataFrame(columns=columns)
    rows = []
    for metric, block in report.groupby(report["metric"].astype(str), sort=False):
        names = block["run"].astype(str).to_numpy()
        a = block[policy_a].to_numpy(dtype=float)
        b = block[policy_b].to_numpy(dtype=float)
        da = a[:, None] - a[None, :]
        db = b[:, None] - b[None, :]
        swapped = (da > tol) & (db < -tol)
        for i, j in zip(*np.nonzero(swapped)):
            rows.append((metric, names[i], names[j], a[i], a[j], b[i], b[j]))
    out = pd.DataFrame(rows, columns=columns)
    if len(out):
        order = {m: n for n, m in enumerate(dict.fromkeys(report["metric"].astype(str)))}
        out["_m"] = out["metric"].map(order)
        out["_gap"] = (out["b_value_b"] - out["b_value_a"]) + (out["a_value_a"] - out["a_value_b"])
        out = out.sort_values(["_m", "_gap"], ascending=[True, False]).drop(columns=["_m", "_gap"])
    return out.reset_index(drop=True)


_POLICY_WORDS = {"expected": "by expectation", "trec_eval": "in trec_eval's order",
                 "best": "in the best case", "worst": "in the worst case",
                 "optimistic": "in the best case", "pessimistic": "in the worst case",
                 "input": "in file order"}


def flip_sentences(flips: pd.DataFrame, policy_a: str = "expected", policy_b: str = "trec_eval",
                   digits: int = 3) -> list[str]:
    """One sentence per swapped pair, naming the runs and both values."""
    wa, wb = _POLICY_WORDS.get(policy_a, policy_a), _POLICY_WORDS.get(policy_b, policy_b)
    out = []
    for row in flips.itertuples(index=False):
        out.append(
            f"{row.metric}: {wa} **{row.run_a}** ({row.a_value_a:.{digits}f}) ranks above "
            f"**{row.run_b}** ({row.a_value_b:.{digits}f}), but {wb} **{row.run_b}** "
            f"({row.b_value_b:.{digits}f}) ranks above **{row.run_a}** ({row.b_value_a:.{digits}f}).")
    return out


def rank_changes(report: pd.DataFrame, policy_a: str = "expected",
                 policy_b: str = "trec_eval") -> pd.DataFrame:
    """Rank of each run (1 = best) per metric under two policies: metric, run, rank_a, rank_b."""
    frame = report.assign(run=report["run"].astype(str), metric=report["metric"].astype(str))
    out = frame[["metric", "run"]].copy()
    for column, policy in (("rank_" + policy_a, policy_a), ("rank_" + policy_b, policy_b)):
        out[column] = frame.groupby("metric", sort=False)[policy].rank(
            ascending=False, method="min").astype("Int64")
    return out.reset_index(drop=True)


TIE_STAT_LABELS = {
    "queries": "queries with results",
    "queries_with_ties": "queries with ties",
    "docs_in_ties": "share of docs in ties",
    "largest_group": "largest group",
    "mean_group_size_top": "mean group size (top {top})",
    "distinct_scores": "distinct scores per query",
}


def tie_statistics_frame(tables: Mapping[str, TieTable], top: int = 10) -> pd.DataFrame:
    """One row per run: :func:`tiedrank.ties.tie_statistics` with readable column names."""
    rows = []
    for name, table in tables.items():
        stats = tie_statistics(table, top=top)
        rows.append({"run": name} | {TIE_STAT_LABELS[k].format(top=top): v for k, v in stats.items()
                                      if k in TIE_STAT_LABELS})
    return pd.DataFrame(rows)


def findings_messages(findings: Iterable[Finding]) -> list[str]:
    """Distinct finding messages, each with a short list of the queries concerned."""
    out: list[str] = []
    for finding in findings:
        text = finding.message
        if finding.queries:
            shown = ", ".join(finding.queries[:8])
            more = finding.count - min(len(finding.queries), 8)
            text += f" ({shown}{f', … {more} more' if more > 0 else ''})"
        if text not in out:
            out.append(text)
    return out


# ---------------------------------------------------------------------------------------
# Tie structure
# ---------------------------------------------------------------------------------------

def query_label(query: str, query_text: Mapping[str, str] | None = None, width: int = 70) -> str:
    """``q49 — how does a bounty hunter make money`` (the id alone when there is no text)."""
    text = (query_text or {}).get(query)
    if not text:
        return str(query)
    text = text if len(text) <= width else text[: width - 1] + "…"
    return f"{query} — {text}"


def query_overview(table: TieTable, k: int = 10) -> pd.DataFrame:
    """One row per query of ``table``: query, n_retrieved, n_relevant, groups, largest_group,
    tie_ratio (share of retrieved docs in a group of 2+), tie_ratio_top (same within the
    top ``k`` ranks), largest_group_share (largest group / n_retrieved),
    first_relevant_group_size (size of the group holding the first relevant document; 0 if
    none is retrieved)."""
    n_queries = table.n_queries
    tied_doc = np.repeat(table.group_size > 1, table.group_size)
    in_top = table.doc_rank <= k
    tied_all = np.bincount(table.doc_query, weights=tied_doc, minlength=n_queries)
    tied_top = np.bincount(table.doc_query, weights=tied_doc & in_top, minlength=n_queries)
    n_top = np.minimum(table.n_retrieved, k)
    groups = np.bincount(table.group_query, minlength=n_queries)
    largest = np.zeros(n_queries, dtype=np.int64)
    if table.n_groups:
        np.maximum.at(largest, table.group_query, table.group_size)
    first_size = np.zeros(n_queries, dtype=np.int64)
    has_rel = table.group_relevant > 0
    if has_rel.any():
        rel_groups = np.flatnonzero(has_rel)
        rel_query = table.group_query[rel_groups]
        first = np.unique(rel_query, return_index=True)
        first_size[first[0]] = table.group_size[rel_groups[first[1]]]
    with np.errstate(invalid="ignore", divide="ignore"):
        return pd.DataFrame({
            "query": table.queries.astype(str),
            "n_retrieved": table.n_retrieved,
            "n_relevant": table.n_relevant,
            "groups": groups,
            "largest_group": largest,
            "tie_ratio": np.where(table.n_retrieved > 0, tied_all / np.maximum(table.n_retrieved, 1), np.nan),
            "tie_ratio_top": np.where(n_top > 0, tied_top / np.maximum(n_top, 1), np.nan),
            "largest_group_share": np.where(table.n_retrieved > 0,
                                            largest / np.maximum(table.n_retrieved, 1), np.nan),
            "first_relevant_group_size": first_size,
        })


def query_documents(table: TieTable, query: str, depth: int | None = None) -> pd.DataFrame:
    """The ranked list of one query, one row per document, in the table's order.

    Columns: rank, doc, score, grade, judged, relevant, group (1-based inside the query),
    group_first (rank of the group's first document), group_size, group_relevant. Inside
    a tie group the order is the file order and carries no meaning for the expectation.
    Empty when the run has no results for the query; ``KeyError`` for an unknown query.
    """
    span = table.query_slice(query)
    stop = span.stop if depth is None else min(span.stop, span.start + depth)
    positions = np.arange(span.start, stop)
    groups = table.doc_group[positions] if len(positions) else np.zeros(0, dtype=np.int64)
    first_group = int(groups[0]) if len(groups) else 0
    return pd.DataFrame({
        "rank": table.doc_rank[positions],
        "doc": table.doc_ids(positions).astype(str) if len(positions) else np.zeros(0, dtype=str),
        "score": table.doc_score[positions],
        "grade": table.doc_grade[positions],
        "judged": table.doc_judged[positions],
        "relevant": table.doc_grade[positions] >= table.rel_level,
        "group": groups - first_group + 1,
        "group_first": table.group_above[groups] + 1 if len(groups) else np.zeros(0, dtype=np.int64),
        "group_size": table.group_size[groups],
        "group_relevant": table.group_relevant[groups],
    })


def top_strip(table: TieTable, depth: int = 20, queries: Sequence[str] | None = None) -> pd.DataFrame:
    """Tie groups of the top ``depth`` ranks of every query, one row per (query, position).

    Columns: query, position (1..depth), group (1-based inside the query), group_size,
    group_relevant (relevant documents in the whole group), tied (size > 1), parity
    (group number mod 2, to tell neighbouring groups apart), score. Queries without
    results have no rows; ``queries`` restricts and orders the output.
    """
    mask = table.doc_rank <= depth
    positions = np.flatnonzero(mask)
    groups = table.doc_group[positions]
    query_index = table.doc_query[positions]
    first_group = np.searchsorted(table.group_query, np.arange(table.n_queries))
    group_number = groups - first_group[query_index] + 1
    frame = pd.DataFrame({
        "query": table.queries[query_index].astype(str),
        "position": table.doc_rank[positions],
        "group": group_number,
        "group_size": table.group_size[groups],
        "group_relevant": table.group_relevant[groups],
        "tied": table.group_size[groups] > 1,
        "parity": group_number % 2,
        "score": table.doc_score[positions],
    })
    if queries is not None:
        order = {q: n for n, q in enumerate(queries)}
        frame = frame[frame["query"].isin(order)]
        frame = frame.iloc[np.lexsort((frame["position"].to_numpy(),
                                       frame["query"].map(order).to_numpy()))]
    return frame.reset_index(drop=True)


def group_size_counts(table: TieTable, top: int | None = None) -> pd.DataFrame:
    """How many tie groups have each size: size, groups, documents, share_of_documents.

    ``top`` keeps only the groups that start within the top ``top`` ranks.
    """
    sizes = table.group_size if top is None else table.group_size[table.group_above < top]
    values, counts = np.unique(sizes, return_counts=True)
    docs = values * counts
    total = docs.sum()
    return pd.DataFrame({"size": values.astype(np.int64), "groups": counts.astype(np.int64),
                         "documents": docs.astype(np.int64),
                         "share_of_documents": docs / total if total else docs.astype(float)})


def group_size_bins(counts: pd.DataFrame) -> pd.DataFrame:
    """:func:`group_size_counts` output (optionally with a ``run`` column) in power-of-two
    bins of the size: 1, 2, 3–4, 5–8, 9–16, ... Columns: [run], bin (label), lower, upper,
    groups, documents, share_of_documents. Empty bins between the smallest and the largest
    size are kept (zero), so the x axis is even."""
    if counts.empty:
        return pd.DataFrame(columns=["bin", "lower", "upper", "groups", "documents", "share_of_documents"])
    top = int(counts["size"].max())
    uppers = [1]
    while uppers[-1] < top:
        uppers.append(uppers[-1] * 2)
    lowers = [1] + [u // 2 + 1 for u in uppers[1:]]
    labels = [str(lo) if lo == up else f"{lo}–{up}" for lo, up in zip(lowers, uppers)]
    index = np.searchsorted(np.asarray(uppers), counts["size"].to_numpy())
    keys = ["run"] if "run" in counts else []
    frame = counts.assign(_bin=index)
    grouped = frame.groupby(keys + ["_bin"], sort=False)[["groups", "documents"]].sum()
    runs = list(dict.fromkeys(counts["run"])) if keys else [None]
    rows = []
    for run in runs:
        total = counts.loc[counts["run"] == run, "documents"].sum() if keys else counts["documents"].sum()
        for n, (lo, up, label) in enumerate(zip(lowers, uppers, labels)):
            key = (run, n) if keys else n
            groups, docs = (grouped.loc[key].tolist() if key in grouped.index else (0, 0))
            row = {"bin": label, "lower": lo, "upper": up, "groups": int(groups), "documents": int(docs),
                   "share_of_documents": docs / total if total else 0.0}
            rows.append(({"run": run} if keys else {}) | row)
    return pd.DataFrame(rows)


def tie_ratio_vs_range(evaluation, table: TieTable, metric: str, k: int = 10,
                       query_text: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Per evaluated query: tie ratios against the metric's range over tie orderings.

    Parameters
    ----------
    evaluation : Evaluation
        Evaluated with ``ties="all"`` (at least optimistic and pessimistic) for ``metric``.
    table : TieTable
        The run's expected table (for the tie ratios).

    Returns
    -------
    DataFrame
        query, text, tie_ratio, tie_ratio_top, expected, best, worst, trec_eval, range
        (best - worst), n_relevant, n_retrieved, first_relevant_group_size. One row per
        query that is in the evaluation's means.
    """
    metric = parse_metric(metric).name
    per_query = evaluation.per_query
    rows = per_query[(per_query["run"].astype(str) == table.run_name)
                     & (per_query["metric"].astype(str) == metric)]
    wide = rows.pivot_table(index="query", columns="policy", values="value",
                            observed=True, sort=False)
    wide.columns = [str(c) for c in wide.columns]
    wide = wide.rename(columns={"optimistic": "best", "pessimistic": "worst"}).reset_index()
    wide["query"] = wide["query"].astype(str)
    stats = query_overview(table, k)
    out = stats.merge(wide, on="query", how="inner")
    if {"best", "worst"} <= set(out.columns):
        out["range"] = out["best"] - out["worst"]
    out.insert(1, "text", out["query"].map(lambda q: (query_text or {}).get(q, "")))
    return out.reset_index(drop=True)


def query_values(evaluation, run: str, query: str) -> pd.DataFrame:
    """One query's metric values under every evaluated policy: metric, expected, worst,
    best, trec_eval (columns for the policies present). Empty if the query is not in the
    evaluation's means (no relevant document)."""
    per_query = evaluation.per_query
    rows = per_query[(per_query["run"].astype(str) == run) & (per_query["query"].astype(str) == query)]
    if rows.empty:
        return pd.DataFrame(columns=["metric"])
    wide = rows.pivot_table(index="metric", columns="policy", values="value", observed=True, sort=False)
    wide.columns = [str(c) for c in wide.columns]
    wide = wide.rename(columns={"optimistic": "best", "pessimistic": "worst"})
    order = [c for c in ("expected", "worst", "best", "trec_eval") if c in wide.columns]
    wide = wide[order + [c for c in wide.columns if c not in order]]
    wide.index = wide.index.astype(str)
    return wide.rename_axis("metric").reset_index()


QUERY_ORDERS = ("query id", "tie ratio in the top ranks", "size of the first group")


def order_queries(table: TieTable, order: str = "query id", depth: int = 20) -> list[str]:
    """Query ids of ``table`` (those with results) in one of :data:`QUERY_ORDERS`."""
    stats = query_overview(table, depth)
    stats = stats[stats["n_retrieved"] > 0]
    if order == "tie ratio in the top ranks":
        stats = stats.sort_values(["tie_ratio_top", "query"], ascending=[False, True], kind="stable")
    elif order == "size of the first group":
        first = table.group_size[np.searchsorted(table.group_query, np.flatnonzero(table.n_retrieved > 0))]
        stats = stats.assign(_first=first).sort_values(["_first", "query"], ascending=[False, True],
                                                       kind="stable")
    elif order != "query id":
        raise ValueError(f"unknown order {order!r}; expected one of {', '.join(QUERY_ORDERS)}")
    return stats["query"].tolist()


# ---------------------------------------------------------------------------------------
# Simulator: generated and quantised runs, and "my runs" of the session
# ---------------------------------------------------------------------------------------

CUSTOM = "custom"
"""The Simulator's own reranker (levels and precision chosen by the user), beside the presets."""
PRECISION_CHOICES: tuple[str | None, ...] = (None, "float32", "float16", "bfloat16")
"""Score precisions offered by the Simulator (``None``: float64, no cast)."""
SWEEP_CHOICES = {"levels": "number of label levels (2-20)",
                 "tie_prob": "extra tie probability (0-0.9)",
                 "precision": "score precision"}
"""Parameters of the Simulator's sweep chart, with their labels."""


def precision_label(precision: str | None) -> str:
    """``None`` -> ``"float64 (no cast)"``; otherwise the precision's name."""
    return "float64 (no cast)" if precision is None else str(precision)


def simulator_choices() -> list[str]:
    """The rerankers the Simulator can generate: the presets, then :data:`CUSTOM`."""
    from .simulate import PRESETS

    return [*PRESETS, CUSTOM]


def simulator_presets() -> pd.DataFrame:
    """The presets for people: preset, description, scores (``labels 0-10``,
    ``continuous``) and precision (``float64 (no cast)`` when none)."""
    from .simulate import preset_table

    table = preset_table()
    scores = ["continuous" if pd.isna(v) else f"labels 0-{int(v) - 1}" for v in table["levels"]]
    precision = [precision_label(None if pd.isna(v) else v) for v in table["precision"]]
    return pd.DataFrame({"preset": table["preset"], "description": table["description"],
                         "scores": scores, "precision": precision})


def simulated_spec(preset: str, *, quality: float = 1.0, tie_prob: float = 0.0,
                   levels: int | None = None, precision: str | None = None):
    """The :class:`~tiedrank.simulate.RerankerSpec` of one Simulator choice.

    A preset keeps its own levels and precision and takes the shared ``quality`` and
    ``tie_prob``; :data:`CUSTOM` also takes ``levels`` (``None``: continuous) and
    ``precision``. The run name is the preset's, with ``_q<quality>`` when the quality is
    not 1 and ``_tie<p>`` when extra ties are drawn, so two settings never share a name
    (e.g. ``0-10_q0.5_tie0.2``; ``custom-L7-bfloat16``).
    """
    from .simulate import PRESETS, RerankerSpec, get_spec, normalize_precision

    quality, tie_prob = float(quality), float(tie_prob)
    suffix = (f"_q{quality:g}" if quality != 1.0 else "") + (f"_tie{tie_prob:g}" if tie_prob > 0 else "")
    if preset == CUSTOM:
        precision = normalize_precision(precision)
        name = "custom-" + (f"L{int(levels)}" if levels is not None else "continuous") \
            + (f"-{precision}" if precision else "")
        description = (f"{int(levels)} labels" if levels is not None else "continuous scores") \
            + (f" in {precision}" if precision else "")
        return RerankerSpec(name=name + suffix, quality=quality, tie_prob=tie_prob, levels=levels,
                            precision=precision, description=description)
    if preset not in PRESETS:
        raise ValueError(f"unknown reranker {preset!r}; expected one of {', '.join(simulator_choices())}")
    return get_spec(preset, name=PRESETS[preset].name + suffix, quality=quality, tie_prob=tie_prob)


def frame_hash(frame: pd.DataFrame) -> str:
    """sha256 over a frame's values and column names (index ignored): a content key."""
    digest = hashlib.sha256(repr(list(frame.columns)).encode())
    digest.update(pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes())
    return digest.hexdigest()


@dataclass(frozen=True, eq=False)
class RunSet:
    """Runs on one query set, made in the dashboard (simulated or quantised): "my runs".

    Attributes
    ----------
    qrels : Qrels
    runs : dict of str to Run
    origin : str
        Where the query set comes from, in words (shown in the sidebar).
    rel_level : int
        The relevance level the set is meant to be evaluated at.
    query_text : dict of str to str
    qrels_key, run_keys
        Content hashes (:func:`frame_hash`): two sets with the same ``qrels_key`` are on
        the same query set.
    """

    qrels: Qrels
    runs: dict[str, Run]
    origin: str
    rel_level: int = 1
    query_text: dict[str, str] = field(default_factory=dict)
    qrels_key: str = ""
    run_keys: dict[str, str] = field(default_factory=dict)

    @property
    def key(self) -> str:
        """Cache key of the whole set (query set, run names and contents, in order)."""
        return dataset_key(["runset", self.qrels_key, *self.run_keys.items()])

    @property
    def label(self) -> str:
        """``Simulated in this session: 2 runs (0-10, 3-point)``."""
        n = len(self.runs)
        return f"{SESSION_LABEL}: {n} run{'s' if n != 1 else ''} ({', '.join(self.runs)})"


def make_run_set(qrels: Qrels, runs: Mapping[str, Run], origin: str, *, rel_level: int = 1,
                 query_text: Mapping[str, str] | None = None) -> RunSet:
    """A :class:`RunSet` with its content hashes; runs are renamed to their keys."""
    named = {name: run if run.name == name else Run(name, run.frame, run.source, run.findings)
             for name, run in runs.items()}
    return RunSet(qrels=qrels, runs=named, origin=origin, rel_level=int(rel_level),
                  query_text=dict(query_text or {}), qrels_key=frame_hash(qrels.frame),
                  run_keys={name: frame_hash(run.frame) for name, run in named.items()})


def add_outcome(current: RunSet | None, new: RunSet) -> str:
    """What :func:`add_runs` will do: ``"new"`` (nothing kept yet), ``"added"`` (same
    query set: the runs go beside the kept ones) or ``"replaced"`` (another query set)."""
    if current is None or not current.runs:
        return "new"
    return "added" if current.qrels_key == new.qrels_key else "replaced"


def add_runs(current: RunSet | None, new: RunSet) -> tuple[RunSet, str]:
    """Add ``new``'s runs to the kept set ``current``; returns (set, :func:`add_outcome`).

    On the same query set the runs are added beside the kept ones: a run identical to a
    kept run of the same name is not duplicated, a different run with a taken name gets
    `` (2)``, `` (3)``, ... On another query set ``new`` replaces ``current``.
    """
    outcome = add_outcome(current, new)
    if outcome != "added":
        return new, outcome
    runs, keys = dict(current.runs), dict(current.run_keys)
    for name, run in new.runs.items():
        key = new.run_keys[name]
        target, n = name, 2
        while target in runs and keys[target] != key:
            target, n = f"{name} ({n})", n + 1
        runs[target] = run if run.name == target else Run(target, run.frame, run.source, run.findings)
        keys[target] = key
    merged = RunSet(qrels=current.qrels, runs=runs, origin=current.origin,
                    rel_level=current.rel_level, query_text=current.query_text,
                    qrels_key=current.qrels_key, run_keys=keys)
    return merged, outcome


def already_kept(current: RunSet | None, new: RunSet) -> list[str]:
    """Names of ``new``'s runs that ``current`` already holds (same query set, same name,
    same content): adding them changes nothing."""
    if current is None or current.qrels_key != new.qrels_key:
        return []
    return [name for name, key in new.run_keys.items() if current.run_keys.get(name) == key]


def add_message(current: RunSet | None, new: RunSet) -> str:
    """One sentence telling the user what adding ``new`` to "my runs" will do."""
    n = len(new.runs)
    runs = f"{n} run{'s' if n != 1 else ''}"
    outcome = add_outcome(current, new)
    if outcome == "new":
        return (f"Adds the {runs} to **my runs** and switches the sidebar to "
                f"**{SESSION_LABEL}**, so every page analyses them.")
    kept = f"{len(current.runs)} run{'s' if len(current.runs) != 1 else ''}"
    if outcome == "added":
        there = already_kept(current, new)
        if len(there) == n:
            return f"{'This run is' if n == 1 else f'These {runs} are'} already in **my runs**."
        fresh = n - len(there)
        return (f"Same query set as your {kept} in **my runs** ({current.origin}): "
                f"{fresh} new run{'s are' if fresh != 1 else ' is'} added beside them"
                + (f" ({', '.join(there)} already there)." if there else "."))
    return (f"**A different query set** from your {kept} in **my runs** ({current.origin}): "
            f"adding **replaces** them with {'this run' if n == 1 else f'these {runs}'}.")


def simulate_set(presets: Sequence[str], *, n_queries: int = 50, docs_per_query: int = 100,
                 relevant_per_query: tuple[int, int] = (1, 10), quality: float = 1.0,
                 tie_prob: float = 0.0, levels: int | None = None, precision: str | None = None,
                 seed: int = 0, rel_level: int = 1) -> RunSet:
    """Simulate ``presets`` (see :func:`simulated_spec`) on one query set, one seed.

    The query set is :func:`tiedrank.simulate.make_queries` (``relevant_per_query`` is
    clipped to ``docs_per_query``); every run shares the seed, hence the noise, so the
    runs differ only by their settings.
    """
    from .simulate import make_queries, simulate_run

    if not presets:
        raise ValueError("choose at least one reranker to simulate")
    low, high = (min(int(v), int(docs_per_query)) for v in relevant_per_query)
    qrels = make_queries(int(n_queries), int(docs_per_query), (low, high), seed=int(seed))
    runs: dict[str, Run] = {}
    for preset in dict.fromkeys(presets):
        spec = simulated_spec(preset, quality=quality, tie_prob=tie_prob, levels=levels,
                              precision=precision)
        runs[spec.name] = simulate_run(qrels, spec, seed=int(seed))
    relevant = f"{low} relevant" if low == high else f"{low}-{high} relevant"
    origin = (f"{n_queries} simulated queries x {docs_per_query} candidates, {relevant} per "
              f"query, seed {seed}")
    return make_run_set(qrels, runs, origin, rel_level=rel_level)


def quantized_set(run: Run, qrels: Qrels, *, levels: int | None = None,
                  precision: str | None = None, method: str = "query", origin: str = "",
                  rel_level: int = 1, query_text: Mapping[str, str] | None = None) -> RunSet:
    """A loaded run and its quantised copy (:func:`tiedrank.simulate.quantize_run`), in
    that order, on the loaded qrels. The copy is named ``<run>-L<levels>[-<precision>]``."""
    from .simulate import quantize_run

    quantized = quantize_run(run, levels=levels, precision=precision, method=method)
    return make_run_set(qrels, {run.name: run, quantized.name: quantized}, origin,
                        rel_level=rel_level, query_text=query_text)


def evaluate_set(run_set: RunSet, metrics: Sequence[str], settings: Settings):
    """:func:`tiedrank.evaluate.evaluate` of a :class:`RunSet` with ``ties="all"``, at
    ``settings`` (relevance level, gain, rounding)."""
    from .evaluate import evaluate

    return evaluate(run_set.runs, run_set.qrels, list(metrics), ties="all",
                    rel_level=settings.rel_level, gain=settings.gain, round=settings.round)


def sweep_values(parameter: str) -> list:
    """The points of the Simulator's sweep: levels 2-20, tie probability 0-0.9 by 0.1,
    precisions float64 (``None``), float32, float16, bfloat16."""
    if parameter == "levels":
        return list(range(2, 21))
    if parameter == "tie_prob":
        return [round(0.1 * i, 1) for i in range(10)]
    if parameter == "precision":
        return list(PRECISION_CHOICES)
    raise ValueError(f"unknown sweep parameter {parameter!r}; expected one of {', '.join(SWEEP_CHOICES)}")


def simulator_sweep(parameter: str, *, base: str = "fine-grained", quality: float = 1.0,
                    n_queries: int = 50, docs_per_query: int = 100,
                    relevant_per_query: tuple[int, int] = (1, 10), metric: str = "RR",
                    rel_level: int = 1, seed: int = 0) -> pd.DataFrame:
    """:func:`tiedrank.simulate.sweep` of ``parameter`` over :func:`sweep_values`, on the
    query set of :func:`simulate_set` (same arguments, same queries), starting from the
    preset ``base`` with ``quality``.

    Returns the sweep's columns plus ``label`` (the value as text: ``float64 (no cast)``
    for no cast) and ``range`` (best - worst); no rows when no query has a document of
    grade ``rel_level`` or more (no metric is defined).
    """
    from .simulate import SWEEP_COLUMNS, get_spec, make_queries, sweep

    low, high = (min(int(v), int(docs_per_query)) for v in relevant_per_query)
    qrels = make_queries(int(n_queries), int(docs_per_query), (low, high), seed=int(seed))
    if not (qrels.frame["relevance"] >= int(rel_level)).any():
        # simulate.sweep fails on an empty report (IndexError): nothing to evaluate anyway
        return pd.DataFrame(columns=[*SWEEP_COLUMNS, "label", "range"])
    spec = get_spec(base, quality=float(quality))
    table = sweep(parameter, sweep_values(parameter), base_spec=spec, qrels=qrels,
                  metric=metric, rel_level=int(rel_level), seed=int(seed))
    table["label"] = [precision_label(v) if parameter == "precision" else f"{v:g}"
                      for v in table["value"]]
    table["range"] = table["best"] - table["worst"]
    return table


def file_stem(name: str) -> str:
    """A run name as a safe file name stem (``0-10 (2)`` -> ``0-10_2``)."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", str(name)).strip("._")
    return stem or "run"


def run_bytes(run: Run) -> bytes:
    """The run as a TREC run file (:func:`tiedrank.io.write_run`)."""
    import io

    from .io import write_run

    buffer = io.BytesIO()
    write_run(run, buffer)
    return buffer.getvalue()


def qrels_bytes(qrels: Qrels) -> bytes:
    """The qrels as a TREC qrels file (:func:`tiedrank.io.write_qrels`)."""
    import io

    from .io import write_qrels

    buffer = io.BytesIO()
    write_qrels(qrels, buffer)
    return buffer.getvalue()


def trec_zip(run_set: RunSet) -> bytes:
    """A zip of ``qrels.txt``, ``runs/<run>.txt`` (TREC formats) and a ``README.txt``
    naming the query set and the relevance level."""
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("README.txt", (
            f"Runs made with tiedrank's dashboard.\nQuery set: {run_set.origin}.\n"
            f"Evaluate at relevance level {run_set.rel_level}, e.g.\n"
            f"  tiedrank evaluate qrels.txt runs/*.txt --rel-level {run_set.rel_level} "
            f"-m RR -m nDCG@10\n"
            f"Runs: {', '.join(run_set.runs)}.\n"))
        archive.writestr("qrels.txt", qrels_bytes(run_set.qrels))
        used: set[str] = set()
        for name, run in run_set.runs.items():
            stem, n = file_stem(name), 2
            while stem in used:
                stem, n = f"{file_stem(name)}_{n}", n + 1
            used.add(stem)
            archive.writestr(f"runs/{stem}.txt", run_bytes(run))
    return buffer.getvalue()
