"""Render result tables as text, CSV, JSON, LaTeX, Markdown or HTML (CLI and dashboard share it),
and the escapes every renderer of :mod:`tiedrank.report` uses."""
from __future__ import annotations

import html
import re
import unicodedata

import numpy as np
import pandas as pd

from ..core.validation import Interval, Options, validate_params

FORMATS = ("table", "csv", "json", "latex", "markdown", "html")
"""Output formats of :func:`render` (and of the CLI's ``--format``)."""
MAX_DIGITS = 17
"""The most decimals ``digits=`` prints (``%.17f``: decimals, not significant digits, so
small values lose digits and large ones print noise; ``digits="full"`` is the round trip)."""
FULL = "full"
"""``digits="full"``: each float as its shortest text that reads back as the same float64
(``repr``: ``2/3`` is ``0.6666666666666666``, ``1e-20`` stays ``1e-20``)."""


_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?|[+-]?(?i:inf|infinity|nan)")


def neutralised(text: str) -> str:
    """``text`` as a spreadsheet shows it, never as a formula: a cell starting with ``=``,
    ``+``, ``-``, ``@``, a tab or a carriage return gets a leading ``'`` (OWASP's CSV
    injection rule), unless it is a plain number (``-0.5`` stays a number).

    Examples
    --------
    >>> neutralised("=SUM(A1)"), neutralised("-0.5"), neutralised("-1+2"), neutralised("q1")
    ("'=SUM(A1)", '-0.5', "'-1+2", 'q1')
    """
    if text.startswith(_FORMULA_STARTS) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def _cell(text: str) -> str:
    # a bare CR is not quoted by pandas (its line end is LF) but ends the row in spreadsheet
    # readers, so the rest would start a row of its own: written as LF, which is quoted
    return neutralised(text).replace("\r\n", "\n").replace("\r", "\n")


def csv_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every string cell and column name :func:`neutralised` (and a carriage
    return inside a cell written as a line feed, which ``to_csv`` quotes); numeric columns
    are left as they are (numbers stay numbers)."""
    out = frame.copy()
    for column in out.columns:
        values = out[column]
        if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
            continue
        cells = _each_value(values, _safe)
        out[column] = (values.astype(object).map(_safe) if cells is None else
                       pd.Series(cells, index=values.index, dtype=object))
    out.columns = [_cell(c) if isinstance(c, str) else c for c in out.columns]
    return out


def _each_value(values, function) -> np.ndarray | None:
    """``[function(v) for v in values]`` as an object array, ``function`` called once per
    distinct value, for a categorical or string Series (``None`` for any other: there
    equal values may print differently, ``1`` and ``1.0``). Its cells are what iterating
    the Series gives (a missing one: the dtype's NA value, ``nan`` for a categorical); the
    CSV of 60,000 per-query rows spent 0.3 s calling per cell."""
    if not isinstance(values, pd.Series):
        return None
    if isinstance(values.dtype, pd.CategoricalDtype):
        codes, distinct, missing = values.cat.codes.to_numpy(), values.cat.categories, np.nan
    elif isinstance(values.dtype, pd.StringDtype):
        codes, distinct = pd.factorize(values)
        missing = values.dtype.na_value
    else:
        return None
    mapped = np.empty(len(distinct) + 1, dtype=object)
    mapped[:-1] = [function(v) for v in distinct]
    mapped[-1] = function(missing)  # code -1
    return mapped[np.asarray(codes)]


def _safe(value: object) -> object:
    return _cell(value) if isinstance(value, str) else value


_QUOTED = (",", '"', "\n", "\r")
"""What makes ``to_csv`` (the csv module, minimal quoting) quote a cell: the delimiter, the
quote and a line end (a CR is not quoted by it, nor left by :func:`csv_safe`; listed to be
safe)."""


def _csv(frame: pd.DataFrame, digits: int | str) -> str:
    """``csv_safe(frame).to_csv(index=False, float_format=f"%.{digits}f")``, the same text,
    with the float64 columns formatted here (one ``%`` over a column instead of pandas'
    Python call per cell) and, when every cell is then a string that needs no quoting, the
    lines joined here (300,000 numbers at 17 digits in 60,000 rows: 0.75 -> 0.2 s)."""
    out = csv_safe(frame)
    fmt = None if digits == FULL else f"%.{digits}f"  # None: pandas writes repr, as FULL
    cells: list = []
    formatted: dict[int, list[str]] = {}
    for position in range(out.shape[1]):
        values = out.iloc[:, position]
        if values.dtype != np.float64 or values.empty:
            cells.append(values.to_numpy() if values.dtype == object else None)
            continue
        cells.append(formatted.setdefault(position, _float_texts(values.to_numpy(), digits)))
    header = list(out.columns)
    if len(cells) >= 2 and all(c is not None and _plain(c) for c in [*cells, header]):
        return "\n".join([",".join(header), *map(",".join, zip(*cells)), ""])
    for position, text in formatted.items():  # pandas writes the rest (a single column: "")
        out.isetitem(position, np.array(text, dtype=object))
    return out.to_csv(index=False, float_format=fmt)


def _float_texts(numbers: np.ndarray, digits: int | str) -> list[str]:
    """Each float64 of ``numbers`` with ``digits`` decimals, or (``FULL``) as the shortest
    text that reads back as the same float; NaN as "" (pandas' ``na_rep``)."""
    if digits != FULL:
        return _formatted(numbers, f"%.{digits}f")
    return ["" if value != value else repr(value) for value in numbers.tolist()]


def _formatted(numbers: np.ndarray, fmt: str) -> list[str]:
    """``fmt % v`` of every float64 ``v`` by one ``%`` over the column, NaN as "" (pandas'
    ``na_rep``)."""
    text = ((fmt + "\n") * len(numbers) % tuple(numbers.tolist())).split("\n")[:-1]
    for missing in np.flatnonzero(np.isnan(numbers)).tolist():
        text[missing] = ""
    return text


def _plain(cells) -> bool:
    """Every cell a string that ``to_csv`` writes as it is (no quoting)."""
    try:
        text = "\x00".join(cells)
    except TypeError:  # not every cell is a string: pandas writes it
        return False
    return not any(quoted in text for quoted in _QUOTED)


_LATEX_SPECIAL = re.compile(r"[\\&%$#_{}~^]")
_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
          "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
          "^": r"\textasciicircum{}"}
_LATEX_TEXT = re.compile(r"[\\&%$#_{}~^<>|\[\]]|[\x00-\x1f\x7f]")
_LATEX_GLYPHS = {"<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",
                 "[": "{[}", "]": "{]}"}


def latex_literal(text: object, ascii_only: bool = False) -> str:
    r"""``text`` as LaTeX that prints it as it is, in any cell or caption: every special
    character escaped (and ``< > |``, which the default font would print as other glyphs;
    brackets braced, so none is read as an optional argument), control characters as
    spaces. With ``ascii_only`` the source is ASCII (:func:`latex_ascii`), so pdflatex
    compiles it whatever its input encoding.

    >>> print(latex_literal("a_b <i>|50% $^{x}$"))
    a\_b \textless{}i\textgreater{}\textbar{}50\% \$\textasciicircum{}\{x\}\$
    >>> print(latex_literal("caf\u00e9 [1] \u2603", ascii_only=True))
    caf\'{e} {[}1{]} {[}U+2603{]}
    """
    out = _LATEX_TEXT.sub(lambda m: _LATEX.get(m.group()) or _LATEX_GLYPHS.get(m.group()) or " ",
                          str(text))
    return latex_ascii(out) if ascii_only else out


_LATEX_SYMBOLS = {"\u2013": "--", "\u2014": "---", "\u2212": "$-$", "\u2264": "$\\le$",
                  "\u2265": "$\\ge$", "\u00d7": "$\\times$", "\u00b7": "$\\cdot$",
                  "\u2605": "$\\star$", "\u2020": "$\\dagger$", "\u26a0": "(!)",
                  "\u2018": "`", "\u2019": "'", "\u201c": "``", "\u201d": "''",
                  "\u2026": "\\ldots{}", "\u00a0": "~", "\u00b1": "$\\pm$",
                  "\u2248": "$\\approx$", "\u2192": "$\\to$", "\u03b1": "$\\alpha$"}
"""Symbols the project prints, as pdflatex writes them in ASCII."""
_ACCENTS = {"\u0300": "\\`", "\u0301": "\\'", "\u0302": "\\^", "\u0303": "\\~",
            "\u0308": '\\"', "\u0327": "\\c", "\u030c": "\\v", "\u0304": "\\="}
_SUPERSCRIPT_LETTERS = dict(zip("ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ⁰¹²³⁴⁵⁶⁷⁸⁹",
                                "abcdefghijklmnoprstuvwxyz0123456789"))


def latex_ascii(text: str) -> str:
    r"""LaTeX source ``text`` (already escaped) with every non-ASCII character written in
    ASCII: the symbols the project prints as LaTeX (``–`` as ``--``, ``≤`` as ``$\le$``,
    ``★`` as ``$\star$``, ``⚠`` as ``(!)``, a superscript letter as ``$^{a}$``), an accented
    Latin letter with its accent command (``é`` as ``'{e}``), anything else as
    ``[U+XXXX]``; so pdflatex compiles it whatever its input encoding.

    >>> print(latex_ascii("caf\u00e9 \u2013 \u2605 0.8\u1d43\u1d47 \u2603"))
    caf\'{e} -- $\star$ 0.8$^{a}$$^{b}$ {[}U+2603{]}
    """
    if text.isascii():
        return text
    out = []
    for char in text:
        if char.isascii():
            out.append(char)
        elif char in _LATEX_SYMBOLS:
            out.append(_LATEX_SYMBOLS[char])
        elif char in _SUPERSCRIPT_LETTERS:
            out.append(f"$^{{{_SUPERSCRIPT_LETTERS[char]}}}$")
        else:
            base, *marks = unicodedata.normalize("NFD", char)
            if base.isascii() and base.isalpha() and len(marks) == 1 and marks[0] in _ACCENTS:
                out.append(f"{_ACCENTS[marks[0]]}{{{base}}}")
            else:
                out.append(f"{{[}}U+{ord(char):04X}{{]}}")
    return "".join(out)


_SUPERSCRIPT = re.compile(r"(\$\^\{[a-z]+\}\$)")
"""The ranx-style significance marker of a comparison report (``0.8162$^{bf}$``): letters
only, so it is kept as LaTeX markup."""


def latex_escape(text: str) -> str:
    r"""``text`` safe in a LaTeX table cell: ``\ & % $ # _ { } ~ ^`` escaped, in one pass,
    except a significance superscript of run keys (``$^{bf}$``, letters only).

    >>> print(latex_escape("a_b & 50% $x$ {#1} ~^\\"))
    a\_b \& 50\% \$x\$ \{\#1\} \textasciitilde{}\textasciicircum{}\textbackslash{}
    >>> print(latex_escape("0.8162$^{bf}$"), latex_escape("$^{x_1}$"))
    0.8162$^{bf}$ \$\textasciicircum{}\{x\_1\}\$
    """
    parts = _SUPERSCRIPT.split(text)
    return "".join(part if index % 2 else _LATEX_SPECIAL.sub(lambda m: _LATEX[m.group()], part)
                   for index, part in enumerate(parts))


_MARKUP = re.compile(r"[\\`*~\[\]<>#|$&]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
"""Characters that open markup anywhere (``_`` only at a word's edge: ``trec_eval`` is
no emphasis)."""
_LINE_START = re.compile(r"^(\s*)([-+])(?=\s|$)|^(\s*\d{1,9})([.)])(?=\s|$)")
"""A list marker where a line starts (``- x``, ``1. x``, ``2) x``; not ``0-10``)."""
_AUTOLINK = re.compile(r"(?i:https?(?=://)|www(?=\.))|@|:(?=[\w+\-/]+:)")
"""Where an autolink or a short code could start: ``http://``, ``www.``, ``a@b.c``,
``:smile:``, ``:material/home:`` (a word joiner goes after the word or the colon, before
the ``@``)."""
WORD_JOINER = "\u2060"
"""An invisible character that breaks autolinks and short codes (see :func:`markdown_literal`)."""
_MARKED_NUMBER = re.compile(r"[-+]?[0-9]+(?:\.[0-9]+)?<sup>[a-z]+</sup>")
"""A number with the significance marker of a comparison report in Markdown
(``0.8162<sup>bf</sup>``): the marker is kept as markup (a whole cell of this form only)."""


def markdown_literal(text: object) -> str:
    r"""``text`` as Markdown that shows it as it is: the one rule for every string from a
    file (run names, query and document ids, file and column names, messages quoting a
    line) in Markdown, the dashboard's and the Markdown export's.

    Every character that can open markup is backslash-escaped (CommonMark lets any ASCII
    punctuation be), so nothing in ``text`` can become emphasis, a link or an image (a
    tracking pixel), raw HTML, code, a heading, a list, a table cell, math or an entity;
    line breaks become spaces (the text stays inline). Autolinks (``http://``, ``www.``,
    ``a@b.c``) and short codes (Streamlit's ``:material/...:``, emoji) are found in the
    text once escapes are resolved (remark-gfm, GitHub), so an escape cannot stop them: an
    invisible :data:`WORD_JOINER` goes after ``http`` and ``www``, before ``@`` and after a
    ``:`` that could open a short code. Other punctuation, and ``_`` inside a word, are left
    as they are (``h2oloo-fewself``, ``0-10``, ``trec_eval``, ``Uploaded: 2 runs``).

    >>> print(markdown_literal("![t](http://x.org/t.png) b**bold** <i>x</i>")
    ...       .replace(WORD_JOINER, "⁐"))
    !\[t\](http⁐://x.org/t.png) b\*\*bold\*\* \<i\>x\</i\>
    >>> print(markdown_literal("- www.example.org, 1. a@b :smile:").replace(WORD_JOINER, "⁐"))
    \- www⁐.example.org, 1. a⁐@b :⁐smile:
    >>> markdown_literal("two\nlines"), markdown_literal("12) x")
    ('two lines', '12\\) x')
    """
    return _LINE_START.sub(lambda m: "".join(p or "" for p in (m[1], m[3])) + "\\"
                           + (m[2] or m[4]), _inline_literal(text))


def _inline_literal(text: object) -> str:
    """:func:`markdown_literal` inside a line (a table cell): markup and autolinks only."""
    inline = _MARKUP.sub(lambda match: "\\" + match.group(), " ".join(str(text).splitlines()))
    return _AUTOLINK.sub(lambda match: WORD_JOINER + match.group() if match.group() == "@"
                         else match.group() + WORD_JOINER, inline)


def markdown_escape(text: str) -> str:
    """``text`` safe in a Markdown table cell (:func:`markdown_literal` within a line), but
    a number with a significance superscript of run keys (``0.8162<sup>bf</sup>``) is kept."""
    return text if _MARKED_NUMBER.fullmatch(text) else _inline_literal(text)


def _text_columns(frame: pd.DataFrame, digits: int | str) -> list[list[str]]:
    """Every column as its cells' text: floats rounded to ``digits`` (or ``FULL``), the rest as
    ``astype(str)`` writes them, missing cells empty. Plain lists: iterating pandas'
    Arrow-backed strings cell by cell cost 3.8 s on 700,000 per-query rows of
    ``-m all_trec -q``."""
    columns = []
    for position in range(frame.shape[1]):
        values = frame.iloc[:, position]
        if values.dtype == np.float64:
            columns.append(_float_texts(values.to_numpy(), digits))
        elif pd.api.types.is_float_dtype(values):  # float32, nullable Float64
            columns.append(["" if pd.isna(v) else repr(float(v)) if digits == FULL else
                            f"{v:.{digits}f}" for v in values.tolist()])
        else:  # categorical and string columns: one str per distinct value, shared
            cells = _each_value(values, _text_cell)
            columns.append(cells.tolist() if cells is not None else
                           # missing cells empty, as in CSV (astype(str) keeps pandas 3's NA)
                           values.astype(object).where(values.notna(), "").astype(str).tolist())
    return columns


def _text_cell(value: object) -> str:
    """A text format's cell: ``str(value)``, or "" for a missing value."""
    return "" if pd.isna(value) else str(value)


@validate_params({"fmt": [Options(*FORMATS)],
                  "digits": [Interval(int, 0, MAX_DIGITS), Options(FULL)]})
def render(frame: pd.DataFrame, fmt: str = "table", digits: int | str = 4) -> str:
    """Render ``frame`` in ``fmt``: one of ``table``, ``csv``, ``json``, ``latex``, ``markdown``,
    ``html``.

    ``table`` is a fixed-width text table in the spirit of trec_eval's output; ``json`` is
    one record per row, each float as the shortest text that reads back as the same
    float64 (:func:`json_records`); the others round floats to ``digits`` decimals, or with
    ``digits="full"`` print each float as ``json`` does. Every text cell is escaped for its
    format (``html``: :func:`html.escape`, nothing rendered).

    Examples
    --------
    >>> print(render(pd.DataFrame({"metric": ["RR"], "value": [0.5]}), "markdown"))
    | metric | value |
    | --- | --- |
    | RR | 0.5000 |
    """
    if fmt == "csv":  # string cells never start a spreadsheet formula
        return _csv(frame, digits)
    if fmt == "json":
        return json_records(frame)
    columns = _text_columns(frame, digits)
    rows = zip(*columns)  # consumed once, by the branch taken
    numeric = [pd.api.types.is_numeric_dtype(frame.iloc[:, i]) for i in range(frame.shape[1])]
    if fmt == "latex":
        escape = lambda v: latex_ascii(latex_escape(v))  # noqa: E731  (pdflatex compiles it)
        align = "".join("r" if number else "l" for number in numeric)
        lines = [rf"\begin{{tabular}}{{{align}}}", r"\toprule",
                 " & ".join(escape(str(c)) for c in frame.columns) + r" \\", r"\midrule"]
        lines += [" & ".join(escape(v) for v in row) + r" \\" for row in rows]
        return "\n".join(lines + [r"\bottomrule", r"\end{tabular}"])
    if fmt == "html":
        return html_table(list(map(str, frame.columns)), [list(row) for row in rows], numeric)
    if fmt == "markdown":
        # text cells shown as they are (markdown_literal); numbers need no escaping
        lines = ["| " + " | ".join(markdown_escape(str(c)) for c in frame.columns) + " |",
                 "| " + " | ".join("---" for _ in frame.columns) + " |"]
        lines += ["| " + " | ".join(v if number else markdown_escape(v)
                                    for v, number in zip(row, numeric)) + " |"
                  for row in rows]
        return "\n".join(lines)
    # "table" (validate_params admits only FORMATS)
    widths = [max([len(str(c))] + [len(v) for v in column])
              for c, column in zip(frame.columns, columns)]

    def line(values) -> str:
        return "  ".join(v.rjust(w) if num else v.ljust(w)
                         for v, w, num in zip(values, widths, numeric)).rstrip()

    return "\n".join([line(map(str, frame.columns)), *map(line, rows)])


def json_records(frame: pd.DataFrame) -> str:
    """``frame.to_json(orient="records", indent=1)``, but every float64 written as its
    shortest round-trip text (``repr``), which ``float()`` and ``json.loads`` read back bit
    for bit (pandas writes at most 15 decimals: ``2/3`` as ``0.666666666666667``, a value
    under 1e-15 as 0). NaN and infinities are ``null``, as pandas writes them; every other
    byte is pandas' (its layout, its escapes).

    >>> json_records(pd.DataFrame({"q": ["a/b"], "v": [2 / 3], "n": [1]})).split()
    ['[', '{', '"q":"a\\\\/b",', '"v":0.6666666666666666,', '"n":1', '}', ']']
    """
    text = frame.to_json(orient="records", indent=1, double_precision=15)
    floats = [i for i in range(frame.shape[1]) if frame.dtypes.iloc[i] == np.float64]
    if not floats or frame.empty:
        return text
    # pandas writes a record a line a field: "[", then per row " {", one line per column
    # ("  <key>:<value>", a comma but after the last) and " }," or " }", then "]"; the
    # float fields' lines are written again (a value's escapes keep it on its line)
    lines = text.split("\n")
    width = frame.shape[1] + 2
    if len(lines) != 2 + width * len(frame):
        return _marked_json(frame, floats)  # another layout (a nested object in a cell)
    for i in floats:
        key = pd.DataFrame({frame.columns[i]: [0]}).to_json(orient="records", indent=1)
        prefix = key.split("\n")[2][:-1]  # '  "<key>":' as pandas escapes the name
        comma = "," if i < frame.shape[1] - 1 else ""
        values = frame.iloc[:, i].to_numpy()
        finite = np.isfinite(values)
        texts = [prefix + (repr(value) if ok else "null") + comma
                 for value, ok in zip(values.tolist(), finite.tolist())]
        if not all(line.startswith(prefix) for line in lines[2 + i::width]):
            return _marked_json(frame, floats)
        lines[2 + i::width] = texts
    return "\n".join(lines)


def _marked_json(frame: pd.DataFrame, floats: list[int]) -> str:
    """:func:`json_records` for a frame whose records pandas does not write a field a
    line: each float goes in as a marked string and comes out unquoted, the mark a
    private-use character the frame's text holds nowhere (pandas writes it ``\\uXXXX``)."""
    text = "\n".join(map(str, frame.columns)) + "\n" + "\n".join(
        "\n".join(map(str, frame.iloc[:, i].dropna().tolist()))
        for i in range(frame.shape[1]) if i not in floats)
    mark = next(chr(c) for c in range(0xE000, 0xF900) if chr(c) not in text)
    marked = frame.copy()
    for i in floats:
        values = frame.iloc[:, i].to_numpy()
        cells = np.array([mark + text + mark for text in map(repr, values.tolist())],
                         dtype=object)
        cells[~np.isfinite(values)] = None
        marked.isetitem(i, cells)
    escaped = f"\\u{ord(mark):04x}"  # as pandas writes the mark; found nowhere else
    text = marked.to_json(orient="records", indent=1, double_precision=15)
    return text.replace('"' + escaped, "").replace(escaped + '"', "")


def html_table(header: list[str], rows: list[list[str]], numeric: list[bool], *,
               caption: str | None = None, css_class: str = "tiedrank-table",
               escape: bool = True) -> str:
    """An HTML table of text cells, each :func:`html.escape` d unless ``escape`` is false
    (the caller built the cell's markup from escaped parts); numeric columns right-aligned.

    >>> print(html_table(["run", "RR"], [["<b>x</b>", "0.5"]], [False, True]))
    <table class="tiedrank-table">
    <thead><tr><th>run</th><th style="text-align: right">RR</th></tr></thead>
    <tbody>
    <tr><td>&lt;b&gt;x&lt;/b&gt;</td><td style="text-align: right">0.5</td></tr>
    </tbody>
    </table>
    """
    text = html.escape if escape else str
    align = [' style="text-align: right"' if number else "" for number in numeric]
    lines = [f'<table class="{html.escape(css_class)}">']
    if caption is not None:
        lines.append(f"<caption>{caption}</caption>")
    lines.append("<thead><tr>" + "".join(f"<th{a}>{html.escape(h)}</th>"
                                         for h, a in zip(header, align)) + "</tr></thead>")
    lines.append("<tbody>")
    lines += ["<tr>" + "".join(f"<td{a}>{text(str(v))}</td>" for v, a in zip(row, align)) + "</tr>"
              for row in rows]
    return "\n".join(lines + ["</tbody>", "</table>"])


_DIGITS = re.compile(r"([0-9]+)")  # ASCII digits: int() refuses '²' (str.isdigit() is true)


def natural_key(text: str) -> tuple:
    """Sort key that orders ids as people read them: q2 before q10 (digits as numbers).

    >>> sorted(["q10", "q2", "q01", "Q3", "q1b", "q1²", "q" + "9" * 5000], key=natural_key)[:6]
    ['q01', 'q1b', 'q1²', 'q2', 'Q3', 'q10']
    """
    text = str(text)
    # odd parts are the digit runs, compared as numbers by (length, digits) without leading
    # zeros: int() refuses more than 4,300 digits, which an id may hold
    folded = tuple((0, len(p.lstrip("0")), p.lstrip("0")) if i % 2 else (1, p.casefold())
                   for i, p in enumerate(_DIGITS.split(text)) if p)
    # The exact text breaks ties only after the whole folded key, so case never outranks digits.
    return folded, text


def natural_rank(values) -> np.ndarray:
    """Position of each value in natural order (ties share no rank: stable)."""
    texts = _each_value(values, str)  # a categorical or string Series: str once a value
    if texts is not None:
        values = texts
    unique = sorted(set(map(str, values)), key=natural_key)
    position = {v: i for i, v in enumerate(unique)}
    return np.fromiter((position[str(v)] for v in values), dtype=np.int64, count=len(values))
