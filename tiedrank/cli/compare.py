"""``tiedrank compare``: significance tests against a baseline, and how stable the verdict is.

::

    tiedrank compare QRELS BASELINE RUN [RUN ...] -m RR -m nDCG@10 --rel-level 2
        [--ties POLICY] [--test t|wilcoxon|randomization|tukey] [--correction holm|bonferroni|bh|none]
        [--alpha A] [--all-pairs] [--seed S] [--draws N] [--groups CSV]
        [--format table|csv|json|latex|markdown|html]

Prints three sections: the report table (mean, difference to the baseline, p-value,
corrected p-value, significance, effect size, ranx-style markers), the verdict stability
(P(run beats baseline) under independent random tie-breaking of both runs: exact on
Success@k, P@k, R@k and Rprec, else sampled with its standard error; the normal
approximation and the exact SD of each mean as cross-checks; and the verdict under each
fixed tie policy), and with ``--groups`` the
per-group means. With ``--format json`` the sections are the keys of one JSON object; with
``--format latex|markdown|html`` the report section is the report grid
(:class:`tiedrank.report.Report`: runs x metrics, the expectation with [worst, best] and
trec_eval's value, the letters of the runs a run significantly beats, a dagger where they
change under another tie policy, and a caption saying so).

:func:`register` adds the subcommand to the ``tiedrank`` parser (``tiedrank.cli`` calls it);
:func:`main` runs it standalone: ``main(["qrels.txt", "base.txt", "run.txt", "-m", "RR"])``.
Bad input ends with one line on stderr and exit status 2, never a traceback.
"""
from __future__ import annotations

import argparse
import contextlib
import html
import json
import sys
import warnings
from collections.abc import Iterator, Sequence

from ..core.errors import InputError
from ..evaluation import DEFAULT_METRICS, build_tables, parse_metrics, score_tables
from ..io import read_groups
from ..core.policies import ALL_POLICIES, POLICIES, parse_policies, policy_items
from ..report import GRID_FORMATS, build_report, markdown_literal, render, render_grid
from ..stats import CORRECTIONS, TESTS, compare_runs, group_breakdown, scale_note, verdict_stability
from ..core.validation import InvalidParameterError, check_arguments
from ..core.options import EvaluationOptions
from .requests import CompareRequest, Output
from ._common import (add_columns, add_duplicates, add_gain, add_output, add_query_options,
                      add_rel_level, check_file_order, cli_ties, evaluation_options, integer_at_least,
                      probability,
                      run_handler)

_COMMENT = {"table": "#", "csv": "#", "latex": "%"}


@contextlib.contextmanager
def _quiet_scipy() -> Iterator[None]:
    """scipy warns on e.g. tied |differences| (normal approximation); the p-value it returns
    is the documented one, and the warning would only clutter the output."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.simplefilter("ignore", UserWarning)
        yield


def _heading(title: str, fmt: str) -> str:
    """A section's title as a comment or heading of ``fmt`` (on one line, escaped: it
    names the baseline's file)."""
    title = " ".join(title.splitlines())
    if fmt == "markdown":
        return f"### {markdown_literal(title)}"
    if fmt == "html":
        return f"<h3>{html.escape(title)}</h3>"
    return f"{_COMMENT[fmt]} {title}"


_positive_int = integer_at_least(1)


def _compare(args: argparse.Namespace) -> int:
    """The door: the flags, checked and read once into an :class:`EvaluationOptions` and a
    :class:`CompareRequest`, handed to :func:`run`."""
    check_arguments(render, fmt=args.format, digits=args.digits)  # before the work
    policy = parse_policies(cli_ties(policy_items(args.ties)), args.seed)
    if len(policy) != 1:
        raise InvalidParameterError("ties", args.ties, "a single policy (the tests compare "
                                    "one value per query)")
    check_file_order("compare", args.qrels, [args.baseline, *args.runs])
    groups = read_groups(args.groups) if args.groups else None  # fail fast, before the work
    # the chosen policy for the tests, plus the four fixed policies for the verdicts
    options = evaluation_options(vars(args), [policy[0].label, *ALL_POLICIES])
    request = CompareRequest(
        qrels=args.qrels, baseline=args.baseline, runs=tuple(args.runs),
        metrics=tuple(args.metrics or DEFAULT_METRICS), policy=policy[0].label,
        test=args.test, correction=args.correction, alpha=args.alpha,
        all_pairs=args.all_pairs, seed=args.seed, draws=args.draws,
        resamples=args.resamples, gain=args.gain, rel_level=args.rel_level,
        output=Output(args.format, args.digits))
    return run(request, options, groups)


def run(request: CompareRequest, options: EvaluationOptions, groups=None) -> int:
    """Compare the runs ``request`` names under ``options`` and print the sections
    (``groups``: the query groups of ``--groups``, read at the door)."""
    fmt, digits = request.output.format, request.output.digits
    evaluation = score_tables(
        build_tables([request.baseline, *request.runs], request.qrels, options),
        parse_metrics(list(request.metrics)), options)
    names = list(evaluation.tables)
    if evaluation.per_query.empty:  # nothing to compare: say why instead of failing later
        notes = "; ".join(dict.fromkeys(f.message for f in evaluation.findings)) or evaluation.rule
        raise InputError(f"nothing to compare: {notes}", source=request.qrels,
                         expected=f"queries with a document graded >= --rel-level "
                              f"{request.rel_level}")
    # the test settings, once: the comparison's sections and the report grid use the same
    testing = dict(baseline=names[0], policy=request.policy, test=request.test,
                   correction=request.correction, alpha=request.alpha,
                   pairs="all" if request.all_pairs else "baseline", seed=request.seed,
                   n_resamples=request.resamples)
    with _quiet_scipy():
        comparison = compare_runs(evaluation, **testing)
        stability = verdict_stability(
            evaluation, names[0], test=request.test, alpha=request.alpha, n_draws=request.draws,
            seed=request.seed, gain=request.gain, n_resamples=request.resamples)
    breakdown = None
    if groups is not None:
        breakdown = group_breakdown(evaluation, groups)
        table = breakdown.table
        breakdown_table = table[table["policy"] == request.policy].drop(columns="policy")

    report = comparison.table
    stability_table = stability.drop(columns="baseline")
    sections = [
        ("report", report,
         f"{request.test} test on per-query {request.policy} values vs baseline {names[0]!r}, "
         f"{request.correction} correction per metric, significant if corrected p <= "
         f"{request.alpha}; "
         "marker = keys of the runs a run significantly beats"
         + (f"; {note}" if (note := scale_note(report["metric"])) else "")),
        ("stability", stability_table,
         (f"verdict stability vs baseline {names[0]!r}: p_win = P(run beats baseline) under "
         "independent random tie-breaking of both runs (ties count 1/2), method = exact "
         "(lattice law: Success@k, P@k, R@k, Rprec; se 0), sampled "
         f"({request.draws} draws, seed {request.seed}; se = binomial standard error) or none "
         "(no "
         "sampler for the metric: p_win NaN, the verdicts still shown); p_normal = "
         "normal approximation from the exact moments; sd_run / sd_baseline = exact SD of "
         "each mean over tie-breaks; per policy the run's verdict, "
         f"* = {request.test} test p <= {request.alpha} (uncorrected)")),
    ]
    if breakdown is not None:
        sections.append(("groups", breakdown_table,
                         f"mean per query group under the {request.policy} policy"))

    if fmt == "json":
        payload = {key: json.loads(render(frame, "json")) for key, frame, _ in sections}
        payload["baseline"] = names[0]
        payload["keys"] = comparison.keys
        payload["notes"] = [evaluation.rule] + [f.message for f in _findings(evaluation, comparison, breakdown)]
        print(json.dumps(payload, indent=1))
        return 0
    rendered = {key: render(frame, fmt, digits=digits) for key, frame, _ in sections}
    if fmt in GRID_FORMATS:  # the report section as the grid a paper prints
        with _quiet_scipy():
            grid = build_report(evaluation, **testing, trec_eval=True, digits=digits)
        rendered["report"] = render_grid(grid, fmt).rstrip("\n")
    blocks = [f"{_heading(title, fmt)}\n{rendered[key]}" for key, _, title in sections]
    print("\n\n".join(blocks))
    notes = [evaluation.rule] + [f.message for f in _findings(evaluation, comparison, breakdown)]
    if fmt == "table":  # keep machine-readable formats clean: notes go to stderr
        print("", file=sys.stderr)
    for note in notes:
        print(f"# note: {note}", file=sys.stderr)
    return 0


def _findings(evaluation, comparison, breakdown) -> list:
    out = []
    for finding in [*evaluation.findings, *comparison.findings,
                    *(breakdown.findings if breakdown is not None else [])]:
        if finding not in out:
            out.append(finding)
    return out


def register(subparsers: "argparse._SubParsersAction") -> None:
    """Add the ``compare`` subcommand to ``subparsers`` (sets ``handler``, as tiedrank.cli)."""
    parser = subparsers.add_parser(
        "compare", help="significance tests against a baseline, and verdict stability under ties",
        description="Compare runs with a baseline: paired significance test with multiple-"
        "comparison correction, ranx-style markers, and whether the verdict survives the "
        "tie-break (probability under random tie-breaking, verdict per tie policy).",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_arguments(parser)
    parser.set_defaults(handler=_compare)


EXAMPLES = """examples:
  (paths: a checkout's sample_data/; installed: $(tiedrank dashboard --sample-data-dir))
  tiedrank compare sample_data/llmjudge/qrels.test.txt sample_data/llmjudge/runs/willia-umbrela1.txt \\
      sample_data/llmjudge/runs/Olz-gpt4o.txt -m nDCG@10 -l 2 --test wilcoxon --draws 100
  tiedrank compare sample_data/llmjudge/qrels.test.txt sample_data/llmjudge/runs/willia-umbrela1.txt \\
      sample_data/llmjudge/runs/Olz-gpt4o.txt sample_data/llmjudge/runs/TREMA-all.txt -m RR \\
      --correction bh --all-pairs --draws 50 --format markdown"""


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("qrels", help="qrels file")
    parser.add_argument("baseline", help="baseline run file")
    parser.add_argument("runs", nargs="+", metavar="run", help="run file(s) to compare")
    parser.add_argument("-m", "--metric", action="append", dest="metrics", metavar="METRIC",
                        help="metric, repeatable (default: " + ", ".join(DEFAULT_METRICS) + ")")
    add_rel_level(parser)
    fixed = [p for p in POLICIES if p != "random"]
    parser.add_argument("--ties", default=fixed[0], metavar="POLICY",
                        help=f"tie policy of the per-query values tested: {fixed[0]} (default), "
                             f"{', '.join(fixed[1:])} or random(seed=N)")
    parser.add_argument("--test", choices=TESTS, default=TESTS[0],
                        help=f"paired test (default {TESTS[0]})")
    parser.add_argument("--correction", choices=CORRECTIONS, default=CORRECTIONS[0],
                        help=f"multiple-comparison correction (default {CORRECTIONS[0]})")
    parser.add_argument("--alpha", type=probability, default=0.05,
                        help="significance level (default 0.05)")
    parser.add_argument("--all-pairs", action="store_true",
                        help="test every pair of runs, not only against the baseline")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the randomization test, bootstrap and tie sampling")
    parser.add_argument("--draws", type=_positive_int, default=1000, metavar="N",
                        help="random tie-breaks sampled per run for the stability (default 1000)")
    parser.add_argument("--resamples", type=_positive_int, default=9999, metavar="N",
                        help="randomization / bootstrap resamples (default 9999)")
    add_gain(parser)
    add_query_options(parser)
    add_duplicates(parser)
    add_columns(parser)
    parser.add_argument("--groups", metavar="CSV",
                        help="CSV with columns query,group: adds per-group means")
    add_output(parser)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``tiedrank compare`` standalone; ``argv`` holds the arguments after ``compare``."""
    parser = argparse.ArgumentParser(prog="tiedrank compare", description=__doc__.split("\n")[0])
    _add_arguments(parser)
    parser.set_defaults(handler=_compare)
    return run_handler(parser.parse_args(argv), "tiedrank compare")


if __name__ == "__main__":
    sys.exit(main())
