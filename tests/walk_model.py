"""The model of a user shared by the stateful testers of the whole dashboard: what a user
may do (files to upload, links to open), what must hold after every step (the words a page
may not show, the defects known and being fixed elsewhere), and how long to walk.

Two testers use it: ``tests/dashboard/app_walk.py`` (Streamlit's AppTest, every widget of
the element tree) and ``tests/browser/browser_walk.py`` (Chromium). Neither lists the
widgets of a page: both discover them on the page shown, as a user does, and pick one at
random (a seeded ``random.Random``). No Streamlit import here.

Profiles (``TIEDRANK_STATEFUL``; not tied to ``HYPOTHESIS_PROFILE``, whose deep run keeps
its time):

``quick`` (the default, CI)
    A few walks from fixed seeds, bounded to about 20 s of one worker each for AppTest and
    for the browser.
``deep``
    Many walks from fresh random seeds (printed), or ``TIEDRANK_STATEFUL_SEED``; the
    number of walks and steps from ``TIEDRANK_STATEFUL_WALKS`` / ``TIEDRANK_STATEFUL_STEPS``.
"""
from __future__ import annotations

import gzip
import os
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_data"
REPORT_DIR = ROOT / "build" / "stateful"
"""Where a walk writes its coverage (git-ignored): steps, distinct states, defects found."""


# ---------------------------------------------------------------------------------------
# Profiles
# ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Profile:
    """How far the testers walk: ``walks`` walks of ``steps`` steps each, from ``seeds``."""

    name: str
    seeds: tuple[int, ...]
    steps: int
    browser_steps: int
    shrink_seconds: float
    slow_widgets: bool
    """Whether widgets that take seconds by design (PNG export through kaleido) are picked."""


QUICK_SEEDS = (2026, 28)
"""The default walks' seeds: CI walks the same states every run (a failure reproduces with
``TIEDRANK_STATEFUL_SEED``); the deep profile explores new ones."""


def profile() -> Profile:
    """The profile asked for in the environment (see the module's docstring)."""
    name = os.environ.get("TIEDRANK_STATEFUL", "").strip().lower() or "quick"
    if name not in ("quick", "deep"):
        raise ValueError(f"TIEDRANK_STATEFUL={name!r}: expected quick or deep")
    seed = os.environ.get("TIEDRANK_STATEFUL_SEED", "").strip()
    walks = int(os.environ.get("TIEDRANK_STATEFUL_WALKS", "0") or 0)
    steps = int(os.environ.get("TIEDRANK_STATEFUL_STEPS", "0") or 0)
    if name == "quick":
        seeds = (int(seed),) if seed else QUICK_SEEDS
        return Profile("quick", seeds, steps or 9, steps or 8, 90.0, False)
    first = int(seed) if seed else random.SystemRandom().randrange(2**31)
    seeds = tuple(first + i for i in range(walks or 12))
    return Profile("deep", seeds, steps or 40, steps or 30, 600.0, True)


# ---------------------------------------------------------------------------------------
# Files a user uploads: good ones, and the mistakes users make
# ---------------------------------------------------------------------------------------

_QRELS = b"q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 e1 1\nq2 0 e2 2\nq3 0 f1 0\n"
_RUN = (b"q1 Q0 d1 1 0.5 mine\nq1 Q0 d2 2 0.5 mine\nq1 Q0 d3 3 0.2 mine\n"
        b"q2 Q0 e1 1 0.9 mine\nq2 Q0 e2 2 0.9 mine\nq3 Q0 f1 1 0.1 mine\n")


def _uploads() -> dict[str, tuple[bytes, str, str]]:
    """name -> (bytes, mime type, role); the role is the uploader a user would give it to
    (qrels, run, queries, corpus, groups), though the tester gives any file to any uploader."""
    trec = SAMPLE / "trec_eval"
    files = {
        # good
        "qrels.test": ((trec / "qrels.test").read_bytes(), "text/plain", "qrels"),
        "results.test": ((trec / "results.test").read_bytes(), "text/plain", "run"),
        "qrels.txt": (_QRELS, "text/plain", "qrels"),
        "mine.txt": (_RUN, "text/plain", "run"),
        "other.txt": (_RUN.replace(b"0.5 mine", b"0.7 other").replace(b"mine", b"other"),
                      "text/plain", "run"),
        "run.csv": (b"query,doc,score\nq1,d3,0.7\nq1,d1,0.5\nq1,d2,0.5\nq2,e2,0.9\nq2,e1,0.8\n",
                    "text/csv", "run"),
        "run.txt.gz": (gzip.compress(_RUN, mtime=0), "application/gzip", "run"),
        "qrels.csv": (b"query,doc,relevance\nq1,d1,1\nq1,d3,2\nq2,e1,1\n", "text/csv", "qrels"),
        "queries.tsv": (b"q1\tfirst query\nq2\tsecond <b>query</b>\n", "text/tab-separated-values",
                        "queries"),
        "corpus.tsv": (b"d1\tthe first document\nd3\t<script>alert(1)</script>\n", "text/plain",
                       "corpus"),
        "groups.csv": (b"query,group\nq1,short\nq2,long\n", "text/csv", "groups"),
        # needs the column mapping ("qid" is guessed, doc and score are not)
        "bm25.csv": (b"qid,passage,bm25\nq1,d3,0.7\nq1,d1,0.5\nq2,e2,0.9\n", "text/csv", "run"),
        # readable only with "Duplicate documents: keep the highest score"
        "dupes.txt": (_RUN + b"q1 Q0 d3 4 0.1 mine\n", "text/plain", "run"),
        # bad
        "empty.txt": (b"", "text/plain", "run"),
        "binary.bin.txt": (bytes(range(256)) * 4, "text/plain", "run"),
        "latin1.txt": ("q1 Q0 dé 1 0.5 r\n".encode("latin-1"), "text/plain", "run"),
        "three_columns.txt": (b"q1 d1 0.5\nq1 d2 0.4\n", "text/plain", "run"),
        "no_shared_query.txt": (_RUN.replace(b"q", b"Z"), "text/plain", "run"),
        "nan_scores.txt": (_RUN.replace(b"0.5", b"nan").replace(b"0.9", b"inf"), "text/plain", "run"),
        "text_score.csv": (b"query,doc,score\nq1,d1,high\nq1,d2,low\n", "text/csv", "run"),
        "float_grades.txt": (_QRELS.replace(b"d3 2", b"d3 1.5"), "text/plain", "qrels"),
        "<b>markup</b>.txt": (b"q1 Q0 **d1** 1 0.5 <i>r</i>\n", "text/plain", "run"),
        "bad_groups.csv": (b"group;query\nx;y\n", "text/csv", "groups"),
        "bad.gz": (b"\x1f\x8b\x08\x00garbage", "application/gzip", "run"),
        "cut_corpus.tsv.gz": (gzip.compress(b"d1\tthe first document\n" * 500, mtime=0)[:60],
                              "application/gzip", "corpus"),
        "not_parquet.parquet": (b"PAR1 not a parquet file", "application/octet-stream", "corpus"),
    }
    return files


UPLOADS = _uploads()
ROLE_WORDS = {"qrels": "qrels", "runs": "run", "query texts": "queries", "corpus": "corpus",
              "groups": "groups"}
"""Words of an uploader's label -> the role of the files a user would pick for it."""


def upload_role(label: str) -> str | None:
    low = label.lower()
    return next((role for word, role in ROLE_WORDS.items() if word in low), None)


def pick_files(rng: random.Random, label: str, allowed: list[str], multiple: bool) -> tuple[str, ...]:
    """Names of :data:`UPLOADS` a user might give the uploader labelled ``label`` (mostly
    files of its role, sometimes any file the uploader accepts), or () to clear it."""
    def accepted(name: str) -> bool:
        if not allowed:
            return True
        suffixes = [s.lstrip(".").lower() for s in Path(name).suffixes]
        return any(s in [a.lstrip(".").lower() for a in allowed] for s in suffixes)

    names = [n for n in UPLOADS if accepted(n)]
    role = upload_role(label)
    fitting = [n for n in names if UPLOADS[n][2] == role] or names
    if not names or rng.random() < 0.08:
        return ()
    pool = fitting if rng.random() < 0.75 else names
    count = rng.choice([1, 1, 1, 2, 3]) if multiple else 1
    return tuple(rng.choice(pool) for _ in range(count))


# ---------------------------------------------------------------------------------------
# Links a user opens: the settings' parameters with good, odd and hostile values
# ---------------------------------------------------------------------------------------

LINK_NAMES = ("dataset", "rel", "k", "gain", "round", "c", "queries", "data",
              "overview_metrics", "run_a", "run_b", "query", "metric")
GOOD_VALUES = {"dataset": ["llmjudge", "trec_eval", "simulated", "upload"], "rel": ["1", "2", "3"],
               "k": ["1", "5", "10", "20"], "gain": ["linear", "exp"], "round": ["off", "0", "2"],
               "c": ["0", "1"], "queries": ["trec_eval", "relevant"],
               "overview_metrics": ["RR", "P@5", "nDCG@10", "TsRR(alpha=2)"],
               "run_a": ["fine-grained", "0-10", "STANDARD"], "run_b": ["bf16", "3-point"],
               "query": ["q007", "301", "2001908"], "metric": ["nDCG@10", "RR", "AP"],
               "data": ["0123456789abcdef"]}
HOSTILE_VALUES = ["²", "٣", "１０", "-1", "0", "10001", "99999999999999999999", "1e3", "1.5", "abc",
                  "", " ", "<script>alert(1)</script>", "../../etc/passwd", "\x00", "nan", "inf",
                  "RR@", "nDCG@0", "P@²", "%", "'; DROP TABLE x; --", "é" * 300, "9" * 5000]


def pick_link(rng: random.Random) -> dict[str, str | list[str]]:
    """Query parameters of a link someone sends: a few of the dashboard's names, with good,
    odd or hostile values (``?k=²``), sometimes a name twice or a name the app does not use."""
    params: dict[str, str | list[str]] = {}
    for name in rng.sample(LINK_NAMES, rng.randint(0, 4)):
        good = GOOD_VALUES.get(name, [])
        value = rng.choice(good) if good and rng.random() < 0.55 else rng.choice(HOSTILE_VALUES)
        params[name] = [value, rng.choice(HOSTILE_VALUES)] if rng.random() < 0.1 else value
    if rng.random() < 0.1:
        params["unknown"] = rng.choice(HOSTILE_VALUES)
    return params


# ---------------------------------------------------------------------------------------
# What must hold after every step
# ---------------------------------------------------------------------------------------

NOT_DRAWN = "could not be drawn"
"""app.py's message when a page raised (an exception it caught): never expected."""

PYTHON_WORDS = [
    (re.compile(r"Traceback \(most recent call last\)"), "a traceback"),
    (re.compile(r"\b(?:Key|Value|Type|Index|Attribute|Name|ZeroDivision|Runtime|Assertion)Error\b"),
     "a Python exception's name"),
    (re.compile(r"\bNoneType\b|\bdtype\b|\bndarray\b"), "a Python type"),
    (re.compile(r"\b\w+='\w+'"), "a Python argument (name='value')"),
    (re.compile(r"\bsession_state\b|\bst\.\w+\("), "Streamlit internals"),
]
"""Text a message shown to a user must not contain: the dashboard speaks of its controls,
never of Python (house rule: one clear message in the words of the place the user is in)."""


def python_words(text: str) -> str | None:
    """What in ``text`` is Python rather than the dashboard's words, or None."""
    for pattern, what in PYTHON_WORDS:
        found = pattern.search(text)
        if found:
            return f"{what}: {found.group(0)!r}"
    return None


SETTING_ECHOES = [
    ("rel_level", re.compile(r"relevance level (\d+)"), ("learn", "simulator")),
    ("rel_level", re.compile(r"grade ≥ (\d+)"), ("learn", "simulator")),
    ("k", re.compile(r"\bk = (\d+) from the sidebar"), ()),
    ("k", re.compile(r"starting in the top (\d+)|tie ratio in the top (\d+)"), ("learn", "simulator")),
    ("gain", re.compile(r"nDCG gain (linear|exp) from the sidebar"), ()),
]
"""Sentences of a page that repeat a shared setting (setting, pattern, pages with a setting of
their own of that name): the number repeated must be the one in force."""
SETTING_CONTRADICTIONS = [
    ("query_set", "relevant", re.compile(r"the means count it as 0|counts? the query as 0")),
]
"""(setting, value, pattern): a sentence that says the opposite of the setting in force
(issue 28 #5: "leave them out", yet the page says the query counts as 0)."""


def echo_problems(text: str, settings: dict, page: str) -> list[str]:
    """Where ``text`` (the main area's words) repeats a setting other than the one in force
    (``settings``: Settings' fields) or contradicts it."""
    name = page.rsplit("/", 1)[-1].removesuffix(".py")
    problems = []
    for setting, pattern, own in SETTING_ECHOES:
        if name in own:
            continue
        for match in pattern.finditer(text):
            said = next(g for g in match.groups() if g is not None)
            if said != str(settings[setting]):
                problems.append(f"the page says {match.group(0)!r}, {setting} is {settings[setting]!r}")
    for setting, value, pattern in SETTING_CONTRADICTIONS:
        found = pattern.search(text) if settings[setting] == value else None
        if found:
            problems.append(f"the page says {found.group(0)!r} while {setting} is {value!r}")
    return problems


@dataclass(frozen=True)
class Violation:
    """An invariant that failed after a step: ``rule`` (a short name), the page, the detail."""

    rule: str
    page: str
    detail: str

    def signature(self) -> tuple[str, str, str]:
        """What a shrunk reproduction must still show (numbers and ids left out)."""
        return self.rule, self.page, re.sub(r"[\d.]+|'[^']*'", "#", self.detail)[:120]

    def __str__(self) -> str:
        return f"[{self.rule}] on {self.page}: {self.detail}"


@dataclass(frozen=True)
class Known:
    """A defect the tester finds that another branch is fixing: the walk records it and
    starts a new session instead of failing. TEMPORARY: remove the entry when ``branch``
    is merged (its regression test in test_app_stateful_regressions.py then passes)."""

    name: str
    branch: str
    description: str
    matches: Callable[[Violation], bool] = field(compare=False)


KNOWN: list[Known] = [
    Known("learn-custom-keyerror", "learn",
          "Learn: a second edit after the scenario picker shows Custom -> KeyError (the picker's "
          "state holds a display label)",
          lambda v: v.page.endswith("learn.py") and (
              "(KeyError)" in v.detail or (v.rule == "widget state" and "learn_scenario" in v.detail))),
    Known("learn-first-request-without-app", "learn (pages/learn.py; not in its brief)",
          "Learn opened as the first request of a server process runs alone (Streamlit's old "
          "pages/ mode): no sidebar, no menu, and no app.py to catch an error (#1 then shows "
          "an exception box); the other pages go through app.py (ui.ensure_app_ran)",
          lambda v: v.page.endswith("learn.py") and v.rule in ("no menu", "exception", "empty page")),
    Known("spread-no-shared-query", "learn",
          "Spread: a run that shares no query with the qrels -> ValueError ('the evaluation "
          "lacks the policies')",
          lambda v: v.page.endswith("spread.py") and "(ValueError)" in v.detail),
    Known("learn-message-python-row", "learn (tiedrank/dashboard/learn.py; not in its brief)",
          "Learn: a bad cell's message quotes the row as Python: \"query='q', doc='d1', score=None\"",
          lambda v: v.page.endswith("learn.py") and v.rule == "python words" and "query='" in v.detail),
]


def known(violation: Violation) -> Known | None:
    return next((k for k in KNOWN if k.matches(violation)), None)


def coverage(profile_name: str) -> dict:
    """Totals of the walks of a profile recorded in :data:`REPORT_DIR`: steps, distinct
    (page, widget values) states over all walks, seconds, known defects met, failures."""
    import json

    totals: dict = {"walks": 0, "steps": 0, "distinct_states": set(), "seconds": 0.0,
                    "known": {}, "failures": 0}
    for path in sorted(REPORT_DIR.glob(f"*-{profile_name}*.json")):
        data = json.loads(path.read_text())
        kind = path.name.split("-")[0]
        totals["walks"] += len(data.get("seeds", [data.get("seed")]))
        totals["steps"] += data["steps"]
        totals["distinct_states"] |= {f"{kind}:{h}" for h in data.get("state_hashes", [])}
        totals["seconds"] += data["seconds"]
        totals["failures"] += len(data["failures"])
        for name, *_ in data["known"]:
            totals["known"][name] = totals["known"].get(name, 0) + 1
    totals["distinct_states"] = len(totals["distinct_states"])
    return totals


if __name__ == "__main__":  # python tests/walk_model.py deep: the walks' coverage so far
    import sys

    print(coverage(sys.argv[1] if len(sys.argv) > 1 else "quick"))
