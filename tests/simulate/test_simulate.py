"""Tests of the reranker simulator (tiedrank.simulate) and its CLI (tiedrank.cli.simulate)."""
from __future__ import annotations

import math
import struct
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tiedrank.cli.simulate import main as simulate_main
from tiedrank.core.data import Run
from tiedrank.evaluation import evaluate
from tiedrank.io import read_qrels, read_run
from tiedrank.simulate import (PRESETS, SWEEP_COLUMNS, RerankerSpec, bfloat16_round,
                               cast_scores, get_spec, make_queries, quantize_run, simulate,
                               simulate_run, sweep)
from tiedrank.core.tie_statistics import tie_statistics
from tiedrank.core.ties import build_tie_table

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_data" / "simulated"
TREC_RESULTS = next(p for p in (ROOT / "sample_data" / "trec_eval" / "results.test",
                                ROOT.parent / "shared" / "data" / "trec_eval" / "results.test")
                    if p.exists())
sys.path.insert(0, str(ROOT / "scripts"))
import make_checkpoint_sample  # noqa: E402
import make_simulated_sample  # noqa: E402


def docs_in_ties(run: Run, qrels) -> float:
    return tie_statistics(build_tie_table(run, qrels))["docs_in_ties"]


# ---- presets and specs -------------------------------------------------------------

def test_presets_have_exactly_the_five_identifiers():
    assert list(PRESETS) == ["fine-grained", "0-10", "5-point", "3-point", "bf16"]
    for key, spec in PRESETS.items():
        assert isinstance(spec, RerankerSpec)
        assert spec.name == key and spec.description and "\n" not in spec.description
    assert [PRESETS[k].levels for k in ("0-10", "5-point", "3-point")] == [11, 5, 3]
    assert PRESETS["bf16"].precision == "bfloat16" and PRESETS["bf16"].levels is None
    assert PRESETS["fine-grained"].levels is None and PRESETS["fine-grained"].precision is None


@pytest.mark.parametrize("preset, labels", [("0-10", set(range(11))), ("5-point", set(range(5))),
                                            ("3-point", {0, 1, 2})])
def test_discrete_presets_emit_their_label_scale(preset, labels):
    run, _ = simulate(preset, n_queries=40, seed=5)
    assert set(run.frame["score"].unique()) <= {float(v) for v in labels}
    # every label of the scale is used somewhere in 4000 documents
    assert len(set(run.frame["score"].unique())) == len(labels)


@pytest.mark.parametrize("bad", [dict(levels=0), dict(levels=2.5), dict(tie_prob=1.5),
                                 dict(tie_prob=-0.1), dict(quality=float("nan")),
                                 dict(precision="int8"), dict(name="two words"),
                                 dict(score_range=(1.0, 1.0))])
def test_spec_rejects_bad_fields(bad):
    with pytest.raises(ValueError):
        RerankerSpec(**bad)


def test_get_spec_overrides_and_unknown_preset():
    assert get_spec("0-10", tie_prob=0.25).tie_prob == 0.25
    assert get_spec("0-10", tie_prob=0.25).levels == 11
    with pytest.raises(ValueError, match="preset= must be one of 'fine-grained'.*; got '7-point'"):
        get_spec("7-point")
    with pytest.raises(ValueError, match="unknown RerankerSpec field"):
        get_spec("0-10", colour="red")


# ---- queries --------------------------------------------------------------------------

def test_make_queries_shape_grades_and_determinism():
    qrels = make_queries(n_queries=30, docs_per_query=20, relevant_per_query=(2, 5), seed=4)
    frame = qrels.frame
    assert len(frame) == 600 and frame["query"].nunique() == 30
    assert not frame.duplicated(["query", "doc"]).any()
    assert set(frame["relevance"].unique()) <= {0, 1, 2, 3}
    n_rel = frame.assign(rel=frame["relevance"] > 0).groupby("query")["rel"].sum()
    assert n_rel.between(2, 5).all() and n_rel.nunique() > 1
    again = make_queries(n_queries=30, docs_per_query=20, relevant_per_query=(2, 5), seed=4)
    pd.testing.assert_frame_equal(frame, again.frame)
    other = make_queries(n_queries=30, docs_per_query=20, relevant_per_query=(2, 5), seed=5)
    assert not frame["relevance"].equals(other.frame["relevance"])


def test_make_queries_fixed_count_and_grade_probs():
    qrels = make_queries(n_queries=200, docs_per_query=50, relevant_per_query=10,
                         grade_probs=(0.0, 0.0, 1.0), seed=1)
    counts = qrels.frame.groupby("query")["relevance"].apply(lambda g: (g > 0).sum())
    assert (counts == 10).all()
    assert set(qrels.frame["relevance"].unique()) == {0, 3}


@pytest.mark.parametrize("kwargs", [dict(n_queries=0), dict(docs_per_query=-1),
                                    dict(relevant_per_query=(5, 2)),
                                    dict(relevant_per_query=101), dict(grade_probs=(0.5, 0.5)),
                                    dict(grade_probs=(0.5, 0.3, 0.3)), dict(seed=-1)])
def test_make_queries_rejects_bad_arguments(kwargs):
    with pytest.raises(ValueError):
        make_queries(**kwargs)


# ---- determinism and files --------------------------------------------------------------

def test_same_seed_gives_identical_files(tmp_path):
    first = make_simulated_sample.generate(tmp_path / "a", seed=11, n_queries=8)
    second = make_simulated_sample.generate(tmp_path / "b", seed=11, n_queries=8)
    third = make_simulated_sample.generate(tmp_path / "c", seed=12, n_queries=8)
    assert [p.name for p in first] == ["qrels.txt"] + [f"{k}.txt" for k in PRESETS]
    for a, b, c in zip(first, second, third):
        assert a.read_bytes() == b.read_bytes()
        assert a.read_bytes() != c.read_bytes()


def test_committed_sample_is_reproduced_by_its_command(tmp_path):
    # the README of sample_data/simulated promises this: regenerate and compare bytes
    written = make_simulated_sample.generate(tmp_path)
    for path in written:
        committed = SAMPLE / path.relative_to(tmp_path)
        assert committed.read_bytes() == path.read_bytes(), committed
    # ... and the CLI command it quotes writes the same 3-point run and qrels
    simulate_main(["simulate", "--preset", "3-point", "--queries", "50", "--seed",
                   str(make_simulated_sample.SEED), "--out", str(tmp_path / "cli.txt"),
                   "--qrels", str(tmp_path / "cli-qrels.txt")])
    assert (tmp_path / "cli.txt").read_bytes() == (SAMPLE / "runs" / "3-point.txt").read_bytes()
    assert (tmp_path / "cli-qrels.txt").read_bytes() == (SAMPLE / "qrels.txt").read_bytes()


def test_committed_checkpoint_sample_is_reproduced_and_rises_by_epoch(tmp_path):
    """sample_data/checkpoints (the dashboard's "Simulated checkpoints"): its script writes
    the committed bytes; the labels stay on 5 levels while the expected nDCG@10 rises from
    the first epoch to the last."""
    written = make_checkpoint_sample.generate(tmp_path)
    for path in written:
        committed = ROOT / "sample_data" / "checkpoints" / path.relative_to(tmp_path)
        assert committed.read_bytes() == path.read_bytes(), committed
    runs = [read_run(p) for p in written[1:]]
    assert all(set(r.frame["score"].unique()) <= {0.0, 1.0, 2.0, 3.0, 4.0} for r in runs)
    ev = evaluate(runs, read_qrels(written[0]), ["nDCG@10"], ties="expected")
    means = ev.summary.set_index("run")["value"]
    assert means["splade-epoch1"] + 0.2 < means["splade-epoch6"]


def test_written_run_reads_back_with_the_same_scores(tmp_path):
    # the TREC writer must keep every float64 (and so every tie) exactly
    from tiedrank.io import write_qrels, write_run

    run, qrels = simulate("fine-grained", n_queries=5, seed=3)
    write_run(run, tmp_path / "run.txt")
    write_qrels(qrels, tmp_path / "qrels.txt")
    back = read_run(tmp_path / "run.txt")
    merged = run.frame.merge(back.frame, on=["query", "doc"], suffixes=("", "_back"))
    assert len(merged) == len(run) and back.name == "fine-grained"
    assert (merged["score"] == merged["score_back"]).all()
    back_qrels = read_qrels(tmp_path / "qrels.txt")
    assert back_qrels.frame["relevance"].tolist() == qrels.frame["relevance"].tolist()


def test_run_and_qrels_streams_are_independent():
    # same seed for both stages must not couple a document's noise to its relevance: at
    # quality 0 the mean score of relevant and non-relevant documents agree
    run, qrels = simulate("fine-grained", n_queries=400, seed=0, quality=0.0)
    merged = run.frame.merge(qrels.frame, on=["query", "doc"])
    relevant = merged["relevance"] > 0
    diff = merged.loc[relevant, "score"].mean() - merged.loc[~relevant, "score"].mean()
    se = math.sqrt(1 / relevant.sum() + 1 / (~relevant).sum())  # unit-variance noise
    assert abs(diff) < 4 * se


# ---- tie structure ----------------------------------------------------------------------

def test_more_levels_give_fewer_ties_on_average():
    shares = {3: [], 5: [], 11: [], None: []}
    for seed in range(8):
        qrels = make_queries(n_queries=20, docs_per_query=100, seed=seed)
        for levels in shares:
            run = simulate_run(qrels, RerankerSpec(levels=levels), seed=seed)
            shares[levels].append(docs_in_ties(run, qrels))
    means = [np.mean(shares[k]) for k in (3, 5, 11, None)]
    assert means[0] > means[1] > means[2] > means[3]
    assert means[3] == 0.0  # continuous float64 scores never tie here


def test_bins_use_a_fixed_range():
    # quality 1, grades 0..3: range [-2, 5]; 7 levels -> unit-width bins starting at -2
    qrels = make_queries(n_queries=3, docs_per_query=50, seed=0)
    continuous = simulate_run(qrels, RerankerSpec(), seed=9).frame
    binned = simulate_run(qrels, RerankerSpec(levels=7), seed=9).frame
    merged = continuous.merge(binned, on=["query", "doc"], suffixes=("", "_bin"))
    expected = np.clip(np.floor(merged["score"] + 2.0), 0, 6)
    assert (merged["score_bin"] == expected).all()
    custom = simulate_run(qrels, RerankerSpec(levels=2, score_range=(0.0, 2.0)), seed=9).frame
    merged = continuous.merge(custom, on=["query", "doc"], suffixes=("", "_bin"))
    assert (merged["score_bin"] == (merged["score"] >= 1.0)).all()


def test_tie_prob_snaps_to_the_neighbour_above_without_reordering():
    qrels = make_queries(n_queries=30, docs_per_query=40, seed=2)
    base = simulate_run(qrels, RerankerSpec(), seed=2).frame
    previous_share = 0.0
    previous_tied: set | None = None
    for p in (0.0, 0.1, 0.3, 0.6, 0.9):
        snapped = simulate_run(qrels, RerankerSpec(tie_prob=p), seed=2)
        merged = base.merge(snapped.frame, on=["query", "doc"], suffixes=("", "_p"))
        merged = merged.sort_values(["query", "score"], ascending=[True, False])
        # order kept: along the original ranking the snapped scores never increase, and a
        # snapped score is always one of the original scores of its query, from above
        grouped = merged.groupby("query", sort=False)["score_p"]
        assert (grouped.diff().fillna(0) <= 0).all()
        assert (merged["score_p"] >= merged["score"]).all()
        originals = set(zip(merged["query"], merged["score"]))
        assert set(zip(merged["query"], merged["score_p"])) <= originals
        share = docs_in_ties(snapped, qrels)
        assert share >= previous_share  # nested snaps: monotone in p for one seed
        tied = set(merged.loc[merged.duplicated(["query", "score_p"], keep=False), "doc"])
        assert previous_tied is None or previous_tied <= tied
        previous_share, previous_tied = share, tied
    assert previous_share > 0.8
    everything = simulate_run(qrels, RerankerSpec(tie_prob=1.0), seed=2)
    assert everything.frame.groupby("query")["score"].nunique().eq(1).all()


def test_tie_prob_share_matches_its_definition():
    # continuous scores: a document is tied iff it is snapped or the one below it is; the
    # top document (never snapped) and the bottom one are tied with probability p, the
    # n - 2 in between with probability 1 - (1 - p)^2.
    n, p = 40, 0.3
    qrels = make_queries(n_queries=300, docs_per_query=n, seed=8)
    share = docs_in_ties(simulate_run(qrels, RerankerSpec(tie_prob=p), seed=8), qrels)
    expected = (2 * p + (n - 2) * (1 - (1 - p) ** 2)) / n
    assert share == pytest.approx(expected, abs=0.01)


# ---- precision ---------------------------------------------------------------------------

def nearest_even(value: float, significant_bits: int) -> float:
    """Independent oracle: round a normal float to `significant_bits` bits, ties to even."""
    if value == 0:
        return 0.0
    exact = Fraction(value)
    _, exponent = math.frexp(value)  # |value| = m * 2**exponent, m in [0.5, 1)
    step = Fraction(2) ** (exponent - significant_bits)
    quotient, remainder = divmod(abs(exact), step)
    if remainder * 2 > step or (remainder * 2 == step and quotient % 2 == 1):
        quotient += 1
    return math.copysign(float(quotient * step), value)


def test_bfloat16_known_values():
    values = np.array([1.0, 1.00390625, 1.01171875, 1.0078125, 1.0078, 1.005, -1.01171875,
                       0.0, 256.0, 257.0, 3.140625, 65504.0])
    expected = [1.0, 1.0, 1.015625, 1.0078125, 1.0078125, 1.0078125, -1.015625,
                0.0, 256.0, 256.0, 3.140625, 65536.0]
    assert bfloat16_round(values).tolist() == expected
    assert cast_scores(values, "bf16").tolist() == expected


def test_bfloat16_matches_an_exact_round_to_nearest_even_oracle():
    rng = np.random.default_rng(0)
    values = rng.standard_normal(3000) * 10.0 ** rng.integers(-30, 30, 3000)
    # halfway cases of every kind: exact float32 values with the 16 dropped bits 0x8000
    halfway = (rng.integers(0x0080, 0x7F00, 500, dtype=np.uint32) << np.uint32(16)) \
        | np.uint32(0x8000)
    values = np.concatenate([values, halfway.view(np.float32).astype(np.float64)])
    single = values.astype(np.float32).astype(np.float64)  # the model's float32 output
    got = bfloat16_round(values)
    want = [nearest_even(v, 8) for v in single]
    assert got.tolist() == want
    # and the result really is a bfloat16: the low 16 bits of its float32 pattern are 0
    bits = np.array([struct.unpack("<I", struct.pack("<f", v))[0] for v in got])
    assert (bits & 0xFFFF == 0).all()


def test_float16_cast_matches_numpy_and_the_oracle():
    rng = np.random.default_rng(1)
    values = rng.uniform(-60000, 60000, 2000)
    values = np.concatenate([values, rng.uniform(-2, 2, 2000)])
    values = values[np.abs(values) > 2 ** -14]  # float16 normal range for the oracle
    got = cast_scores(values, "float16")
    assert got.tolist() == values.astype(np.float16).astype(np.float64).tolist()
    assert got.tolist() == [nearest_even(v, 11) for v in values]


def test_casts_refuse_overflow_instead_of_writing_infinities():
    with pytest.raises(ValueError, match="float16"):
        cast_scores(np.array([70000.0]), "float16")
    with pytest.raises(ValueError, match="bfloat16"):
        bfloat16_round(np.array([3.4e38]))
    with pytest.raises(ValueError):
        cast_scores(np.array([1.0]), "int8")


def test_bf16_preset_ties_more_than_fine_grained():
    run, qrels = simulate("bf16", n_queries=30, seed=4)
    fine = simulate_run(qrels, PRESETS["fine-grained"], seed=4)
    merged = fine.frame.merge(run.frame, on=["query", "doc"], suffixes=("", "_bf16"))
    assert (merged["score_bf16"] == bfloat16_round(merged["score"].to_numpy())).all()
    assert docs_in_ties(run, qrels) > 0.05 > docs_in_ties(fine, qrels) == 0.0


# ---- a random reranker against the analytic expectation -----------------------------

def random_ranking_rr_moments(n: int, r: int) -> tuple[float, float]:
    """E[RR] and Var[RR] of a uniformly random ranking of n docs, r relevant (math.comb)."""
    total = math.comb(n, r)
    probabilities = [math.comb(n - j, r - 1) / total for j in range(1, n - r + 2)]
    assert math.isclose(sum(probabilities), 1.0)
    mean = sum(p / j for j, p in enumerate(probabilities, 1))
    second = sum(p / j ** 2 for j, p in enumerate(probabilities, 1))
    return mean, second - mean * mean


@pytest.mark.parametrize("levels", [None, 3])
def test_quality_zero_expected_rr_matches_a_random_ranking(levels):
    observed, analytic, variance = [], [], []
    for seed in range(4):
        run, qrels = simulate(RerankerSpec(quality=0.0, levels=levels), n_queries=500,
                              seed=seed)
        ev = evaluate(run, qrels, ["RR"], ties="expected")
        values = ev.per_query.set_index("query")["value"]
        n_rel = qrels.frame[qrels.frame["relevance"] >= 1].groupby("query").size()
        for query, r in n_rel.items():
            mean, var = random_ranking_rr_moments(100, int(r))
            observed.append(values[query])
            analytic.append(mean)
            variance.append(var)
    # Queries are independent, so the mean difference has standard error sqrt(sum var)/Q.
    # With levels the engine returns E[RR | scores], whose variance is at most Var[RR]
    # (law of total variance): the same bound is conservative there. |z| < 4 fails with
    # probability ~6e-5 for a correct simulator.
    q = len(observed)
    standard_error = math.sqrt(sum(variance)) / q
    difference = np.mean(observed) - np.mean(analytic)
    assert abs(difference) < 4 * standard_error
    assert standard_error < 0.01  # the test has power: SE ~ 0.005 for 2000 queries


def test_fully_tied_reranker_expectation_is_exactly_the_random_ranking():
    # one level ties every query completely: the tie-aware expectation IS the average over
    # uniformly random rankings, per query, without sampling error
    run, qrels = simulate(RerankerSpec(levels=1), n_queries=40, seed=3, docs_per_query=30)
    ev = evaluate(run, qrels, ["RR"], ties="expected")
    n_rel = qrels.frame[qrels.frame["relevance"] >= 1].groupby("query").size()
    for query, value in ev.per_query.set_index("query")["value"].items():
        assert value == pytest.approx(random_ranking_rr_moments(30, int(n_rel[query]))[0],
                                      rel=1e-12)


# ---- quantize_run -----------------------------------------------------------------------

def test_quantize_run_per_query_bins_on_a_real_run():
    run = read_run(TREC_RESULTS)
    out = quantize_run(run, levels=5)
    assert out.name == f"{run.name}-L5" and len(out) == len(run)
    assert out.frame[["query", "doc"]].equals(run.frame[["query", "doc"]])
    labels = out.frame.groupby("query")["score"].agg(["min", "max", "nunique"])
    assert (labels["min"] == 0).all() and (labels["max"] == 4).all()
    assert (labels["nunique"] <= 5).all()
    # rank-free and monotone: a higher original score never gets a lower label
    frame = run.frame.assign(label=out.frame["score"]).sort_values(["query", "score"])
    assert (frame.groupby("query")["label"].diff().fillna(0) >= 0).all()


def test_quantize_run_global_and_precision():
    run = Run("r", pd.DataFrame({"query": ["a", "a", "b", "b"], "doc": list("wxyz"),
                                 "score": [0.0, 1.0, 9.0, 10.0]}))
    assert quantize_run(run, levels=2).frame["score"].tolist() == [0.0, 1.0, 0.0, 1.0]
    assert quantize_run(run, levels=2, method="global").frame["score"].tolist() == [0.0, 0.0, 1.0, 1.0]
    real = read_run(TREC_RESULTS)
    cast = quantize_run(real, precision="bf16")
    assert cast.name == f"{real.name}-bfloat16"
    assert cast.frame["score"].tolist() == bfloat16_round(real.frame["score"].to_numpy()).tolist()
    assert docs_in_ties(cast, read_qrels(TREC_RESULTS.with_name("qrels.test"))) > \
        docs_in_ties(real, read_qrels(TREC_RESULTS.with_name("qrels.test")))
    with pytest.raises(ValueError):
        quantize_run(run)
    with pytest.raises(ValueError):
        quantize_run(run, levels=3, method="quantile")


# ---- sweeps ------------------------------------------------------------------------------

@pytest.mark.parametrize("parameter, values", [
    ("levels", list(range(2, 21)) + [None]),
    ("tie_prob", [0.0, 0.1, 0.3, 0.5, 0.7, 0.9]),
    ("precision", [None, "float32", "float16", "bfloat16"]),
])
def test_sweep_columns_and_order_of_the_range(parameter, values):
    qrels = make_queries(n_queries=30, seed=6)
    table = sweep(parameter, values, base_spec=PRESETS["fine-grained"], qrels=qrels,
                  metric="RR", seed=6)
    assert list(table.columns) == list(SWEEP_COLUMNS)
    assert table["value"].tolist() == values and (table["parameter"] == parameter).all()
    assert (table["metric"] == "RR").all()
    tolerance = 1e-12
    assert (table["worst"] <= table["expected"] + tolerance).all()
    assert (table["expected"] <= table["best"] + tolerance).all()
    assert table["trec_eval"].between(table["worst"] - tolerance, table["best"] + tolerance).all()
    assert table["docs_in_ties"].between(0, 1).all()


def test_sweep_meaning():
    qrels = make_queries(n_queries=40, seed=2)
    ties = sweep("tie_prob", [0.0, 0.2, 0.5, 0.9], qrels=qrels, seed=2)
    assert ties["docs_in_ties"].is_monotonic_increasing and ties["docs_in_ties"].iloc[0] == 0
    # no ties: every policy agrees; more ties: the best-worst range widens
    first = ties.iloc[0]
    assert first["best"] == first["worst"] == first["expected"] == first["trec_eval"]
    assert (ties["best"] - ties["worst"]).is_monotonic_increasing
    quality = sweep("quality", [0.0, 1.0, 3.0], qrels=qrels, seed=2, metric="nDCG@10")
    assert quality["expected"].is_monotonic_increasing
    levels = sweep("levels", [3, 5, 11, None], base_spec="fine-grained", qrels=qrels,
                   rel_level=2, seed=2)
    assert levels["docs_in_ties"].iloc[-1] == 0.0
    with pytest.raises(ValueError, match="sweep\\(\\): parameter= must be one of 'quality'"):
        sweep("name", ["x"], qrels=qrels)


# ---- CLI ---------------------------------------------------------------------------------

def test_cli_simulate_writes_readable_files(tmp_path, capsys):
    run_path, qrels_path = tmp_path / "run.txt", tmp_path / "qrels.txt"
    status = simulate_main(["simulate", "--preset", "3-point", "--queries", "6", "--seed", "3",
                            "--docs-per-query", "25", "--out", str(run_path),
                            "--qrels", str(qrels_path)])
    assert status == 0 and "3-point" in capsys.readouterr().out
    run, qrels = read_run(run_path), read_qrels(qrels_path)
    assert run.name == "3-point" and len(run) == 150 and len(qrels) == 150
    assert set(run.frame["score"].unique()) <= {0.0, 1.0, 2.0}
    assert run.frame["query"].nunique() == 6
    # the files hold exactly what the library produces for the same arguments
    lib_run, lib_qrels = simulate("3-point", 6, 3, docs_per_query=25)
    assert run.frame["score"].tolist() == lib_run.frame["score"].tolist()
    assert qrels.frame["relevance"].tolist() == lib_qrels.frame["relevance"].tolist()
    again = tmp_path / "again.txt"
    simulate_main(["simulate", "--preset", "3-point", "--queries", "6", "--seed", "3",
                   "--docs-per-query", "25", "--out", str(again)])
    assert again.read_bytes() == run_path.read_bytes()


def test_cli_simulate_overrides(tmp_path):
    out = tmp_path / "run.txt"
    simulate_main(["simulate", "--preset", "fine-grained", "--queries", "3", "--levels", "4",
                   "--tie-prob", "0.2", "--precision", "bf16", "--name", "dialled",
                   "--out", str(out)])
    run = read_run(out)
    assert run.name == "dialled" and set(run.frame["score"].unique()) <= {0.0, 1.0, 2.0, 3.0}


def test_cli_quantize_levels_and_precision(tmp_path):
    levels_out, bf16_out = tmp_path / "l.txt", tmp_path / "b.txt"
    assert simulate_main(["quantize", str(TREC_RESULTS), "--levels", "11",
                          "--out", str(levels_out)]) == 0
    labels = read_run(levels_out).frame["score"]
    assert set(labels.unique()) <= {float(v) for v in range(11)}
    assert simulate_main(["quantize", str(TREC_RESULTS), "--precision", "bf16",
                          "--out", str(bf16_out)]) == 0
    original, cast = read_run(TREC_RESULTS), read_run(bf16_out)
    merged = original.frame.merge(cast.frame, on=["query", "doc"], suffixes=("", "_bf16"))
    assert len(merged) == len(original)
    assert (merged["score_bf16"] == bfloat16_round(merged["score"].to_numpy())).all()


@pytest.mark.parametrize("argv, message", [
    (["quantize", "/nonexistent/run.txt", "--levels", "3", "--out", "x.txt"], "nonexistent"),
    (["quantize", str(TREC_RESULTS), "--out", "x.txt"], "--levels and/or --precision"),
    (["simulate", "--preset", "fine-grained", "--tie-prob", "2", "--out", "x.txt"],
     "--tie-prob must be a number in [0, 1]; got 2.0"),
])
def test_cli_errors_are_one_line_without_traceback(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert simulate_main(argv) == 2  # main returns the exit status, as tiedrank.cli.main
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x.txt").exists()


def test_cli_rejects_unknown_preset(capsys, tmp_path):
    with pytest.raises(SystemExit) as exit_info:
        simulate_main(["simulate", "--preset", "7-point", "--out", str(tmp_path / "r.txt")])
    assert exit_info.value.code != 0
    assert "7-point" in capsys.readouterr().err


def test_main_cli_exposes_the_subcommands(tmp_path):
    from tiedrank.cli import main as cli_main

    out = tmp_path / "run.txt"
    assert cli_main(["simulate", "--preset", "bf16", "--queries", "2", "--out", str(out)]) == 0
    assert read_run(out).name == "bf16"


def test_sweep_without_relevant_documents_scores_zero_as_trec_eval():
    qrels = make_queries(5, 20, (0, 0), seed=1)  # nothing relevant anywhere
    table = sweep("levels", [2, 5], qrels=qrels, rel_level=1)
    # trec_eval's query set: every answered query counts, RR 0 on each
    assert len(table) == 2 and (table[["expected", "best", "worst", "trec_eval"]] == 0).all().all()
