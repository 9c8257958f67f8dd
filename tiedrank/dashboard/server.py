"""``tiedrank.show(runs, qrels, **options)``: the dashboard on these runs and qrels, from
Python or a notebook. Streamlit-free: the server is ``tiedrank dashboard QRELS RUN ...`` in
a child process.

Runs and qrels come in every form :func:`tiedrank.evaluate` takes. Paths are served as
they are (a folder as its run files, as on the command line); anything else is read once
here and written as TREC files (Parquet where an id holds whitespace) into a private
temporary folder. The child serves on 127.0.0.1 on a free port; :func:`show` waits until
it answers (``/_stcore/health``, bounded) and returns its URL, shown as an IFrame in
Jupyter and printed otherwise. A second call stops the first server and starts one on the
new data.

No orphan, no file left: the child's standard input is a pipe from this process, and the
child ends (removing the temporary folder) when it closes, which this process's exit does
even when it is killed; :func:`stop`, run at exit, ends it too and removes the folder.

:meth:`tiedrank.Evaluation.show` reaches :func:`show` through the socket
:data:`tiedrank.core.show_socket.SHOW`, which this module fills when it is imported.
"""
from __future__ import annotations

import atexit
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..app_files import CLEANUP_ENV, PARENT_ENV
from ..core.errors import InputError
from ..core.options import EvaluationOptions
from ..core.show_socket import plug_show

START_FLAGS = {"rel_level": "-l", "gain": "--gain", "k": "-k", "round": "--round",
               "query_set": "--query-set", "duplicates": "--duplicates"}
"""An option of :func:`show` -> the flag of ``tiedrank dashboard`` that sets it."""
WAIT_SECONDS = 60.0


@dataclass
class Server:
    """One running dashboard: the child process, its temporary folder, its URL."""

    process: subprocess.Popen
    folder: str
    url: str


_CURRENT: Server | None = None
_LOCK = threading.Lock()


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _is_path(item: Any) -> bool:
    return isinstance(item, (str, os.PathLike)) and os.path.exists(item)


def _safe_name(name: str, taken: set[str]) -> str:
    """A file name whose stem is the run's name (``/`` and a leading dot replaced)."""
    stem = name.replace(os.sep, "_").replace("/", "_").lstrip(".") or "run"
    while stem in taken:
        stem += "_"
    taken.add(stem)
    return stem


def _write(kind: str, item: Any, folder: Path) -> str:
    """Write a read run or qrels into ``folder``: TREC, or Parquet if an id holds whitespace."""
    from ..io import write_qrels, write_run

    path = folder / f"{item.name if kind == 'run' else 'qrels'}.{'run' if kind == 'run' else 'txt'}"
    try:
        (write_run if kind == "run" else write_qrels)(item, str(path))
    except InputError:
        path = path.with_suffix(".parquet")
        columns = ["query", "doc", "score" if kind == "run" else "relevance"]
        item.frame[columns].to_parquet(path, index=False)
    return str(path)


def files_of(runs: Any, qrels: Any, folder: Path, options: EvaluationOptions) -> tuple[str, list[str], bool]:
    """(qrels path, run paths, written): paths as given when every input is one (a run's
    name is its file's stem, as on the command line); otherwise every input read (with
    ``options``' reading options) and written into ``folder``."""
    from ..evaluation.inputs import label_runs, read_qrels_input

    given = [runs] if isinstance(runs, (str, os.PathLike)) else runs
    if _is_path(qrels) and isinstance(given, (list, tuple)) and given and all(map(_is_path, given)):
        return os.path.abspath(qrels), [os.path.abspath(p) for p in given], False
    from ..core.data import Run

    written: list[str] = []
    taken: set[str] = set()
    for name, run in label_runs(runs, options).items():
        run = Run(_safe_name(name, taken), run.frame, run.source, run.findings)
        written.append(_write("run", run, folder))
    return _write("qrels", read_qrels_input(qrels, options), folder), written, True


def _flags(options: Mapping[str, Any], with_reading: bool) -> list[str]:
    flags: list[str] = []
    for name, flag in START_FLAGS.items():
        if options.get(name) is not None:
            flags += [flag, str(options[name])]
    if options.get("complete"):
        flags.append("-c")
    for name, flag in (("columns", "--columns"), ("qrels_columns", "--qrels-columns")):
        if with_reading and options.get(name):
            flags += [flag, ",".join(f"{k}={v}" for k, v in dict(options[name]).items())]
    return flags


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def _child_env(folder: str) -> dict[str, str]:
    env = dict(os.environ)
    package_root = str(Path(__file__).resolve().parents[2])  # the tiedrank this process runs
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    env[PARENT_ENV], env[CLEANUP_ENV] = "1", folder
    return env


def _start(qrels: str, runs: Sequence[str], flags: list[str], folder: str, wait: float) -> Server:
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    log = open(os.path.join(folder, "server.log"), "wb")  # noqa: SIM115 - the child's output
    command = [sys.executable, "-m", "tiedrank", "dashboard", qrels, *runs, *flags,
               "--server.port", str(port), "--server.address", "127.0.0.1",
               "--server.headless", "true", "--browser.gatherUsageStats", "false",
               "--server.fileWatcherType", "none"]
    with log:
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=log,
                                   stderr=subprocess.STDOUT, env=_child_env(folder), cwd=folder)
    server = Server(process, folder, url)
    deadline = time.monotonic() + wait
    while not _answers(f"{url}/_stcore/health"):
        if process.poll() is not None or time.monotonic() > deadline:
            said = Path(folder, "server.log").read_text(errors="replace") if Path(folder, "server.log").exists() else ""
            _end(server)
            lines = [line for line in said.splitlines() if line.startswith("tiedrank:")]
            why = "; ".join(lines) or (said.strip().splitlines() or ["no output"])[-1]
            raise RuntimeError(f"the dashboard did not start ({why})")
        time.sleep(0.2)
    return server


def _end(server: Server) -> None:
    process = server.process
    if process.poll() is None:
        try:
            process.stdin.close()  # the child's watch ends it
        except OSError:
            pass
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    elif process.stdin is not None:
        process.stdin.close()
    shutil.rmtree(server.folder, ignore_errors=True)


def stop() -> None:
    """Stop the dashboard :func:`show` started, if any (run at exit too)."""
    global _CURRENT
    with _LOCK:
        if _CURRENT is not None:
            _end(_CURRENT)
            _CURRENT = None


atexit.register(stop)


def _in_notebook() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def show(runs: Any, qrels: Any, *, k: int | None = None, rel_level: int | None = None,
         gain: str | None = None, round: int | None = None, complete: bool = False,
         query_set: str | None = None, duplicates: str = "error",
         columns: Mapping[str, str] | None = None, qrels_columns: Mapping[str, str] | None = None,
         wait: float = WAIT_SECONDS, height: int = 800) -> str:
    """Open the dashboard on ``runs`` and ``qrels`` ("Your files" in its sidebar).

    Parameters
    ----------
    runs, qrels
        As :func:`tiedrank.evaluate` takes them: paths (a folder: its run files), frames,
        Arrow tables, polars, other tools' objects, a list or dict of runs.
    k, rel_level, gain, round, complete, query_set
        The view's starting settings (the sidebar's cutoff k, relevance level, ...).
    duplicates, columns, qrels_columns
        How files are read, as in :func:`tiedrank.evaluate`.
    wait : float
        Seconds to wait for the server to answer.
    height : int
        The IFrame's height in Jupyter.

    Returns
    -------
    str
        The dashboard's URL (``http://127.0.0.1:<port>``). In Jupyter it also shows below
        the cell; elsewhere the URL is printed. The server ends with this Python process,
        or at the next :func:`show` (which replaces it) or :func:`stop`.
    """
    global _CURRENT
    options = EvaluationOptions(duplicates=duplicates, columns=tuple(sorted((columns or {}).items())),
                                qrels_columns=tuple(sorted((qrels_columns or {}).items())))
    start = {"k": k, "rel_level": rel_level, "gain": gain, "round": round, "complete": complete,
             "query_set": query_set, "duplicates": duplicates, "columns": columns,
             "qrels_columns": qrels_columns}
    stop()
    folder = tempfile.mkdtemp(prefix="tiedrank-show-")
    try:
        qrels_path, run_paths, written = files_of(runs, qrels, Path(folder), options)
        server = _start(qrels_path, run_paths, _flags(start, with_reading=not written), folder, wait)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    with _LOCK:
        _CURRENT = server
    if _in_notebook():
        from IPython.display import IFrame, display

        display(IFrame(server.url, width="100%", height=height))
    else:
        print(f"tiedrank dashboard: {server.url}")
    return server.url


plug_show(show)
