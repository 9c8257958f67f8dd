"""Learn page: toy rankings and the seed scenarios, every metric under every policy, the
enumeration of all orderings beside the closed forms, MTRR against the G-RAG paper's.

Examples
--------
Seed scenario S3 (three documents tied at the top, one relevant) has E[RR] = 11/18:

>>> result = evaluate_toy(SCENARIOS["S3"].frame())
>>> round(result.value("RR", "expected"), 6)
0.611111
"""
from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.data import Qrels, Run
from ..evaluation import build_tables, score_tables
from ..metrics import Metric, metric_values
from ..core.options import EvaluationOptions
from ..sampling import count_orderings, enumerate_orderings, first_relevant_distribution
from ..core.ties import TieTable, build_tie_table
from .labels import BEST_CASE, WORST_CASE

TOY_POLICIES = ("expected", BEST_CASE, WORST_CASE, "trec_eval", "input")
"""Policies shown for a toy ranking: the exact expectation, best, worst, trec_eval, file order."""
ENUMERATION_LIMIT = 720
"""Most orderings the Learn page lists (6! = 720)."""
TOY_QUERY = "q"
TOY_COLUMNS = ("doc", "score", "grade")


# ---- seed scenarios ------------------------------------------------------------------------
@dataclass(frozen=True)
class Scenario:
    """A toy ranking of one query: scores and grades of documents ``d1``, ``d2``, ..."""

    key: str
    title: str
    description: str
    scores: tuple[float, ...]
    grades: tuple[int, ...]

    @property
    def label(self) -> str:
        return f"{self.key}: {self.title}"

    def frame(self) -> pd.DataFrame:
        """The editable table: columns doc, score, grade."""
        return pd.DataFrame({"doc": [f"d{i + 1}" for i in range(len(self.scores))],
                             "score": np.asarray(self.scores, dtype=np.float64),
                             "grade": np.asarray(self.grades, dtype=np.int64)})


SCENARIOS: dict[str, Scenario] = {s.key: s for s in (
    Scenario("S1", "no ties", "The relevant document sits alone at rank 2: every policy agrees, "
             "RR = 1/2.", (.9, .8, .7, .6, .5), (0, 1, 0, 0, 0)),
    Scenario("S2", "relevant tied with one irrelevant", "The relevant d2 shares score .8 with "
             "d3, so it lands at rank 2 or 3 with probability 1/2 each: E[RR] = 5/12.",
             (.9, .8, .8, .6, .5), (0, 1, 0, 0, 0)),
    Scenario("S3", "three tied at the top", "d1, d2, d3 tie at .8 and one of them is relevant: "
             "rank 1, 2 or 3 with probability 1/3 each, E[RR] = 11/18.",
             (.8, .8, .8, .6, .5), (0, 1, 0, 0, 0)),
    Scenario("S4", "same first group as S2, other ties below", "The relevant d3 is tied with d2 "
             "at ranks 2-3 (E[RR] = 5/12, as S2); the tie at .6 below changes nothing for RR, "
             "while the file order gives RR = 1/3.", (.9, .8, .8, .6, .6), (0, 0, 1, 0, 0)),
    Scenario("V5", "two relevant, one in a big tie", "Four documents tie at .7 with one "
             "relevant among them; the second relevant document is last.",
             (.9, .7, .7, .7, .7, .1), (0, 0, 0, 1, 0, 1)),
    Scenario("V6", "everything tied", "Five documents with the same score, one relevant: "
             "TsRR is 0 for every alpha although E[RR] = 137/300.",
             (.5, .5, .5, .5, .5), (0, 0, 1, 0, 0)),
    Scenario("V8", "two relevant in one tie group", "Three documents tie at .97 and two of "
             "them are relevant: E[RR] = 4/9.", (.99, .97, .97, .97, .95), (0, 1, 0, 1, 0)),
    Scenario("V10", "graded relevance", "Grades 0-3: d3 (grade 3) and d4 (grade 2) tie with "
             "d2 (grade 0); nDCG averages the gains inside the group.",
             (.9, .8, .8, .8, .3), (1, 0, 3, 2, 0)),
)}
SEED_SCENARIOS = ("S1", "S2", "S3", "S4")
"""The seed notebook's scenarios (metrics-reference.md, section 7)."""


# ---- toy rankings --------------------------------------------------------------------------
def toy_metrics(k: int = 3, alpha: float = 1.0) -> list[str]:
    """The metrics the Learn page shows, in display order."""
    return ["RR", f"Success@{k}", f"P@{k}", "AP", f"nDCG@{k}", f"TsRR(alpha={alpha:g})",
            "TsRR2", "MTRR_GRAG", f"TMHits_GRAG@{k}"]


def expectation_metrics(k: int = 3) -> list[str]:
    """The metrics whose tie-aware value is a mean over orderings (enumeration makes sense)."""
    return ["RR", f"Success@{k}", f"P@{k}", "AP", f"nDCG@{k}"]


def clean_toy_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """The edited toy table's ``doc, score, grade`` columns without fully blank rows;
    ``ValueError`` when a column is missing or no row is left."""
    missing = [c for c in TOY_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"the toy ranking needs the columns doc, score, grade; missing "
                         f"{', '.join(missing)}")
    out = frame.loc[:, list(TOY_COLUMNS)].reset_index(drop=True)
    blank = out.apply(lambda col: col.isna() | (col.astype(str).str.strip() == "")).all(axis=1)
    out = out[~blank].reset_index(drop=True)  # rows the editor added but nobody filled in
    if out.empty:
        raise ValueError("the toy ranking is empty: add at least one document")
    return out


def toy_inputs(frame: pd.DataFrame, *, query: str = TOY_QUERY, name: str = "toy") -> tuple[Run, Qrels]:
    """Read an edited ``doc, score, grade`` table through the ordinary readers.

    Fully blank rows are ignored. Bad edits (a missing or non-numeric score, a duplicate
    doc id, a missing grade) raise :class:`~tiedrank.core.errors.InputError` naming the row.
    """
    from ..io import read_qrels, read_run  # local: io imports pyarrow.csv

    clean = clean_toy_frame(frame)
    run_frame = pd.DataFrame({"query": query, "doc": clean["doc"], "score": clean["score"]})
    qrels_frame = pd.DataFrame({"query": query, "doc": clean["doc"],
                                "relevance": clean["grade"]})
    run = read_run(run_frame, name=name, source_name="toy ranking")
    qrels = read_qrels(qrels_frame, source_name="toy ranking (grades)")
    return run, qrels


def editor_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """The table the page's editor shows: ``doc`` and ``grade`` as text (a grade is typed as
    text, so "1.5" or "a" reaches the readers and gets a message instead of being refused
    or rounded by a number cell), ``score`` as numbers."""
    def text(value) -> "str | None":
        if value is None or (isinstance(value, float) and value != value):
            return None
        if isinstance(value, (float, np.floating)) and float(value).is_integer():
            return str(int(value))  # a grade 2.0 that came back from a number cell reads "2"
        return str(value)

    out = frame.loc[:, list(TOY_COLUMNS)].reset_index(drop=True)
    return pd.DataFrame({"doc": pd.Series([text(v) for v in out["doc"]], dtype=object),
                         "score": pd.to_numeric(out["score"], errors="coerce").astype("float64"),
                         "grade": pd.Series([text(v) for v in out["grade"]], dtype=object)})


def _plain(value):
    """A cell as a plain value: None for blank, a float for any number, stripped text."""
    if value is None or (isinstance(value, float) and value != value):
        return None
    if isinstance(value, (bool, np.bool_)):
        return str(value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        return float(value)
    text = str(value).strip()
    return text or None


def _plain_rows(frame: pd.DataFrame) -> list[tuple]:
    return [tuple(_plain(v) for v in row) for row in
            frame.reindex(columns=list(TOY_COLUMNS)).itertuples(index=False)]


def table_rows(frame: pd.DataFrame) -> tuple:
    """The rows of an edited toy table as plain values, fully blank rows left out: two tables
    with the same rows are the same edit (whatever the cells' types)."""
    return tuple(row for row in _plain_rows(frame) if any(v is not None for v in row))


@dataclass
class EditHistory:
    """The toy table's edits on the Learn page, for "undo last edit" and "reset".

    ``tables[0]`` is the scenario's table and each later entry the table after one more
    edit. The page's editor shows ``base`` under ``editor_key``; the editor's own state holds
    the edits made since. An editor cannot be told new contents under the same key, so undo
    and reset change the key (``generation``) and the new editor starts from the table wanted.

    Examples
    --------
    >>> history = EditHistory.start("S2")
    >>> edited = SCENARIOS["S2"].frame().assign(grade=[0, 1, 2, 0, 0])
    >>> history.record(edited), history.record(edited), history.edits
    (True, False, 1)
    >>> history.undo()
    >>> history.editor_key, history.edits, history.base["grade"].tolist()
    ('learn_editor_S2_1', 0, ['0', '1', '0', '0', '0'])
    """

    scenario: str
    tables: list
    generation: int = 0
    shown: int = 0  # index in ``tables`` of the table the editor started from

    @classmethod
    def start(cls, scenario: str) -> "EditHistory":
        return cls(scenario, [editor_frame(SCENARIOS[scenario].frame())])

    @property
    def editor_key(self) -> str:
        """The editor's widget key: generation 0 keeps the historical ``learn_editor_<key>``."""
        return f"learn_editor_{self.scenario}" + (f"_{self.generation}" if self.generation else "")

    @property
    def base(self) -> pd.DataFrame:
        return self.tables[self.shown]

    @property
    def edits(self) -> int:
        return len(self.tables) - 1

    def remount(self) -> None:
        """The editor is drawn afresh (its state is gone: the page was left, or the key is
        new): it starts from the latest table, so no edit is lost."""
        self.shown = len(self.tables) - 1

    def record(self, table: pd.DataFrame) -> bool:
        """Add ``table`` as one more edit unless it equals the latest; whether it was added."""
        table = editor_frame(table)  # compared as the editor holds it: grade 2 is "2"
        if table_rows(table) == table_rows(self.tables[-1]):
            return False
        self.tables.append(table)
        return True

    def undo(self) -> None:
        """Forget the last edit: the editor shows the table before it."""
        if len(self.tables) > 1:
            self.tables.pop()
        self._restart()

    def reset(self) -> None:
        """Forget every edit: the editor shows the scenario's table."""
        del self.tables[1:]
        self._restart()

    @classmethod
    def opened(cls, lesson: "Lesson", previous: object = None) -> "EditHistory":
        """The history of a lesson opened from a link: the scenario's table, then the
        lesson's table as one edit (so undo and reset go back to the scenario). Its editor
        key is new to the session (``previous``: the history it replaces, if any)."""
        tables = [editor_frame(SCENARIOS[lesson.scenario].frame())]
        if lesson_rows(tables[0]) != lesson.rows:
            tables.append(lesson.frame())
        generation = previous.generation + 1 if isinstance(previous, EditHistory) else 0
        return cls(lesson.scenario, tables, generation, len(tables) - 1)

    def _restart(self) -> None:
        self.generation += 1
        self.shown = len(self.tables) - 1


_TOY_REMEDIES = {
    "non-integer grade": "the grade {grade} is not an integer. Type a whole number such as 0, 1, "
                         "2 or 3 (0 = not relevant; negative grades are allowed)",
    "missing grade": "the grade is empty. Type an integer grade such as 0, 1, 2 or 3 "
                     "(0 = not relevant)",
    "non-numeric score": "the score {score} is not a number. Type a number such as 0.5 "
                         "(higher ranks higher; equal scores tie)",
    "missing score": "the score is empty. Type a number such as 0.5 (higher ranks higher; "
                     "equal scores tie)",
    "NaN or infinite score": "the score {score} is not a finite number. Type a number such as "
                             "0.5 (higher ranks higher; equal scores tie)",
    "missing document id": "the doc cell is empty. Type a document id (such as d6), or delete "
                           "the row",
    "empty document id": "the doc cell is empty. Type a document id (such as d6), or delete "
                         "the row",
}


def toy_problem(err: Exception, frame: pd.DataFrame) -> str:
    """The message of a bad edit in the Learn page's words: the editor's row (counted from 1,
    as the table shows them), the document, what is wrong and what to type instead. (The
    readers' message names Python arguments, ``duplicates='max'``, the page has no control for.)

    >>> frame = SCENARIOS["S2"].frame().astype(object)
    >>> frame.iat[2, 2] = "1.5"
    >>> try:
    ...     evaluate_toy(frame)
    ... except ValueError as err:
    ...     print(toy_problem(err, frame))
    Row 3 (d3): the grade '1.5' is not an integer. Type a whole number such as 0, 1, 2 or 3 (0 = not relevant; negative grades are allowed).
    """
    from ..report import markdown_literal as md  # the cells quoted are text, never markup

    problem, line = getattr(err, "problem", None), getattr(err, "line", None)
    rows = _plain_rows(frame)
    kept = [i for i, row in enumerate(rows) if any(v is not None for v in row)]
    if problem is None or line is None or not 0 < line <= len(kept):
        return f"The table cannot be evaluated: {md(getattr(err, 'problem', None) or err)}."
    row = kept[line - 1]  # the readers count the rows they were given: blank rows left out
    doc = rows[row][0]
    if problem == "duplicate document within a query":
        first = next(i + 1 for i in kept if rows[i][0] == doc)
        return (f"Row {row + 1}: the document id {md(repr(doc))} is also on row {first}. A "
                "document appears once in a ranking: rename one of them (such as d6) or delete "
                "the row.")
    cells = frame.reindex(columns=list(TOY_COLUMNS)).iloc[row]
    remedy = _TOY_REMEDIES.get(problem, problem)
    shown = {c: md(repr(str(cells[c]).strip())) for c in ("score", "grade")}
    return f"Row {row + 1}" + (f" ({md(doc)})" if doc else "") + f": {remedy.format(**shown)}."


@dataclass(frozen=True)
class ToyResult:
    """Every metric of one toy ranking under every policy.

    ``values`` has one row per metric and one column per policy of :data:`TOY_POLICIES`;
    ``table`` is the expected tie-group table; ``scores``, ``grades`` and ``docs`` are the
    documents in file order (for the enumeration).
    """

    values: pd.DataFrame
    table: TieTable
    run: Run
    qrels: Qrels
    rel_level: int
    gain: str

    def value(self, metric: "str | Metric", policy: str = "expected") -> float:
        """The value of ``metric`` (a :class:`~tiedrank.metrics.Metric` or its name, as
        ``values`` shows it) under ``policy``."""
        return float(self.values.loc[self.values["metric"] == str(metric), policy].iloc[0])

    @property
    def has_relevant(self) -> bool:
        return bool(self.table.n_relevant[0] > 0)

    @property
    def docs(self) -> list[str]:
        return self.run.frame["doc"].tolist()

    @property
    def scores(self) -> np.ndarray:
        return self.run.frame["score"].to_numpy(dtype=np.float64)

    @property
    def grades(self) -> np.ndarray:
        lookup = dict(zip(self.qrels.frame["doc"], self.qrels.frame["relevance"]))
        return np.array([lookup[d] for d in self.docs], dtype=np.int64)

    def ranking(self) -> pd.DataFrame:
        """The toy ranking as the readers read it (doc, score, integer grade; file order)."""
        return pd.DataFrame({"doc": self.docs, "score": self.scores, "grade": self.grades})

    def ranked(self, policy: str) -> pd.DataFrame:
        """The documents in the order ``policy`` ranks them (rank, doc, score, grade)."""
        resolved = self.table.resolve(policy, 0)
        return pd.DataFrame({"rank": resolved.doc_rank, "doc": resolved.doc_ids(),
                             "score": resolved.doc_score, "grade": resolved.doc_grade})


def evaluate_toy(frame: "pd.DataFrame | tuple[Run, Qrels]", *, k: int = 3, alpha: float = 1.0,
                 rel_level: int = 1, gain: str = "linear",
                 metrics: Sequence[str] | None = None) -> ToyResult:
    """Every metric of :func:`toy_metrics` under every policy of :data:`TOY_POLICIES`.

    Parameters
    ----------
    frame : DataFrame with columns doc, score, grade (or an already read ``(run, qrels)``)
    k : int
        Cutoff of Success@k, P@k, nDCG@k and TMHits_GRAG@k.
    alpha : float
        TsRR's alpha.

    Returns
    -------
    ToyResult
        ``values``: columns metric, expected, the best and worst cases, trec_eval, input.
        Metrics defined on the tie groups (TsRR, TsRR2, MTRR_GRAG, TMHits_GRAG) have the
        same value in every column.
    """
    run, qrels = toy_inputs(frame) if isinstance(frame, pd.DataFrame) else frame
    # the toy goes through the engine's one core, as every page and the CLI do
    options = EvaluationOptions(ties=TOY_POLICIES, rel_level=rel_level, gain=gain)
    tables = build_tables({run.name: run}, qrels, options)
    evaluation = score_tables(tables, metrics if metrics is not None else toy_metrics(k, alpha),
                              options)
    summary = evaluation.summary.assign(metric=evaluation.summary["metric"].astype(str),
                                        policy=evaluation.summary["policy"].astype(str))
    values = summary.pivot(index="metric", columns="policy", values="value")
    names = list(dict.fromkeys(summary["metric"]))
    values = values.loc[names, list(TOY_POLICIES)].reset_index()
    values.columns.name = None
    return ToyResult(values, tables[run.name], run, qrels, rel_level, gain)


def enumerate_toy(result: ToyResult, metrics: Sequence[str], *,
                  max_orderings: int = ENUMERATION_LIMIT) -> pd.DataFrame:
    """Every ordering of the toy ranking with each metric (``ValueError`` above the limit).

    Columns: ``ordering`` (doc ids top to bottom), ``first relevant rank`` (0 if none) and
    one column per metric.
    """
    out = enumerate_orderings(result.scores, result.grades, list(metrics), docs=result.docs,
                              rel_level=result.rel_level, gain=result.gain,
                              max_orderings=max_orderings)
    relevant = {d for d, g in zip(result.docs, result.grades) if g >= result.rel_level}
    first = [next((i + 1 for i, d in enumerate(o.split(" ")) if d in relevant), 0)
             for o in out["ordering"]]
    out.insert(1, "first relevant rank", np.asarray(first, dtype=np.int64))
    return out


def ordering_count(result: ToyResult) -> int:
    """How many orderings the toy ranking's ties allow (product of n_g!)."""
    return count_orderings(result.scores)


def enumeration_summary(orderings: pd.DataFrame, result: ToyResult) -> pd.DataFrame:
    """Mean of each metric over the enumerated orderings beside its closed-form expectation.

    Columns: metric, mean over orderings, closed form (expected), difference, min, max
    (min and max are the worst-case and best-case values).
    """
    rows = []
    for column in orderings.columns[2:]:
        mean = float(orderings[column].mean())
        closed = result.value(column, "expected")
        rows.append({"metric": column, "orderings": len(orderings),
                     "mean over orderings": mean, "closed form (expected)": closed,
                     "difference": mean - closed, "min over orderings": float(orderings[column].min()),
                     "max over orderings": float(orderings[column].max())})
    return pd.DataFrame(rows)


# ---- MTRR against the G-RAG paper's MTRR ------------------------------------------------------
def first_rank_moments(table: TieTable) -> pd.DataFrame:
    """Per query with a relevant document retrieved: E[RR] = E[1/rank1], E[rank1], 1/E[rank1]."""
    pmf = first_relevant_distribution(table)
    pmf = pmf.assign(weighted_rr=pmf["probability"] * pmf["rr"],
                     weighted_rank=pmf["probability"] * pmf["rank"])
    out = pmf.groupby("query", sort=False).agg(expected_rr=("weighted_rr", "sum"),
                                               expected_rank=("weighted_rank", "sum"))
    out["inverse_expected_rank"] = 1.0 / out["expected_rank"]
    return out.reset_index()


def mtrr_comparison(result: ToyResult) -> pd.DataFrame:
    """E[1/rank] (the exact MTRR) against 1/E[rank] and the G-RAG paper's MTRR, for a toy.

    Rows: quantity, value, formula (LaTeX). Empty when no relevant document is retrieved.
    """
    moments = first_rank_moments(result.table)
    if moments.empty:
        return pd.DataFrame(columns=["quantity", "value", "formula"])
    m = moments.iloc[0]
    grag = float(metric_values(result.table, "MTRR_GRAG")[0])
    return pd.DataFrame([
        {"quantity": "MTRR = E[RR] (exact expectation)", "value": float(m["expected_rr"]),
         "formula": r"\mathbb{E}\left[1/\mathrm{rank}_1\right]"},
        {"quantity": "E[rank of first relevant]", "value": float(m["expected_rank"]),
         "formula": r"\mathbb{E}[\mathrm{rank}_1] = a + \frac{t+1}{r+1}"},
        {"quantity": "1 / E[rank of first relevant]", "value": float(m["inverse_expected_rank"]),
         "formula": r"1/\mathbb{E}[\mathrm{rank}_1]"},
        {"quantity": "MTRR_GRAG (G-RAG paper, Eq. 11)", "value": grag,
         "formula": r"\frac{1}{|P^+|}\sum_g k_g \frac{2}{2a_g+n_g+1}"},
    ])


def synthetic_inputs(lists: Sequence[tuple[Sequence[float], Sequence[int]]],
                      name: str = "toy") -> tuple[Run, Qrels]:
    """One query per (scores, grades) list; query ids ``q00000``, ``q00001``, ... (sorted)."""
    width = max(5, len(str(len(lists))))
    queries, docs, scores, grades = [], [], [], []
    for i, (s, g) in enumerate(lists):
        qid = f"q{i:0{width}d}"
        queries += [qid] * len(s)
        docs += [f"d{j + 1}" for j in range(len(s))]
        scores += list(map(float, s))
        grades += list(map(int, g))
    run = Run(name, pd.DataFrame({"query": queries, "doc": docs, "score": scores}).astype(
        {"query": "str", "doc": "str", "score": "float64"}))
    qrels = Qrels(pd.DataFrame({"query": queries, "doc": docs, "relevance": grades}).astype(
        {"query": "str", "doc": "str", "relevance": "int64"}))
    return run, qrels


def mtrr_curve(max_tied: int = 50, relevant: int = 1) -> pd.DataFrame:
    """A fully tied list of t documents, ``relevant`` of them relevant, for t = relevant..max_tied.

    Columns: tied, E[RR] (exact MTRR), 1/E[rank1], MTRR_GRAG. The exact value decays like
    (ln t)/t, the other two like 2/t: Jensen's gap grows with the tie.
    """
    sizes = np.arange(max(relevant, 1), max_tied + 1)
    lists = [([0.5] * t, [1] * relevant + [0] * (t - relevant)) for t in sizes]
    run, qrels = synthetic_inputs(lists)
    table = build_tie_table(run, qrels)
    moments = first_rank_moments(table).set_index("query").loc[table.queries]
    return pd.DataFrame({"tied": sizes, "E[RR] (exact MTRR)": moments["expected_rr"].to_numpy(),
                         "1/E[rank1]": moments["inverse_expected_rank"].to_numpy(),
                         "MTRR_GRAG": metric_values(table, "MTRR_GRAG")})


# ---- TsRR ------------------------------------------------------------------------------------


def policy_orders(result: ToyResult) -> pd.DataFrame:
    """The ordering each deterministic policy picks for a toy ranking (doc ids, top first)."""
    from ..core.policies import POLICY_LABELS

    rows = []
    for policy in TOY_POLICIES[1:]:
        ranked = result.ranked(policy)
        rows.append({"policy": POLICY_LABELS.get(policy, policy),
                     "ordering": " ".join(ranked["doc"].astype(str)),
                     "first relevant rank": int(ranked["rank"][ranked["grade"] >= result.rel_level]
                                                .min()) if result.has_relevant else 0})
    return pd.DataFrame(rows)


def as_fraction(value: float, max_denominator: int = 10_000, tolerance: float = 1e-10) -> str | None:
    """``"5/12"`` when ``value`` is (numerically) a simple fraction, else None."""
    from fractions import Fraction

    if not np.isfinite(value):
        return None
    frac = Fraction(float(value)).limit_denominator(max_denominator)
    if abs(float(frac) - value) > tolerance:
        return None
    return str(frac.numerator) if frac.denominator == 1 else f"{frac.numerator}/{frac.denominator}"


# ---- the lesson in the link --------------------------------------------------------------
LESSON_PARAM = "lesson"
"""The link parameter that carries Learn's scenario, controls and toy table (``?lesson=v1~…``)."""
LESSON_VERSION = 1
LESSON_MAX_ROWS = 50
LESSON_MAX_CHARS = 2000
LESSON_GAINS = ("linear", "exp")
LESSON_KEYS = {"scenario": "learn_scenario", "k": "learn_k", "alpha": "learn_alpha",
               "rel_level": "learn_rel", "gain": "learn_gain"}
"""Each :class:`Lesson` control -> the page's widget key (session state holds keys, the
scenario's key ``S1``, never its label)."""
_LESSON_PLAIN = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-")
_LESSON_TEXT = re.compile(r"(?:[A-Za-z0-9.-]|_[0-9A-F]{2})*")
_LESSON_NUMBER = re.compile(r"-?(?:[0-9]{1,20}(?:\.[0-9]{0,20})?|\.[0-9]{1,20})(?:e-?[0-9]{1,3})?")
_LESSON_VERSION = re.compile(r"v([0-9]{1,4})")


@dataclass(frozen=True)
class Lesson:
    """What the Learn page lets the user set: the scenario picked, the controls (k, TsRR's
    alpha, the relevance level, the nDCG gain) and the toy table as edited, one
    ``(doc, score, grade)`` row per document (doc and grade as typed, ``None`` for a blank
    cell; the score a float or ``None``), blank rows left out."""

    scenario: str = "S2"
    k: int = 3
    alpha: float = 1.0
    rel_level: int = 1
    gain: str = "linear"
    rows: tuple = ()

    def widget_state(self) -> dict:
        """The page's widget values of the lesson: session-state key -> value."""
        return {key: getattr(self, name) for name, key in LESSON_KEYS.items()}

    def frame(self) -> pd.DataFrame:
        """The toy table as the page's editor holds it (:func:`editor_frame`)."""
        return editor_frame(pd.DataFrame(list(self.rows) or None, columns=list(TOY_COLUMNS)))


def lesson_rows(frame: pd.DataFrame) -> tuple:
    """The rows of an edited toy table as a :class:`Lesson` holds them."""
    rows = []
    for doc, score, grade in table_rows(editor_frame(frame)):
        rows.append((None if doc is None else str(doc), score,
                     None if grade is None else str(grade)))
    return tuple(rows)


def seed_lesson(scenario: str = "S2") -> Lesson:
    """A scenario as it opens, with the page's default controls (S2: the fresh page)."""
    return Lesson(scenario, rows=lesson_rows(SCENARIOS[scenario].frame()))


def _escape(text: "str | None") -> str:
    if text is None:
        return ""
    return "".join(c if c in _LESSON_PLAIN else "".join(f"_{b:02X}" for b in c.encode("utf-8"))
                   for c in text)


def _unescape(field: str) -> "str | None":
    if not _LESSON_TEXT.fullmatch(field):
        raise ValueError(field)
    text = re.sub(rb"_([0-9A-F]{2})", lambda m: bytes([int(m[1], 16)]),
                  field.encode("ascii")).decode("utf-8")  # UnicodeDecodeError is a ValueError
    return text or None


def _number(value: "float | None") -> str:
    return "" if value is None else repr(float(value)).replace("e+", "e")


def _read_number(field: str) -> "float | None":
    if field == "":
        return None
    if not _LESSON_NUMBER.fullmatch(field):
        raise ValueError(field)
    value = float(field)
    if not math.isfinite(value):
        raise ValueError(field)
    return value


def encode_lesson(lesson: Lesson) -> "str | None":
    """The ``lesson`` link parameter of ``lesson``: ``v1~scenario~k~alpha~rel_level~gain``,
    then ``~doc~score~grade`` per row. Only ``A-Z a-z 0-9 . - _ ~`` (nothing a link must
    escape); any other character of a doc id or grade is written ``_XX`` per UTF-8 byte.
    None when the lesson is too big to travel (over :data:`LESSON_MAX_ROWS` rows or
    :data:`LESSON_MAX_CHARS` characters).

    >>> lesson = Lesson("S1", rows=(("d1", 0.9, "0"), ("d 2", None, "1")))
    >>> encode_lesson(lesson)
    'v1~S1~3~1.0~1~linear~d1~0.9~0~d_202~~1'
    >>> decode_lesson(encode_lesson(lesson)) == (lesson, None)
    True
    """
    if len(lesson.rows) > LESSON_MAX_ROWS:
        return None
    fields = [f"v{LESSON_VERSION}", lesson.scenario, str(int(lesson.k)), _number(lesson.alpha),
              str(int(lesson.rel_level)), lesson.gain]
    for doc, score, grade in lesson.rows:
        fields += [_escape(doc), _number(score), _escape(grade)]
    text = "~".join(fields)
    return text if len(text) <= LESSON_MAX_CHARS else None


LESSON_PROBLEM = ("The link's lesson (`lesson=`) {why}, so Learn opens on the seed scenario S2 "
                  "instead of the ranking the link was made for.")


def _lesson_controls(fields: list[str]) -> tuple[str, float, float, float, str]:
    """A lesson's scenario, k, alpha, relevance level and gain, each checked against what
    Learn's controls offer; ``ValueError`` for anything else."""
    scenario, k, alpha, rel_level, gain = fields
    if scenario not in SCENARIOS or gain not in LESSON_GAINS:
        raise ValueError("choice")
    k, rel_level, alpha = _read_number(k), _read_number(rel_level), _read_number(alpha)
    if k is None or not (k.is_integer() and 1 <= k <= 50) or rel_level is None \
            or not (rel_level.is_integer() and 1 <= rel_level <= 10) \
            or alpha is None or not 0.01 <= alpha <= 100:
        raise ValueError("control")
    return scenario, k, alpha, rel_level, gain


def decode_lesson(text: object) -> "tuple[Lesson | None, str | None]":
    """The :class:`Lesson` a link parameter holds, or ``(None, message)``: the page's one
    message when the parameter is malformed, too big or of a later version. Never raises.

    >>> decode_lesson("v1~S3~5~2.0~1~exp~a~1~1")[0].scenario
    'S3'
    >>> decode_lesson("v7~S3")[1].split(" (")[0]
    'The link was made by a newer version of tiedrank'
    """
    text = str(text)
    if len(text) > LESSON_MAX_CHARS:
        return None, LESSON_PROBLEM.format(why=f"is longer than {LESSON_MAX_CHARS:,} characters")
    fields = text.split("~")
    version = _LESSON_VERSION.fullmatch(fields[0])
    if version and int(version[1]) > LESSON_VERSION:
        return None, (f"The link was made by a newer version of tiedrank (lesson format "
                      f"v{int(version[1])}; this one reads v{LESSON_VERSION}), so Learn opens "
                      "on the seed scenario S2 instead.")
    try:
        if not version or int(version[1]) != LESSON_VERSION or len(fields) < 6 \
                or (len(fields) - 6) % 3:
            raise ValueError("shape")
        scenario, k, alpha, rel_level, gain = _lesson_controls(fields[1:6])
        cells = fields[6:]
        if len(cells) // 3 > LESSON_MAX_ROWS:
            return None, LESSON_PROBLEM.format(why=f"has more than {LESSON_MAX_ROWS} documents")
        rows = tuple((_unescape(cells[i]), _read_number(cells[i + 1]), _unescape(cells[i + 2]))
                     for i in range(0, len(cells), 3))
    except ValueError:
        return None, LESSON_PROBLEM.format(why="cannot be read")
    rows = tuple(row for row in rows if any(v is not None for v in row))
    return Lesson(scenario, int(k), alpha, int(rel_level), gain, rows), None
