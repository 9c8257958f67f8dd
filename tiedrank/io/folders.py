"""Run files named on a command line: a file as given, a folder as every run file in it, in
natural order (``alpha2`` before ``alpha10``), each file once; a run named by its file's stem
(``alpha.run``: ``alpha``). Read by ``tiedrank dashboard QRELS RUN|DIR`` and the dashboard's
"Your files" (:mod:`tiedrank.dashboard.local_files`), which lists the folders again at each
rerun: only ``stat`` calls here, nothing is read.

>>> sorted(["m-epoch10.run", "m-epoch2.run", "m-epoch1.run"], key=natural_key)
['m-epoch1.run', 'm-epoch2.run', 'm-epoch10.run']
>>> run_name("alpha.run"), run_name("bm25.txt.gz"), run_name("ckpt_12000")
('alpha', 'bm25', 'ckpt_12000')
"""
from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

NOT_RUNS = frozenset({".md", ".rst", ".html", ".pdf", ".png", ".jpg", ".jpeg", ".svg", ".py",
                      ".sh", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".log", ".lock", ".tmp",
                      ".part", ".swp", ".crdownload"})
"""Suffixes of a folder's files that are not runs: notes, scripts, files still being written.
Hidden files (``.x``) and editor backups (``x~``) are not runs either."""
_COMPRESSED = (".gz", ".lz4")
_DIGITS = re.compile(r"(\d+)")


def natural_key(name: str) -> tuple:
    """Sort key of names in natural order: digit runs compare as numbers (by length, then
    digits, so no int() of a long run), the rest case-folded; the name breaks ties."""
    parts = _DIGITS.split(str(name))
    return tuple((0, len(p.lstrip("0")), p.lstrip("0")) if i % 2 else (1, p.casefold())
                 for i, p in enumerate(parts) if p), str(name)


def run_name(file_name: str) -> str:
    """A run's name from its file's: the stem, without a compression suffix."""
    name = file_name
    for suffix in _COMPRESSED:
        if name.endswith(suffix) and len(name) > len(suffix):
            name = name[:-len(suffix)]
            break
    return Path(name).stem or name


def is_run_file(path: Path) -> bool:
    """A folder's entry that counts as a run file (see :data:`NOT_RUNS`)."""
    name = path.name
    if name.startswith((".", "~")) or name.endswith("~"):
        return False
    return path.suffix.lower() not in NOT_RUNS and path.is_file()


def _same(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def list_runs(paths: Sequence[str | os.PathLike], qrels: str | os.PathLike | None = None
              ) -> tuple[list[Path], list[str]]:
    """The run files of ``paths`` (a file as given, a folder's run files in the natural order
    of their run names: ``m`` before ``m-copy``),
    each once (a file named twice, or also inside a folder named, is one run; the qrels
    file is never a run), and the problems found: a path that is not there, a folder
    without a run file or that cannot be listed (each a sentence naming the file or
    folder by its last part, never the whole path)."""
    found: list[Path] = []
    seen: set[str] = set()
    problems: list[str] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            try:
                entries = sorted((p for p in path.iterdir() if is_run_file(p)),
                                 key=lambda p: (natural_key(run_name(p.name)), p.name))
            except OSError as err:
                problems.append(f"the folder {path.name} cannot be listed ({err.strerror})")
                continue
            if not [p for p in entries if qrels is None or not _same(p, qrels)]:
                problems.append(f"the folder {path.name} holds no run file")
        elif path.exists():
            entries = [path]
        else:
            problems.append(f"{path.name} is not there")
            continue
        for entry in entries:
            key = os.path.realpath(entry)
            if key in seen or (qrels is not None and _same(key, qrels)):
                continue
            seen.add(key)
            found.append(entry)
    return found, problems
