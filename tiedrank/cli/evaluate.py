"""``tiedrank evaluate QRELS RUN [RUN ...] -m RR -m nDCG@10 --ties all``: a trec_eval-like table.

Prints per run and metric the number of queries, the expected value, the best and worst
case over tie orderings, trec_eval's order and its bias (``--per-query``: one row per query);
the query-set rule and any findings go to stderr. ``--format latex|markdown|html`` prints the
report grid instead (:class:`tiedrank.report.Report`: runs x metrics, the expectation with
[worst, best] and trec_eval's value, with a caption).
"""
from __future__ import annotations

import argparse
import sys
import warnings

from ..evaluation import DEFAULT_METRICS, build_tables, metric_request, score_tables
from ..interop.trec_eval import DEFAULT_GROUP, with_collection_size
from ..core.options import EvaluationOptions
from ..core.peers import MetricRequest
from ..core.policies import ALL_POLICIES, POLICIES
from ..report import GRID_FORMATS, build_report, per_query_table, render, render_grid
from ..evaluation.summaries import summary_note
from ..core.validation import check_arguments
from . import scale
from .requests import EvaluateRequest, Output
from ._common import (add_columns, add_duplicates, add_gain, add_output, add_query_options,
                      add_rel_level, check_file_order, cli_ties, evaluation_options,
                      integer_at_least)


EXAMPLES = """examples:
  (paths: a checkout's sample_data/; installed: $(tiedrank dashboard --sample-data-dir))
  tiedrank evaluate sample_data/trec_eval/qrels.test sample_data/trec_eval/results.test
  tiedrank evaluate sample_data/llmjudge/qrels.test.txt sample_data/llmjudge/runs/Olz-gpt4o.txt \\
      sample_data/llmjudge/runs/TREMA-all.txt -m RR -m nDCG@10 -l 2
  tiedrank evaluate sample_data/trec_eval/qrels.test sample_data/trec_eval/results.test \\
      --format trec_eval -q -m P.5,10 -m map       (trec_eval's own output, trec_eval's order)
  tiedrank evaluate sample_data/trec_eval/qrels.test sample_data/trec_eval/results.test \\
      --ties expected,trec_eval -m "Best(AP)" --format csv
  tiedrank evaluate sample_data/trec_eval/qrels.test sample_data/trec_eval/results.test \\
      -m AP --buckets 2                            (large runs: bounded memory, same numbers)
  tiedrank metrics                                 (every measure -m takes)"""


def register(subparsers: "argparse._SubParsersAction") -> None:
    """Add the ``evaluate`` subcommand to ``subparsers`` (sets ``handler``)."""
    parser = subparsers.add_parser(
        "evaluate", help="evaluate runs against qrels",
        description="Evaluate one or more runs; prints a trec_eval-like table.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("qrels", help="qrels file (TREC qid iter docno grade, CSV, TSV, Parquet, "
                                      "JSONL; - reads standard input)")
    parser.add_argument("runs", nargs="+", metavar="run",
                        help="run file(s) (TREC or label files; - reads standard input)")
    add_evaluation_options(parser)
    parser.add_argument("-q", "--per-query", action="store_true",
                        help="one row per query (trec_eval -q)")
    parser.add_argument("-n", "--no-summary", action="store_true",
                        help="with --format trec_eval: no 'all' lines, only the per-query "
                             "ones of -q (trec_eval -n)")
    parser.add_argument("--subtopics", action="store_true",
                        help="read the TREC qrels' second column as the subtopic id (ndeval's "
                             "diversity qrels) even if no document is judged twice; read so "
                             "without it when one is (for alpha_nDCG@k, ERR_IA@k, NRBP, ...)")
    parser.add_argument("-N", "--collection-size", type=integer_at_least(0), default=None,
                        metavar="N",
                        help="documents in the collection, read by utility's fourth "
                             "coefficient (trec_eval -N; default 0, as trec_eval)")
    add_output(parser, extra=("trec_eval",))
    scale.add_arguments(parser)
    parser.set_defaults(handler=_evaluate)


def add_evaluation_options(parser: argparse.ArgumentParser) -> None:
    """The options of :func:`tiedrank.evaluation.evaluate`, as flags."""
    fixed = ", ".join(p for p in POLICIES if p != "random")
    parser.add_argument("-m", "--metric", action="append", dest="metrics", metavar="METRIC",
                        help="metric, repeatable (`tiedrank metrics` lists them all with "
                             "their aliases and peer names); also trec_eval's -m forms (P.5,10, ndcg_cut.10, recip_rank, P alone "
                             "= its default cutoffs) and groups (official, all_trec), ranx's "
                             "level suffix (map-l2) and policy wrappers (Expected(nDCG@10), "
                             f"Best(AP)); default: {', '.join(DEFAULT_METRICS)} (with "
                             "--format trec_eval: official, as trec_eval)")
    parser.add_argument("--ties", default=None,
                        help=f"tie policy: {fixed}, random[(seed=N)], or all (= "
                             f"{', '.join(ALL_POLICIES)}); comma-separated "
                             "list allowed "
                             "(default: all; with --format trec_eval: trec_eval)")
    add_rel_level(parser)
    add_gain(parser)
    add_query_options(parser)
    parser.add_argument("--seed", type=int, default=0, help="seed of the random policy")
    add_duplicates(parser)
    add_columns(parser)


def _evaluate(args: argparse.Namespace) -> int:
    """The door: the flags, checked and read once into an :class:`EvaluationOptions` and an
    :class:`EvaluateRequest`, handed to :func:`run`."""
    fmt = args.format
    check_arguments(render, fmt="table" if fmt == "trec_eval" else fmt,
                    digits=args.digits)  # before the work
    if args.no_summary and fmt != "trec_eval":
        raise ValueError("-n (no 'all' lines) goes with --format trec_eval; the other formats "
                         "print the summary, or with -q the per-query rows only")
    check_file_order("evaluate", args.qrels, args.runs)  # before the Python doors' wording
    ties = args.ties if args.ties is not None else (
        "trec_eval" if fmt == "trec_eval" else "all")
    options = evaluation_options(vars(args), cli_ties(
        [t.strip() for t in ties.split(",") if t.strip()]))
    # trec_eval's default set with its format (as trec_eval with no -m), ours otherwise
    request = metric_request(args.metrics or (
        [DEFAULT_GROUP] if fmt == "trec_eval" else list(DEFAULT_METRICS)))
    if request.note:
        print(f"# note: {request.note}", file=sys.stderr)
    metrics = with_collection_size(request.metrics, args.collection_size)
    return run(EvaluateRequest(
        qrels=args.qrels, runs=tuple(args.runs), request=request, metrics=tuple(metrics),
        output=Output(fmt, args.digits, args.per_query, args.no_summary),
        scaling=scale.scaling(args), subtopics=args.subtopics), options)


def run(request: EvaluateRequest, options: EvaluationOptions) -> int:
    """Evaluate and print what ``request`` asks, under ``options``."""
    qrels = request.qrels
    if request.subtopics:  # told: read here as diversity qrels (every door takes a Qrels)
        from ..io import read_qrels

        qrels = read_qrels(qrels, columns=dict(options.qrels_columns) or None, subtopics=True)
    metrics = list(request.metrics)
    try:  # --buckets / --dask / --out
        scaled = scale.scaled_evaluation(request.scaling, list(request.runs), qrels, metrics,
                                         options)
    except ImportError as error:  # no Dask: one line, exit status 2
        print(f"tiedrank: error: {error}", file=sys.stderr)
        return 2
    if scaled is not None:
        status = show(scaled, request.output, request.request, out=request.scaling.out)
        scale.out_note(request.scaling, request.output.format)
        return status
    evaluation = score_tables(build_tables(list(request.runs), qrels, options), metrics,
                              options)
    return show(evaluation, request.output, request.request)


def show(evaluation, output: Output, request: MetricRequest | None = None,
         out: str | None = None) -> int:
    """Print ``evaluation`` as ``output`` asks (every door of the command prints through
    here); ``request``: the count lines, printed names and relstring of ``--format
    trec_eval``; ``out``: the ``--out`` directory, where the per-query rows are."""
    if output.format == "trec_eval":  # trec_eval's own text, for scripts that parse it
        _show_trec_eval(evaluation, output, request)
        return 0
    if output.per_query and out is None:  # --out: rows are on disk
        # runs and metrics in the order given; queries as people read them (q2 before q10)
        frame = per_query_table(evaluation.per_query)
    else:
        frame = evaluation.report()
        frame.insert(2, "queries", evaluation.summary.groupby(
            ["run", "metric"], observed=True, sort=False)["n_queries"].first().to_numpy())
    if output.format in GRID_FORMATS and not output.per_query and not frame.empty:
        # the report grid a paper prints (runs x metrics, [worst, best], trec_eval's value
        # in parentheses); no test is run here: `tiedrank compare` adds the letters
        grid = build_report(evaluation, pairs=None, trec_eval=True, digits=output.digits)
        print(render_grid(grid, output.format), end="")
    else:
        print(render(frame, output.format, digits=output.digits))
    _notes(evaluation, output.format, frame.empty)
    return 0


def _show_trec_eval(evaluation, output: Output, request: MetricRequest | None) -> None:
    """trec_eval's text, one output per run in the order given; its warnings and the
    findings as notes on stderr."""
    runs = list(evaluation.tables) or list(dict.fromkeys(evaluation.summary["run"].astype(str)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        layout = ({} if request is None else
                  {"names": request.names, "relstring": request.relstring})
        for name in runs:  # one trec_eval output per run, in the order given
            sys.stdout.write(evaluation.to_trec_eval(
                evaluation.options.policy_labels[0], run=name, per_query=output.per_query,
                counts=True if request is None else request.counts,
                summary=not output.no_summary, **layout))
    for message in dict.fromkeys(str(w.message) for w in caught):
        print(f"# note: {message}", file=sys.stderr)
    for finding in evaluation.findings:
        print(f"# note: {finding.message}", file=sys.stderr)


def _notes(evaluation, fmt: str, empty: bool) -> None:
    """The notes on stderr, in every format (stdout stays machine-readable); an empty
    result always says why; a summary that is not a mean (gm_map's geometric mean of the
    per-query expectations, num_ret's sum) is said in every format."""
    note = summary_note(list(evaluation.metrics) or  # objects: no name parsed again
                        list(dict.fromkeys(evaluation.summary["metric"].astype(str))))
    if fmt == "table" or evaluation.findings or empty or note:
        print(f"\n# {evaluation.rule}", file=sys.stderr)
        if note:
            print(f"# note: {note}", file=sys.stderr)
        for finding in evaluation.findings:
            print(f"# note: {finding.message}", file=sys.stderr)
    if empty and not evaluation.findings:
        print("# note: no query of the run is in the qrels, so there is nothing to average",
              file=sys.stderr)
