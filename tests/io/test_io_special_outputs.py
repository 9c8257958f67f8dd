"""Writes never replace what is not a regular file (issue 43, class 2): a FIFO or a
character device is written in place (``quantize --out ff --force`` on a FIFO turned it into
a regular file and its reader got nothing); a symbolic link is followed, its target replaced
atomically and the link kept; ``--out -`` is standard output (it wrote a file named ``-``);
a rename refused with EBUSY (a mount point) is named with what to do.

Oracle: what a reader of the FIFO receives, the file system's own view (os.lstat) and the
run read back. No real device is touched: /dev/null is only written, as a shell does."""
from __future__ import annotations

import errno
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tiedrank import read_run
from tiedrank.io import write_run
from tiedrank.io.outputs import OutputExistsError, WriteError, check_outputs, replacing

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "sample_data" / "trec_eval" / "results.test"


def _reader(fifo: Path, got: list) -> threading.Thread:
    def read() -> None:
        with open(fifo, "rb") as stream:
            got.append(stream.read())
    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def tiedrank(*args, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tiedrank", *map(str, args)], cwd=cwd,
                          capture_output=True, timeout=120)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_written_in_place_through_the_library(tmp_path):
    fifo = tmp_path / "ff"
    os.mkfifo(fifo)
    got: list = []
    thread = _reader(fifo, got)
    run = read_run(RUN)
    check_outputs({"--out": fifo})  # nothing replaced: no --force needed
    with replacing(fifo) as target:
        write_run(run, target)
    thread.join(30)
    assert os.path.exists(fifo) and not fifo.is_file() and fifo.is_fifo()
    assert read_run(got[0]).frame.equals(run.frame)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_written_in_place_through_the_command_line(tmp_path):
    fifo = tmp_path / "ff"
    os.mkfifo(fifo)
    got: list = []
    thread = _reader(fifo, got)
    done = tiedrank("quantize", RUN, "--levels", "3", "--out", "ff", "--force", cwd=tmp_path)
    thread.join(30)
    assert done.returncode == 0, done.stderr
    assert fifo.is_fifo() and len(got[0].splitlines()) == 1500
    assert b"wrote run 'STANDARD-L3' (1500 lines" in done.stdout


def test_a_symbolic_link_is_followed_and_kept(tmp_path):
    target, link = tmp_path / "target.txt", tmp_path / "link.txt"
    target.write_text("old\n")
    link.symlink_to("target.txt")
    with pytest.raises(OutputExistsError, match="exists; add --force"):
        check_outputs({"--out": link})
    done = tiedrank("quantize", RUN, "--levels", "3", "--out", "link.txt", "--force",
                    cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert link.is_symlink() and os.readlink(link) == "target.txt"
    assert len(read_run(target)) == 1500
    # a dangling link: its target is made, as a shell's > makes it
    dangling = tmp_path / "dangling.txt"
    dangling.symlink_to("made.txt")
    with replacing(dangling) as path:
        write_run(read_run(RUN), path)
    assert dangling.is_symlink() and len(read_run(tmp_path / "made.txt")) == 1500


def test_dash_is_standard_output(tmp_path):
    done = tiedrank("quantize", RUN, "--levels", "3", "--out", "-", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert len(read_run(done.stdout).frame) == 1500 and not (tmp_path / "-").exists()
    assert b"to standard output" in done.stderr
    done = tiedrank("simulate", "--preset", "0-10", "--queries", "2", "--out", "-",
                    "--qrels", "q.txt", cwd=tmp_path)
    assert done.returncode == 0 and len(read_run(done.stdout)) > 0 and (tmp_path / "q.txt").exists()


def test_a_character_device_is_written_in_place(tmp_path):
    if not os.path.exists(os.devnull) or Path(os.devnull).is_file():
        pytest.skip("no character device to write")
    check_outputs({"--out": os.devnull})  # not "exists; add --force"
    done = tiedrank("quantize", RUN, "--levels", "3", "--out", os.devnull, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert not Path(os.devnull).is_file()


def test_a_busy_rename_names_the_file_and_what_to_do(tmp_path, monkeypatch):
    def busy(source, destination):
        raise OSError(errno.EBUSY, os.strerror(errno.EBUSY))

    monkeypatch.setattr(os, "replace", busy)
    with pytest.raises(WriteError, match=r"cannot write .*out.txt: it is busy, or a mount "
                                         r"point .* write to a new file"):
        with replacing(tmp_path / "out.txt") as path:
            Path(path).write_text("x\n")
    assert os.listdir(tmp_path) == []  # the temporary is gone


def test_a_link_loop_a_directory_name_and_a_long_name_are_named(tmp_path):
    """Found by the probe: a link loop was replaced by a file, ``x.txt/`` wrote ``x.txt``,
    and a 300-character name gave a raw ``[Errno 36]`` naming the temporary."""
    os.symlink("loop", tmp_path / "loop")
    with pytest.raises(OutputExistsError, match="loop of symbolic links"):
        check_outputs({"--out": tmp_path / "loop"}, force=True)
    with pytest.raises(WriteError, match="loop of symbolic links"):
        with replacing(tmp_path / "loop") as path:
            Path(path).write_text("x\n")
    assert (tmp_path / "loop").is_symlink()
    done = tiedrank("quantize", RUN, "--levels", "3", "--out", "x.txt/", cwd=tmp_path)
    assert done.returncode == 2 and b"x.txt/ is a directory" in done.stderr
    assert not (tmp_path / "x.txt").exists()
    done = tiedrank("quantize", RUN, "--levels", "3", "--out", "y" * 300, cwd=tmp_path)
    assert done.returncode == 2 and b"Traceback" not in done.stderr
    assert done.stderr.startswith(b"tiedrank: error: cannot write yyy") and b".tmp-" not in done.stderr
    long = "z" * 240  # fits a name, but its temporary did not
    done = tiedrank("quantize", RUN, "--levels", "3", "--out", long, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert len(read_run(tmp_path / long)) == 1500
    assert sorted(os.listdir(tmp_path)) == sorted(["loop", long])
