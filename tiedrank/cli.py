"""Command line: ``tiedrank evaluate QRELS RUN [RUN ...] -m RR -m nDCG@10 --ties all``.

Bad input ends with a one-line message on stderr and exit status 2, never a traceback.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from .errors import InputError
from .evaluate import REPORT_COLUMNS
from .report import FORMATS, render

# Subcommands living in their own modules; each exposes register(subparsers).
_SUBCOMMAND_MODULES = ("tiedrank.cli_compare", "tiedrank.cli_simulate")


def integer_at_least(minimum: int):
    """An argparse ``type`` accepting integers >= ``minimum`` (a clear usage error otherwise)."""
    wanted = {0: "a non-negative integer", 1: "a positive integer"}.get(
        minimum, f"an integer >= {minimum}")

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < minimum:
            raise argparse.ArgumentTypeError(f"expected {wanted}, got {text!r}")
        return value

    return parse


def run_handler(args: argparse.Namespace, prog: str = "tiedrank") -> int:
    """Run ``args.handler``; bad input becomes one line on stderr and exit status 2."""
    try:
        return args.handler(args)
    except (InputError, ValueError, OSError) as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. piped into head
        return 0


def _add_evaluation_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-m", "--metric", action="append", dest="metrics", metavar="METRIC",
                        help="metric, repeatable (RR, RR@k, Success@k, P@k, R@k, AP, AP@k, nDCG, "
                             "nDCG@k, DCG@k, Rprec, TsRR(alpha=a), TsRR2, MTRR_GRAG, "
                             "TMHits_GRAG@k); default: RR, P@10, AP, nDCG@10")
    parser.add_argument("--ties", default="all",
                        help="tie policy: expected, optimistic, pessimistic, trec_eval, input, "
                             "random[(seed=N)], or all (= the first four); comma-separated list "
                             "allowed (default: all)")
    parser.add_argument("--rel-level", type=int, default=1, metavar="N",
                        help="minimum grade of a relevant document (default 1)")
    parser.add_argument("--gain", choices=("linear", "exp"), default="linear",
                        help="DCG gain: grade or 2^grade-1 (default linear)")
    parser.add_argument("--judged-only", action="store_true",
                        help="drop unjudged documents before ranking (trec_eval -J)")
    parser.add_argument("--round", type=int, default=None, metavar="D",
                        help="round scores to D decimals so that near-ties merge")
    parser.add_argument("--missing", choices=("zero", "skip"), default="zero",
                        help="queries the run misses score 0 (default, trec_eval -c) or are skipped")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random policy")
    parser.add_argument("--duplicates", choices=("error", "max"), default="error",
                        help="a document twice in a query: error (default) or keep the max score")


def _evaluate(args: argparse.Namespace) -> int:
    from .evaluate import evaluate
    from .io import read_qrels, read_run

    qrels = read_qrels(args.qrels)
    runs = {}
    for path in args.runs:
        run = read_run(path, duplicates=args.duplicates)
        runs[run.name if run.name not in runs else f"{run.name} ({path})"] = run
    ties = [t.strip() for t in args.ties.split(",") if t.strip()]
    evaluation = evaluate(runs, qrels, args.metrics or ["RR", "P@10", "AP", "nDCG@10"],
                          ties=ties, rel_level=args.rel_level, gain=args.gain,
                          judged_only=args.judged_only, round=args.round, missing=args.missing,
                          seed=args.seed)
    if args.per_query:
        frame = evaluation.per_query.pivot_table(
            index=["run", "query", "metric"], columns="policy", values="value",
            observed=True, sort=False).rename(columns=REPORT_COLUMNS).reset_index()
        frame.columns.name = None
    else:
        frame = evaluation.report()
        frame.insert(2, "queries", evaluation.summary.groupby(
            ["run", "metric"], observed=True, sort=False)["n_queries"].first().to_numpy())
    print(render(frame, args.format, digits=args.digits))
    if args.format == "table":
        print(f"\n# {evaluation.rule}", file=sys.stderr)
        for finding in evaluation.findings:
            print(f"# note: {finding.message}", file=sys.stderr)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tiedrank", description="Tie-aware evaluation of ranked output: the exact "
        "expectation over all tie orderings, the best and worst case, and trec_eval's order.")
    sub = parser.add_subparsers(dest="command", required=True)
    ev = sub.add_parser("evaluate", help="evaluate runs against qrels",
                        description="Evaluate one or more runs; prints a trec_eval-like table.")
    ev.add_argument("qrels", help="qrels file (TREC qid iter docno grade, CSV, TSV, Parquet, JSONL)")
    ev.add_argument("runs", nargs="+", metavar="run", help="run file(s) (TREC or label files)")
    _add_evaluation_options(ev)
    ev.add_argument("--per-query", action="store_true", help="one row per query")
    ev.add_argument("--format", choices=FORMATS, default="table", help="output format")
    ev.add_argument("--digits", type=int, default=4, help="decimals shown (default 4)")
    ev.set_defaults(handler=_evaluate)
    for name in _SUBCOMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name != name:
                raise
            continue
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tiedrank`` console script."""
    return run_handler(build_parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
