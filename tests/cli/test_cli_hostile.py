"""Hostile use of the command line (issue 29, items 4, 6 and 7): every exit path prints one
line naming what went wrong and what to type, never a traceback; nothing is overwritten
without --force, an input never; a write failure names its file.

Each case runs the console entry point (``python -m tiedrank``, which ends with
``tiedrank.cli.run``) in a child, as a user's shell does."""
from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TREC = ROOT / "sample_data" / "trec_eval"
JUDGE = ROOT / "sample_data" / "llmjudge"
QRELS, RUN = TREC / "qrels.test", TREC / "results.test"


def tiedrank(*args, shell_tail: str = "", stdin: bytes | None = None, cwd: Path = ROOT,
             preexec=None) -> subprocess.CompletedProcess:
    """The command; ``shell_tail`` (e.g. ``>&-``) goes through sh, as a user types it."""
    command = [sys.executable, "-m", "tiedrank", *map(str, args)]
    if shell_tail:
        quoted = " ".join("'" + part.replace("'", "'\\''") + "'" for part in command)
        command = ["sh", "-c", f"exec {quoted} {shell_tail}"]
    return subprocess.run(command, capture_output=True, input=stdin, cwd=cwd, timeout=120,
                          preexec_fn=preexec)


def cli(capsys, *args) -> subprocess.CompletedProcess:
    """The command in this process (``tiedrank.cli.main``: the same handler and messages
    as the console script, without a child's start-up)."""
    from tiedrank.cli import main

    capsys.readouterr()
    try:
        status = main([str(a) for a in args])
    except SystemExit as stop:  # argparse
        status = stop.code
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(args, status, out.encode(), err.encode())


def one_line(done: subprocess.CompletedProcess, status: int = 2) -> str:
    """The one line the command printed on standard error, with the status expected."""
    message = done.stderr.decode()
    assert done.returncode == status, (done.returncode, message)
    assert "Traceback" not in message
    lines = [line for line in message.splitlines() if line.strip()]
    assert len(lines) == 1, message
    return lines[0]


# ---- item 6: tracebacks ----------------------------------------------------------------------
def test_a_closed_standard_output_is_one_line():
    """``>&-``: sys.stdout is None; the results cannot be written: say so (was an
    AttributeError 'flush' traceback after the output was silently lost)."""
    line = one_line(tiedrank("evaluate", QRELS, RUN, "-m", "RR", shell_tail=">&-"))
    assert line == ("tiedrank: error: cannot write standard output: it is closed; redirect "
                    "it, e.g. > results.txt")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_standard_output_names_it():
    line = one_line(tiedrank("evaluate", QRELS, RUN, "-m", "RR", shell_tail="> /dev/full"))
    assert line == "tiedrank: error: cannot write standard output: No space left on device"


def test_a_closed_standard_error_keeps_notes_out_of_the_output():
    """``2>&-``: print(file=None) writes to standard output, so the notes landed in the
    machine-readable output."""
    done = tiedrank("evaluate", QRELS, RUN, "-m", "RR", "--format", "csv", shell_tail="2>&-")
    assert done.returncode == 0
    assert done.stdout.decode().splitlines()[0].startswith("run,metric")
    assert "# " not in done.stdout.decode()


def test_a_run_path_holding_a_newline(tmp_path, capsys):
    """A missing one: no such file, one line (was TypeError 'a str source is a file path');
    an existing one is read like any path."""
    line = one_line(cli(capsys, "evaluate", QRELS, "ru\nn"))
    assert line == "tiedrank: error: [Errno 2] No such file or directory: 'ru\\nn'"
    odd = tmp_path / "ru\nn"
    odd.write_bytes(RUN.read_bytes())
    done = cli(capsys, "evaluate", QRELS, odd, "-m", "RR")
    assert done.returncode == 0 and b"STANDARD" in done.stdout


@pytest.mark.parametrize("query", ["q1\u00b2", "q" + "9" * 5000], ids=["superscript", "5000 digits"])
def test_query_ids_sort_whatever_digits_they_hold(tmp_path, capsys, query):
    """--per-query sorts ids naturally: '²'.isdigit() is true but int('²') raises, and
    int() refuses more than 4,300 digits (both were one cryptic line)."""
    (tmp_path / "qrels").write_text(f"{query} 0 d1 1\nq2 0 d1 1\n")
    (tmp_path / "run").write_text(f"{query} Q0 d1 1 2.0 r\nq2 Q0 d1 1 2.0 r\n")
    done = cli(capsys, "evaluate", tmp_path / "qrels", tmp_path / "run", "-m", "RR",
               "--per-query", "--format", "csv")
    assert done.returncode == 0, done.stderr
    shown = [line.split(",")[1] for line in done.stdout.decode().splitlines()[1:] if line]
    assert shown == (["q1\u00b2", "q2"] if query == "q1\u00b2" else ["q2", query])


# ---- item 7: unclear messages ---------------------------------------------------------------
@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32",
                                      "utf-32-le", "utf-32-be"])
@pytest.mark.parametrize("gzipped", [False, True], ids=["plain", "gzip"])
def test_wide_unicode_text_is_named(tmp_path, capsys, encoding, gzipped):
    """Was "unknown format: binary data (zip, xlsx and similar are not read)"."""
    import gzip

    data = RUN.read_text()[:500].encode(encoding)
    path = tmp_path / ("run.txt.gz" if gzipped else "run.txt")
    path.write_bytes(gzip.compress(data) if gzipped else data)
    line = one_line(cli(capsys, "evaluate", QRELS, path))
    width = encoding[:6].upper()
    assert line == (f"tiedrank: error: {path}, line 1: {width} text (expected UTF-8 text: "
                    f"save the file as UTF-8 (e.g. iconv -f {width} -t UTF-8 FILE > FILE.utf8))")


def test_wide_unicode_text_is_named_whatever_the_format(tmp_path):
    """A format given explicitly skips detection: the UTF-8 check names it too."""
    from tiedrank import read_qrels, read_run
    from tiedrank.core.errors import InputError

    for reader, form in ((read_run, "trec_run"), (read_run, "csv"), (read_qrels, "jsonl")):
        with pytest.raises(InputError, match=r"^x, line 1: UTF-16 text \(expected UTF-8"):
            reader("q1 Q0 d1 1 2.0 r\n".encode("utf-16-le"), format=form, source_name="x")


@pytest.mark.parametrize("flags", [["--buckets", "2"], ["--dask", "local:1"]],
                         ids=["buckets", "dask"])
@pytest.mark.parametrize("which", ["run", "qrels"])
def test_standard_input_cannot_be_bucketed(capsys, flags, which):
    """Was "-: corrupt gzip data: No such file or directory: '-'"; refused before any
    cluster starts and before standard input is read."""
    args = [QRELS, "-"] if which == "run" else ["-", RUN]
    line = one_line(cli(capsys, "evaluate", *args, "-m", "RR", *flags))
    assert line.startswith("tiedrank: error: -: standard input cannot be split into buckets "
                           "or read by Dask workers")
    assert "leave out --buckets and --dask (one pass)" in line


def test_compare_takes_any_integer_seed(capsys):
    """Was "expected non-negative integer" (numpy's words) once the bootstrap ran: any
    integer is a seed, as for evaluate's random policy; the same seed, the same output."""
    runs = [JUDGE / "runs" / "Olz-gpt4o.txt", JUDGE / "runs" / "RMITIR-llama38b.txt"]
    args = ["compare", JUDGE / "qrels.test.txt", *runs, "-m", "RR", "--test",
            "randomization", "--seed", "-1", "--resamples", "200", "--draws", "50"]
    first = cli(capsys, *args)
    assert first.returncode == 0, first.stderr
    again = cli(capsys, *args)
    assert again.stdout == first.stdout


def test_simulate_with_one_document_per_query(tmp_path, capsys):
    """Was "relevant_per_query= must be ... <= 1 (docs_per_query); got (1, 10)", a parameter
    the command has no flag for: the default range fits the candidates."""
    done = cli(capsys, "simulate", "--docs-per-query", "1", "--queries", "3", "--out",
                    tmp_path / "run", "--qrels", tmp_path / "qrels")
    assert done.returncode == 0, done.stderr
    grades = [int(line.split()[3]) for line in (tmp_path / "qrels").read_text().splitlines()]
    assert len(grades) == 3 and all(g >= 1 for g in grades)  # 1 relevant of 1


# ---- item 4: no silent overwrite ------------------------------------------------------------
@pytest.fixture
def run_copy(tmp_path):
    path = tmp_path / "r"
    path.write_bytes(RUN.read_bytes())
    return path


@pytest.mark.parametrize("force", [[], ["--force"]], ids=["plain", "force"])
@pytest.mark.parametrize("alias", ["same", "symlink", "hardlink"])
def test_quantize_never_writes_onto_its_input(run_copy, capsys, force, alias):
    out = run_copy
    if alias == "symlink":
        out = run_copy.with_name("link")
        out.symlink_to(run_copy)
    elif alias == "hardlink":
        out = run_copy.with_name("hard")
        os.link(run_copy, out)
    line = one_line(cli(capsys, "quantize", run_copy, "--levels", "2", "--out", out, *force))
    assert line == (f"tiedrank: error: --out {out} is an input: writing it would "
                    "destroy it; choose another file")
    assert run_copy.read_bytes() == RUN.read_bytes()


def test_quantize_replaces_an_existing_file_only_with_force(run_copy, tmp_path, capsys):
    out = tmp_path / "out"
    out.write_text("precious\n")
    line = one_line(cli(capsys, "quantize", run_copy, "--levels", "2", "--out", out))
    assert line == (f"tiedrank: error: --out {out} exists; add --force to replace "
                    "it, or choose another file")
    assert out.read_text() == "precious\n"
    done = cli(capsys, "quantize", run_copy, "--levels", "2", "--out", out, "--force")
    assert done.returncode == 0 and out.read_text().startswith("301 Q0 ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "r"]  # no temporary left


def test_simulate_refuses_to_overwrite(tmp_path, capsys):
    run, qrels = tmp_path / "run", tmp_path / "qrels"
    one_line(cli(capsys, "simulate", "--queries", "2", "--out", run, "--qrels", run))
    assert not run.exists()
    qrels.write_text("mine\n")
    line = one_line(cli(capsys, "simulate", "--queries", "2", "--out", run, "--qrels", qrels))
    assert "--qrels" in line and "exists; add --force" in line and not run.exists()
    done = cli(capsys, "simulate", "--queries", "2", "--out", run, "--qrels", qrels, "--force")
    assert done.returncode == 0 and qrels.read_text() != "mine\n"


# ---- item 7: a write failure names its file ---------------------------------------------------
def _small_files() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))


def test_a_write_failure_names_the_file(tmp_path):
    """Was "[Errno 27] Error writing bytes to file" (which file?). A file-size limit of
    1 KiB makes Arrow's write fail (Python ignores SIGXFSZ, so the write raises); the
    file is named where it was to go, and nothing is left behind."""
    out = tmp_path / "out"
    line = one_line(tiedrank("evaluate", JUDGE / "qrels.test.txt", JUDGE / "runs" / "Olz-gpt4o.txt",
                             "--per-query", "--out", out, preexec=_small_files))
    assert line.startswith(f"tiedrank: error: cannot write {out}{os.sep}"), line
    assert line.endswith(": File too large")
    assert not out.exists() and [p.name for p in tmp_path.iterdir()] == []
