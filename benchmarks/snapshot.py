"""A bit-for-bit snapshot of tiedrank's per-query values, to prove a performance change
changed no number (issue 33).

``save`` runs the ``tiedrank`` command of a source tree on a set of evaluations and keeps
each output (per-query values and means at 17 significant digits, or trec_eval's own
format); ``compare`` runs them again, with the same or another tree, and says for each
whether it is byte for byte the same, else the first line that differs. Each run is a
fresh process with ``PYTHONPATH`` naming the tree, started from a temporary directory (so
the tree named is the one imported)::

    python benchmarks/snapshot.py save /tmp/snap-before --tree . --run RUN --qrels QRELS
    ... change the code ...
    python benchmarks/snapshot.py compare /tmp/snap-before --tree .

The evaluations (``CASES``): five measures under the four policies on the whole run;
``all_trec`` under the four policies, with and without ``-J``, and in trec_eval's format on
its first ``--subset`` lines (read in memory, where the whole run is read from its path);
``all_trec`` under the four policies on the bundled LLMJudge runs (real ties). The run and
qrels default to the bundled trec_eval sample; for issue 33's figures,
``benchmarks/generate.py --queries 6980 --depth 1000``.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIVE = ["-m", "RR", "-m", "P@10", "-m", "R@100", "-m", "AP", "-m", "nDCG@10"]
PER_QUERY = ["-q", "--format", "csv", "--digits", "17"]

# name -> (arguments before the inputs, which inputs: "run", "subset" or "llmjudge")
CASES: dict[str, tuple[list[str], str]] = {
    "five_measures_4_policies": (["--ties", "all", *FIVE, *PER_QUERY], "run"),
    "all_trec_4_policies": (["--ties", "all", "-m", "all_trec", *PER_QUERY], "subset"),
    "all_trec_4_policies_J": (["--ties", "all", "-m", "all_trec", "-J", *PER_QUERY], "subset"),
    "all_trec_trec_eval_format": (["-m", "all_trec", "-q", "--format", "trec_eval"], "subset"),
    "all_trec_llmjudge": (["--ties", "all", "-m", "all_trec", *PER_QUERY], "llmjudge"),
}


def _inputs(kind: str, run: Path, qrels: Path, subset: Path) -> list[str]:
    if kind == "llmjudge":
        sample = ROOT / "sample_data" / "llmjudge"
        return [str(sample / "qrels.test.txt"), *map(str, sorted((sample / "runs").glob("*.txt")))]
    return [str(qrels), str(run if kind == "run" else subset)]


def _evaluate(tree: Path, arguments: list[str]) -> bytes:
    with tempfile.TemporaryDirectory() as elsewhere:
        done = subprocess.run([sys.executable, "-m", "tiedrank", "evaluate", *arguments],
                              cwd=elsewhere, capture_output=True, timeout=3600,
                              env={**os.environ, "PYTHONPATH": str(tree.resolve())})
    if done.returncode:
        raise SystemExit(f"tiedrank evaluate {' '.join(arguments)}: exit {done.returncode}\n"
                         f"{done.stderr.decode(errors='replace')}")
    return done.stdout


def take(tree: Path, run: Path, qrels: Path, lines: int, work: Path) -> dict[str, bytes]:
    """Every case's output from ``tree`` (the subset written into ``work``)."""
    subset = work / "subset.txt"
    with open(run, "rb") as source, open(subset, "wb") as head:
        for number, line in enumerate(source):
            if number >= lines:
                break
            head.write(line)
    return {name: _evaluate(tree, [*arguments, *_inputs(kind, run, qrels, subset)])
            for name, (arguments, kind) in CASES.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("save", "compare"))
    parser.add_argument("snapshot", type=Path, help="the snapshot's directory")
    parser.add_argument("--tree", type=Path, default=ROOT, help="the source tree to run")
    sample = ROOT / "sample_data" / "trec_eval"
    parser.add_argument("--run", type=Path, default=sample / "results.test")
    parser.add_argument("--qrels", type=Path, default=sample / "qrels.test")
    parser.add_argument("--subset", type=int, default=500_000, help="lines of the run for "
                        "the all_trec cases (default 500,000)")
    args = parser.parse_args()
    if args.action == "save":
        args.snapshot.mkdir(parents=True, exist_ok=True)
        outputs = take(args.tree, args.run, args.qrels, args.subset, args.snapshot)
        for name, output in outputs.items():
            (args.snapshot / f"{name}.out").write_bytes(output)
        (args.snapshot / "inputs.json").write_text(json.dumps(
            {"run": str(args.run), "qrels": str(args.qrels), "subset": args.subset}))
        print(json.dumps({name: hashlib.sha256(o).hexdigest()[:16] for name, o in outputs.items()}))
        return
    inputs = json.loads((args.snapshot / "inputs.json").read_text())
    with tempfile.TemporaryDirectory() as work:
        outputs = take(args.tree, Path(inputs["run"]), Path(inputs["qrels"]), inputs["subset"],
                       Path(work))
    differing = 0
    for name, output in outputs.items():
        saved = (args.snapshot / f"{name}.out").read_bytes()
        if output == saved:
            print(f"{name}: identical ({len(output.splitlines()):,} lines)")
            continue
        differing += 1
        line = next(i for i, (a, b) in enumerate(zip(saved.splitlines() + [b""],
                                                     output.splitlines() + [b""])) if a != b)
        print(f"{name}: DIFFERS from line {line + 1}")
    raise SystemExit(1 if differing else 0)


if __name__ == "__main__":
    main()
