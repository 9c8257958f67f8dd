"""The dashboard's data: bundled datasets, content hashes for caching, uploads and their column mapping."""
from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..app_files import SAMPLE_DIR  # the bundled data: the installed copy or the checkout's


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
    "checkpoints": BundledDataset(
        key="checkpoints",
        label="Simulated checkpoints: one reranker, six training epochs (synthetic)",
        description=("Synthetic data from tiedrank's simulator (seed 2026): 30 queries x 30 "
                     "judged candidates, grades 0-3, scored by six checkpoints "
                     "splade-epoch1 ... splade-epoch6 of one reranker whose quality rises "
                     "by epoch and then saturates, while its labels stay on a coarse "
                     "5-level scale. The run names carry the step: see the Checkpoints "
                     "page. Relevance level 1."),
        qrels="checkpoints/qrels.txt",
        runs=tuple(f"checkpoints/runs/splade-epoch{epoch}.txt" for epoch in range(1, 7)),
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
FILES = "files"
"""The data-source key of the files the server was started with (``tiedrank dashboard QRELS
RUN|DIR``; :mod:`tiedrank.dashboard.local_files`): ``?dataset=files`` in a link."""
FILES_LABEL = "Your files"



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



RUN_FIELDS = ("query", "doc", "score")
QRELS_FIELDS = ("query", "doc", "relevance")
TABULAR_FORMATS = ("csv", "tsv", "parquet", "jsonl")
"""Formats whose columns may need mapping (TREC formats have fixed positions)."""

def guess_columns(columns: Sequence[str], fields: Sequence[str]) -> dict[str, str | None]:
    """Which column holds each field, by the readers' own aliases (``tiedrank.io.ALIASES``,
    case-insensitive); ``None`` where no alias matches."""
    from ..io import ALIASES

    folded: dict[str, str] = {}
    for name in columns:
        folded.setdefault(str(name).strip().casefold(), str(name))
    return {f: next((folded[a] for a in ALIASES[f] if a in folded), None) for f in fields}


def inspect_upload(data: bytes, name: str, fields: Sequence[str]) -> tuple[str, list[str]]:
    """(format, columns) of an uploaded file; columns are empty for TREC formats.

    Raises ``InputError`` for an unknown or unreadable format.
    """
    from ..io import detect_format, list_columns

    fmt = detect_format(data, name)
    columns = list_columns(data, format=fmt, source_name=name) if fmt in TABULAR_FORMATS else []
    return fmt, columns


def readable_uploads(qrels: tuple[str, str] | None, runs: Sequence[tuple[str, str]],
                     waiting: Collection[str], unreadable: Collection[str]) -> tuple[bool, list[int], list[str]]:
    """Which uploads the pages can read now: (qrels ready, indexes of the ready runs, notes).

    Each file is ``(ident, name)``; ``waiting``: idents of files whose column mapping is not
    complete; ``unreadable``: idents of files that cannot even be inspected. A run that
    waits or cannot be read leaves the others shown; each waiting file gets a note naming
    it, in the sidebar's words.

    >>> readable_uploads(("q", "qrels.txt"), [("a", "a.txt"), ("s", "scores.csv")], {"s"}, ())
    (True, [0], ['**scores.csv** waits for its columns: choose them in the sidebar (**Columns of scores.csv**). Meanwhile every page shows the other runs.'])
    >>> readable_uploads(("q", "judged.csv"), [("a", "a.txt")], {"q"}, ())[:2]
    (False, [0])
    """
    qrels_ready = qrels is not None and qrels[0] not in waiting and qrels[0] not in unreadable
    ready = [i for i, (ident, _) in enumerate(runs) if ident not in waiting and ident not in unreadable]
    notes = []
    for ident, name in ([qrels] if qrels is not None else []) + list(runs):
        if ident in waiting:
            notes.append(f"**{name}** waits for its columns: choose them in the sidebar "
                         f"(**Columns of {name}**)."
                         + (" Meanwhile every page shows the other runs."
                            if (ident, name) != qrels and ready and qrels_ready else ""))
    return qrels_ready, ready, notes


def left_out_note(names: Sequence[str]) -> str:
    """The note on every page when some runs could not be read but others are shown.

    >>> left_out_note(["broken.txt"])
    'Every page shows the other runs, without **broken.txt** (see the message above).'
    """
    return ("Every page shows the other runs, without " + ", ".join(f"**{n}**" for n in names)
            + " (see the message above).")


CORPUS_FILE = "corpus.tsv.gz"
"""The name of a bundled dataset's corpus, next to its qrels."""


def bundled_corpus_path(dataset_label: str) -> Path | None:
    """The corpus shipped with the bundled dataset of this label, or None."""
    for dataset in BUNDLED.values():
        if dataset.label == dataset_label:
            path = SAMPLE_DIR / Path(dataset.qrels).parent / CORPUS_FILE
            return path if path.exists() else None
    return None


def dataset_caption(key: str) -> str:
    """What the sidebar says under a dataset choice: a bundled set's description, where the
    command line's files come from, or how to make session runs (when there are none yet)."""
    if key in BUNDLED:
        return BUNDLED[key].description
    if key == FILES:
        return ("The qrels and runs named on the command line (tiedrank dashboard QRELS "
                "RUN|DIR), read on this server; a file added or changed shows when the page reruns.")
    return ("Nothing yet: generate runs on the Simulator page (or quantise a loaded run there) "
            "and click **Add to my runs**.")


def dataset_label(key: str) -> str:
    """The sidebar's label of a dataset choice: a bundled dataset's, the session's runs', or
    the uploads'.

    >>> dataset_label("session"), dataset_label("upload"), dataset_label("files")
    ('Simulated in this session', 'Upload your own', 'Your files')
    """
    if key in BUNDLED:
        return BUNDLED[key].label
    if key == FILES:
        return FILES_LABEL
    return SESSION_LABEL if key == SESSION else "Upload your own"


@dataclass(frozen=True)
class ColumnPlan:
    """What the sidebar shows for a tabular upload's columns (:func:`column_plan`):
    ``prefill`` field -> the column to pre-select (a guess, for a field not chosen yet);
    ``waiting``: fields still without a column; ``caption``: the expander's first line;
    ``helps``: field -> the help of its selectbox; ``unguessed``: fields no alias found
    (their selectbox starts empty)."""

    prefill: dict[str, str]
    waiting: list[str]
    caption: str
    helps: dict[str, str]
    unguessed: list[str]


FIELD_HINTS = {"score": " (a number; higher = ranked higher)", "relevance": " (an integer grade)"}


def column_plan(columns: Sequence[str], fields: Sequence[str], chosen: "dict[str, str | None]",
                role: str, file_name: str, quote: "Callable[[str], str]" = str) -> ColumnPlan:
    """The column mapping of an upload of ``role`` ("qrels" or "run"; ``file_name`` as shown):
    fields not in ``chosen`` yet are pre-filled where the readers' aliases find a column
    (:func:`guess_columns`); a field whose choice is not a column waits. ``quote`` shows a
    column name in the caption (as text, never markup).

    >>> plan = column_plan(["qid", "docid", "s"], RUN_FIELDS, {}, "run", "r.csv")
    >>> plan.prefill, plan.waiting
    ({'query': 'qid', 'doc': 'docid'}, ['score'])
    >>> plan.caption
    'Choose which columns hold the fields of the run (still to choose: score).'
    """
    guess = guess_columns(columns, fields)
    prefill = {name: guess[name] for name in fields if guess[name] is not None and name not in chosen}
    now = {name: chosen[name] if name in chosen else prefill.get(name) for name in fields}
    waiting = [name for name in fields if now[name] not in columns]
    if waiting:
        caption = (f"Choose which columns hold the fields of the {role} "
                   f"(still to choose: {', '.join(waiting)}).")
    else:
        caption = "Columns chosen: " + ", ".join(f"{name} = {quote(now[name])}" for name in fields) + "."
    helps = {name: f"The column of {file_name} that holds the {name}{FIELD_HINTS.get(name, '')}."
             for name in fields}
    return ColumnPlan(prefill, waiting, caption, helps, [n for n in fields if guess[n] is None])
