"""Outputs (issue 29, items 4, 7 and 8; tiedrank.io.outputs): no silent overwrite, a write
failure names the file, and what a killed process left is swept only when its owner is
gone. The CLI's side of these: tests/cli/test_cli_hostile.py and test_cli_signals.py."""
from __future__ import annotations

import errno
import os
import subprocess
import sys

import pytest

from tiedrank.distributed.output import transaction
from tiedrank.io.outputs import (HOST, OutputExistsError, WriteError, check_outputs,
                                 owned_prefix, replacing, sweep_stale)


def _dead_pid() -> int:
    """The id of a process that has ended (a child, reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_check_outputs(tmp_path):
    source = tmp_path / "run"
    source.write_text("x\n")
    (tmp_path / "link").symlink_to(source)
    for alias in ("run", "link", "./run"):
        with pytest.raises(OutputExistsError, match="is an input"):
            check_outputs({"--out": str(tmp_path / alias)}, [str(source)], force=True)
    with pytest.raises(OutputExistsError, match="--out and --qrels are the same file"):
        check_outputs({"--out": tmp_path / "new", "--qrels": tmp_path / "new"})
    with pytest.raises(OutputExistsError, match="exists; add --force"):
        check_outputs({"--out": source})
    check_outputs({"--out": source}, ["-", b"bytes"], force=True)  # replaced on purpose
    with pytest.raises(OutputExistsError, match="is a directory"):
        check_outputs({"--out": tmp_path}, force=True)
    check_outputs({"--out": tmp_path / "new", "--qrels": None})


def test_replacing_leaves_the_old_file_on_failure_and_names_the_output(tmp_path):
    target = tmp_path / "run.txt.gz"
    target.write_text("old\n")
    with pytest.raises(WriteError) as error:
        with replacing(target) as temporary:
            assert temporary.endswith(".gz") and os.path.dirname(temporary) == str(tmp_path)
            with open(temporary, "w") as handle:
                handle.write("half")
            raise OSError(errno.EFBIG, "Error writing bytes to file")
    assert str(error.value) == f"cannot write {target}: File too large"
    assert target.read_text() == "old\n" and os.listdir(tmp_path) == ["run.txt.gz"]
    with replacing(target) as temporary:
        with open(temporary, "w") as handle:
            handle.write("new\n")
    assert target.read_text() == "new\n" and os.listdir(tmp_path) == ["run.txt.gz"]


def test_only_what_a_gone_process_of_this_host_owned_is_swept(tmp_path):
    dead, alive = _dead_pid(), os.getppid()
    kept = [owned_prefix("tiedrank-buckets-") + "mine",          # this process
            f"tiedrank-buckets-{HOST}-{alive}-live",             # a live process
            f"tiedrank-buckets-0000beef-{dead}-other-host",      # its pid means nothing here
            "tiedrank-buckets-abcd1234",                         # an older name: owner unknown
            f"unrelated-{HOST}-{dead}-x"]
    gone = [f"tiedrank-buckets-{HOST}-{dead}-dir", f"tiedrank-buckets-{HOST}-{dead}-file"]
    for name in kept + gone:
        if name.endswith("file"):
            (tmp_path / name).write_text("x")
        else:
            (tmp_path / name).mkdir()
            (tmp_path / name / "b00001.arrow").write_text("x")
    removed = sweep_stale(tmp_path, "tiedrank-buckets-")
    assert sorted(p.name for p in removed) == sorted(gone)
    assert sorted(os.listdir(tmp_path)) == sorted(kept)


def test_a_result_set_aside_by_a_killed_writer_is_put_back(tmp_path):
    """A kill between _commit's two renames leaves the previous result in .out.old-*/result
    and no out: the next writer puts it back (then replaces it, whole, as always)."""
    dead = _dead_pid()
    aside = tmp_path / f".out.old-{HOST}-{dead}-x" / "result"
    aside.mkdir(parents=True)
    (aside / "manifest.json").write_text('{"runs": [], "metrics": [], "policies": []}')
    (tmp_path / f".out.tmp-{HOST}-{dead}-y").mkdir()
    with pytest.raises(RuntimeError):
        with transaction(tmp_path / "out"):
            assert (tmp_path / "out" / "manifest.json").exists()  # put back first
            raise RuntimeError("stop")
    assert sorted(os.listdir(tmp_path)) == ["out"]
    assert os.listdir(tmp_path / "out") == ["manifest.json"]
