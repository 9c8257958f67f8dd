"""Logic of the Checkpoints page (Streamlit-free): the runs' steps read from their names,
the checkpoint curve of one metric, its table and the sentence above the chart.

The numbers come from :func:`tiedrank.stats.checkpoint_curve`; this module only words them
for the dashboard (controls and sidebar, not ``steps=`` arguments).

Examples
--------
>>> steps_of(["m-epoch2", "m-epoch10"])
({'m-epoch2': 2.0, 'm-epoch10': 10.0}, None)
>>> steps_of(["baseline", "m-epoch1"])[1].startswith("The run baseline carries no step")
True
"""
from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence

import pandas as pd

from ..evaluation import Evaluation
from ..report import markdown_literal
from ..report.grid_render import TEST_LABELS
from ..stats import checkpoint_curve, checkpoint_steps

TABLE_COLUMNS = {"step": "step", "run": "run", "expected": "expected", "worst": "worst",
                 "best": "best", "trec_eval": "trec_eval order", "diff_previous": "Δ expected",
                 "p_value_previous": "p vs previous", "significant_previous": "significant",
                 "overlaps_previous": "bands overlap"}
"""The shown table: :data:`tiedrank.stats.checkpoints.CHECKPOINT_COLUMNS` renamed for readers."""


def steps_of(runs: Sequence[str]) -> tuple[dict[str, float] | None, str | None]:
    """Each run's step read from its name (the last number in it), or ``None`` and a
    sentence for the page's empty state: which runs carry no step (or share one) and
    what to upload instead. Needs at least two runs."""
    runs = [str(r) for r in runs]
    if len(runs) < 2:
        return None, (f"A checkpoint curve needs at least two runs; the loaded data has "
                      f"{len(runs)}. Pick the bundled **Simulated checkpoints** dataset, or "
                      "upload the runs of one training run named with their step "
                      "(model-epoch1.txt, model-epoch2.txt, ...).")
    try:
        return checkpoint_steps(runs), None
    except ValueError:
        pass
    found = {}
    for run in runs:
        try:
            found.update(checkpoint_steps([run]))
        except ValueError:
            missing = [markdown_literal(r) for r in runs if not _has_step(r)]
            shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
            verb = "carries" if len(missing) == 1 else "carry"
            return None, (f"The run{'s' if len(missing) > 1 else ''} {shown} {verb} no step in "
                          "{its} name, so the runs cannot be put in training order. Upload runs "
                          "named with their step (model-epoch3.txt, ckpt_12000.run), or pick the "
                          "bundled **Simulated checkpoints** dataset.").replace(
                              "{its}", "its" if len(missing) == 1 else "their")
    by_step: dict[float, list[str]] = {}
    for run, step in found.items():
        by_step.setdefault(step, []).append(run)
    step, clash = next((s, r) for s, r in by_step.items() if len(r) > 1)
    return None, (f"The runs {', '.join(markdown_literal(r) for r in clash)} have the same step "
                  f"{step:g} in their names: one run per step. Rename or leave out the extra "
                  "runs in the sidebar's upload.")


def _has_step(run: str) -> bool:
    try:
        checkpoint_steps([run])
    except ValueError:
        return False
    return True


def metric_curve(evaluation: Evaluation, metric: str, steps: dict[str, float], *,
                 test: str = "t", alpha: float = 0.05, seed: int = 0) -> pd.DataFrame:
    """:func:`tiedrank.stats.checkpoint_curve` of one metric, steps ascending. Checkpoints
    that score alike on every query make scipy warn (a zero variance); the page shows the
    test's p-value instead of the warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return checkpoint_curve(evaluation, [metric], steps=steps, runs=list(steps), test=test,
                                alpha=alpha, seed=seed, n_resamples=9999)


def curve_table(curve: pd.DataFrame) -> pd.DataFrame:
    """The curve as the page shows and downloads it: one row per step, readable headers."""
    shown = [c for c in TABLE_COLUMNS if c in curve.columns]
    return curve[shown].rename(columns=TABLE_COLUMNS).reset_index(drop=True)


def curve_sentence(curve: pd.DataFrame, metric: str, test: str, alpha: float) -> str:
    """The verdict above the chart (markdown; run names escaped): how many consecutive steps
    the tie-break alone can swap, and how many the paired test separates."""
    later = curve.iloc[1:]
    pairs = len(later)
    overlap = int(later["overlaps_previous"].sum())
    significant = int(later["significant_previous"].sum())
    both = int((later["overlaps_previous"] & later["significant_previous"]).sum())
    first, last = curve.iloc[0], curve.iloc[-1]
    text = (f"**{overlap} of {pairs} consecutive step{'s' if pairs != 1 else ''} are "
            f"indistinguishable under ties** for {markdown_literal(metric)}: their [worst, best] "
            "bands overlap, so some tie-break ranks the earlier checkpoint at least as high as "
            f"the later one. The {TEST_LABELS[test]} on the per-query expectations finds "
            f"{significant} of {pairs} differences significant (p ≤ {alpha:g}, uncorrected)")
    if both:
        text += (f"; {both} of them are significant on the expectation yet within the tie band, "
                 "so a single tie-break could report them either way")
    return text + (f". The expectation goes from {first['expected']:.3f} at step "
                   f"{first['step']:g} to {last['expected']:.3f} at step {last['step']:g}.")


# ---- the page's choices in the link -----------------------------------------------------------
LINK_KEYS = ("ckpt_metric", "ckpt_test", "ckpt_alpha")
"""The page's widget keys, which are also their names in the link (``?ckpt_metric=RR&ckpt_test=t
&ckpt_alpha=0.05``, as the Overview's ``overview_metrics``)."""
ALPHAS = (0.01, 0.05, 0.1)
"""The significance levels the page offers."""


def link_params(metric: str, test: str, alpha: float) -> dict[str, str]:
    """The link's parameters of the page's choices (the inverse of :func:`choices_from_link`).

    >>> link_params("RR", "t", 0.05)
    {'ckpt_metric': 'RR', 'ckpt_test': 't', 'ckpt_alpha': '0.05'}
    """
    return dict(zip(LINK_KEYS, (str(metric), str(test), f"{float(alpha):g}")))


def choices_from_link(params: Mapping[str, str], metrics: Sequence[str],
                      tests: Sequence[str]) -> tuple[dict[str, object], list[str], str | None]:
    """What a link asks the page to show: (session-state key -> valid choice, keys of the
    invalid ones, which the page puts back to their defaults, and its one message or None).
    A choice is valid when the page offers it (``metrics``: the metric picker's options at
    the sidebar's k; ``tests``; :data:`ALPHAS`).

    >>> choices_from_link({"ckpt_metric": "RR", "ckpt_alpha": "0.5"}, ["RR"], ["t"])[:2]
    ({'ckpt_metric': 'RR'}, ['ckpt_alpha'])
    """
    offered = {"ckpt_metric": {str(m): m for m in metrics}, "ckpt_test": {str(t): t for t in tests},
               "ckpt_alpha": {f"{a:g}": a for a in ALPHAS}}
    valid: dict[str, object] = {}
    invalid: list[str] = []
    for key in LINK_KEYS:
        if key not in params:
            continue
        text = str(params[key])
        if text in offered[key]:
            valid[key] = offered[key][text]
        else:
            invalid.append(key)
    if not invalid:
        return valid, invalid, None
    quoted = ", ".join(f"{key.removeprefix('ckpt_')} {markdown_literal(repr(str(params[key])[:40]))}"
                       for key in invalid)
    return valid, invalid, (f"This link asks for a choice the page does not offer ({quoted}): "
                            "the page shows the default instead.")
