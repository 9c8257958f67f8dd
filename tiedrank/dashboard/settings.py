"""The evaluation settings every page honours, and the metric choices that follow the cutoff k."""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..metrics import REGISTRY, Metric, parse_metric
from ..metrics.entries_intent import needs_subtopics
from ..core.options import EvaluationOptions, option_accepts
from ..core.validation import MAX_REL_LEVEL, ascii_int  # noqa: F401  (MAX_REL_LEVEL: the sidebar control's bound)
from .datasets import UPLOAD
from .upload_store import KEY_PATTERN


@dataclass(frozen=True)
class Settings:
    """The shared evaluation settings every page honours (``k`` is the cutoff the metric
    pickers offer; the rest maps onto :class:`~tiedrank.core.options.EvaluationOptions`)."""

    rel_level: int = 1
    gain: str = "linear"
    k: int = 10
    round: int | None = None
    complete: bool = False
    query_set: str = "trec_eval"

    def key(self) -> tuple:
        return (self.rel_level, self.gain, self.k, self.round, self.complete, self.query_set)

    def options(self, ties: "str | Iterable[str]" = "all") -> EvaluationOptions:
        """The engine's options for these settings: every page evaluates with this value."""
        return EvaluationOptions(ties=ties, rel_level=self.rel_level, gain=self.gain,
                                 round=self.round, complete=self.complete,
                                 query_set=self.query_set)


ZERO_RELEVANT_CHOICES = {"trec_eval": "count them (0, as trec_eval)", "relevant": "leave them out"}
"""The sidebar's "Queries without a relevant document" control: ``query_set`` -> label."""


ROUND_OPTIONS: tuple[str | int, ...] = ("off", 0, 1, 2, 3, 4, 5, 6)
"""Choices of the score-rounding setting ("off" = exact ties only; else decimals)."""


def round_setting(choice: str | int | None) -> int | None:
    """The ``round=`` argument of the engine for a :data:`ROUND_OPTIONS` choice."""
    return None if choice in (None, "off") else int(choice)


def default_metrics(k: int) -> list[str]:
    """The overview's default metrics at cutoff ``k``."""
    return ["RR", f"nDCG@{k}", f"P@{k}", "AP", f"R@{k}"]


def metric_choices(k: int, *, moving: bool = False, sampled: bool = False,
                   subtopics: bool = False) -> dict[str, str]:
    """Metrics the pickers offer, derived from the registry (:data:`tiedrank.metrics.REGISTRY`,
    in its order), so a newly registered family is offered on every page without touching
    the pages: a key that does not depend on k (``nDCG@k``) -> the canonical name at cutoff
    ``k`` (``nDCG@10``).

    Each family as its usage lists it (``RR`` and ``RR@k``, ``P@k``, ``Rprec``), with
    parameters at their defaults (``TsRR(alpha=1)``, ``RBP(p=0.9)``; other values can be
    typed where the picker accepts new options).

    Parameters
    ----------
    k : int
        The sidebar's cutoff.
    moving : bool
        Only metrics a tie-break can move (not policy-invariant: neither tie-aware by
        definition nor order-independent): the pickers of ranges over tie orderings.
    sampled : bool
        Only metrics the random tie-break sampler draws (:func:`tiedrank.sampling.samplable`).
    subtopics : bool
        Also the intent-aware measures (alpha-nDCG, ...), which read diversity qrels: offer
        them where the qrels carry subtopics (:attr:`Qrels.subtopics
        <tiedrank.core.data.Qrels.subtopics>`), since on other qrels they can only refuse.

    Examples
    --------
    >>> choices = metric_choices(5)
    >>> choices["nDCG@k"], choices["TsRR(alpha=1)"], choices["RBP(p=0.9)"]
    ('nDCG@5', 'TsRR(alpha=1)', 'RBP(p=0.9)')
    >>> "TsRR(alpha=1)" in metric_choices(5, moving=True), "bpref" in metric_choices(5, sampled=True)
    (False, False)
    """
    from ..sampling import samplable

    choices: dict[str, str] = {}
    for entry in REGISTRY.values():
        if needs_subtopics(entry.name) and not subtopics:
            continue
        defaults = {p.name: p.default for p in entry.parameters}
        for form in entry.forms:
            with_k = form.endswith("@k")
            metric = Metric(entry.name, k=k if with_k else None, **defaults)
            if (moving and metric.policy_invariant) or (sampled and not samplable(metric)):
                continue
            key = Metric(entry.name, **defaults).name + ("@k" if with_k else "")
            choices.setdefault(key, metric.name)
    return choices


def metric_options(k: int, *, moving: bool = False, sampled: bool = False,
                   subtopics: bool = False) -> list[str]:
    """The names of :func:`metric_choices` (the same arguments): what the metric pickers offer.

    Examples
    --------
    >>> metric_options(5)[:8]
    ['RR', 'RR@5', 'Success@5', 'Hits@5', 'P@5', 'R@5', 'AP', 'AP@5']
    >>> {"gm_map", "bpref", "num_ret", "relative_P@5"} <= set(metric_options(5))
    True
    """
    return list(metric_choices(k, moving=moving, sampled=sampled, subtopics=subtopics).values())


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


def read_metrics(names: Iterable[str]) -> tuple[list[Metric], list[str]]:
    """The dashboard's door for metric names: ``names`` (picked or typed) parsed once into
    :class:`~tiedrank.metrics.Metric` objects (each once, in order), and the error messages
    of the invalid ones. Pages keep the names (widget state holds keys) and hand the
    objects' properties on; nothing downstream parses a name again.

    >>> metrics, errors = read_metrics(["ndcg@10", "TsRR(alpha=1)", "nope"])
    >>> [m.name for m in metrics], [m.policy_invariant for m in metrics], len(errors)
    (['nDCG@10', 'TsRR(alpha=1)'], [False, True], 1)
    """
    valid: dict[Metric, None] = {}
    errors: list[str] = []
    for name in names:
        try:
            valid[parse_metric(name)] = None
        except ValueError as err:
            errors.append(str(err))
    return list(valid), errors


def validate_metrics(names: Iterable[str]) -> tuple[list[str], list[str]]:
    """Split ``names`` into canonical valid metric names and error messages
    (:func:`read_metrics`, names only)."""
    metrics, errors = read_metrics(names)
    return list(dict.fromkeys(m.name for m in metrics)), errors


def needs_reassert(drawn_at: int | None, run_serial: int | None) -> bool:
    """Whether a kept page widget must have its value written back before it is drawn in
    run ``run_serial``: it was drawn before, but not in the previous run (nor already in
    this one). A widget that reappears after runs without it (an empty state, another
    page) would otherwise mount at its element default in the browser, showing nothing
    chosen while the page uses the kept value, and the next click would replace it.

    >>> needs_reassert(None, 5), needs_reassert(4, 5), needs_reassert(5, 5), needs_reassert(3, 5)
    (False, False, False, True)
    """
    if drawn_at is None or run_serial is None:
        return False
    return drawn_at < run_serial - 1


SETTINGS_DEFAULTS = {"rel_level": 1, "gain": "linear", "k": 10, "round": "off",
                     "complete": False, "query_set": "trec_eval"}
"""The sidebar's settings (session-state key -> default) a dataset does not set itself."""

UPLOAD_REL_LEVEL = EvaluationOptions.rel_level
"""The relevance level uploads start at: the default of the CLI (``-l``) and of
:func:`tiedrank.evaluate` (``rel_level=``), not the level of the dataset shown before (2 for
LLMJudge), so that the same files give the same numbers through every door."""

URL_NAMES = {"data_source": "dataset", "rel_level": "rel", "k": "k", "gain": "gain",
             "round": "round", "complete": "c", "query_set": "queries", "upload_key": "data"}
"""Session-state key of each sidebar setting -> its name in the link (``?dataset=…&rel=…``);
``data`` is the key of the uploads in the server's store
(:mod:`tiedrank.dashboard.upload_store`), in the link only while the dataset is ``upload``."""


_ASCII_DIGITS = re.compile(r"[0-9]{1,10}")


def _whole_number(text: str, top: int) -> int | None:
    """``text`` as a whole number in 1..``top``, or None. ASCII digits only: ``"²"`` and
    ``"٣"`` pass ``str.isdigit`` but are not what a link of this app holds (``int("²")``
    raises), and ten digits at most (``int`` refuses numbers of 4,300 digits or more).

    >>> _whole_number("12", 100), _whole_number("²", 100), _whole_number("101", 100)
    (12, None, None)
    """
    if not _ASCII_DIGITS.fullmatch(text):
        return None
    number = int(text)
    return number if 1 <= number <= top else None


def settings_from_params(params: Mapping[str, str], sources: Iterable[str],
                         dataset_rel_levels: Mapping[str, int]) -> dict[str, object]:
    """The sidebar state a link asks for: session-state key -> value, for the valid values
    of ``params`` (a link's query parameters; invalid ones are left out). A dataset named
    in the link brings its own relevance level (``dataset_rel_levels``) unless the link
    sets one, so ``?dataset=trec_eval`` opens at trec_eval's level 1; uploads open at
    :data:`UPLOAD_REL_LEVEL` (the CLI's and Python's default).

    >>> settings_from_params({"dataset": "trec_eval", "k": "5"}, ["llmjudge", "trec_eval"],
    ...                      {"llmjudge": 2, "trec_eval": 1})
    {'data_source': 'trec_eval', 'k': 5, 'rel_level': 1}
    >>> settings_from_params({"dataset": "../x", "rel": "-4", "gain": "exp"}, ["a"], {})
    {'gain': 'exp'}
    >>> settings_from_params({"rel": "150"}, [], {}), settings_from_params({"rel": "2147483648"}, [], {})
    ({'rel_level': 150}, {})
    >>> settings_from_params({"dataset": "upload", "data": "00c0ffee00c0ffee"}, ["upload"], {})
    {'data_source': 'upload', 'upload_key': '00c0ffee00c0ffee', 'rel_level': 1}
    """
    sources = list(sources)
    parsers = {
        "data_source": lambda v: v if v in sources else None,
        "rel_level": lambda v: (lambda n: n if n is not None and option_accepts("rel_level", n)
                                else None)(_whole_number(v, MAX_REL_LEVEL)),
        "k": lambda v: _whole_number(v, 10_000),
        "gain": lambda v: v if option_accepts("gain", v) else None,
        "round": lambda v: next((o for o in ROUND_OPTIONS if str(o) == v), None),
        "complete": lambda v: {"1": True, "0": False}.get(v),
        "query_set": lambda v: v if v in ZERO_RELEVANT_CHOICES else None,
        "upload_key": lambda v: v if KEY_PATTERN.fullmatch(v) else None,
    }
    out: dict[str, object] = {}
    for key, parse in parsers.items():
        name = URL_NAMES[key]
        value = parse(str(params[name])) if name in params else None
        if value is not None:
            out[key] = value
    dataset = out.get("data_source")
    if dataset in dataset_rel_levels and "rel_level" not in out:
        out["rel_level"] = int(dataset_rel_levels[dataset])
    if dataset == UPLOAD and "rel_level" not in out:  # the other doors' default
        out["rel_level"] = UPLOAD_REL_LEVEL
    return out


def _within(value: int | None, low: int, high: int) -> int | None:
    return value if value is not None and low <= value <= high else None


def params_from_settings(state: Mapping[str, object]) -> dict[str, str]:
    """The link's parameters of the sidebar state (the inverse of :func:`settings_from_params`).

    >>> params_from_settings({"data_source": "llmjudge", "rel_level": 2, "k": 10, "gain": None,
    ...                       "round": "off", "complete": False, "query_set": "trec_eval"})["gain"]
    'linear'
    >>> params_from_settings({"data_source": "upload", "upload_key": "00c0ffee00c0ffee"})["data"]
    '00c0ffee00c0ffee'
    """
    values = {**SETTINGS_DEFAULTS, **{k: v for k, v in state.items() if k in URL_NAMES}}
    values["gain"] = values["gain"] or "linear"
    values["complete"] = int(bool(values["complete"]))
    values["query_set"] = values["query_set"] or "trec_eval"
    if values.get("data_source") != UPLOAD or not values.get("upload_key"):
        values.pop("upload_key", None)  # the uploads' key means nothing on another dataset
    return {URL_NAMES[key]: str(values[key]) for key in URL_NAMES if key in values}


def fit_rel_level(rel_level: int, top_grade: float | None) -> int:
    """The relevance level to use on qrels whose highest grade is ``top_grade``: a level
    above every grade (2 from LLMJudge, on 0/1 qrels) makes nothing relevant, so it comes
    down to the highest grade (at least 1; 1 when there is no grade).

    >>> fit_rel_level(2, 1), fit_rel_level(2, 3), fit_rel_level(3, 0), fit_rel_level(2, float("nan"))
    (1, 2, 1, 1)
    """
    if top_grade is None or top_grade != top_grade:
        return 1
    return max(1, min(int(rel_level), int(top_grade)))


def metrics_from_param(values: Iterable[str]) -> list[str]:
    """The metrics a link names (``?overview_metrics=RR&overview_metrics=P@5``), valid ones only.

    >>> metrics_from_param(["RR", "nope@", "P@5"])
    ['RR', 'P@5']
    """
    valid, _ = validate_metrics(v for v in values if v)
    return valid


def share_link(address: str | None, params: Iterable[tuple[str, str]], page: str = "") -> str:
    """The link to the view shown: the page's address (``st.context.url``, without a query;
    ``None`` outside a browser, then ``/<page>``) and every parameter of the address bar, in
    order (a parameter may repeat: ``overview_metrics=RR&overview_metrics=AP``).

    >>> share_link("http://127.0.0.1:8501/compare", [("dataset", "llmjudge"), ("k", "10")])
    'http://127.0.0.1:8501/compare?dataset=llmjudge&k=10'
    >>> share_link("http://127.0.0.1:8501", [("k", "5")])
    'http://127.0.0.1:8501/?k=5'
    >>> share_link(None, [("m", "P@5"), ("m", "AP")], "overview")
    '/overview?m=P%405&m=AP'
    """
    from urllib.parse import urlencode, urlsplit

    query = urlencode(list(params))
    base = address if address else f"/{page}"
    if address and not urlsplit(address).path:  # the app's root: http://host:port/?…
        base += "/"
    return base + (f"?{query}" if query else "")


def link_note(source: str, *, remade: bool, store_hours: float) -> str:
    """What a shared link brings back, for the data source in force: a bundled dataset
    always; uploads while the server keeps them; runs simulated in this session when their
    settings travel in the link (``remade``), else not.

    >>> link_note("llmjudge", remade=False, store_hours=2)[:40]
    'Opens this page with the same data, sett'
    """
    from .datasets import SESSION, UPLOAD

    text = ("Opens this page with the same data, settings and choices, in any browser that "
            "can reach this dashboard.")
    if source == UPLOAD:
        return text + f" The uploaded files are kept on this server for up to {store_hours:g} hours."
    if source == SESSION:
        return text + (" The simulated runs are made again from their settings, bit for bit."
                       if remade else " These runs cannot be made again from a link (quantised "
                       "from uploads or from my runs): download them on the Simulator page.")
    return text
