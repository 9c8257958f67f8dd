"""The evaluation settings every page honours (:class:`ViewSettings`), the sidebar's state
machine that decides their values from run to run (:func:`open_link`, :func:`before_widgets`,
:func:`dataset_changed`, :func:`data_read`, :func:`take_note`), and the metric choices that
follow the cutoff k."""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from ..metrics import REGISTRY, Metric, parse_metric
from ..metrics.entries_intent import needs_subtopics
from ..core.options import EvaluationOptions, option_accepts
from ..core.validation import MAX_REL_LEVEL, ascii_int  # noqa: F401  (MAX_REL_LEVEL: the sidebar control's bound)
from .datasets import BUNDLED, DEFAULT_DATASET, SESSION, UPLOAD
from .local_files import FILES, manifest, start_settings
from .upload_store import KEY_PATTERN


@dataclass(frozen=True)
class ViewSettings:
    """The sidebar's view over the engine's :class:`~tiedrank.core.options.EvaluationOptions`
    (relevance level, gain, rounding, ``-c``, query set: :meth:`options`) plus the cutoff
    ``k`` the metric pickers offer: what every page honours."""

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


Settings = ViewSettings
"""The former name of :class:`ViewSettings` (kept for code outside the dashboard)."""


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

URL_NAMES = {"dataset": "dataset", "rel_level": "rel_level", "k": "k", "gain": "gain",
             "round": "round", "complete": "complete", "query_set": "query_set",
             "upload_key": "upload_key"}
"""Session-state key of each sidebar setting -> its name in the link
(``?dataset=…&rel_level=…``): one word for each, the same in both; ``upload_key`` is the key
of the uploads in the server's store (:mod:`tiedrank.dashboard.upload_store`), in the link
only while the dataset is ``upload``."""

OLD_URL_NAMES = {"rel": "rel_level", "c": "complete", "queries": "query_set", "data": "upload_key"}
"""A link parameter's former name -> the session-state key it sets: links made before the
names above (``?rel=2&c=1&queries=relevant&data=<key>``) open the same view; a link that
holds both spellings takes the new one, and the address bar is rewritten with the new names."""


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


def _link_name(params: Mapping[str, str], key: str) -> str | None:
    """The name under which ``params`` hold the setting ``key``: its name (:data:`URL_NAMES`),
    else a former name (:data:`OLD_URL_NAMES`); None when the link does not set it.

    >>> _link_name({"rel": "2"}, "rel_level"), _link_name({"rel": "2", "rel_level": "3"}, "rel_level")
    ('rel', 'rel_level')
    """
    spellings = [URL_NAMES[key], *(old for old, new in OLD_URL_NAMES.items() if new == key)]
    return next((name for name in spellings if name in params), None)


def settings_from_params(params: Mapping[str, str], sources: Iterable[str],
                         dataset_rel_levels: Mapping[str, int]) -> dict[str, object]:
    """The sidebar state a link asks for: session-state key -> value, for the valid values
    of ``params`` (a link's query parameters; invalid ones are left out). A dataset named
    in the link brings its own relevance level (``dataset_rel_levels``) unless the link
    sets one, so ``?dataset=trec_eval`` opens at trec_eval's level 1; uploads open at
    :data:`UPLOAD_REL_LEVEL` (the CLI's and Python's default).

    >>> settings_from_params({"dataset": "trec_eval", "k": "5"}, ["llmjudge", "trec_eval"],
    ...                      {"llmjudge": 2, "trec_eval": 1})
    {'dataset': 'trec_eval', 'k': 5, 'rel_level': 1}
    >>> settings_from_params({"dataset": "../x", "rel_level": "-4", "gain": "exp"}, ["a"], {})
    {'gain': 'exp'}
    >>> settings_from_params({"rel_level": "150"}, [], {}), settings_from_params({"rel_level": "2147483648"}, [], {})
    ({'rel_level': 150}, {})
    >>> settings_from_params({"dataset": "upload", "upload_key": "00c0ffee00c0ffee"}, ["upload"], {})
    {'dataset': 'upload', 'upload_key': '00c0ffee00c0ffee', 'rel_level': 1}
    >>> settings_from_params({"rel": "3", "c": "1"}, [], {})  # the former names (OLD_URL_NAMES)
    {'rel_level': 3, 'complete': True}
    """
    sources = list(sources)
    parsers = {
        "dataset": lambda v: v if v in sources else None,
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
        name = _link_name(params, key)
        value = parse(str(params[name])) if name is not None else None
        if value is not None:
            out[key] = value
    dataset = out.get("dataset")
    if dataset in dataset_rel_levels and "rel_level" not in out:
        out["rel_level"] = int(dataset_rel_levels[dataset])
    if dataset == UPLOAD and "rel_level" not in out:  # the other doors' default
        out["rel_level"] = UPLOAD_REL_LEVEL
    return out


def _within(value: int | None, low: int, high: int) -> int | None:
    return value if value is not None and low <= value <= high else None


def params_from_settings(state: Mapping[str, object]) -> dict[str, str]:
    """The link's parameters of the sidebar state (the inverse of :func:`settings_from_params`).

    >>> params_from_settings({"dataset": "llmjudge", "rel_level": 2, "k": 10, "gain": None,
    ...                       "round": "off", "complete": False, "query_set": "trec_eval"})["gain"]
    'linear'
    >>> params_from_settings({"dataset": "upload", "upload_key": "00c0ffee00c0ffee"})["upload_key"]
    '00c0ffee00c0ffee'
    """
    values = {**SETTINGS_DEFAULTS, **{k: v for k, v in state.items() if k in URL_NAMES}}
    values["gain"] = values["gain"] or "linear"
    values["complete"] = int(bool(values["complete"]))
    values["query_set"] = values["query_set"] or "trec_eval"
    if values.get("dataset") != UPLOAD or not values.get("upload_key"):
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
    if source == FILES:
        return text + " The data is the files this server was started with, as they are then."
    if source == UPLOAD:
        return text + f" The uploaded files are kept on this server for up to {store_hours:g} hours."
    if source == SESSION:
        return text + (" The simulated runs are made again from their settings, bit for bit."
                       if remade else " These runs cannot be made again from a link (quantised "
                       "from uploads or from my runs): download them on the Simulator page.")
    return text


# ---- the sidebar's state machine ---------------------------------------------------------
# Streamlit-free: every step reads the session state as a plain mapping and returns the
# changes to make (session-state key -> new value); app.py applies them and draws the widgets.

SIDEBAR_KEY = "_tiedrank_sidebar"
"""Session-state key of the machine's own memory (a :class:`SidebarMemory`)."""


@dataclass(frozen=True)
class SidebarMemory:
    """What the sidebar remembers beside its widgets' values.

    ``link_read``: the link's settings were taken (once per session); ``pending``: values
    for widgets that already exist in this run, applied before they are drawn next run;
    ``fitted_for``: the uploads whose relevance level was fitted to their grades;
    ``note``: what the next run tells the user; ``upload_rel_level``: the level chosen for
    the uploads, for coming back to them from another dataset."""

    link_read: bool = False
    pending: Mapping[str, object] = field(default_factory=dict)
    fitted_for: str | None = None
    note: str | None = None
    upload_rel_level: int = UPLOAD_REL_LEVEL


def memory(state: Mapping[str, object]) -> SidebarMemory:
    """The machine's memory in ``state`` (a fresh one in a new session)."""
    found = state.get(SIDEBAR_KEY)
    return found if isinstance(found, SidebarMemory) else SidebarMemory()


def dataset_defaults(dataset: str, state: Mapping[str, object] = {}, *,
                     session_rel_level: int | None = None) -> dict[str, object]:
    """The settings a dataset brings when it is chosen: its own relevance level (LLMJudge: 2,
    trec_eval: 1), the level of the runs made in this session (``session_rel_level``), or,
    for uploads, the level chosen for them before (else :data:`UPLOAD_REL_LEVEL`).

    >>> dataset_defaults("llmjudge"), dataset_defaults("upload"), dataset_defaults("session")
    ({'rel_level': 2}, {'rel_level': 1}, {})
    """
    if dataset == UPLOAD:
        return {"rel_level": memory(state).upload_rel_level}
    if dataset == FILES:  # the command line's -l, else the other doors' default
        return {"rel_level": int(start_settings(manifest()).get("rel_level", UPLOAD_REL_LEVEL))}
    if dataset in BUNDLED:
        return {"rel_level": BUNDLED[dataset].rel_level}
    if dataset == SESSION and session_rel_level is not None:
        return {"rel_level": int(session_rel_level)}
    return {}


SIDEBAR_DEFAULTS = {"dataset": DEFAULT_DATASET, **SETTINGS_DEFAULTS,
                    **dataset_defaults(DEFAULT_DATASET)}
"""Every sidebar widget's key -> its value in a new session without a link."""


def sidebar_defaults() -> dict[str, object]:
    """:data:`SIDEBAR_DEFAULTS`, or on a server started with files (``tiedrank dashboard
    QRELS RUN``) "Your files" with the command line's settings (``-l``, ``-k``, ...)."""
    found = manifest()
    if found is None:
        return SIDEBAR_DEFAULTS
    return {**SIDEBAR_DEFAULTS, "dataset": FILES, **dataset_defaults(FILES), **start_settings(found)}


def sources() -> tuple[str, ...]:
    """The sidebar's data sources: "Your files" first when the server has them, the bundled
    datasets, the session's runs, the uploads."""
    return ((FILES,) if manifest() is not None else ()) + (*BUNDLED, SESSION, UPLOAD)


def open_link(state: Mapping[str, object], params: Mapping[str, str]) -> dict[str, object]:
    """Once per session, before the widgets: the settings the link asks for
    (:func:`settings_from_params`; a dataset named there brings its own relevance level);
    nothing after the first run. The changes hold ``"dataset"`` when the link names one."""
    if memory(state).link_read:
        return {}
    levels = {key: data.rel_level for key, data in BUNDLED.items()}
    if manifest() is not None:
        levels[FILES] = int(dataset_defaults(FILES)["rel_level"])
    wanted = settings_from_params(params, sources(), levels)
    return {**wanted, SIDEBAR_KEY: replace(memory(state), link_read=True)}


def before_widgets(state: Mapping[str, object]) -> dict[str, object]:
    """Every run, before the widgets are drawn: the default of every widget not set yet,
    and the pending values (a widget's value cannot change once it is drawn in a run)."""
    changes: dict[str, object] = {key: value for key, value in sidebar_defaults().items()
                                  if key not in state}
    remembered = memory(state)
    if remembered.pending:
        changes.update(remembered.pending)
        changes[SIDEBAR_KEY] = replace(remembered, pending={})
    return changes


def dataset_changed(state: Mapping[str, object], *,
                    session_rel_level: int | None = None) -> dict[str, object]:
    """The dataset control's callback (``state["dataset"]`` is the new choice): the defaults
    it brings (:func:`dataset_defaults`)."""
    return dataset_defaults(str(state["dataset"]), state, session_rel_level=session_rel_level)


def data_read(state: Mapping[str, object], data_key: str,
              top_grade: float | None) -> tuple[dict[str, object], bool]:
    """After the uploads are read (``data_key``: their dataset key; ``top_grade``: the highest
    grade of their qrels): (changes, rerun). The level in force is remembered for coming
    back to the uploads; once per uploaded qrels, a level above every grade (2 from
    LLMJudge, on 0/1 qrels), which makes nothing relevant, comes down to the highest grade
    (:func:`fit_rel_level`) on the next run (``rerun``), with a note. A level the user
    chooses afterwards is kept."""
    level = int(state["rel_level"])
    remembered = replace(memory(state), upload_rel_level=level)
    if remembered.fitted_for == data_key:
        return {SIDEBAR_KEY: remembered}, False
    remembered = replace(remembered, fitted_for=data_key)
    fitted = fit_rel_level(level, top_grade)
    if fitted == level:
        return {SIDEBAR_KEY: remembered}, False
    top = top_grade if top_grade is None or top_grade != int(top_grade) else int(top_grade)
    note = f"Relevance level set to {fitted}: the highest grade in these qrels is {top}."
    return {SIDEBAR_KEY: replace(remembered, pending={**remembered.pending, "rel_level": fitted},
                                 note=note, upload_rel_level=fitted)}, True


def take_note(state: Mapping[str, object]) -> tuple[dict[str, object], str | None]:
    """(changes, note): the note a step left for the user, shown once."""
    remembered = memory(state)
    if remembered.note is None:
        return {}, None
    return {SIDEBAR_KEY: replace(remembered, note=None)}, remembered.note


def view_settings(state: Mapping[str, object]) -> ViewSettings:
    """The :class:`ViewSettings` the sidebar's widgets hold (``state``: their values)."""
    return ViewSettings(rel_level=int(state["rel_level"]), gain=state["gain"] or "linear",
                        k=int(state["k"]), round=round_setting(state["round"]),
                        complete=bool(state["complete"]),
                        query_set=state["query_set"] or "trec_eval")


def link_changes(link: Mapping[str, list[str]], state: Mapping[str, object],
                 steps: Iterable[str] = (), steps_name: str = "sim", *,
                 keep_steps: bool = False) -> tuple[dict[str, object], list[str]]:
    """How the address bar's parameters (``link``: name -> values) must change to follow the
    sidebar: (name -> new value, names to delete). ``steps``: the Simulator's steps that
    make the session's runs again (``steps_name=`` in the link) on "Simulated in this
    session"; ``keep_steps``: a link whose runs could not be made keeps naming them.

    >>> link_changes({"k": ["5"], "upload_key": ["00c0ffee00c0ffee"], "rel": ["1"]},
    ...              {"dataset": "trec_eval", "k": 5, "rel_level": 1})[1]
    ['rel', 'upload_key']
    """
    params = params_from_settings(state)
    put: dict[str, object] = {name: value for name, value in params.items()
                              if link.get(name) != [value]}
    gone = sorted(name for name in (set(URL_NAMES.values()) - set(params)) | set(OLD_URL_NAMES)
                  if name in link)  # e.g. the uploads' key on a bundled dataset; a former name
    if not keep_steps:
        steps = list(steps) if params.get(URL_NAMES["dataset"]) == SESSION else []
        if list(link.get(steps_name, [])) != steps:
            if steps:
                put[steps_name] = steps
            else:
                gone.append(steps_name)
    return put, gone


SIDEBAR_HELP = {
    "dataset": "A bundled dataset (two real, one synthetic), the runs you generated or quantised "
               "on the Simulator page in this session, or your own qrels and runs. Your choice "
               "and settings are kept when you switch pages.",
    "upload_qrels": "TREC qrels (qid iter docno grade), or CSV/TSV with a header, Parquet or JSON "
                    "lines with query, doc and relevance columns; ranx's saved qrels (JSON, "
                    "Parquet, .lz4). gzip is fine.",
    "upload_runs": "TREC runs (qid Q0 docno rank score tag; the rank column is ignored), a label "
                   "file (qid 0 docno grade: the grade is the score), or CSV/TSV/Parquet/JSON "
                   "lines with query, doc and score columns; ranx's saved runs (JSON, Parquet, "
                   ".lz4). gzip is fine.",
    "upload_queries": "A TSV file with lines 'qid<TAB>query text', shown next to query ids.",
    "upload_duplicates": "A run that lists a document twice for one query: stop with an error "
                         "naming the lines, or keep the row with the highest score.",
    "rel_level": "Binary metrics (RR, P, R, AP) count a document as relevant when its grade is "
                 "at least this. TREC Deep Learning uses 2 on a 0-3 scale; trec_eval's default is 1.",
    "gain": "Gain of a document of grade g in (n)DCG: linear = g (trec_eval), exp = 2^g - 1.",
    "k": "The k of the metrics with a cutoff (nDCG@k, P@k, R@k, ...), used by every page.",
    "round": "Round scores to this many decimals before ranking, so that near-equal scores tie. "
             "Off: only exactly equal scores tie.",
    "query_set": "trec_eval counts a query whose judged documents are all below the relevance "
                 "level, scoring 0 on the binary metrics (the default, so the trec_eval column is "
                 "trec_eval's number). Some papers leave such queries out (--query-set relevant).",
    "complete": "trec_eval -c: a judged query the run returns nothing for scores 0 and counts in "
                "the mean. Off (trec_eval's default): it is left out of that run's mean.",
}
"""The help of each sidebar control, by its session-state key."""


def round_label(choice: str | int) -> str:
    """The label of a :data:`ROUND_OPTIONS` choice.

    >>> round_label("off"), round_label(1), round_label(3)
    ('off (exact ties only)', '1 decimal', '3 decimals')
    """
    return "off (exact ties only)" if choice == "off" else f"{choice} decimal{'s' if choice != 1 else ''}"


def session_caption(origin: str, rel_level: int, *, travels: bool) -> str:
    """The sidebar's caption of the runs made on the Simulator page (``origin``: their query
    set, as shown; ``travels``: their settings travel in the link)."""
    return (f"Runs you made on the Simulator page, kept for this browser session only. Query "
            f"set: {origin}; relevance level {rel_level}. Adding runs on another query set "
            "replaces them."
            + (" Their settings travel in the page's link (**Link to this view**), which makes "
               "them again in another browser." if travels else ""))


def context_summary(context) -> str:
    """:func:`data_summary` of a page context (its runs and qrels)."""
    return data_summary(len(context.runs), context.qrels.frame["query"].nunique(),
                        len(context.qrels), sum(len(run) for run in context.runs.values()))


def data_summary(n_runs: int, n_queries: int, n_judgements: int, n_ranked: int) -> str:
    """The sidebar's one-line summary of the data loaded.

    >>> data_summary(1, 1200, 3000, 45000)
    '1 run · 1,200 judged queries · 3,000 judgements · 45,000 ranked documents'
    """
    return (f"{n_runs} run{'s' if n_runs != 1 else ''} · {n_queries:,} judged queries · "
            f"{n_judgements:,} judgements · {n_ranked:,} ranked documents")
