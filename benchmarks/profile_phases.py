"""Where the time and the bytes of one evaluation go, phase by phase (issue 33).

Runs ``tiedrank evaluate`` (the CLI's own path: :func:`build_tables`, :func:`score_tables`,
the report it prints) on a run and its qrels with the library's functions wrapped by
timers, and prints one row per phase: CPU seconds (process time, every thread counted, the
phase's own time without the phases inside it; the system's share of it, mostly the page
faults of fresh memory, apart, and the count of those faults, which repeats where their
cost does not), wall seconds and the peak resident memory
reached during the phase's own time. The peak is exact, not sampled: at every phase boundary the
kernel's high-water mark (``VmHWM``) is read and reset (``/proc/self/clear_refs``), so each
phase sees the largest resident size while it, and nothing nested in it, ran.

Each repetition is a fresh process (memory starts from nothing); the table shows the
median of each figure over the repetitions::

    python benchmarks/profile_phases.py QRELS RUN --repeat 3
    python benchmarks/profile_phases.py QRELS RUN -- --ties all -m RR -m AP

The wrapped functions are looked up by name where their callers find them, so a phase is
missing from the table when the code it times was renamed (the row count says so).
Linux only (``/proc``).
"""
from __future__ import annotations

import argparse
import contextlib
import functools
import io
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from typing import Any, Callable

DEFAULT_ARGS = ["--ties", "all", "-m", "RR", "-m", "P@10", "-m", "R@100", "-m", "AP",
                "-m", "nDCG@10"]

# (module, attribute, phase label or None to name it from the call); a "Class.method"
# attribute wraps the method. Each label's time excludes the phases nested in it.
PHASES: list[tuple[str, str, str | None]] = [
    ("tiedrank.io.read", "stream_trec_run", "read: parse from the path (streamed, 3 columns)"),
    ("tiedrank.io.trec_stream", "_regular", "read: streamed checks (ASCII, blanks, comments)"),
    ("tiedrank.io.read", "load", "read: load the file's bytes"),
    ("tiedrank.io.read", "choose_format", "read: detect format, check UTF-8"),
    ("tiedrank.io.read", "read_trec", "read: parse (pyarrow CSV, in memory)"),
    ("tiedrank.io.read", "as_ids", "validate: ids"),
    ("tiedrank.io.read", "as_values", "validate: scores and grades"),
    ("tiedrank.io.read", "check_duplicates", "validate: duplicate (query, doc)"),
    ("tiedrank.io.read", "to_frame", "read: Arrow table to pandas frame"),
    ("tiedrank.evaluation.scoring", "build_tie_table", "table: build (rest)"),
    ("tiedrank.evaluation.scoring", "build_own_tie_table", "table: build (rest)"),
    ("tiedrank.core.ties", "_qrels_side", "table: qrels side (R, ideal grades)"),
    ("tiedrank.core.ties", "_run_query_codes", "table: run query codes"),
    ("tiedrank.core.ties", "_join_grades", "table: join the qrels (grades)"),
    ("tiedrank.core.ties", "_ranking_order", "table: sort (query, score desc)"),
    ("tiedrank.core.ties", "TieTable.scoring", "table: compact scoring view"),
    ("tiedrank.core.ties", "TieTable.resolve", None),
    ("tiedrank.core.ties", "TieTable.resolve_scoring", None),
    ("tiedrank.evaluation.scoring", "metric_values", None),
    ("tiedrank.evaluation.scoring", "_summary", "summary: exact means"),
    ("tiedrank.evaluation.scoring", "_tidy", "summary: per-query long frame"),
    ("tiedrank.cli.evaluate", "show", "report: pivot and print"),
]


class Recorder:
    """Exclusive CPU / wall seconds and peak RSS per phase label (a stack of open phases)."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = {}
        self.sys: dict[str, float] = {}
        self.wall: dict[str, float] = {}
        self.peak: dict[str, int] = {}
        self.faults: dict[str, int] = {}
        self.calls: dict[str, int] = {}
        # [label, cpu, wall and system seconds and minor page faults at the last boundary]
        self.stack: list[list[Any]] = []

    @staticmethod
    def _high_water() -> int:
        """The high-water mark of resident memory since the last reset (KiB), then reset."""
        with open("/proc/self/status") as status:
            kib = next(int(line.split()[1]) for line in status if line.startswith("VmHWM"))
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")
        return kib

    def _boundary(self) -> None:
        """Charge the time since the last boundary and the peak to the innermost phase."""
        cpu, wall, peak = time.process_time(), time.perf_counter(), self._high_water()
        system, faults = os.times().system, _minor_faults()
        if self.stack:
            top = self.stack[-1]
            label = top[0]
            self.cpu[label] = self.cpu.get(label, 0.0) + cpu - top[1]
            self.wall[label] = self.wall.get(label, 0.0) + wall - top[2]
            self.sys[label] = self.sys.get(label, 0.0) + system - top[3]
            self.faults[label] = self.faults.get(label, 0) + faults - top[4]
            self.peak[label] = max(self.peak.get(label, 0), peak)
        for frame in self.stack:
            frame[1], frame[2], frame[3], frame[4] = cpu, wall, system, faults

    @contextlib.contextmanager
    def phase(self, label: str):
        self._boundary()
        self.stack.append([label, time.process_time(), time.perf_counter(), os.times().system,
                           _minor_faults()])
        self.calls[label] = self.calls.get(label, 0) + 1
        try:
            yield
        finally:
            self._boundary()
            self.stack.pop()


def _minor_faults() -> int:
    """Page faults of this process so far that needed no disk: each is a fresh page of
    memory touched. Unlike the system time they cost (a few microseconds each on a virtual
    machine, more under load), the count repeats from run to run."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def _label(attribute: str, args: tuple, kwargs: dict) -> str:
    """The label of a phase named from its call: the policy resolved, the kernel run."""
    if attribute in ("TieTable.resolve", "TieTable.resolve_scoring"):
        return f"policy {args[1]}: resolve ties"
    metric = args[1] if len(args) > 1 else kwargs.get("metric")
    table = args[0]
    extreme = kwargs.get("extreme")
    policy = extreme or getattr(table, "policy", "?")
    return f"kernel {getattr(metric, 'name', metric)} ({policy})"


def install(recorder: Recorder) -> int:
    """Wrap every phase function of :data:`PHASES` that exists; returns how many."""
    import importlib

    wrapped = 0
    for module_name, attribute, label in PHASES:
        module = importlib.import_module(module_name)
        owner, name = module, attribute
        if "." in attribute:
            owner_name, name = attribute.split(".")
            owner = getattr(module, owner_name)
        original = getattr(owner, name, None)
        if original is None:
            continue

        def wrapper(*args, __original=original, __label=label, __attribute=attribute, **kwargs):
            with recorder.phase(__label or _label(__attribute, args, kwargs)):
                return __original(*args, **kwargs)

        setattr(owner, name, functools.wraps(original)(wrapper))
        wrapped += 1
    return wrapped


def profile_once(qrels: str, run: str, extra: list[str]) -> dict:
    """One evaluation in this process; the figures of every phase."""
    recorder = Recorder()
    started_cpu, started_wall = time.process_time(), time.perf_counter()
    with recorder.phase("start-up: imports"):
        from tiedrank.cli import main
        from tiedrank.core.machine import without_huge_page_advice
    without_huge_page_advice()  # as the console script does (tiedrank.cli.run)
    wrapped = install(recorder)
    with recorder.phase("CLI: parse options, other"):
        stdout, sys.stdout = sys.stdout, io.StringIO()
        try:
            main(["evaluate", *extra, qrels, run])
        except SystemExit:
            pass
        finally:
            sys.stdout = stdout
    total_cpu, total_wall = time.process_time() - started_cpu, time.perf_counter() - started_wall
    with open("/proc/self/status") as status:
        rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS"))
    return {"wrapped": wrapped, "cpu": recorder.cpu, "sys": recorder.sys, "wall": recorder.wall,
            "peak_mib": {k: v / 1024 for k, v in recorder.peak.items()},
            "faults": recorder.faults, "calls": recorder.calls, "total_cpu": total_cpu, "total_wall": total_wall,
            "end_rss_mib": rss / 1024}


def table(results: list[dict]) -> str:
    """The median of each phase's figures over ``results``, as a Markdown table."""
    labels = list(dict.fromkeys(label for r in results for label in r["cpu"]))
    def median(key: str, label: str) -> float:
        return statistics.median(r[key].get(label, 0.0) for r in results)
    rows = ["| phase | calls | cpu s | of which sys s | minor faults | wall s | peak MiB |",
            "|---|---:|---:|---:|---:|---:|---:|"]
    for label in labels:
        rows.append(f"| {label} | {results[0]['calls'].get(label, 0)} | "
                    f"{median('cpu', label):.3f} | {median('sys', label):.3f} | "
                    f"{median('faults', label):,.0f} | "
                    f"{median('wall', label):.3f} | {median('peak_mib', label):,.0f} |")
    peak = statistics.median(max(r["peak_mib"].values()) for r in results)
    faults = statistics.median(sum(r["faults"].values()) for r in results)
    rows.append(f"| **whole evaluation** | | "
                f"**{statistics.median(r['total_cpu'] for r in results):.3f}** | | "
                f"**{faults:,.0f}** | "
                f"**{statistics.median(r['total_wall'] for r in results):.3f}** | "
                f"**{peak:,.0f}** |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("qrels")
    parser.add_argument("run")
    parser.add_argument("--repeat", type=int, default=3, help="fresh processes (median)")
    parser.add_argument("--once", action="store_true", help=argparse.SUPPRESS)
    parser.epilog = "evaluate's options go after --; default: " + " ".join(DEFAULT_ARGS)
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:cut])
    extra = argv[cut + 1:] or DEFAULT_ARGS
    if args.once:
        print(json.dumps(profile_once(args.qrels, args.run, extra)))
        return
    results = []
    for _ in range(args.repeat):
        out = subprocess.run([sys.executable, __file__, "--once", args.qrels, args.run, "--",
                              *extra], check=True, capture_output=True, text=True).stdout
        results.append(json.loads(out.splitlines()[-1]))
    print(f"# tiedrank evaluate {' '.join(extra)} QRELS RUN; median of {args.repeat} fresh "
          f"processes; {results[0]['wrapped']} of {len(PHASES)} phase functions found")
    print(table(results))


if __name__ == "__main__":
    main()
