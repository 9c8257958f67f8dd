"""The dashboard's downloads go through the report grid (issue 31): the Overview's CSV and
Parquet are numbers equal to ``Evaluation.summary`` (every policy its own column, no ★ ⚠ ·),
its LaTeX compiles with pdflatex and its Markdown is the grid; the Compare page's report
downloads are the same grid with the page's test; every other table's LaTeX compiles.

The Overview's files are the ones its buttons serve: the page runs in AppTest and the
callables its download buttons register are called as a click would.
"""
from __future__ import annotations

import io
import warnings
from pathlib import Path

import pandas as pd
import pytest
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.testing.v1 import AppTest

from apptest_support import assert_no_trouble
from report_support import compile_latex
from tiedrank import evaluate
from tiedrank.dashboard import compare as view
from tiedrank.dashboard.overview import overview_cells, order_flips, BEST_MARKER
from tiedrank.report import render

ROOT = Path(__file__).resolve().parents[2]
LLMJUDGE = ROOT / "sample_data" / "llmjudge"
COLUMNS = {"expected": "expected", "best": "best", "worst": "worst",
           "trec_eval": "trec_eval"}

pytestmark = pytest.mark.usefixtures("navigation_pages")


@pytest.fixture(scope="module")
def overview_files():
    """{file name: bytes or str} of the Overview's download buttons (default data)."""
    served: dict[str, object] = {}
    original = MediaFileManager.add_deferred

    def record(self, data_callable, mimetype, coordinates, file_name=None, **kwargs):
        served[file_name] = data_callable
        return original(self, data_callable, mimetype, coordinates, file_name, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(MediaFileManager, "add_deferred", record)
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
        served.clear()  # two metrics: the letters' tests cost seconds per metric
        at.multiselect(key="overview_metrics").set_value(["RR", "nDCG@10"]).run()
    assert_no_trouble(at)
    assert at.title[0].value.startswith("Overview")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return {name: served[name]() for name in served if name.startswith("tiedrank-overview.")}


def _llmjudge(metrics):
    """The evaluation the Overview shows by default (LLMJudge, relevance level 2)."""
    runs = sorted((LLMJUDGE / "runs").glob("*.txt"))
    return evaluate([str(r) for r in runs], str(LLMJUDGE / "qrels.test.txt"), list(metrics),
                    ties="all", rel_level=2)


def test_overview_csv_and_parquet_are_the_summary(overview_files):
    assert sorted(overview_files) == ["tiedrank-overview." + e for e in ("csv", "md", "parquet", "tex")]
    csv_text = overview_files["tiedrank-overview.csv"]
    assert not set("★⚠·") & set(csv_text)
    metrics = list(dict.fromkeys(pd.read_csv(io.StringIO(csv_text))["metric"]))
    llmjudge = _llmjudge(metrics)  # an independent evaluation of what the page shows
    for frame in (pd.read_csv(io.StringIO(csv_text), float_precision="round_trip"),
                  pd.read_parquet(io.BytesIO(overview_files["tiedrank-overview.parquet"]))):
        assert frame["run"].nunique() == 8
        summary = llmjudge.summary.astype({"run": str, "metric": str, "policy": str})
        for policy, column in COLUMNS.items():
            expected = summary[summary["policy"] == policy].set_index(["run", "metric"])["value"]
            got = frame.set_index(["run", "metric"])[column]
            assert pd.api.types.is_float_dtype(got)
            assert got.to_dict() == expected.loc[got.index].to_dict()  # exactly the numbers


def test_overview_latex_compiles_and_markdown_is_the_grid(overview_files, tmp_path):
    latex = overview_files["tiedrank-overview.tex"]
    assert latex.isascii() and "\\toprule" in latex and "Superscripts" in latex
    compile_latex(latex, tmp_path, "overview")
    markdown = overview_files["tiedrank-overview.md"]
    assert markdown.startswith("| # | run | RR |") and "Superscripts" in markdown


def test_compare_report_and_other_tables_compile(tmp_path):
    """The Compare page's report downloads (the grid with its test) and the tables every
    other button renders with tiedrank.report.render, display symbols included."""
    llmjudge = _llmjudge(["RR", "nDCG@10"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        comparison = view.run_comparison(
            llmjudge, baseline="Olz-gpt4o", runs=["RMITIR-llama70B", "RMITIR-llama38b"],
            metrics=["RR", "nDCG@10"], policy="expected", test="randomization",
            correction="holm", alpha=0.05, all_pairs=False, seed=3, n_resamples=199)
    report = view.comparison_report(llmjudge, comparison, seed=3, n_resamples=199)
    table = comparison.table
    assert report.cells.set_index(["run", "metric"])["beats"].to_dict() == \
        table.set_index(["run", "metric"])["marker"].to_dict()  # the letters on screen
    frame = llmjudge.report()
    display = overview_cells(frame, flips=order_flips(frame, digits=3), best=BEST_MARKER)
    assert "★" in display.to_string()
    compile_latex("\n\n".join([report.to_latex(),
                               render(view.report_wide(comparison, "latex"), "latex"),
                               render(view.report_wide(comparison), "latex"),
                               render(display, "latex")]), tmp_path, "compare")


def test_overview_letters_are_bounded(monkeypatch):
    """Past MAX_DOWNLOAD_TESTS paired tests the download has no letters and says why."""
    from tiedrank.dashboard import overview

    ev = _llmjudge(["RR"])  # 8 runs: 28 pairs x 1 metric x 4 policies = 112 tests
    monkeypatch.setattr(overview, "MAX_DOWNLOAD_TESTS", 100)
    report = overview.overview_report(ev, letters=True)
    assert report.significance is None
    assert "No significance letters: 8 runs x 1 metric would take 112 paired tests" in report.caption()
    assert "tiedrank compare" in report.to_latex()
