"""The dashboard's display helpers and widget state: empty states, findings, downloads,
figures, number cards, and widgets whose value survives page switches (``persist``).

Streamlit glue, like :mod:`tiedrank.dashboard.ui` (which holds the data context and the
caches); pages import these through ``ui``.
"""
from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from tiedrank.dashboard.drilldown import kept_choices
from tiedrank.dashboard.figures.style import for_theme
from tiedrank.dashboard.labels import findings_messages
from tiedrank.dashboard.settings import (
    default_metrics,
    metric_options,
    metrics_from_param,
    needs_reassert,
    retarget_metrics,
    validate_metrics,
)
from tiedrank.core.errors import Finding
from tiedrank.report import Report, markdown_literal, render


def empty_state(message: str) -> None:
    """Explain why there is nothing to show here (instead of an empty chart)."""
    st.info(message, icon=":material/info:")


def show_findings(findings: Sequence[Finding] | Sequence[str], *, title: str = "Findings about the data") -> None:
    """Non-fatal observations as warnings (in an expander when there are many)."""
    messages = findings_messages(f for f in findings if isinstance(f, Finding))
    messages += [str(f) for f in findings if not isinstance(f, Finding)]
    if not messages:
        return
    messages = [markdown_literal(m) for m in messages]  # they quote run names and query ids
    if len(messages) <= 3:
        for message in messages:
            st.warning(message, icon=":material/warning:")
        return
    with st.expander(f"{title} ({len(messages)})", icon=":material/warning:"):
        for message in messages:
            st.warning(message)


_DOWNLOAD_FORMATS = (("csv", "csv", "text/csv", "CSV"),
                     ("latex", "tex", "application/x-tex", "LaTeX"),
                     ("markdown", "md", "text/markdown", "Markdown"))


def download_row(frame: pd.DataFrame, basename: str, *, key: str, digits: int = 4) -> None:
    """CSV / LaTeX / Markdown download buttons for ``frame`` (rendered on click only)."""
    row = st.container(horizontal=True, gap="small")
    for fmt, ext, mime, label in _DOWNLOAD_FORMATS:
        row.download_button(
            label, data=lambda fmt=fmt: render(frame, fmt, digits), file_name=f"{basename}.{ext}",
            mime=mime, key=f"{key}_{fmt}", on_click="ignore", icon=":material/download:",
            help=f"Download this table as {label} ({digits} decimals; rendered by tiedrank.report).")


_REPORT_DOWNLOADS = (("csv", "csv", "text/csv", "CSV", False),
                     ("parquet", "parquet", "application/vnd.apache.parquet", "Parquet", False),
                     ("latex", "tex", "application/x-tex", "LaTeX", True),
                     ("markdown", "md", "text/markdown", "Markdown", True))
"""(format, extension, MIME type, label, with significance letters) of a report grid."""


def report_download_row(build: Callable[[bool], Report], basename: str, *, key: str,
                        help: str) -> None:
    """CSV / Parquet (numbers) and LaTeX / Markdown (the grid with its caption) buttons for
    a report grid; ``build(letters)`` makes the :class:`~tiedrank.report.Report` on click
    only (``letters``: run the significance tests, for the LaTeX and Markdown files)."""
    built: dict[bool, Report] = {}  # one grid per kind for this run's buttons (tests once)

    def report(letters: bool) -> Report:
        if letters not in built:
            built[letters] = build(letters)
        return built[letters]

    row = st.container(horizontal=True, gap="small")
    for fmt, ext, mime, label, letters in _REPORT_DOWNLOADS:
        row.download_button(
            label, data=lambda fmt=fmt, letters=letters: getattr(report(letters), f"to_{fmt}")(),
            file_name=f"{basename}.{ext}", mime=mime, key=f"{key}_{fmt}", on_click="ignore",
            icon=":material/download:", help=help)


def number_cards():
    """A row for ``st.metric`` cards that wraps onto more rows when the cards do not fit:
    give each card ``width="content"`` so its label and value are never cut."""
    return st.container(horizontal=True, gap="medium")


def show_figure(fig, *, key: str, **kwargs):
    """``st.plotly_chart`` in the page's theme: Streamlit's chart theme gives the chart the
    page's background, fonts and grid (light or dark, and it follows a theme switch), and on
    a dark page the figure's fixed ink colours turn light (:func:`figures.style.for_theme`).
    ``kwargs`` go to ``st.plotly_chart`` (``on_select``, ``selection_mode``); returns its value.
    Export the figure itself (:func:`figure_download`): a PNG keeps the light colours."""
    dark = st.context.theme.type == "dark"
    return st.plotly_chart(for_theme(fig, dark), theme="streamlit", key=key, **kwargs)


FIGURE_FORMATS = (("png", "PNG", "image/png", ":material/image:"),
                  ("svg", "SVG", "image/svg+xml", ":material/draw:"),
                  ("pdf", "PDF", "application/pdf", ":material/picture_as_pdf:"))
"""The export formats of :func:`figure_download`: key, label, MIME type, icon."""


def figure_download(fig, basename: str, *, key: str, scale: float = 2.0) -> None:
    """Buttons that export ``fig`` as PNG, SVG or PDF on demand (kaleido with the system
    Chromium), then offer the file.

    Export takes a few seconds (a headless Chromium), so a format is only rendered when its
    button is pressed; the file stays offered while the figure is unchanged. If export
    fails, the message points to the chart's own camera button (PNG), which always works.
    """
    row = st.container(horizontal=True, gap="small")
    pressed = [fmt for fmt, label, _, icon in FIGURE_FORMATS if row.button(
        label, key=f"{key}_{fmt}_prepare", icon=icon,
        help=f"Render this chart as a {label} file (takes a few seconds)."
             + (" The camera icon in the chart's toolbar also downloads a PNG." if fmt == "png"
                else " Vector graphics, for a paper."))]
    fingerprint = None
    for fmt in pressed:
        fingerprint = fingerprint or _figure_fingerprint(fig)
        label = dict((f, l) for f, l, _, _ in FIGURE_FORMATS)[fmt]
        try:
            with st.spinner(f"Rendering {label}…"):
                image = fig.to_image(format=fmt, scale=scale) if fmt == "png" else fig.to_image(format=fmt)
            stored = (fingerprint, image, None)
        except Exception as err:  # kaleido or chromium missing or failing
            stored = (fingerprint, None, f"{type(err).__name__}: {err}")
        st.session_state[f"_{fmt}_{key}"] = stored
    for fmt, label, mime, _ in FIGURE_FORMATS:
        stored = st.session_state.get(f"_{fmt}_{key}")
        if stored is None:
            continue
        fingerprint = fingerprint or _figure_fingerprint(fig)
        if stored[0] != fingerprint:
            continue
        if stored[1] is not None:
            row.download_button(f"Save {label}", data=stored[1], file_name=f"{basename}.{fmt}",
                                mime=mime, key=f"{key}_{fmt}_save", on_click="ignore",
                                icon=":material/download:", help=f"Download the rendered {label}.")
        else:
            st.info(f"{label} export is not available here "
                    f"({stored[2][:160]}). Use the camera icon in the chart's toolbar instead (PNG).")


def _figure_fingerprint(fig) -> str:
    return hashlib.sha256(fig.to_json().encode()).hexdigest()


KEEP = "session"
"""Streamlit's ``persist_state`` scope of every page widget: its value survives visits to
other pages for the whole session (the one state mechanism of the pages)."""


def persist(key: str, default: Any = None) -> dict:
    """Widget keyword arguments: ``key`` and Streamlit's ``persist_state="session"``.

    Use as ``st.selectbox("Run", names, **persist("tie_run"))``; ``default`` (optional) is
    the first-visit value, put in session state before the widget exists (do not also pass
    the widget's own ``value``/``default``/``index``).
    """
    if default is not None:
        st.session_state.setdefault(key, default)
    _reassert_on_remount(key)
    return {"key": key, "persist_state": KEEP}


RUN_SERIAL_KEY = "_tiedrank_run_serial"
"""session_state key: a counter app.py raises on every script run (see :func:`count_run`)."""
_DRAWN_KEY = "_tiedrank_widget_drawn"


def count_run() -> None:
    """Called by app.py at the top of every run: numbers the runs for :func:`persist`."""
    st.session_state[RUN_SERIAL_KEY] = st.session_state.get(RUN_SERIAL_KEY, 0) + 1


def _reassert_on_remount(key: str) -> None:
    """A kept widget that was not drawn in the previous run (the page stopped early on an
    empty state, or another page was shown) gets its kept value written back before it is
    drawn again, so the browser is told the value instead of mounting the widget empty
    while the page still computes with the kept value (see settings.needs_reassert)."""
    serial = st.session_state.get(RUN_SERIAL_KEY)
    drawn: dict = st.session_state.setdefault(_DRAWN_KEY, {})
    if needs_reassert(drawn.get(key), serial) and key in st.session_state:
        st.session_state[key] = copy.deepcopy(st.session_state[key])
    drawn[key] = serial


def drawn_this_run() -> dict[str, Any]:
    """The kept widgets (:func:`persist`) drawn so far in this run, with their values: the
    choices of the page shown (what a drill-down's back link restores)."""
    return kept_choices(st.session_state.get(_DRAWN_KEY, {}), st.session_state.get(RUN_SERIAL_KEY),
                        st.session_state)


_LABELS_KEY = "_tiedrank_widget_labels"
"""session_state key: per picker key, the labels its chosen options were drawn with -> option."""
_LABELS_KEPT = 200
"""At most this many labels remembered per picker (the oldest go first)."""


def _seen_labels(key: str) -> dict:
    return st.session_state.setdefault(_LABELS_KEY, {}).setdefault(key, {})


def _as_option(value: Any, options: Sequence, seen: dict) -> Any:
    """``value`` if it is an option, else the option a label of it names (this run's or an
    earlier run's label), else ``value`` unchanged."""
    try:
        if value in options:
            return value
        found = seen.get(value)
    except TypeError:  # an unhashable value cannot be a label
        return value
    return found if found is not None and found in options else value


def _keys_not_labels(key: str, options: Sequence) -> None:
    """Streamlit sends a picker's value over the wire as its label (``format_func``), and the
    browser holds the label it was last told: after a label change (Learn's "Custom", a width
    in a query's label) it sends back a label no option has, which Streamlit hands over as
    the raw string. Put the option that label named back in the state: it holds keys."""
    if key not in st.session_state:
        return
    seen = _seen_labels(key)
    value = st.session_state[key]
    if isinstance(value, list):
        mapped = [_as_option(v, options, seen) for v in value]
        if mapped != value:
            st.session_state[key] = mapped
    else:
        mapped = _as_option(value, options, seen)
        if mapped is not value and mapped != value:
            st.session_state[key] = mapped


def kept_choice(key: str, options: Sequence, default: Any = None) -> Any:
    """The kept value of a picker (:func:`persist_choice`) that is drawn later in this run, as
    one of ``options`` (``default`` when there is none): for a page that needs the choice
    before it can draw the picker, e.g. because the labels depend on it."""
    _keys_not_labels(key, options)
    value = st.session_state.get(key, default)
    try:
        return value if value in options else default
    except TypeError:
        return default


def persist_choice(key: str, options: Sequence, default: Any = None, *,
                   labels: "Callable[[Any], str] | None" = None) -> dict:
    """:func:`persist` for a choice among ``options``: a kept value (or, for a multiselect,
    any kept item) that is no longer an option is dropped first, so a data or settings change
    never leaves the widget pointing at something that does not exist.

    ``labels`` is the picker's ``format_func`` (returned among the keyword arguments, so do
    not pass it again). The state always holds options, never labels, and the labels may
    change from run to run: a label the browser sends back is mapped to its option, and when
    the chosen option's label changed since the last draw, the value is re-asserted so the
    browser is told (and shows, and later sends) the new label.
    """
    _keys_not_labels(key, options)
    value = st.session_state.get(key)
    if isinstance(value, list):
        kept = [v for v in value if v in options]
        if value and not kept:
            del st.session_state[key]  # nothing left: the first-visit default applies again
        elif len(kept) < len(value):
            st.session_state[key] = kept
    elif key in st.session_state and value not in options:
        del st.session_state[key]
    if labels is None:
        return persist(key, default)
    kwargs = persist(key, default)
    _tell_new_labels(key, options, labels)
    return {**kwargs, "format_func": labels}


def _tell_new_labels(key: str, options: Sequence, labels: "Callable[[Any], str]") -> None:
    """Re-assert the chosen value when its label differs from the one it was last drawn with,
    and remember its label (the browser only ever holds the chosen option's label, and a
    label of this run's options is mapped back by Streamlit itself)."""
    seen = _seen_labels(key)
    value = st.session_state.get(key)
    chosen = [v for v in (value if isinstance(value, list) else [value]) if v in options]
    last = {option: label for label, option in seen.items()}  # newest label of each option
    now = {option: labels(option) for option in chosen}
    if any(option in last and last[option] != label for option, label in now.items()):
        st.session_state[key] = copy.deepcopy(value)
    for option, label in now.items():
        seen.pop(label, None)  # re-inserted last: it is the option's newest label
        seen[label] = option
    while len(seen) > _LABELS_KEPT:
        del seen[next(iter(seen))]


MAX_METRICS = 30
"""The most metrics a picker holds, from a link or typed: each costs a page about 0.15 s (the
Compare page's tests and verdicts), so 30 keep a view within seconds; a link naming more (a
60 KB link names about 2,000) opens with its first 30 and one warning."""


def metric_multiselect(container, key: str, k: int, *, help: str, label: str = "Metrics",
                       subtopics: bool = False) -> list[str]:
    """A metrics multiselect whose defaults follow the sidebar's cutoff k; returns the
    valid chosen metrics and warns, beside the widget, about names that do not parse.
    ``subtopics``: the qrels carry subtopics, so the intent-aware measures are offered too.

    When k changes, chosen metrics with the old cutoff move to the new one (nDCG@10 becomes
    nDCG@20); metrics typed by the user are kept as options.
    """
    k_key = f"_{key}_k"
    kwargs = persist(key)
    previous_k = st.session_state.get(k_key)
    too_many = ""
    if key not in st.session_state:  # first draw in this session: the link's metrics, if any
        values = st.query_params.get_all(key)
        linked = metrics_from_param(values[:MAX_METRICS])
        if len(values) > MAX_METRICS:
            too_many = (f"This link names {len(values):,} metrics; a picker holds at most "
                        f"{MAX_METRICS} (each takes time on every page), so the first "
                        f"{MAX_METRICS} are read: choose others here.")
        st.session_state[key] = linked or default_metrics(k)
    elif previous_k is not None and previous_k != k:
        st.session_state[key] = retarget_metrics(st.session_state[key], previous_k, k)
    st.session_state[k_key] = k
    options = metric_options(k, subtopics=subtopics)
    options += [m for m in st.session_state[key] if m not in options]
    chosen = container.multiselect(label, options, accept_new_options=True, help=help, wrap=True,
                                   **kwargs)  # wrap: every chosen metric stays in view
    if len(chosen) > MAX_METRICS:  # typed beyond the cap
        too_many = too_many or (f"{len(chosen)} metrics chosen; a picker holds at most "
                                f"{MAX_METRICS} (each takes time on every page), so the first "
                                f"{MAX_METRICS} are shown.")
        chosen = chosen[:MAX_METRICS]
    if too_many:
        container.warning(too_many, icon=":material/warning:")
    metrics, problems = validate_metrics(chosen)
    for problem in problems:  # quotes what was typed or linked
        container.warning(markdown_literal(problem), icon=":material/warning:")
    if st.query_params.get_all(key) != list(chosen):  # in the link, so a reload keeps them
        st.query_params[key] = list(chosen)
    return metrics


def stacking_columns(key: str, n: "int | Sequence[float]" = 2, *, below: int = 1000,
                     **kwargs) -> list:
    """``n`` side-by-side columns (or columns of the relative widths ``n``, as
    ``st.columns`` takes them) that stack one above the other when the browser window is
    narrower than ``below`` pixels.

    ``st.columns`` cannot know the window's width and Streamlit stacks columns itself only
    below 640 px, so two tables at half of an 800-px window (a 500-px main area beside the
    sidebar) would be cut. The columns sit in a container with ``key``, whose documented CSS
    class (``st-key-<key>``) a media query targets: in a narrower window each column takes the
    whole width. The style is sent with ``st.html`` (a style-only body takes no room).
    """
    # only the columns' own row (the container's child), not rows nested in a column (number
    # cards, download buttons), which keep wrapping side by side
    row = f".st-key-{key} > [data-testid='stLayoutWrapper'] > [data-testid='stHorizontalBlock']"
    st.html(f"<style>@media (max-width: {int(below)}px) {{"
            f" {row} {{ flex-direction: column; }}"
            f" {row} > [data-testid='stColumn'] {{ width: 100% !important;"
            f" flex: 1 1 auto !important; min-width: 100% !important; }} }}</style>")
    kwargs.setdefault("gap", "medium")  # other keywords (vertical_alignment) go to st.columns
    return st.container(key=key).columns(n if isinstance(n, int) else list(n), **kwargs)


def run_page(run: "Callable[[], Any]", remedy: "Callable") -> None:
    """Run the chosen page (``run``: ``st.navigation(...).run``); an unexpected error shows
    one clear message, never a traceback or a server path (config.toml hides Streamlit's own
    details too). ``remedy``: the controls' words for an error's remedy."""
    from tiedrank.core.errors import InputError, RemediedValueError

    try:
        run()
    except (InputError, RemediedValueError) as err:  # bad data, or an exact value past its limit
        st.error(markdown_literal(err.worded_with(remedy)), icon=":material/error:")
    except Exception as err:  # noqa: BLE001 - the page must never show an exception box
        if type(err).__module__.startswith("streamlit"):  # reruns, page switches, stops
            raise
        st.error(f"This page could not be drawn ({type(err).__name__}). Undo the last change "
                 "you made on it, or pick another dataset in the sidebar; your other pages "
                 "keep their state.", icon=":material/error:")
