"""Exports are safe (issue 19, item 12): string cells that a spreadsheet would run as a
formula are neutralised in CSV (numbers stay numbers), in ``--format csv`` and in the
``--out`` report.csv; LaTeX escapes its special characters; Markdown escapes ``|``."""
from __future__ import annotations

import csv
import io
import subprocess
import sys

import pandas as pd
import pytest

from tiedrank.report import csv_safe, latex_escape, neutralised, render

HOSTILE = ["=HYPERLINK(\"http://x\")", "+1+1", "-2+3", "@SUM(A1)", "\tq", "\rq", "\r=1+1"]


@pytest.mark.parametrize("text", HOSTILE)
def test_formula_cells_are_neutralised(text):
    frame = pd.DataFrame({"query": [text], "value": [-0.5]})
    rows = list(csv.reader(io.StringIO(render(frame, "csv"), newline="")))
    assert len(rows) == 2  # a CR inside a cell does not start a row
    assert rows[1][0] == "'" + text.replace("\r", "\n")
    assert rows[1][1] == "-0.5000"  # a negative number stays a number


def test_a_cr_inside_a_cell_starts_no_row():
    rows = list(csv.reader(io.StringIO(render(pd.DataFrame({"q": ["x\r=1+1"]}), "csv"),
                                       newline="")))
    assert rows == [["q"], ["x\n=1+1"]]


def test_numbers_and_plain_ids_stay_as_they_are():
    assert [neutralised(t) for t in ["-1", "+2.5", "-1e-3", "q-1", "d=1", "-inf"]] == \
        ["-1", "+2.5", "-1e-3", "q-1", "d=1", "-inf"]
    frame = pd.DataFrame({"run": pd.Categorical(["=a", "b"]), "n": [-3, 4], "v": [-1.5, 2.0]})
    safe = csv_safe(frame)
    assert safe["run"].tolist() == ["'=a", "b"]
    assert safe["n"].tolist() == [-3, 4] and safe["v"].tolist() == [-1.5, 2.0]


def test_latex_escapes_every_special_character():
    frame = pd.DataFrame({"run": ["a_b&c%d$e#f{g}h~i^j\\k"], "value": [1.0]})
    text = render(frame, "latex")
    row = text.splitlines()[4]
    assert row.startswith(r"a\_b\&c\%d\$e\#f\{g\}h\textasciitilde{}i\textasciicircum{}j"
                          r"\textbackslash{}k & ")
    assert latex_escape("plain") == "plain"


def test_markdown_escapes_the_pipe():
    frame = pd.DataFrame({"a|b": ["x|y"], "value": [1.0]})
    lines = render(frame, "markdown").splitlines()
    assert lines[0] == r"| a\|b | value |" and lines[2] == r"| x\|y | 1.0000 |"


def _files(tmp_path):
    run = tmp_path / "run.txt"
    run.write_text("=1+1 Q0 @doc 1 2.0 -cmd\n=1+1 Q0 d2 2 1.0 -cmd\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("=1+1 0 @doc 1\n")
    return str(qrels), str(run)


def test_the_cli_csv_is_neutralised(tmp_path):
    qrels, run = _files(tmp_path)
    done = subprocess.run([sys.executable, "-m", "tiedrank", "evaluate", qrels, run, "-m", "RR",
                           "--format", "csv", "--per-query"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    rows = list(csv.reader(io.StringIO(done.stdout)))
    assert rows[1][:2] == ["'-cmd", "'=1+1"]
    assert not any(cell.startswith(("=", "@", "+")) for row in rows for cell in row)


def test_the_out_report_is_neutralised(tmp_path):
    qrels, run = _files(tmp_path)
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "tiedrank", "evaluate", qrels, run, "-m", "RR",
                           "--buckets", "2", "--out", str(out)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    for name in ("report.csv", "summary.csv"):
        rows = list(csv.reader(open(out / name)))
        assert rows[1][0] == "'-cmd", name
        assert not any(c.startswith(("=", "@", "+", "-")) and c != "-0" and not
                       c.lstrip("-").replace(".", "").replace("e", "").isdigit()
                       for row in rows[1:] for c in row[1:]), name


# ---- issue 29 item 2: file text in Markdown is text, never markup -----------------------------
MARKUP = ["![t](http://127.0.0.1:18999/tag.png)", "b**bold**", "<img src=x onerror=y>",
          "http://example.org/a", "www.example.org", "a@b.org", ":red[x] :material/home: :smile:",
          "$x^2$", "`code`", "[link](http://x)", "# heading", "- item", "1. item", "12) item",
          "> quote", "a|b", "x\\y", "&amp; &#60;", "~~gone~~", "<sup>ab</sup>"]


def _markdown_oracle():
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


def _visible(html_text: str) -> str:
    import html as html_module

    from tiedrank.report import WORD_JOINER

    return html_module.unescape(html_text).replace(WORD_JOINER, "")


def test_markdown_literal_shows_any_text_as_it_is():
    """markdown-it (CommonMark, raw HTML on) as the oracle: the text of a sentence holding
    markdown_literal(s) is s, and no element but the paragraph appears, for the cases above
    and 3,000 random strings of the characters that open markup."""
    import random
    import re

    from tiedrank.report import markdown_literal

    oracle = _markdown_oracle()
    pieces = list("\\`*_~[]()<>#|$:&@!-+=.0123456789 abwhtp/") + [
        "www.", "http://", "&amp;", "<img src=x>", "![a](b)", "\n"]
    rng = random.Random(29)
    cases = MARKUP + ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 12)))
                      for _ in range(3000)]
    for text in cases:
        text = " ".join(text.split())
        if not text:
            continue
        for before in ("", "x "):
            rendered = oracle.render(before + markdown_literal(text)).strip()
            inner = re.fullmatch(r"<p>(.*)</p>", rendered, re.S)
            assert inner is not None and "<" not in inner.group(1), (text, rendered)
            assert _visible(inner.group(1)) == before + text, (text, rendered)


def test_markdown_export_cells_are_text():
    """``--format markdown`` and the dashboard's download kept raw HTML and Markdown in
    cells (only ``|`` was escaped); numbers are written as they are."""
    import re

    frame = pd.DataFrame({"run": MARKUP, "value": [0.5] * len(MARKUP)})
    table = _markdown_oracle().render(render(frame, "markdown"))
    cells = re.findall(r"<td>(.*?)</td>", table, re.S)
    assert [_visible(c) for c in cells[0::2]] == MARKUP
    assert all("<" not in c for c in cells[0::2]), table
    assert cells[1::2] == ["0.5000"] * len(MARKUP)
    assert render(frame.head(1), "markdown").splitlines()[2] == \
        r"| !\[t\](http⁠://127.0.0.1:18999/tag.png) | 0.5000 |"  # a word joiner after http


def test_the_comparison_superscript_stays_markup():
    from tiedrank.report import markdown_escape

    assert markdown_escape("0.8162<sup>bf</sup>") == "0.8162<sup>bf</sup>"
    assert markdown_escape("<sup>bf</sup>") == r"\<sup\>bf\</sup\>"  # a run so named


def _reference_csv(frame: pd.DataFrame, digits: int) -> str:
    """The CSV before the per-value paths: every cell through pandas and ``neutralised``."""
    from tiedrank.report.formats import _cell

    out = frame.copy()
    for column in out.columns:
        values = out[column]
        if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
            continue
        out[column] = values.astype(object).map(lambda v: _cell(v) if isinstance(v, str) else v)
    out.columns = [_cell(c) if isinstance(c, str) else c for c in out.columns]
    return out.to_csv(index=False, float_format=f"%.{digits}f")


@pytest.mark.parametrize("digits", [0, 4, 17])
def test_the_csv_is_the_text_pandas_writes_cell_by_cell(digits):
    """``render(..., "csv")`` formats float64 columns itself and neutralises a categorical or
    string column once per distinct value: the same text as pandas' own, cell by cell."""
    import numpy as np

    from tiedrank.report import natural_key, natural_rank

    rng = np.random.default_rng(5)
    texts = [*HOSTILE, "q1", "q10", "q2", "a,b", 'say "x"', "line\nbreak", "", " sp ", "é"]
    n = 400
    numbers = rng.normal(size=n) * 10.0 ** rng.integers(-20, 20, size=n)
    numbers[rng.random(n) < 0.1] = np.nan
    numbers[:4] = [-0.0, np.inf, -np.inf, 0.1]
    picks = rng.integers(0, len(texts), size=n)
    frame = pd.DataFrame({
        "run": pd.Categorical([texts[i] for i in picks]),
        "query": pd.Series([None if i % 7 == 0 else texts[i] for i in picks], dtype="str"),
        "metric": pd.Categorical([None if i % 5 == 0 else texts[i] for i in picks]),
        "mixed": pd.Series([texts[i] if i % 3 else float(i) for i in picks], dtype=object),
        "=value": numbers, "small": numbers.astype(np.float32), "count": picks,
    })
    assert render(frame, "csv", digits=digits) == _reference_csv(frame, digits)
    plain = [t for t in texts if not any(c in t for c in ',"\n\r')]
    simple = pd.DataFrame({  # every cell plain text: the lines are joined without pandas
        "run": pd.Categorical([plain[i % len(plain)] for i in picks]),
        "query": pd.Series([plain[i % len(plain)] for i in picks], dtype="str"),
        "=value": numbers, "other": -numbers})
    assert render(simple, "csv", digits=digits) == _reference_csv(simple, digits)
    assert render(simple[["=value"]], "csv", digits=digits) == _reference_csv(simple[["=value"]],
                                                                            digits)
    assert render(frame.iloc[0:0], "csv", digits=digits) == _reference_csv(frame.iloc[0:0], digits)
    for column in ("run", "query", "metric", "mixed"):
        values = frame[column]
        unique = sorted(set(map(str, values)), key=natural_key)
        assert natural_rank(values).tolist() == [unique.index(str(v)) for v in values]


def _reference_text_cells(frame: pd.DataFrame, digits: int) -> list[list[str]]:
    """The cells of the text formats, one Python call per cell (how they were made before
    they were made a column at a time): floats rounded, missing cells empty, the rest str."""
    rows = []
    for row in frame.itertuples(index=False):
        rows.append(["" if pd.isna(v) else f"{v:.{digits}f}" if isinstance(v, float) else str(v)
                     for v in row])
    return rows


@pytest.mark.parametrize("digits", [0, 4, 17])
def test_the_text_formats_hold_every_cell_a_column_at_a_time_gives(digits):
    """The table, Markdown, LaTeX and HTML formats read each column once (floats by one
    ``%`` over the column, categories once each): the same cells as one call per cell, a
    missing text cell empty (pandas 3 keeps it missing through astype(str): a TypeError)."""
    import numpy as np

    rng = np.random.default_rng(8)
    n = 60
    texts = ["q1", "q10", "a|b", "<i>x</i>", "50%", "é", "x_y"]
    picks = rng.integers(0, len(texts), size=n)
    numbers = rng.normal(size=n) * 10.0 ** rng.integers(-5, 8, size=n)
    numbers[rng.random(n) < 0.2] = np.nan
    frame = pd.DataFrame({
        "run": pd.Categorical([None if i % 6 == 0 else texts[i] for i in picks]),
        "query": pd.Series([None if i % 5 == 0 else texts[i] for i in picks], dtype="str"),
        "value": numbers, "count": picks})
    cells = _reference_text_cells(frame, digits)
    table = render(frame, "table", digits=digits).split("\n")
    widths = [max([len(c)] + [len(row[j]) for row in cells]) for j, c in enumerate(frame.columns)]
    numeric = [False, False, True, True]
    assert table[1:] == ["  ".join(v.rjust(w) if num else v.ljust(w)
                                   for v, w, num in zip(row, widths, numeric)).rstrip()
                         for row in cells]
    assert any(row[0] == "" for row in cells) and any(row[1] == "" for row in cells)
    assert render(frame, "html", digits=digits).count("<tr>") == n + 1
    markdown = render(frame, "markdown", digits=digits).split("\n")[2:]
    assert [line.split(" | ")[2] for line in markdown] == [row[2] for row in cells]


def test_per_query_table_is_pandas_pivot_in_reading_order():
    """``per_query_table`` (numpy over the codes) against pandas' pivot_table and a sort by
    run, natural query order and metric: the CLI's ``-q`` table before it was rewritten."""
    import numpy as np

    from tiedrank.core.policies import REPORT_COLUMNS
    from tiedrank.report import natural_rank, per_query_table

    rng = np.random.default_rng(4)
    queries = ["q2", "q10", "q1", "Q1", "a b", "10", "9", "é", "q01"]
    rows = []
    for run in ["b", "a"]:
        for policy in ["trec_eval", "expected", "best"]:
            for metric in ["nDCG@10", "RR", "AP"]:
                for query in queries:
                    value = np.nan if (query == "9" and metric == "RR") or rng.random() < 0.05 \
                        else rng.random()
                    rows.append((run, query, metric, policy, value))
    long = pd.DataFrame(rows, columns=["run", "query", "metric", "policy", "value"])
    long = long.sample(frac=1.0, random_state=1)  # any row order, trec_eval's first: the
    first = long.index[long["policy"] == "trec_eval"][0]  # columns in order of appearance,
    long = pd.concat([long.loc[[first]], long.drop(index=first)]).reset_index(drop=True)
    for column, order in [("run", ["b", "a", "unused"]), ("metric", ["nDCG@10", "RR", "AP"]),
                          ("policy", ["expected", "best", "trec_eval"])]:
        long[column] = pd.Categorical(long[column], categories=order)
    long["query"] = long["query"].astype("str")
    assert long["policy"].iloc[0] == "trec_eval"  # not the categories' order
    expected = long.pivot_table(index=["run", "query", "metric"], columns="policy",
                                values="value", observed=True, sort=False)
    expected = expected.rename(columns=REPORT_COLUMNS).reset_index()
    expected.columns.name = None
    order = np.lexsort((expected["metric"].cat.codes, natural_rank(expected["query"]),
                        expected["run"].cat.codes))
    expected = expected.iloc[order].reset_index(drop=True)
    got = per_query_table(long)
    assert not ((got["query"] == "9") & (got["metric"] == "RR")).any()  # all missing: gone
    pd.testing.assert_frame_equal(got, expected, check_categorical=False)
    for column in ("run", "metric"):
        assert list(got[column].cat.categories) == list(long[column].cat.categories)
    assert per_query_table(long.iloc[0:0]).empty
