"""``out=`` / ``--out DIR`` as a transaction: all of a result, or none of it.

Everything is written into a temporary sibling of ``DIR`` (``.DIR.tmp-XXXX``, on the same
file system, so Dask workers that see ``DIR``'s parent see it too) and renamed into place
once complete, with a manifest that lists every per-query file:

* a previous tiedrank result in ``DIR`` (recognised by its manifest) is replaced whole, so
  no file of an earlier run with more buckets or more runs survives;
* a ``DIR`` that is neither missing, empty nor a tiedrank result is refused, before any
  work (it is not ours to delete);
* a second writer of the same ``DIR`` is refused while the first runs (an ``flock`` on the
  sibling ``.DIR.lock``);
* an error, Ctrl-C or SIGTERM removes the temporary directory and leaves ``DIR`` as it was;
* :func:`read_manifest` checks the manifest against the files (a missing or extra
  per-query file is an error, not a silently different frame);
* a process killed by SIGKILL (the OOM killer) leaves its temporaries, named after their
  owner (host and process id); the next writer of ``DIR`` removes those whose owner is gone
  (and puts back a previous result the killed one had set aside but not yet replaced).
"""
from __future__ import annotations

import errno
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..io.outputs import WriteError, owned_prefix, sweep_candidates, sweep_stale, writing

PER_QUERY_DIR = "per_query"
MANIFEST = "manifest.json"
FORMAT = "tiedrank per-query result"
"""The manifest's ``format``: what marks a directory as a tiedrank result."""
_ORDER_KEYS = ("runs", "metrics", "policies")
_OURS = {MANIFEST, PER_QUERY_DIR, "report.csv", "summary.csv"}


class OutputError(ValueError):
    """``out`` cannot be written (not ours, or in use) or read back (incomplete)."""


def _is_result(path: Path) -> bool:
    """Whether ``path`` holds a tiedrank result: a manifest of ours, and nothing else but
    the files a result has."""
    try:
        manifest = json.loads(Path(path, MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not isinstance(manifest, dict) or not all(k in manifest for k in _ORDER_KEYS):
        return False
    if manifest.get("format", FORMAT) != FORMAT:  # results written before 'format' existed
        return False
    return {entry.name for entry in path.iterdir()} <= _OURS


@contextmanager
def _lock(final: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``.NAME.lock`` beside ``final`` (refuse if held)."""
    import fcntl

    lock_path = final.with_name(f".{final.name}.lock")
    while True:
        handle = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(handle)
            if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise
            raise OutputError(
                f"output directory {final}: another tiedrank is writing it (it holds {lock_path}); wait for "
                "it to finish or choose another directory") from None
        try:  # the holder before us may have removed the file we opened: lock the new one
            if os.fstat(handle).st_ino == os.stat(lock_path).st_ino:
                break
        except FileNotFoundError:
            pass
        os.close(handle)
    try:
        yield
    finally:
        try:
            os.unlink(lock_path)  # still ours: removed before the lock is let go
        except OSError:
            pass
        os.close(handle)


@contextmanager
def transaction(out: str | os.PathLike) -> Iterator[str]:
    """Yield a fresh temporary directory to write a result into; on success it becomes
    ``out`` (see the module docstring), on any error or interruption it is removed."""
    final = Path(os.path.abspath(os.fspath(out)))
    final.parent.mkdir(parents=True, exist_ok=True)
    with _lock(final):
        _sweep(final)
        _check_replaceable(final)
        temporary = Path(tempfile.mkdtemp(prefix=owned_prefix(f".{final.name}.tmp-"),
                                          dir=final.parent))
        try:
            yield str(temporary)
            _commit(temporary, final)
        except WriteError as error:  # named where the file was to go, not in the temporary
            shutil.rmtree(temporary, ignore_errors=True)
            raise WriteError(error.target.replace(str(temporary), str(final), 1), error,
                             error.strerror) from None
        except BaseException:
            shutil.rmtree(temporary, ignore_errors=True)
            raise


def _sweep(final: Path) -> None:
    """What a writer of ``final`` killed by SIGKILL (the OOM killer) left beside it (we hold
    the lock, so no live writer of ours is at work there): its temporary result is removed;
    a previous result it had set aside and not yet replaced is put back if ``final`` is
    missing (the kill came between the two renames of :func:`_commit`), removed otherwise."""
    sweep_stale(final.parent, f".{final.name}.tmp-")
    for aside in sweep_candidates(final.parent, f".{final.name}.old-"):
        if not os.path.lexists(final) and os.path.isdir(aside / "result"):
            os.rename(aside / "result", final)
        shutil.rmtree(aside, ignore_errors=True)


def _check_replaceable(final: Path) -> None:
    if not os.path.lexists(final):
        return
    if final.is_symlink() or not final.is_dir():
        raise OutputError(f"output directory {final} exists and is not a directory; choose a new "
                          "directory (it is created) or a previous tiedrank result")
    if any(final.iterdir()) and not _is_result(final):
        raise OutputError(
            f"output directory {final} is not empty and is not a tiedrank result (no manifest.json of "
            "ours, or other files beside it); tiedrank replaces only its own results: choose "
            "a new or empty directory")


def _commit(temporary: Path, final: Path) -> None:
    """Swap ``temporary`` in for ``final`` (the old result is moved aside, then removed)."""
    old = None
    if os.path.lexists(final):
        old = Path(tempfile.mkdtemp(prefix=owned_prefix(f".{final.name}.old-"),
                                    dir=final.parent))
        os.rename(final, old / "result")
    try:
        os.rename(temporary, final)
    except BaseException:
        if old is not None:  # put the previous result back
            os.rename(old / "result", final)
            shutil.rmtree(old, ignore_errors=True)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def write_manifest(directory: str | os.PathLike, runs: list[str], metrics: list[str],
                   policies: list[str]) -> None:
    """The manifest of a complete result: orders, and every per-query file (last written)."""
    files = sorted(p.name for p in Path(directory, PER_QUERY_DIR).glob("*.parquet"))
    with writing(Path(directory, MANIFEST)):
        Path(directory, MANIFEST).write_text(json.dumps(
            {"format": FORMAT, "runs": runs, "metrics": metrics, "policies": policies,
             "files": files}, indent=1), encoding="utf-8")


def read_manifest(out: str | os.PathLike) -> dict[str, Any]:
    """The manifest of the result in ``out``, checked against the per-query files."""
    path = Path(out, MANIFEST)
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise OutputError(f"{out} is not a tiedrank result: it has no {MANIFEST} (written "
                          "last, so the result may be incomplete)") from None
    except ValueError as exc:
        raise OutputError(f"{path} is not a tiedrank manifest ({exc})") from None
    if not isinstance(manifest, dict) or not all(k in manifest for k in _ORDER_KEYS):
        raise OutputError(f"{path} is not a tiedrank manifest (no runs, metrics, policies)")
    present = sorted(p.name for p in Path(out, PER_QUERY_DIR).glob("*.parquet"))
    listed = manifest.get("files")
    if listed is None:  # written before manifests listed their files
        return dict(manifest, files=present)
    missing = sorted(set(listed) - set(present))
    extra = sorted(set(present) - set(listed))
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"{len(missing)} listed file(s) missing ({', '.join(missing[:3])})")
        if extra:
            parts.append(f"{len(extra)} file(s) not in the manifest ({', '.join(extra[:3])})")
        raise OutputError(f"{out} does not match its {MANIFEST}: {'; '.join(parts)}; the "
                          "result was changed after it was written: evaluate again")
    return manifest
