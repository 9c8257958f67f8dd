"""Output files and temporaries: no silent overwrite, no failure without the file's name,
no temporary left for good.

* :func:`check_outputs`: before any work, an output that is an input (the same file, by
  path, link or hard link) is refused whatever ``force`` says; two outputs that are one file
  are refused; an existing output is refused unless ``force`` (the CLI's ``--force``).
* :func:`replacing`: write a file through a temporary sibling renamed over it once complete,
  so an error, Ctrl-C or a full disk never leaves half a file where the output goes. Only
  a regular file is replaced: a symbolic link is followed (its target is replaced, the link
  kept), a FIFO or a character device (``/dev/null``, a named pipe a reader waits on) is
  written in place, and a block device or a socket is refused (:func:`output_kind`). A
  file that cannot be renamed over (a mount point: ``EBUSY``) is named with what to do.
* :func:`owned_prefix` / :func:`sweep_stale`: temporaries (``--out``'s sibling, the old
  result set aside, spill directories of the buckets, :func:`replacing`'s file) are named
  after their owner, a host and a process id. A process killed by SIGKILL (the OOM killer)
  cannot remove them; the next one to write there removes those whose owner is a process of
  this host that is gone. Anything else is left alone: a name of another form, another
  host's process (its id means nothing here), a live process.
* :func:`writing`: an ``OSError`` raised while writing names the file (Arrow's "Error writing
  bytes to file" and a full standard output name none).
"""
from __future__ import annotations

import errno
import hashlib
import os
import re
import shutil
import socket
import stat
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["OutputExistsError", "WriteError", "check_outputs", "output_kind", "owned_prefix",
           "replacing", "sweep_candidates", "sweep_stale", "writing"]

HOST = hashlib.sha256(socket.gethostname().encode("utf-8", "replace")).hexdigest()[:8]
"""This host, as temporaries name it (a hash: host names may hold any character)."""


class OutputExistsError(ValueError):
    """An output would overwrite a file: an input, another output, or (without ``force``)
    an existing file."""


class WriteError(OSError):
    """Writing ``target`` failed; ``str()`` names it: ``cannot write run.txt: No space left
    on device``."""

    def __init__(self, target: str, error: OSError, reason: str | None = None) -> None:
        reason = reason or (os.strerror(error.errno) if error.errno else str(error))
        super().__init__(error.errno, reason, target)
        self.target = target

    def __str__(self) -> str:
        return f"cannot write {self.target}: {self.strerror}"


@contextmanager
def writing(target: str | os.PathLike) -> Iterator[None]:
    """Re-raise an ``OSError`` of the block as a :class:`WriteError` naming ``target``
    (a broken pipe stays one: the reader went away, which is no failure to report)."""
    try:
        yield
    except (BrokenPipeError, WriteError):
        raise
    except OSError as error:
        raise WriteError(os.fspath(target), error) from None


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet): the same path is the same file
        return os.path.realpath(a) == os.path.realpath(b)


def output_kind(path: str | os.PathLike) -> str:
    """What an output path is, its symbolic links followed: ``"new"`` (nothing there, or a
    dangling link), ``"file"``, ``"directory"`` (or a name ending in ``/``), ``"stream"`` (a
    FIFO or a character device: written in place, never replaced), ``"device"`` (a block
    device or a socket: refused) or ``"loop"`` (symbolic links that lead back to themselves:
    refused).
    """
    if os.fspath(path).endswith(("/", os.sep)):
        return "directory"  # a name ending in a separator names a directory
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "new"
    except OSError as error:
        if error.errno == errno.ELOOP:
            return "loop"
        return "file"  # unreadable metadata: treated as a file (writing it will say why not)
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
        return "stream"
    return "device"


def check_outputs(outputs: Mapping[str, str | os.PathLike | None],
                  inputs: Iterable[Any] = (), *, force: bool = False) -> None:
    """Refuse, before any work, what would overwrite a file it should not.

    Parameters
    ----------
    outputs : mapping
        How each output is named to the user (``"--out"``) -> its path (None: not given).
    inputs : iterable
        The inputs; paths among them are compared (``"-"``, bytes and objects are not files).
        An output ``"-"`` is standard output: never a file, never refused as existing.
    force : bool
        Replace an existing output (never an input).

    Raises
    ------
    OutputExistsError
        Naming the output, the file and what to do instead.

    Examples
    --------
    >>> check_outputs({"--out": "results.test"}, ["results.test"], force=True)
    Traceback (most recent call last):
    ...
    tiedrank.io.outputs.OutputExistsError: --out results.test is an input: writing it would destroy it; choose another file
    """
    given = {name: os.fspath(path) for name, path in outputs.items() if path is not None}
    paths = [os.fspath(p) for p in inputs if isinstance(p, (str, os.PathLike))
             and os.fspath(p) != "-"]
    for name, path in given.items():
        if any(_same_file(path, source) for source in paths):
            raise OutputExistsError(f"{name} {path} is an input: writing it would destroy it; "
                                    "choose another file")
    names = list(given)
    for i, first in enumerate(names):
        for second in names[i + 1:]:
            if _same_file(given[first], given[second]):
                raise OutputExistsError(f"{first} and {second} are the same file "
                                        f"({given[first]}); choose two files")
    for name, path in given.items():
        if path == "-":  # standard output
            continue
        kind = output_kind(path)
        if kind == "stream":  # a FIFO or /dev/null: written in place, nothing replaced
            continue
        if kind == "device":
            raise OutputExistsError(f"{name} {path} is a block device or a socket, not a file; "
                                    "give a file name")
        if kind == "loop":
            raise OutputExistsError(f"{name} {path} is a loop of symbolic links; remove it or "
                                    "give another file name")
        if os.path.lexists(path) and not force:
            raise OutputExistsError(f"{name} {path} exists; add --force to replace it, or "
                                    "choose another file")
        if kind == "directory":
            raise OutputExistsError(f"{name} {path} is a directory; give a file name")


def owned_prefix(prefix: str) -> str:
    """``prefix`` followed by this host and process: ``.run.txt.tmp-3f2a9c1b-4711-``."""
    return f"{prefix}{HOST}-{os.getpid()}-"


def _gone(pid: int) -> bool:
    """Whether no process ``pid`` runs on this host (one of another user runs: not gone)."""
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # EPERM: it exists, owned by someone else
        return False
    return False


def sweep_stale(directory: str | os.PathLike, prefix: str) -> list[Path]:
    """Remove the entries of ``directory`` named ``prefix`` + host + pid + ``-...`` whose
    owner was a process of this host that is gone; returns what was removed.

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> dead = os.path.join(folder, f".out.tmp-{HOST}-999999999-x1")
    >>> os.mkdir(dead); os.mkdir(os.path.join(folder, ".out.tmp-00000000-999999999-x2"))
    >>> os.mkdir(os.path.join(folder, owned_prefix(".out.tmp-") + "x3"))
    >>> [p.name for p in sweep_stale(folder, ".out.tmp-")] == [os.path.basename(dead)]
    True
    >>> shutil.rmtree(folder)
    """
    removed = sweep_candidates(directory, prefix)
    for path in removed:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            try:
                path.unlink()
            except FileNotFoundError:
                pass
    return removed


def sweep_candidates(directory: str | os.PathLike, prefix: str) -> list[Path]:
    """The entries :func:`sweep_stale` would remove (their owner: a process of this host
    that is gone), in name order."""
    pattern = re.compile(re.escape(prefix) + rf"{HOST}-([0-9]{{1,10}})-")
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    return [Path(directory, name) for name in names
            if (match := pattern.match(name)) and _gone(int(match.group(1)))]


@contextmanager
def replacing(path: str | os.PathLike) -> Iterator[str]:
    """Yield a temporary sibling of ``path`` to write; once the block ends it replaces
    ``path`` (one rename). On any error or interruption the temporary is removed and
    ``path`` is left as it was; a temporary of a killed process is swept by the next
    writer of ``path`` (:func:`sweep_stale`). Errors name ``path`` (:func:`writing`).

    The temporary keeps ``path``'s ``.gz`` ending (writers compress by the name). A
    symbolic link is followed (its target replaced, the link kept); a FIFO or a character
    device is yielded as it is, to be written in place; a block device or a socket is
    refused (:func:`output_kind`).
    """
    kind = output_kind(path)
    if kind == "stream":
        with writing(path):
            yield os.fspath(path)
        return
    if kind in ("device", "loop", "directory"):
        raise WriteError(os.fspath(path), OSError(errno.EINVAL, "not a file"), {
            "device": "it is a block device or a socket, not a file",
            "loop": "it is a loop of symbolic links",
            "directory": "it is a directory"}[kind] + "; give a file name")
    final = Path(os.path.realpath(os.fspath(path)))  # a link's target, replaced
    stem = final.name if len(final.name.encode()) <= 160 else \
        final.name[:40] + "-" + hashlib.sha256(final.name.encode()).hexdigest()[:16]
    prefix = f".{stem}.tmp-"  # a long name's temporary shortened: names end at 255 bytes
    sweep_stale(final.parent, prefix)
    suffix = ".gz" if final.name.lower().endswith(".gz") else ""
    temporary = final.with_name(owned_prefix(prefix) + os.urandom(4).hex() + suffix)
    try:
        yield str(temporary)
        os.replace(temporary, final)
    except BaseException as error:
        try:
            temporary.unlink()
        except OSError:  # never made (not found, a name too long): nothing to remove
            pass
        if isinstance(error, OSError) and not isinstance(error, BrokenPipeError):
            # named as the user named the output, not as its temporary
            reason = error.strerror if isinstance(error, WriteError) else None
            if error.errno == errno.EBUSY and not isinstance(error, WriteError):
                reason = ("it is busy, or a mount point (a file mounted there, as docker -v "
                          "mounts one), which cannot be replaced; write to a new file in a "
                          "mounted directory and move it there")
            raise WriteError(os.fspath(path), error, reason) from None
        raise

