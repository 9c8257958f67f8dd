"""AppTest: the Judge agreement page on the bundled data (label runs, mixed, none), its
query drill-downs, and the confusion heatmap's builder."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from apptest_support import assert_no_trouble, new_app
from tiedrank.dashboard.figures.agreement import confusion_heatmap

pytestmark = pytest.mark.usefixtures("navigation_pages")
PAGE = "pages/agreement.py"


def _open(dataset: str = "llmjudge"):
    at = new_app()
    at.session_state["dataset"] = dataset
    at.run()
    at.switch_page(PAGE).run()
    assert_no_trouble(at)
    return at


def _frame(at, column: str) -> pd.DataFrame:
    return next(df.value for df in at.dataframe if column in df.value.columns)


def test_llmjudge_every_judge_its_heatmap_and_its_queries():
    at = _open()
    assert at.title[0].value.startswith("Judge agreement")
    assert [h.value for h in at.header][:3] == [
        "Kappa of every run", "Where one run's labels fall", "NISTRetrieval-instruct0, query by query"]
    kappa = _frame(at, "run")
    assert len(kappa) == 8 and (kappa["documents"] == 4423).all()
    assert kappa[["unweighted", "linear", "quadratic"]].stack().between(-1, 1).all()
    assert len(at.get("plotly_chart")) == 1
    assert len(_frame(at, "query")) == 25
    assert at.selectbox(key="agree_query").value  # the least agreeing query is offered
    at.selectbox(key="agree_run").set_value("Olz-gpt4o").run()
    assert_no_trouble(at)
    assert at.header[2].value == "Olz-gpt4o, query by query"
    at.segmented_control(key="agree_cells").set_value("documents").run()
    assert_no_trouble(at)


def test_rankers_are_left_out_and_named():
    """The simulated set mixes label runs (3-point, 5-point, 0-10) and real-valued scores."""
    at = _open("simulated")
    note = next(i.value for i in at.info if "Left out" in i.value)
    assert "**fine-grained**" in note and "**bf16**" in note
    runs = at.selectbox(key="agree_run").options
    assert "3-point" in runs and "fine-grained" not in runs
    assert set(_frame(at, "run")["run"]) == set(runs)


def test_a_dataset_without_label_runs_says_so():
    at = _open("trec_eval")
    assert any("trec_eval's example run" in i.value and "not label runs" in i.value for i in at.info)
    assert not at.dataframe and not at.get("plotly_chart")


def test_a_query_opens_on_tie_structure():
    at = _open()
    at.selectbox(key="agree_run").set_value("TREMA-all")
    at.selectbox(key="agree_query").set_value("q22").run()
    at.button(key="agree_open_ties").click().run()
    assert_no_trouble(at)
    assert at.title[0].value.startswith("Tie structure")
    assert at.selectbox(key="tie_run").value == "TREMA-all"
    assert at.selectbox(key="tie_query").value == "q22"


def test_a_query_opens_beside_the_best_agreeing_judge():
    at = _open()
    kappa = _frame(at, "run").set_index("run")["quadratic"]
    at.selectbox(key="agree_query").set_value("q49").run()
    at.button(key="agree_open_pair").click().run()
    assert_no_trouble(at)
    assert at.title[0].value.startswith("Two runs, one query")
    assert at.selectbox(key="sbs_run_a").value == "NISTRetrieval-instruct0"
    assert at.selectbox(key="sbs_run_b").value == kappa.drop("NISTRetrieval-instruct0").idxmax()
    assert at.selectbox(key="sbs_query").value == "q49"


def test_heatmap_draws_the_counts_and_outlines_the_diagonal():
    counts = pd.DataFrame([[5, 1, 0], [2, 0, 3]], index=pd.Index([0, 1], name="grade"),
                          columns=pd.Index([0, 1, 2], name="label"))
    share = counts.div(counts.sum(axis=1), axis=0)
    fig = confusion_heatmap(counts, share=share, title="t")
    heat = fig.data[0]
    np.testing.assert_allclose(np.asarray(heat.z, dtype=float), share.to_numpy())
    assert list(heat.y) == ["grade 0", "grade 1"] and list(heat.x) == ["label 0", "label 1", "label 2"]
    assert heat.text[1][2] == "3<br>60%"
    assert len(fig.layout.shapes) == 2  # grades 0 and 1 have a label column each
    plain = confusion_heatmap(counts)
    np.testing.assert_array_equal(np.asarray(plain.data[0].z, dtype=float), counts.to_numpy())
