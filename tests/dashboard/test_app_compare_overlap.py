"""Compare's rank-biased overlap of the examined run and the baseline through AppTest: the
per-query table and the sentence's means against tiedrank.stats.rank_biased_overlap on the
bundled runs read independently, and a new persistence recomputing them."""
from __future__ import annotations

import numpy as np
import pytest

from apptest_support import assert_no_trouble, new_app
from tiedrank.dashboard.datasets import BUNDLED
from tiedrank.io import read_qrels, read_run
from tiedrank.core.ties import build_tie_table
from tiedrank.core.options import EvaluationOptions
from tiedrank.stats import rank_biased_overlap

pytestmark = pytest.mark.usefixtures("navigation_pages")


def _overlap_element(at):
    tables = [d for d in at.dataframe if {"rbo_w", "rbo_a", "rbo_b"} <= set(d.value.columns)]
    assert len(tables) == 1, [list(d.value.columns) for d in at.dataframe]
    return tables[0].value


@pytest.mark.slow  # deep profile (5 s: the whole Compare page twice); CI's browser step runs it
def test_overlap_table_and_sentence_match_the_library():
    at = new_app().run()
    at.switch_page("pages/compare.py").run()
    assert_no_trouble(at)
    run, baseline = at.selectbox(key="compare_run").value, at.selectbox(key="compare_baseline").value
    ds = BUNDLED["llmjudge"]
    runs = {r.name: r for r in (read_run(str(ds.path(name)), format=ds.run_format)
                                for name in ds.runs)}
    qrels = read_qrels(str(ds.path(ds.qrels)), format=ds.qrels_format)
    options = EvaluationOptions(rel_level=ds.rel_level)
    tables = {name: build_tie_table(runs[name], qrels, options) for name in (run, baseline)}
    for p in (0.9, 0.8):
        if p != 0.9:
            at.number_input(key="compare_rbo_p").set_value(p).run()
            assert_no_trouble(at)
        want = rank_biased_overlap(tables[run], tables[baseline], p=p)
        shown = _overlap_element(at).set_index("query")
        per = want.per_query.set_index(["query", "variant"])
        assert sorted(shown.index) == sorted(set(want.per_query["query"]))
        for variant in ("w", "a", "b"):
            for column, bound in ((f"rbo_{variant}", "ext"), (f"min_{variant}", "min"),
                                  (f"max_{variant}", "max")):
                expected = per.xs(variant, level="variant")[bound].loc[shown.index]
                np.testing.assert_allclose(shown[column].to_numpy(float), expected.to_numpy(float),
                                           rtol=0, atol=1e-12)
        means = want.summary.set_index(["variant", "bound"])["mean"]
        sentence = [m.value for m in at.markdown if "rank-biased overlap (p = " in m.value]
        assert len(sentence) == 1
        assert f"(p = {p:g})" in sentence[0]
        for variant in ("w", "a", "b"):
            assert f"**{means[(variant, 'ext')]:.3f}**" in sentence[0]
        assert 0 < means[("a", "ext")] < 1  # two different runs: the check means something
