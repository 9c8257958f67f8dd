"""Files from the command line: ``tiedrank dashboard QRELS RUN|DIR [...]`` (and
:func:`tiedrank.show`) as the sidebar's "Your files" dataset. Streamlit-free.

How the paths reach the server: the CLI checks them (:func:`check_paths`), then puts a
:class:`~tiedrank.app_files.FilesManifest` (the absolute paths, the starting settings, the
reading options) in the environment variable :data:`~tiedrank.app_files.FILES_ENV` of the
process that runs Streamlit (Streamlit runs in that process); the server reads it with
:func:`manifest`. Nothing the browser sends names a path: a link says
``?dataset=files`` and run names, and the pages show run names (file stems), never a path.
The server reads exactly the files given and the run files of the folders given.

Each rerun lists the folders again (:func:`tiedrank.io.folders.list_runs`: a ``stat`` per file), so a file
added, changed or removed shows on the next rerun or page load, with a short note
(:class:`Watch`); a file is read again only when its (size, mtime_ns) changed
(:func:`read_file`, cached by that key, bounded).

>>> change_notes({"a": (1, 1), "b": (1, 1)}, {"a": (1, 2), "gamma": (3, 3)})
['gamma added', 'a changed', 'b removed']
"""
from __future__ import annotations

import json
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..app_files import FILES_ENV, FilesManifest, files_manifest  # noqa: F401 - FILES_ENV: for users
from ..core.data import Qrels, Run
from ..core.errors import InputError
from ..evaluation.inputs import unique_label
from ..io.folders import list_runs, run_name
from .datasets import FILES, FILES_LABEL, left_out_note  # noqa: F401 - FILES: the source's key, for its users

START_NAMES = ("rel_level", "gain", "k", "round", "complete", "query_set")
"""The settings the command line may start the view at (the sidebar's keys)."""
MAX_CACHED = 64
"""How many readings (path, size, mtime_ns, options) are kept."""


def manifest(environ: Mapping[str, str] = os.environ) -> FilesManifest | None:
    """The server's manifest (``None``: started without files; see
    :func:`tiedrank.app_files.files_manifest`)."""
    return files_manifest(environ)


def change_notes(before: Mapping[str, tuple], after: Mapping[str, tuple]) -> list[str]:
    """The notes between two listings (run name -> (size, mtime_ns)): added, changed, removed."""
    added = [f"{n} added" for n in after if n not in before]
    changed = [f"{n} changed" for n in after if n in before and before[n] != after[n]]
    removed = [f"{n} removed" for n in before if n not in after]
    return added + changed + removed


class Watch:
    """The server's last listing of the files and the notes of what changed since, each
    with a serial number: a session shows the notes past the serial it saw last."""

    def __init__(self, keep: int = 50) -> None:
        self._lock = threading.Lock()
        self._last: dict[str, tuple] | None = None
        self._scope: str | None = None
        self._notes: list[tuple[int, str]] = []
        self.serial = 0
        self._keep = keep

    def see(self, listing: Mapping[str, tuple], scope: str = "") -> int:
        """Record ``listing`` (of the manifest ``scope``: another manifest starts afresh,
        without notes); returns the serial after it."""
        with self._lock:
            if self._last is not None and scope == self._scope:
                for note in change_notes(self._last, listing):
                    self.serial += 1
                    self._notes.append((self.serial, note))
                del self._notes[:-self._keep]
            self._last, self._scope = dict(listing), scope
            return self.serial

    def notes_since(self, serial: int) -> list[str]:
        with self._lock:
            return [note for number, note in self._notes if number > serial]


WATCH = Watch()
"""The server's one watch (every session shares it)."""

_CACHE: OrderedDict[tuple, Run | Qrels | InputError] = OrderedDict()
_CACHE_LOCK = threading.Lock()


def read_file(path: Path, kind: str, stat: tuple[int, int], reading: Mapping[str, Any]
              ) -> Run | Qrels | InputError:
    """A run or the qrels read from ``path`` with the CLI's readers and options, cached by
    (path, size, mtime_ns, options); an error is returned (and cached), never raised."""
    key = (str(path), kind, stat, json.dumps(dict(reading), sort_keys=True))
    with _CACHE_LOCK:
        if key in _CACHE:
            _CACHE.move_to_end(key)
            return _CACHE[key]
    value = _read(path, kind, reading)
    with _CACHE_LOCK:
        _CACHE[key] = value
        while len(_CACHE) > MAX_CACHED:
            _CACHE.popitem(last=False)
    return value


def _read(path: Path, kind: str, reading: Mapping[str, Any]) -> Run | Qrels | InputError:
    from .. import io

    name = path.name
    # the command line's --max-input-size and --max-ratio (the same for every file served)
    previous = io.set_input_limits(max_bytes=reading.get("max_bytes"), max_ratio=reading.get("max_ratio"))
    try:
        if kind == "run":
            return io.read_run(str(path), columns=reading.get("columns"), source_name=name,
                               duplicates=reading.get("duplicates") or "error")
        return io.read_qrels(str(path), columns=reading.get("qrels_columns"), source_name=name)
    except InputError as err:
        return err
    except MemoryError:
        return InputError("too large to read in this server's memory", source=name)
    except OSError as err:
        return InputError(f"cannot be read ({err.strerror or err})", source=name)
    except Exception as err:  # noqa: BLE001 - a reader bug must not become a traceback on a page
        return InputError(f"could not read the file ({type(err).__name__}: {err})", source=name)
    finally:
        io.set_input_limits(max_bytes=previous.max_bytes, max_ratio=previous.max_ratio)


@dataclass
class FilesData:
    """What one rerun read: the qrels (or ``None``), the runs by unique name, the errors
    (one line per unreadable file or missing path), the names left out, the notes of what
    changed, and the parts of the dataset's cache key."""

    qrels: Qrels | None
    runs: dict[str, Run]
    errors: list[str]
    left_out: list[str]
    parts: list[object]

    @property
    def label(self) -> str:
        names = list(self.runs)
        return f"{FILES_LABEL}: {len(names)} run{'s' if len(names) != 1 else ''} ({', '.join(names)})"

    def notes(self, changes: Sequence[str], quote: Callable[[str], str] = str) -> list[str]:
        """The notes above every page: what changed (``changes``: "gamma.run added"), and
        the runs left out while the others are shown (``quote``: names as text)."""
        notes = ["Your files: " + ", ".join(quote(c) for c in changes) + "."] if changes else []
        if self.left_out and self.runs:
            notes.append(left_out_note([quote(name) for name in self.left_out]))
        return notes


def _stat(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_size, stat.st_mtime_ns


def load(found: FilesManifest, watch: Watch | None = WATCH) -> FilesData:
    """List and read the manifest's files (a ``stat`` each; a file read again only when it
    changed). Two files of one stem are both shown, the second as ``name (2)``; an empty
    file (one a job has just created) is left out until it holds something."""
    reading = dict(found.reading)
    errors: list[str] = []
    qpath = Path(found.qrels)
    qstat = _stat(qpath)
    qrels: Qrels | InputError | None = None
    if qstat is None:
        errors.append(f"The qrels file {qpath.name} is not there any more.")
    else:
        qrels = read_file(qpath, "qrels", qstat, reading)
        if isinstance(qrels, InputError):
            errors.append(str(qrels))
            qrels = None
    paths, problems = list_runs(found.paths, found.qrels)
    errors += [problem[0].upper() + problem[1:] + "." for problem in problems]
    listing: dict[str, tuple] = {}
    runs: dict[str, Run] = {}
    left_out: list[str] = []
    parts: list[object] = ["files", qstat]
    for path in paths:
        stat = _stat(path)
        if stat is None or stat[0] == 0:  # gone meanwhile, or a file just created: not yet
            continue
        name = unique_label(run_name(path.name), listing)
        listing[name] = stat
        parts.append((name, stat))
        run = read_file(path, "run", stat, reading)
        if isinstance(run, InputError):
            errors.append(str(run))
            left_out.append(name)
            continue
        runs[name] = run if run.name == name else Run(name, run.frame, run.source, run.findings)
    if watch is not None:
        watch.see(listing, found.to_json())
    return FilesData(qrels, runs, errors, left_out, parts)


def start_settings(found: FilesManifest | None) -> dict[str, Any]:
    """The sidebar settings the command line starts the view at (:data:`START_NAMES`; the
    sidebar's ``round`` is ``"off"`` or a number of decimals)."""
    if found is None:
        return {}
    start = {k: v for k, v in found.start.items() if k in START_NAMES and v is not None}
    return start
