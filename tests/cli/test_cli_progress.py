"""The progress line of long CLI work: drawn on a terminal, erased before results, never
written when standard error is piped or redirected; the steps come from the loops
themselves (buckets, resamples, tie-break draws), ending complete."""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from tiedrank.cli import _common, main
from tiedrank.cli._progress import TerminalProgress, terminal_progress
from tiedrank.core.progress import reporting

ROOT = Path(__file__).resolve().parents[2]
TREC = ROOT / "sample_data" / "trec_eval"
LLMJUDGE = ROOT / "sample_data" / "llmjudge"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_only_a_terminal_gets_a_line(monkeypatch):
    monkeypatch.delenv("NO_PROGRESS", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert terminal_progress(io.StringIO()) is None  # piped or redirected
    assert isinstance(terminal_progress(_Terminal()), TerminalProgress)
    monkeypatch.setenv("NO_PROGRESS", "1")
    assert terminal_progress(_Terminal()) is None


def _steps(argv: list[str]) -> dict[str, list[tuple[int, int | None]]]:
    seen: dict[str, list[tuple[int, int | None]]] = {}
    with reporting(lambda what, done, total: seen.setdefault(what, []).append((done, total))):
        assert main([str(a) for a in argv]) == 0
    return seen


def test_buckets_report_their_tasks_to_the_end(capsys):
    seen = _steps(["evaluate", TREC / "qrels.test", TREC / "results.test", "-m", "AP",
                   "--buckets", "2"])
    assert seen["bucket tasks"][-1] == (2, 2)
    assert [done for done, _ in seen["bucket tasks"]] == [1, 2]
    splitting = [what for what in seen if what.startswith("splitting")]
    assert len(splitting) == 2 and all(seen[w][-1][0] == seen[w][-1][1] for w in splitting)


def test_compare_reports_resamples_and_draws(capsys):
    seen = _steps(["compare", LLMJUDGE / "qrels.test.txt",
                   LLMJUDGE / "runs" / "willia-umbrela1.txt", LLMJUDGE / "runs" / "Olz-gpt4o.txt",
                   "-m", "AP", "--test", "randomization", "--resamples", "99", "--draws", "30"])
    assert seen["randomization test resamples"][-1] == (99, 99)
    assert seen["tie-break draws"][-1] == (30, 30)


def test_the_line_is_erased_before_the_results(monkeypatch, capsys):
    terminal = _Terminal()
    monkeypatch.setattr(_common, "terminal_progress",
                        lambda: TerminalProgress(terminal, delay=0, interval=0))
    assert main(["evaluate", str(TREC / "qrels.test"), str(TREC / "results.test"), "-m", "AP",
                 "--buckets", "2"]) == 0
    drawn = terminal.getvalue()
    assert "\rbucket tasks: 1/2 (50%)\x1b[K" in drawn and drawn.endswith("\r\x1b[K")
    assert "\r" not in capsys.readouterr().out


def test_a_large_file_says_it_is_being_read(tmp_path, monkeypatch):
    """Past 64 MB a file's read is one long step: named at once, ended by the reader."""
    from tiedrank.io import _load, read_run, trec_stream

    monkeypatch.setattr(_load, "SHOWN_READ_BYTES", 10)
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 2.5 bm25\nq1 Q0 d2 2 1.0 bm25\n")
    for streamed_from in (1 << 30, 0):  # read into memory, then from the path (streamed)
        monkeypatch.setattr(trec_stream, "STREAM_MIN_BYTES", streamed_from)
        seen = []
        with reporting(lambda what, done, total: seen.append((what, done, total))):
            read_run(path)
        assert seen == [(f"reading {path} (0 MB)", 0, 1), (f"read {path}", 1, 1)]
