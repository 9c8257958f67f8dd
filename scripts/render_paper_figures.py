"""Render the README's paper figures (docs/screenshots/checkpoint_curve.png and
precision_recall_band.png) on simulated SPLADE-like checkpoints: a reranker whose quality
rises by epoch while its labels stay on a 5-level scale (tiedrank.simulate), drawn by the
Overview's figure builders and exported by kaleido (the system Chromium).

    python scripts/render_paper_figures.py
"""
from __future__ import annotations

import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUALITY = (0.4, 0.8, 1.1, 1.3, 1.45, 1.55, 1.6, 1.62)


def main() -> int:
    from tiedrank import evaluate
    from tiedrank.dashboard.figures.paper import checkpoint_figure, precision_recall_figure
    from tiedrank.report import precision_recall_curve
    from tiedrank.simulate import RerankerSpec, make_queries, simulate_run
    from tiedrank.stats import checkpoint_curve

    qrels = make_queries(50, 40, seed=5)
    runs = {f"splade-epoch{e}": simulate_run(qrels, RerankerSpec(name=f"e{e}", quality=q, levels=5),
                                             seed=e) for e, q in enumerate(QUALITY, start=1)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ev = evaluate(runs, qrels, ["nDCG@10", "RR"], ties="all", rel_level=2)
        curve = checkpoint_curve(ev)
    out = ROOT / "docs" / "screenshots"
    (out / "checkpoint_curve.png").write_bytes(
        checkpoint_figure(curve, "nDCG@10").to_image(format="png", width=900, height=420, scale=2))
    band = precision_recall_curve(ev, runs=["splade-epoch4"])
    (out / "precision_recall_band.png").write_bytes(
        precision_recall_figure(band, "splade-epoch4").to_image(format="png", width=700,
                                                                height=420, scale=2))
    print("wrote docs/screenshots/checkpoint_curve.png, precision_recall_band.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
