"""The report grid (issue 31): one object behind Evaluation.to_latex / to_markdown / to_html,
the CLI's ``--format latex|markdown|html`` and the dashboard's downloads.

Oracles: the cells against ``Evaluation.summary``; the significance letters against
scipy's paired t-test run here on the per-query values (and ranx's ``Report``, ``slow``:
its numba compilation takes about 10 s); the dagger against the same scipy letters under
each other policy; the escaping against markdown-it, Python's HTML parser and pdflatex.
"""
from __future__ import annotations

import html.parser
import io
import itertools
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as scipy_stats

from report_support import HOSTILE_NAME, compile_latex, small_evaluation
from tiedrank.cli import main
from tiedrank.report import build_report

ROOT = Path(__file__).resolve().parents[2]
LLMJUDGE = ROOT / "sample_data" / "llmjudge"
POLICY_COLUMNS = {"expected": "expected", "best": "best", "worst": "worst",
                  "trec_eval": "trec_eval"}


@pytest.fixture(scope="module")
def evaluation():
    return small_evaluation()


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():  # scipy's precision note on constant differences
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn(*args, **kwargs)


def test_cells_are_the_summary_and_the_best_run_is_marked(evaluation):
    report = build_report(evaluation, pairs=None)
    summary = evaluation.summary.assign(run=evaluation.summary["run"].astype(str),
                                        metric=evaluation.summary["metric"].astype(str))
    for policy, column in POLICY_COLUMNS.items():
        expected = summary[summary["policy"] == policy].set_index(["run", "metric"])["value"]
        got = report.cells.set_index(["run", "metric"])[column]
        assert got.to_dict() == expected.to_dict()  # exact: the same numbers
    for metric, block in report.cells.groupby("metric"):
        top = block["expected"].max()
        assert block.loc[block["best_in_metric"], "expected"].tolist() == [top]
    assert report.significance is None and (report.cells["beats"] == "").all()


def _scipy_letters(evaluation, policy: str, alpha: float) -> dict[tuple[str, str], str]:
    """ranx's convention from scipy: a run's letters are the keys of the runs it beats
    (higher mean, two-sided paired t-test p <= alpha, no correction), every pair tested."""
    per_query = evaluation.per_query.astype({"run": str, "metric": str, "policy": str})
    runs = list(dict.fromkeys(per_query["run"]))
    keys = dict(zip(runs, "abcdefghijklmnopqrstuvwxyz"))
    letters = {}
    for metric, block in per_query[per_query["policy"] == policy].groupby("metric"):
        matrix = block.pivot(index="query", columns="run", values="value")
        for run in runs:
            letters[(run, metric)] = ""
        for a, b in itertools.combinations(runs, 2):
            x, y = matrix[a].to_numpy(), matrix[b].to_numpy()
            p = _quiet(scipy_stats.ttest_rel, x, y).pvalue
            if np.isfinite(p) and p <= alpha and x.mean() != y.mean():
                winner, loser = (a, b) if x.mean() > y.mean() else (b, a)
                letters[(winner, metric)] += keys[loser]
    return {k: "".join(sorted(v)) for k, v in letters.items()}


@pytest.mark.parametrize("policy", ["expected", "trec_eval"])
def test_letters_are_scipys_paired_t_test(evaluation, policy):
    report = _quiet(build_report, evaluation, pairs="all", policy=policy, correction="none",
                    alpha=0.05)
    oracle = _scipy_letters(evaluation, policy, 0.05)
    got = {(r, m): b for r, m, b in zip(report.cells["run"], report.cells["metric"],
                                        report.cells["beats"])}
    assert got == oracle
    assert any(oracle.values())  # the example has significant pairs


def test_dagger_marks_exactly_the_letters_another_policy_changes(evaluation):
    report = _quiet(build_report, evaluation, pairs="all", correction="none", alpha=0.05)
    by_policy = {p: _scipy_letters(evaluation, p, 0.05) for p in POLICY_COLUMNS}
    for row in report.cells.itertuples(index=False):
        cell = (row.run, row.metric)
        changed = [p for p in ("best", "worst", "trec_eval")
                   if by_policy[p][cell] != by_policy["expected"][cell]]
        assert row.unstable == bool(changed) and row.unstable_under == ", ".join(changed)
    assert report.cells["unstable"].any() and not report.cells["unstable"].all()
    assert report.significance.checked == ("best", "worst", "trec_eval")


def test_baseline_pairs_test_only_against_the_baseline(evaluation):
    report = _quiet(build_report, evaluation, pairs="baseline", baseline="tied",
                    correction="none")
    assert report.runs[0] == "tied" and report.keys["tied"] == "a"
    tied = report.cells[report.cells["run"] == "tied"]
    assert tied["p_value"].isna().all()
    others = report.cells[report.cells["run"] != "tied"]
    for row in others.itertuples(index=False):  # the letters name only the baseline
        assert set(row.beats) <= {"a"}
    per_query = evaluation.per_query.astype({"run": str, "metric": str, "policy": str})
    block = per_query[(per_query["policy"] == "expected") & (per_query["metric"] == "RR")]
    matrix = block.pivot(index="query", columns="run", values="value")
    p = _quiet(scipy_stats.ttest_rel, matrix["better"], matrix["tied"]).pvalue
    got = others.set_index(["run", "metric"]).loc[("better", "RR"), "p_value"]
    assert got == pytest.approx(p, rel=1e-12)


@pytest.mark.slow
def test_letters_are_ranxs_report():
    """ranx's compare (paired Student's t-test, every pair, no correction, p <= max_p) on
    runs without ties: the same superscripts as the grid's letters."""
    ranx = pytest.importorskip("ranx")
    rng = np.random.default_rng(3)
    queries = [f"q{i}" for i in range(20)]
    qrels = {q: {f"d{j}": int(rng.integers(0, 2)) + (j == 0) for j in range(8)} for q in queries}
    runs = {}
    for name, noise in (("good", 0.3), ("mid", 1.0), ("bad", 3.0)):
        runs[name] = {q: {f"d{j}": float(8 - j + rng.normal(0, noise) + 1e-6 * j) for j in range(8)}
                      for q in queries}
    from tiedrank import evaluate

    ev = evaluate({n: ranx.Run(r, name=n) for n, r in runs.items()}, ranx.Qrels(qrels),
                  ["RR", "nDCG@5"], ties="all")
    report = _quiet(build_report, ev, pairs="all", correction="none", alpha=0.05)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = ranx.compare(ranx.Qrels(qrels), [ranx.Run(r, name=n) for n, r in runs.items()],
                              ["mrr", "ndcg@5"], stat_test="student", max_p=0.05)
    for row in report.cells.itertuples(index=False):
        name = {"RR": "mrr", "nDCG@5": "ndcg@5"}[row.metric]
        assert theirs.results[row.run][name] == pytest.approx(row.expected, abs=1e-9)
        assert theirs.get_superscript_for_latex(row.run, name) == row.beats


def test_renderers_escape_every_name_and_latex_compiles(tmp_path):
    ev = small_evaluation((HOSTILE_NAME, "plain", "tied*run"))
    report = _quiet(build_report, ev, trec_eval=True)
    latex = report.to_latex()
    assert latex.isascii()
    compile_latex(latex, tmp_path, "grid")
    assert report.to_latex(ascii_only=False).count("caf\u00e9") == 1
    # Markdown: markdown-it shows the names as text, one table, no link or raw HTML of theirs
    from markdown_it import MarkdownIt

    rendered = MarkdownIt("commonmark", {"html": True}).enable("table").render(report.to_markdown())
    assert rendered.count("<table>") == 1 and "<a " not in rendered and "<l>" not in rendered
    texts = _html_texts(rendered)
    assert HOSTILE_NAME in texts and "tied*run" in texts
    # HTML: the parser reads each name back as one cell's text
    page = report.to_html()
    assert HOSTILE_NAME in _html_texts(page) and "<l>" not in page
    assert report._repr_html_() == page
    assert HOSTILE_NAME in _html_texts(ev._repr_html_())


def _html_texts(page: str) -> list[str]:
    """The text of every table cell of ``page`` (entities resolved)."""
    class Cells(html.parser.HTMLParser):
        def __init__(self):
            super().__init__(convert_charrefs=True)
            self.cells, self.inside = [], False

        def handle_starttag(self, tag, attrs):
            if tag in ("td", "th"):
                self.inside, self.text = True, ""

        def handle_endtag(self, tag):
            if tag in ("td", "th"):
                self.inside = False
                self.cells.append(self.text.replace("\u2060", ""))

        def handle_data(self, data):
            if self.inside:
                self.text += data

    parser = Cells()
    parser.feed(page)
    return parser.cells


def test_evaluation_entry_points_and_numbers_read_back(evaluation):
    latex = _quiet(evaluation.to_latex, correction="none")
    assert latex == _quiet(build_report, evaluation, correction="none").to_latex()
    assert "\\toprule" in latex and "Superscripts" in latex
    assert _quiet(evaluation.to_markdown).startswith("| # | run |")
    report = build_report(evaluation, pairs=None)
    # round_trip: the parser that reads the 17 digits back exactly (older pandas default to a
    # faster one that can miss the last bit)
    back = pd.read_csv(io.StringIO(report.to_csv()), float_precision="round_trip")
    pd.testing.assert_frame_equal(back[["expected", "best", "worst", "trec_eval"]],
                                  report.cells[["expected", "best", "worst", "trec_eval"]],
                                  check_exact=True)
    parquet = pd.read_parquet(io.BytesIO(report.to_parquet()))
    assert parquet["expected"].tolist() == report.cells["expected"].tolist()


def _cli(capsys, *args) -> str:
    """``tiedrank ARGS`` in this process (the CLI's one entry point); its standard output."""
    capsys.readouterr()
    assert main([str(a) for a in args]) == 0, capsys.readouterr().err
    return capsys.readouterr().out


RUNS = [LLMJUDGE / "runs" / n for n in ("Olz-gpt4o.txt", "RMITIR-llama70B.txt")]


@pytest.mark.parametrize("command", ["evaluate", "compare"])
def test_cli_latex_is_the_grid_and_compiles(command, tmp_path, capsys):
    extra = ["--draws", "20", "--resamples", "99"] if command == "compare" else []
    out = _cli(capsys, command, LLMJUDGE / "qrels.test.txt", *RUNS, "-m", "RR", "-m", "nDCG@10",
               "--rel-level", "2", "--format", "latex", *extra)
    assert "\\caption{Each cell" in out and "Olz-gpt4o" in out
    assert ("Superscripts" in out) == (command == "compare")
    compile_latex(out, tmp_path, f"cli-{command}")


def test_cli_html_is_the_escaped_grid(capsys):
    page = _cli(capsys, "evaluate", LLMJUDGE / "qrels.test.txt", *RUNS, "-m", "RR",
                "--rel-level", "2", "--format", "html")
    assert page.startswith('<table class="tiedrank-report">')
    assert _html_texts(page)[:4] == ["#", "run", "RR", "a"]


def test_the_docs_show_the_grid_the_library_writes():
    """The LaTeX block of docs/python-api.md (once the README's) is its own example's output,
    as the library writes it."""
    import re

    page = (ROOT / "docs" / "python-api.md").read_text(encoding="utf-8")
    block = re.search(r"```latex\n(.*?)```", page, re.S)
    from tiedrank import evaluate

    runs = [str(LLMJUDGE / "runs" / f"{n}.txt") for n in ("Olz-gpt4o", "h2oloo-fewself")]
    ev = evaluate(runs, str(LLMJUDGE / "qrels.test.txt"), ["RR", "nDCG@10"], ties="all",
                  rel_level=2)
    latex = _quiet(ev.to_latex, pairs="baseline", correction="none", trec_eval=True)
    assert block is not None and block.group(1).strip() in latex


def test_a_column_not_averaged_says_what_it_holds_in_the_caption():
    """gm_map's expected cell is the geometric mean of the per-query expectations, not the
    expectation of the geometric mean (issue 32), and num_ret's a sum: a table pasted into a
    paper says so in its caption, the only text that travels with it."""
    from tiedrank import evaluate

    qrels = pd.DataFrame({"query": ["1", "2"], "doc": ["x", "x"], "relevance": 1})
    run = pd.DataFrame({"query": ["1", "1", "2"], "doc": ["x", "y", "x"], "score": [1.0, 1.0, 2.0]})
    report = build_report(evaluate({"A": run}, qrels, ["gm_map", "num_ret", "AP"], ties="all"))
    # per query E[AP] = 0.75 and 1: their geometric mean, not E[GM] = (sqrt(1) + sqrt(.5)) / 2
    gm = report.cells.set_index("metric").loc["gm_map", "expected"]
    assert gm == pytest.approx(0.75 ** 0.5, abs=1e-15)
    assert gm != pytest.approx((1 + 0.5 ** 0.5) / 2, abs=1e-3)
    for text in (report.caption(), report.to_markdown(), report.to_html()):
        assert "the geometric mean of the per-query expectations, not the expectation of the " \
               "geometric mean" in text
        assert "num_ret: the sum over the queries" in text
    assert r"gm\_map: the geometric mean" in report.to_latex()
    plain = build_report(evaluate({"A": run}, qrels, ["AP"], ties="all"))
    assert "not averaged" not in plain.caption()
