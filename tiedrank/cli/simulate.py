"""``tiedrank simulate`` and ``tiedrank quantize``: simulated rerankers and degraded runs.

::

    tiedrank simulate --preset 0-10 --queries 50 --seed 2026 --out run.txt --qrels qrels.txt
    tiedrank quantize results.test --levels 11 --out results.L11.txt
    tiedrank quantize results.test --precision bf16 --out results.bf16.txt

:func:`register` adds both subcommands to the ``tiedrank`` parser (``tiedrank.cli`` calls
it); :func:`main` runs them standalone. Bad input ends with one line on stderr and exit
status 2 (as ``tiedrank evaluate``), never a traceback.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ..io import read_run, write_qrels, write_run
from ..io.outputs import check_outputs, replacing, writing
from ..simulate import PRECISION_ALIASES, PRESETS, QUANTIZE_METHODS, quantize_run, simulate
from ..core.tie_statistics import tie_statistics
from ..core.ties import build_tie_table
from ._common import add_columns, add_duplicates, integer_at_least, run_handler

_PRECISION_CHOICES = sorted(PRECISION_ALIASES)
_PRECISION_HELP = ("cast the scores: bf16, fp16 or fp32 (also bfloat16, float16, float32); "
                   "bf16 rounds to nearest even")


_positive_int = integer_at_least(1)
_non_negative_int = integer_at_least(0)


def _simulate(args: argparse.Namespace) -> int:
    overrides = {key: value for key, value in (
        ("quality", args.quality), ("levels", args.levels), ("tie_prob", args.tie_prob),
        ("precision", args.precision), ("name", args.name)) if value is not None}
    check_outputs({"--out": args.out, "--qrels": args.qrels}, force=args.force)
    run, qrels = simulate(args.preset, args.queries, args.seed,
                          docs_per_query=args.docs_per_query, **overrides)
    _write(write_run, run, args.out)
    if args.qrels:
        _write(write_qrels, qrels, args.qrels)
    stats = tie_statistics(build_tie_table(run, qrels))
    _said(args.out, args.qrels)(f"wrote run {run.name!r} ({stats['queries']} queries x {args.docs_per_query} docs, "
          f"{stats['docs_in_ties']:.1%} of documents tied) to {_shown(args.out)}"
          + (f"; qrels to {_shown(args.qrels)}" if args.qrels else ""))
    return 0


def _quantize(args: argparse.Namespace) -> int:
    if args.levels is None and args.precision is None:
        raise ValueError("quantize needs --levels and/or --precision")
    check_outputs({"--out": args.out}, [args.run], force=args.force)
    run = read_run(args.run, duplicates=args.duplicates, columns=args.columns)
    out = quantize_run(run, levels=args.levels, precision=args.precision, method=args.method,
                       name=args.name)
    _write(write_run, out, args.out)
    _said(args.out)(f"wrote run {out.name!r} ({len(out)} lines, {out.frame['score'].nunique()} distinct "
          f"scores) to {_shown(args.out)}")
    return 0


def _write(writer, data, path: str) -> None:
    """``writer(data, ...)`` to ``path``: ``-`` is standard output; a file is replaced
    through a temporary (:func:`tiedrank.io.outputs.replacing`: a link followed, a FIFO or a
    character device written in place)."""
    if path == "-":
        with writing("standard output"):
            writer(data, sys.stdout)  # text: the CLI's standard output names its failures
            sys.stdout.flush()
        return
    with replacing(path) as temporary:
        writer(data, temporary)


def _shown(path: str) -> str:
    return "standard output" if path == "-" else path


def _said(*paths: str | None):
    """Where the closing line goes: standard error when standard output holds the data."""
    if "-" in paths:
        return lambda line: print(line, file=sys.stderr)
    return print


SIMULATE_EXAMPLES = """examples:
  tiedrank simulate --preset 0-10 --queries 50 --seed 1 --out sim-run.txt --qrels sim-qrels.txt
  tiedrank simulate --preset 3-point --tie-prob 0.3 --out coarse-run.txt --qrels coarse-qrels.txt
  tiedrank evaluate sim-qrels.txt sim-run.txt -m nDCG@10      (then evaluate what was written)"""
QUANTIZE_EXAMPLES = """examples:
  (paths: a checkout's sample_data/; installed: $(tiedrank dashboard --sample-data-dir))
  tiedrank quantize sample_data/trec_eval/results.test --levels 3 --out three-levels.txt
  tiedrank quantize sample_data/trec_eval/results.test --precision bf16 --out bf16.txt
  tiedrank evaluate sample_data/trec_eval/qrels.test three-levels.txt -m AP"""


def register(subparsers: "argparse._SubParsersAction") -> None:
    """Add the ``simulate`` and ``quantize`` subcommands to ``subparsers``.

    Each sets ``handler`` (a function of the parsed namespace returning an exit status),
    the convention of ``tiedrank.cli``.
    """
    presets = "; ".join(f"{key}: {spec.description}" for key, spec in PRESETS.items())
    sim = subparsers.add_parser(
        "simulate", help="write a simulated reranker run and its qrels (TREC format)",
        description="Simulate a reranker whose score ties you can dial: score = quality * "
        "grade + N(0,1), then optional discrete levels, extra ties and a low-precision cast. "
        f"Presets: {presets}.", epilog=SIMULATE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    default = next(iter(PRESETS))
    sim.add_argument("--preset", choices=list(PRESETS), default=default,
                     help=f"reranker preset (default {default})")
    sim.add_argument("--queries", type=_positive_int, default=50, metavar="N",
                     help="number of queries (default 50)")
    sim.add_argument("--docs-per-query", type=_positive_int, default=100, metavar="D",
                     help="judged candidates per query (default 100)")
    sim.add_argument("--seed", type=_non_negative_int, default=0, metavar="S",
                     help="random seed (default 0); same seed, same bytes")
    sim.add_argument("--out", required=True, metavar="RUN", help="run file to write (- for standard output)")
    sim.add_argument("--qrels", metavar="QRELS", help="qrels file to write (- for standard output)")
    sim.add_argument("--force", action="store_true",
                     help="replace an existing --out / --qrels file")
    dial = sim.add_argument_group("overrides of the preset")
    dial.add_argument("--quality", type=float, help="signal to noise (0 = random ranker)")
    dial.add_argument("--levels", type=_positive_int, help="number of discrete score levels")
    dial.add_argument("--tie-prob", type=float, metavar="P",
                      help="probability of snapping a document to the score above it")
    dial.add_argument("--precision", choices=_PRECISION_CHOICES, metavar="P", help=_PRECISION_HELP)
    dial.add_argument("--name", help="run name / TREC tag (default: the preset name)")
    sim.set_defaults(handler=_simulate)

    quant = subparsers.add_parser(
        "quantize", help="degrade a run: discrete score levels and/or low precision",
        description="Replace a run's scores by equal-width bin labels 0..L-1 and/or cast "
        "them to float16 / bfloat16, to see how ties from coarse scores change evaluation.",
        epilog=QUANTIZE_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    quant.add_argument("run", help="run file to read (TREC or any format tiedrank reads)")
    quant.add_argument("--levels", type=_positive_int, metavar="L", help="number of score levels")
    quant.add_argument("--precision", choices=_PRECISION_CHOICES, metavar="P", help=_PRECISION_HELP)
    quant.add_argument("--method", choices=QUANTIZE_METHODS, default=QUANTIZE_METHODS[0],
                       help="bin over each query's score range (default) or the whole run's")
    quant.add_argument("--out", required=True, metavar="OUT", help="run file to write (- for standard output)")
    quant.add_argument("--force", action="store_true",
                       help="replace an existing --out file (never the input run)")
    quant.add_argument("--name", help="run name / TREC tag (default: input name + suffix)")
    add_duplicates(quant)
    add_columns(quant, qrels=False)
    quant.set_defaults(handler=_quantize)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``simulate`` or ``quantize`` standalone, e.g. ``main(["simulate", "--out", "r.txt"])``."""
    parser = argparse.ArgumentParser(prog="tiedrank")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return run_handler(args, f"tiedrank {args.command}")


if __name__ == "__main__":
    sys.exit(main())
