"""Validate the fitted LLM-judge simulator (issue 42) on the 8 bundled LLMJudge judges.

For each judge and each half of the queries (sorted ids; ``even`` = positions 0, 2, ...,
``odd`` = 1, 3, ...): fit :func:`tiedrank.simulate.fit_judge` on the judge's labels of one
half, simulate ``--replicates`` label runs on the *other* half's qrels (new queries: their
effects drawn from the prior; parameters drawn from the fit's normal approximation), and
compare the replicates' mean E[nDCG@10], E[RR], E[P@10] (relevance level 2, exact
expectation over ties, :func:`tiedrank.evaluate`) with the judge's real labels on that
half. A case is *in* when the real value lies in the replicates' 5-95 % band.

Also, in-sample: the judge simulated on its own (fit) half and own scale (posterior query
effects), the label distribution per human grade against the observed one (total
variation, pooled over the replicates).

Usage::

    python benchmarks/judge_validation.py                  # 1,000 replicates, ~5 min
    python benchmarks/judge_validation.py --replicates 200 --judges Olz-gpt4o
    python benchmarks/judge_validation.py --markdown out.md  # the tables as Markdown
"""
from __future__ import annotations

import argparse
import glob
import os
import sys
import time

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import tiedrank  # noqa: E402
from tiedrank.core.data import Qrels, Run  # noqa: E402
from tiedrank.simulate import fit_judge  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sample_data", "llmjudge")
METRICS = ["nDCG@10", "RR", "P@10"]
REL_LEVEL = 2


def subset(frame: pd.DataFrame, queries) -> pd.DataFrame:
    return frame[frame["query"].isin(set(queries))].reset_index(drop=True)


def replicate_means(keys: pd.DataFrame, scores: np.ndarray, qrels: Qrels) -> pd.DataFrame:
    """Mean over queries of each metric, per replicate: one evaluation of one run whose
    queries are ``query|replicate`` against the qrels tiled the same way."""
    r, n = scores.shape
    rep = np.repeat(np.arange(r), n)
    qid = np.tile(keys["query"].to_numpy().astype(str), r)
    tag = np.char.add(np.char.add(qid, "|"), rep.astype(str))
    run = Run("sim", pd.DataFrame({"query": tag, "doc": np.tile(keys["doc"].to_numpy(), r),
                                   "score": scores.ravel()}))
    qf = qrels.frame
    tiled = Qrels(pd.DataFrame({
        "query": np.char.add(np.char.add(np.tile(qf["query"].to_numpy().astype(str), r), "|"),
                             np.repeat(np.arange(r), len(qf)).astype(str)),
        "doc": np.tile(qf["doc"].to_numpy(), r),
        "relevance": np.tile(qf["relevance"].to_numpy(), r)}))
    per_query = tiedrank.evaluate(run, tiled, METRICS, rel_level=REL_LEVEL).per_query
    per_query = per_query.assign(replicate=per_query["query"].str.rsplit("|", n=1).str[1].astype(int))
    return per_query.groupby(["replicate", "metric"])["value"].mean().unstack("metric")


def label_tv(model, fit_qrels: Qrels, seed: int, replicates: int) -> dict[int, float]:
    """Total variation per human grade between the observed labels and the judge
    simulated on its own queries and scale (pooled over ``replicates``)."""
    keys, scores = model.simulate_scores(fit_qrels, seed=seed, replicates=replicates)
    grades = keys["relevance"].to_numpy()
    observed = model.counts.sum(axis=0)  # (G, K)
    out = {}
    for g, grade in enumerate(model.grades):
        sim = np.array([(scores[:, grades == grade] == label).sum() for label in model.labels], float)
        obs = observed[g]
        out[grade] = 0.5 * float(np.abs(obs / obs.sum() - sim / sim.sum()).sum())
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--tv-replicates", type=int, default=200)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--judges", nargs="*", help="judge names (default: all 8)")
    parser.add_argument("--markdown", help="write the tables as Markdown to this file")
    args = parser.parse_args(argv)

    qrels = tiedrank.read_qrels(os.path.join(DATA, "qrels.test.txt"))
    ids = sorted(qrels.frame["query"].unique())
    halves = {"even": ids[0::2], "odd": ids[1::2]}
    paths = sorted(glob.glob(os.path.join(DATA, "runs", "*.txt")))
    if args.judges:
        paths = [p for p in paths if os.path.basename(p)[:-4] in args.judges]

    rows, tv_rows, timings = [], [], []
    for path in paths:
        labels = tiedrank.read_run(path)
        name = os.path.basename(path)[:-4]
        for fit_half, test_half in (("even", "odd"), ("odd", "even")):
            fit_q = Qrels(subset(qrels.frame, halves[fit_half]))
            test_q = Qrels(subset(qrels.frame, halves[test_half]))
            fit_labels = Run(name, subset(labels.frame, halves[fit_half]))
            test_labels = Run(name, subset(labels.frame, halves[test_half]))
            start = time.perf_counter()
            model = fit_judge(fit_labels, fit_q, name=name)
            fitted = time.perf_counter()
            keys, scores = model.simulate_scores(test_q, seed=args.seed, replicates=args.replicates)
            simulated = time.perf_counter()
            means = replicate_means(keys, scores, test_q)
            real = tiedrank.evaluate(test_labels, test_q, METRICS, rel_level=REL_LEVEL).summary
            real = real.set_index("metric")["value"]
            timings.append((name, fit_half, fitted - start, simulated - fitted, time.perf_counter() - simulated))
            for metric in METRICS:
                low, high = np.quantile(means[metric], [0.05, 0.95])
                value = float(real[metric])
                rows.append({"judge": name, "fit on": fit_half, "predict": test_half,
                             "statistic": f"E[{metric}]", "real": value, "band low": low,
                             "band high": high, "width": high - low,
                             "in": bool(low <= value <= high),
                             "side": "" if low <= value <= high else ("above" if value > high else "below")})
            tv = label_tv(model, fit_q, args.seed, args.tv_replicates)
            tv_rows.append({"judge": name, "half": fit_half,
                            **{f"TV grade {g}": v for g, v in tv.items()}, "max TV": max(tv.values())})
            print(f"{name:<24} fit {fit_half:<4} {fitted - start:5.2f} s, simulate "
                  f"{args.replicates} {simulated - fitted:5.2f} s; "
                  + ", ".join(f"{r['statistic']} {r['real']:.3f} [{r['band low']:.3f}, "
                              f"{r['band high']:.3f}]{'' if r['in'] else ' OUT'}" for r in rows[-3:]),
                  flush=True)

    table = pd.DataFrame(rows)
    tvs = pd.DataFrame(tv_rows)
    coverage = table["in"].mean()
    grade_tv = tvs[[c for c in tvs.columns if c.startswith("TV grade")]].to_numpy().ravel()
    summary = (f"coverage {table['in'].sum()}/{len(table)} = {coverage:.1%} (target >= 85 %); "
               f"median band width {table['width'].median():.3f} (target <= 0.12); "
               f"label TV per (judge, half, grade): median {np.nanmedian(grade_tv):.3f}, "
               f"max {np.nanmax(grade_tv):.3f}, share <= 0.05: {np.mean(grade_tv <= 0.05):.0%}")
    print("\n" + summary)
    print(table.groupby("statistic")["in"].mean().rename("coverage").to_string())
    print(tvs.round(3).to_string(index=False))
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as out:
            out.write(summary + "\n\n")
            shown = table.assign(**{"real": table["real"].round(3),
                                    "band": [f"[{a:.3f}, {b:.3f}]" for a, b in zip(table["band low"], table["band high"])],
                                    "width": table["width"].round(3),
                                    "in": np.where(table["in"], "in", "**out** (" + table["side"] + ")")})
            out.write(shown[["judge", "fit on", "predict", "statistic", "real", "band", "width", "in"]]
                      .to_markdown(index=False) + "\n\n")
            out.write(tvs.round(3).to_markdown(index=False) + "\n\n")
            times = pd.DataFrame(timings, columns=["judge", "fit on", "fit s", "simulate s", "evaluate s"])
            out.write(times.round(2).to_markdown(index=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
