"""Rank-biased overlap with ties (tiedrank/stats/overlap.py) against independent oracles.

* Corsi & Urbano's published test values (their repository julian-urbano/sigir2024-rbo,
  ``rbo/test.csv``, computed by the authors' reference code): all twelve numbers (ext, min,
  max, res of RBO^w, RBO^a, RBO^b) of nine pairs of tied rankings of unequal lengths.
* Without ties: Webber et al.'s definition transcribed here (RBO_min as a sum to a depth where
  p^d vanishes; RBO_ext of Eq. 32 for unequal lengths), and the ``rbo`` package's
  ``rbo_ext`` (0.1.3; skipped where it is not installed).
* With ties, RBO^a's lower bound is the mean, over every tie ordering of both runs, of the
  tie-free lower bound (enumerated).
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from tiedrank.core.validation import InvalidParameterError
from tiedrank.stats import rank_biased_overlap
from tiedrank.stats.overlap import BOUNDS, VARIANTS, _Flat, rbo_of_rankings

# x, y, p, then ext/min/max/res of w, a, b (Corsi & Urbano, rbo/test.csv)
PUBLISHED = [
    ("(i5 i9 i13 i15 i16 i19 i20) (i3 i8)", "i6 (i4 i18) i2 i7 i8 i17 i14 (i11 i12) i1",
     0.958074765324023,
     (0.0816485573277354, 0.0370062754797617, 0.59493569657566, 0.557929421095898),
     (0.0808189832771587, 0.0354671825076603, 0.593396603603558, 0.557929421095898),
     (0.0813693619867344, 0.0356267307324464, 0.593556151828344, 0.557929421095898)),
    ("i13 (i1 i4 i5 i6)", "i3 i14 i11 (i10 i15) i12 (i6 i9) i4 i2", 0.92238320668128,
     (0.117578490431637, 0.0763135264223449, 0.53999366118093, 0.463680134758586),
     (0.114619469221414, 0.0733545052121218, 0.537945108035391, 0.464590602823269),
     (0.11474835409049, 0.0734833900811979, 0.538589532380772, 0.465106142299574)),
    ("(i4 i7 i15) (i2 i11) i8 i18", "i4 i8 i17 i11 (i2 i3 i5 i7 i9 i13 i14)", 0.955836875418683,
     (0.601671359995661, 0.310498723372055, 0.820912519608734, 0.510413796236679),
     (0.584235464666522, 0.295503371358027, 0.805839323150565, 0.510335951792538),
     (0.632087129618464, 0.322093781902212, 0.833840285843908, 0.511746503941696)),
    ("(i3 i5 i6 i8 i9)", "(i1 i6) (i8 i10) i11 i2 (i3 i4)", 0.946588158477176,
     (0.481477824833812, 0.23269613702392, 0.802226864320287, 0.569530727296368),
     (0.456505385192971, 0.207870074991659, 0.77813269033093, 0.570262615339271),
     (0.482684075039396, 0.233899573241503, 0.804576609682389, 0.570677036440887)),
    ("(i3 i6) (i2 i7) i10", "(i3 i6 i7 i10) (i1 i2)", 0.965413635276732,
     (0.946064537517568, 0.343706790399566, 0.958770957517067, 0.615064167117501),
     (0.92051534467649, 0.319428239558438, 0.934492406675939, 0.615064167117501),
     (0.956844651806714, 0.348953051936765, 0.964017219054266, 0.615064167117501)),
    ("(i1 i3 i6 i11 i15) i17 (i5 i8)", "(i1 i2 i3 i4 i5 i6 i7 i8 i9 i10 i11 i12)",
     0.966485585840186,
     (0.647993254615828, 0.307897712904381, 0.853885398258049, 0.545987685353668),
     (0.56593642947334, 0.250532359019861, 0.795583602856033, 0.545051243836172),
     (0.658581961799868, 0.315458973083789, 0.861496368240528, 0.546037395156739)),
    ("i21 i20 (i1 i16 i19) (i5 i10) i4",
     "(i12 i17) (i2 i3 i8 i11) (i15 i18) (i6 i13) (i7 i14) i9", 0.930074017489188,
     (0, 0, 0.389142712252727, 0.389142712252727),
     (0, 0, 0.38977330351866, 0.38977330351866),
     (0, 0, 0.390116806797613, 0.390116806797613)),
    ("i2 i5 i3 (i1 i4)", "i5 i8 i2 (i3 i9)", 0.968922741966306,
     (0.580287544332462, 0.196704918554571, 0.917454802645556, 0.720749884090985),
     (0.580994268838527, 0.197411643060636, 0.918161527151621, 0.720749884090985),
     (0.583518284931614, 0.199935659153723, 0.920685543244708, 0.720749884090985)),
    ("(i1 i9 i15 i17) i13 i4 i3 i2", "(i1 i17) i15 i9 i13 i4 (i2 i3) i14", 0.959906916802432,
     (0.966438584453973, 0.512284507728805, 0.966438584453973, 0.454154076725168),
     (0.939211367148046, 0.485057290422878, 0.939211367148046, 0.454154076725168),
     (0.970894528910972, 0.516740452185804, 0.970894528910972, 0.454154076725168)),
]


def groups_of(text: str) -> list:
    """The authors' notation: items separated by blanks, a tie group in parentheses."""
    out, inside = [], None
    for token in text.split():
        if token.startswith("("):
            inside = [token[1:]]
            if token.endswith(")"):
                out.append(set(inside))
                inside = None
        elif inside is not None:
            inside.append(token.rstrip(")"))
            if token.endswith(")"):
                out.append(set(inside))
                inside = None
        else:
            out.append(token)
    return out


def frame_of(groups: list, query: str = "q") -> pd.DataFrame:
    """A run whose scores tie exactly the documents of a group."""
    rows = []
    for rank, group in enumerate(groups):
        for doc in (sorted(group) if isinstance(group, set) else [group]):
            rows.append((query, doc, float(len(groups) - rank)))
    return pd.DataFrame(rows, columns=["query", "doc", "score"])


@pytest.mark.parametrize("x, y, p, w, a, b", PUBLISHED)
def test_published_values_of_the_three_variants(x, y, p, w, a, b):
    got = rbo_of_rankings(_Flat.from_groups(groups_of(x)), _Flat.from_groups(groups_of(y)), p)
    for variant, want in zip(VARIANTS, (w, a, b)):
        assert [got[variant][bound] for bound in BOUNDS] == pytest.approx(want, abs=1e-12), variant
    # through the runs' door, in both argument orders (RBO is symmetric)
    table = rank_biased_overlap(frame_of(groups_of(y)), frame_of(groups_of(x)), p=p).per_query
    for variant, want in zip(VARIANTS, (w, a, b)):
        row = table[table["variant"] == variant].iloc[0]
        assert [row[bound] for bound in BOUNDS] == pytest.approx(want, abs=1e-12), variant


# ---- tie-free oracles: Webber et al. transcribed, and the rbo package ---------------------
def overlap_at(x: list, y: list, d: int) -> int:
    return len(set(x[:d]) & set(y[:d]))


def webber_min(x: list, y: list, p: float) -> float:
    """RBO_min: agreement X_d / d at every depth, X_d frozen at X_l below the longer list
    (no more overlap), summed until p^d is below 1e-18."""
    longest = max(len(x), len(y))
    total = sum(p ** d * overlap_at(x, y, d) / d for d in range(1, longest + 1))
    frozen, d = overlap_at(x, y, longest), longest + 1
    while p ** d > 1e-18:
        total += p ** d * frozen / d
        d += 1
    return (1 - p) / p * total


def webber_ext(x: list, y: list, p: float) -> float:
    """Webber et al.'s Eq. 32 (RBO_ext, unequal lengths s <= l) as printed."""
    short, long = (x, y) if len(x) <= len(y) else (y, x)
    s, l = len(short), len(long)

    def overlap(d):  # X_d, the short list stopping at s
        return len(set(short[:min(d, s)]) & set(long[:d]))
    x_s, x_l = overlap(s), overlap(l)
    first = sum(overlap(d) / d * p ** d for d in range(1, l + 1))
    second = sum(x_s * (d - s) / (s * d) * p ** d for d in range(s + 1, l + 1))
    third = ((x_l - x_s) / l + x_s / s) * p ** l
    return (1 - p) / p * (first + second) + third


def random_pair(rng, n_x: int, n_y: int) -> tuple[list, list]:
    pool = [f"d{i}" for i in range(n_x + n_y)]
    return list(rng.choice(pool, n_x, replace=False)), list(rng.choice(pool, n_y, replace=False))


def test_without_ties_every_variant_is_webbers():
    rng = np.random.default_rng(5)
    rbo_package = None
    try:
        import rbo as rbo_package  # the oracle of requirements-dev.txt (optional)
    except ImportError:
        pass
    for _ in range(40):
        x, y = random_pair(rng, int(rng.integers(1, 9)), int(rng.integers(1, 9)))
        p = float(rng.choice([0.5, 0.8, 0.9, 0.98]))
        got = rbo_of_rankings(_Flat.from_groups(x), _Flat.from_groups(y), p)
        for variant in VARIANTS:
            assert got[variant]["min"] == pytest.approx(webber_min(x, y, p), abs=1e-12)
            assert got[variant]["ext"] == pytest.approx(webber_ext(x, y, p), abs=1e-12)
            assert got[variant]["min"] <= got[variant]["ext"] <= got[variant]["max"] + 1e-15
        if rbo_package is not None:
            package = rbo_package.RankingSimilarity(x, y).rbo_ext(p=p)
            assert got["a"]["ext"] == pytest.approx(package, abs=1e-12)


def orderings(groups: list):
    """Every tie-free ranking a grouped ranking stands for."""
    parts = [itertools.permutations(sorted(g)) if isinstance(g, set) else [(g,)] for g in groups]
    for choice in itertools.product(*parts):
        yield [item for part in choice for item in part]


def test_variant_a_lower_bound_is_the_mean_over_tie_orderings():
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(30):
        x, y = random_pair(rng, int(rng.integers(2, 7)), int(rng.integers(2, 7)))
        # cut each list into tie groups at random places
        grouped = []
        for flat in (x, y):
            cuts = sorted(rng.choice(range(1, len(flat)), size=int(rng.integers(0, len(flat))),
                                     replace=False).tolist())
            parts = np.split(np.array(flat, dtype=object), cuts)
            grouped.append([set(part) if len(part) > 1 else part[0] for part in parts])
        p = float(rng.choice([0.6, 0.9]))
        values = [webber_min(ox, oy, p) for ox in orderings(grouped[0])
                  for oy in orderings(grouped[1])]
        got = rbo_of_rankings(_Flat.from_groups(grouped[0]), _Flat.from_groups(grouped[1]), p)
        assert got["a"]["min"] == pytest.approx(float(np.mean(values)), abs=1e-12)
        checked += len(values)
    assert checked > 500


def test_runs_door_queries_depth_and_refusals():
    a = pd.concat([frame_of(["x", {"y", "z"}, "w"], "q1"), frame_of(["u"], "q2")])
    b = pd.concat([frame_of(["y", "x", "w", "z"], "q1"), frame_of(["v"], "q3")])
    result = rank_biased_overlap(a, b, p=0.8)
    table = result.per_query
    assert sorted(set(table["query"])) == ["q1", "q2", "q3"]
    assert table[table["query"] != "q1"][list(BOUNDS)].isna().all().all()
    q1 = table[(table["query"] == "q1") & (table["variant"] == "a")].iloc[0]
    mean = np.mean([webber_min(o, ["y", "x", "w", "z"], 0.8) for o in orderings(["x", {"y", "z"}, "w"])])
    assert q1["min"] == pytest.approx(mean, abs=1e-12)
    summary = result.summary.set_index(["variant", "bound"])
    assert summary.loc[("a", "min"), "n_queries"] == 1
    assert summary.loc[("a", "min"), "n_undefined"] == 2
    # depth 2: each run's first two documents in trec_eval's order (z before y: docno descending)
    cut = rank_biased_overlap(a, b, p=0.8, depth=2).per_query
    row = cut[(cut["query"] == "q1") & (cut["variant"] == "w")].iloc[0]
    assert (row["n_a"], row["n_b"]) == (2, 2)
    assert row["min"] == pytest.approx(webber_min(["x", "z"], ["y", "x"], 0.8), abs=1e-12)
    for bad in ({"p": 1.0}, {"p": 0}, {"depth": 0}):
        with pytest.raises(InvalidParameterError):
            rank_biased_overlap(a, b, **bad)
    twice = pd.concat([a, a.iloc[:1]])
    with pytest.raises(ValueError, match="run_a: query 'q1' lists document 'x' more than once"):
        rank_biased_overlap(twice, b)
    missing = b.assign(score=b["score"].where(b["doc"] != "w"))
    with pytest.raises(ValueError, match="run_b: query 'q1', document 'w' has score 'nan'"):
        rank_biased_overlap(a, missing)


def test_compare_pages_table_and_sentence():
    """tiedrank.dashboard.run_overlap: one row per query with the library's numbers; run
    names escaped in the sentence (nothing a user names is read as markup)."""
    from tiedrank.dashboard.run_overlap import overlap_sentence, overlap_table
    a = pd.concat([frame_of(["x", {"y", "z"}, "w"], "q1"), frame_of(["u", "v"], "q2")])
    b = pd.concat([frame_of(["y", "x", "w", "z"], "q1"), frame_of(["v"], "q3")])
    result = rank_biased_overlap(a, b, p=0.8)
    table = overlap_table(result).set_index("query")
    per = result.per_query.set_index(["query", "variant"])
    assert list(table.index) == ["q1", "q2", "q3"]
    assert table.loc["q2", ["n_run", "n_baseline"]].tolist() == [2, 0]
    for variant in VARIANTS:
        assert table.loc["q1", f"rbo_{variant}"] == per.loc[("q1", variant), "ext"]
        assert table.loc["q1", f"min_{variant}"] == per.loc[("q1", variant), "min"]
        assert table.loc["q1", f"max_{variant}"] == per.loc[("q1", variant), "max"]
    sentence = overlap_sentence(result, "*bold*", "[link](x)")
    assert "Over 1 query," in sentence and "(p = 0.8)" in sentence
    assert "\\*bold\\*" in sentence and "\\[link\\]" in sentence
    means = result.summary.set_index(["variant", "bound"])["mean"]
    assert f"**{means[('b', 'ext')]:.3f}** with a correction for ties" in sentence
