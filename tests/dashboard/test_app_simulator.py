"""The Simulator page through AppTest, the simulated datasets of the sidebar, and the pure
helpers behind them (tiedrank.dashboard: RunSet, add_runs, simulate_set, trec_zip, ...)."""
from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from apptest_support import assert_no_trouble, shown_table
from streamlit.testing.v1 import AppTest

from tiedrank.dashboard.datasets import SESSION, SESSION_LABEL
from tiedrank.dashboard.overview import format_cell
from tiedrank.dashboard.my_runs import add_message, add_outcome, add_runs, already_kept, make_run_set
from tiedrank.dashboard.settings import ViewSettings
from tiedrank.dashboard.simulator import (
    evaluate_set,
    file_stem,
    quantized_set,
    simulate_set,
    simulated_spec,
    simulator_sweep,
    trec_zip,
)
from tiedrank.io import read_qrels, read_run
from tiedrank.simulate import PRESETS, make_queries, simulate_run

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
PAGE = "pages/simulator.py"
PRESET_NAMES = list(PRESETS)


pytestmark = pytest.mark.usefixtures("navigation_pages")


def _text(at: AppTest) -> str:
    return "\n".join(str(e.value) for e in [*at.markdown, *at.caption, *at.warning, *at.info, *at.success])


def _open() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page(PAGE)
    return at.run()


def _generate(at: AppTest, presets=None, queries: int = 20, **values) -> AppTest:
    """Fill the form (small query set: fast) and click Generate."""
    at.slider(key="sim_queries").set_value(queries)
    if presets is not None:
        at.multiselect(key="sim_presets").set_value(presets)
    for key, value in values.items():
        widget = next(w for kind in ("slider", "select_slider", "number_input", "selectbox")
                      for w in at.get(kind) if w.key == key)
        widget.set_value(value)
    at.button(key="sim_generate").click()
    return at.run()


def _charts(at: AppTest) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def _chart_titles(at: AppTest) -> list[str]:
    return [(spec["layout"].get("title") or {}).get("text", "") for spec in _charts(at)]


def _table(at: AppTest, first_column: str = "run", contains: str | None = None):
    """The first dataframe whose first column is ``first_column`` (and has ``contains``)."""
    for frame in at.dataframe:
        value = frame.value
        if len(value.columns) and value.columns[0] == first_column and (
                contains is None or any(contains in str(c) for c in value.columns)):
            return value
    raise AssertionError(f"no table starting with {first_column!r}")


@pytest.fixture()
def at() -> AppTest:
    return _open()


# ---- the page --------------------------------------------------------------------------------

def test_page_renders_on_default_data(at):
    assert_no_trouble(at)
    assert at.title[0].value.startswith("Simulator")
    presets = _table(at, "preset")
    assert presets["preset"].tolist() == PRESET_NAMES
    assert presets["description"].str.len().min() > 10
    assert at.multiselect(key="sim_presets").value == PRESET_NAMES  # default: all five
    assert any("Nothing generated yet" in i.value for i in at.info)
    # the sweep renders without generating; the quantisation works on the LLMJudge runs
    titles = _chart_titles(at)
    assert any(t.startswith("RR along number of label levels") for t in titles)
    assert at.selectbox(key="sim_q_run").options[0] == "NISTRetrieval-instruct0"
    assert any("spread" in t for t in titles)  # the before/after chart of the quantised run
    # every widget of the page explains itself
    for kind in ("slider", "select_slider", "number_input", "selectbox", "multiselect",
                 "segmented_control", "button"):
        for widget in at.get(kind):
            assert widget.proto.help, (kind, widget.proto.label)


def test_generating_the_presets(at):
    _generate(at, queries=20)
    assert_no_trouble(at)
    table = _table(at, "run", contains="RR")
    assert table["run"].tolist() == PRESET_NAMES
    assert [c.removesuffix(" ⚠") for c in table.columns] == ["run", "RR", "nDCG@10"]
    # the page shows what the engine computes for the same settings (relevance level 1)
    expected = simulate_set(PRESET_NAMES, n_queries=20)
    report = evaluate_set(expected, ["RR", "nDCG@10"], ViewSettings(rel_level=1)).report()
    row = report[(report["run"] == "3-point") & (report["metric"] == "RR")].iloc[0]
    cell = table.set_index("run").iloc[:, 0].loc["3-point"]
    assert format_cell(row["expected"], row["worst"], row["best"], row["trec_eval"]) in cell
    # the spread widens as the scale coarsens: fine-grained has none, 3-point the most
    ranges = (report["best"] - report["worst"]).groupby(report["run"].astype(str)).max()
    assert ranges["fine-grained"] == 0 and ranges["3-point"] > ranges["5-point"] > ranges["0-10"] > 0
    stats = _table(at, "run", contains="share of docs in ties")
    assert stats["run"].tolist() == PRESET_NAMES
    assert stats.set_index("run").loc["fine-grained", "share of docs in ties"] == 0
    assert any(t.startswith("The spread") for t in _chart_titles(at))
    labels = [b.proto.label for b in at.get("download_button")]
    assert {"All as zip", "qrels.txt", *(f"{n}.txt" for n in PRESET_NAMES)} <= set(labels)
    assert at.button(key="sim_add")


def test_generating_one_custom_reranker(at):
    _generate(at, presets=["custom"], queries=10, sim_levels=5, sim_precision="bfloat16",
              sim_quality=0.5)
    assert_no_trouble(at)
    assert _table(at, "run", contains="RR")["run"].tolist() == ["custom-L5-bfloat16_q0.5"]


def test_generating_nothing_is_explained(at):
    _generate(at, presets=[])
    assert_no_trouble(at)
    assert any("at least one reranker" in w.value for w in at.warning)


def test_no_relevant_document_is_explained(at):
    at.slider(key="sim_relevant").set_value((0, 0))
    _generate(at, queries=10)
    assert_no_trouble(at)
    infos = " ".join(i.value for i in at.info)
    assert "No query has a relevant document" in infos  # the generated runs
    assert "no document of grade 1 or more" in infos  # the sweep
    assert simulator_sweep("levels", n_queries=3, relevant_per_query=(0, 0)).empty


def test_sweep_parameters_and_metric(at):
    assert_no_trouble(at)
    at.segmented_control(key="sim_sweep_parameter").set_value("precision").run()
    at.selectbox(key="sim_sweep_metric").set_value("nDCG@k").run()
    assert_no_trouble(at)
    sweep = next(s for s in _charts(at) if "along score precision" in
                 (s["layout"].get("title") or {}).get("text", ""))
    assert sweep["layout"]["title"]["text"].startswith("nDCG@10 along score precision")
    assert list(sweep["data"][0]["x"]) == ["float64 (no cast)", "float32", "float16", "bfloat16"]
    at.segmented_control(key="sim_sweep_parameter").set_value("tie_prob").run()
    assert_no_trouble(at)
    sweep = next(s for s in _charts(at) if "along extra tie" in
                 (s["layout"].get("title") or {}).get("text", ""))
    assert sweep["layout"]["title"]["text"].startswith("nDCG@10 along extra tie probability")


@pytest.mark.slow  # deep profile: the stateful walks and CI's browser step (app and slow) cover it
def test_add_to_my_runs_feeds_every_page(at):
    _generate(at, presets=["0-10", "3-point"], queries=20)
    at.button(key="sim_add").click().run()
    assert_no_trouble(at)
    assert at.radio(key="dataset").value == SESSION
    assert at.number_input(key="rel_level").value == 1
    assert any("Added 2 runs" in s.value for s in at.success)
    assert "These 2 runs are already in **my runs**" in _text(at)
    assert at.button(key="sim_add").disabled  # nothing new to add
    assert at.selectbox(key="sim_q_run").options == ["0-10", "3-point"]  # now from my runs
    assert at.selectbox(key="sim_q_run").value == "0-10"
    at.switch_page("pages/overview.py").run()
    assert_no_trouble(at)
    assert at.dataframe[0].value["run"].tolist() == ["0-10", "3-point"]
    assert SESSION_LABEL in _text(at)
    # generating again on the same query set adds beside
    at.switch_page(PAGE).run()
    assert at.slider(key="sim_queries").value == 20  # the form kept its values
    _generate(at, presets=["fine-grained"], queries=20)
    assert "1 new run is added beside them" in _text(at)
    at.button(key="sim_add").click().run()
    assert_no_trouble(at)
    at.switch_page("pages/overview.py").run()
    assert at.dataframe[0].value["run"].tolist() == ["0-10", "3-point", "fine-grained"]
    # a new query set replaces them, and the page says so before the click
    at.switch_page(PAGE).run()
    _generate(at, presets=["5-point"], queries=15)
    assert "replaces" in _text(at)
    at.button(key="sim_add").click().run()
    assert any("Replaced your earlier runs" in s.value for s in at.success)
    at.switch_page("pages/tie_structure.py").run()
    assert_no_trouble(at)
    assert at.selectbox(key="tie_run").options == ["5-point"]


def test_quantise_a_loaded_run_and_keep_it(at):
    at.radio(key="dataset").set_value("trec_eval").run()
    assert_no_trouble(at)
    assert at.selectbox(key="sim_q_run").options == ["STANDARD"]
    at.select_slider(key="sim_q_levels").set_value(5).run()
    assert_no_trouble(at)
    before_after = _table(at, "run", contains="RR")  # the generated section is empty
    assert before_after["run"].tolist() == ["STANDARD", "STANDARD-L5"]
    stats = _table(at, "run", contains="share of docs in ties").set_index("run")
    assert stats.loc["STANDARD-L5", "share of docs in ties"] > stats.loc["STANDARD", "share of docs in ties"]
    at.select_slider(key="sim_q_levels").set_value("off")
    at.selectbox(key="sim_q_precision").set_value("bfloat16").run()
    assert_no_trouble(at)
    assert _table(at, "run", contains="RR")["run"].tolist() == ["STANDARD", "STANDARD-bfloat16"]
    at.button(key="sim_q_add").click().run()
    assert_no_trouble(at)
    assert at.radio(key="dataset").value == SESSION
    at.switch_page("pages/overview.py").run()
    assert_no_trouble(at)
    assert at.dataframe[0].value["run"].tolist() == ["STANDARD", "STANDARD-bfloat16"]
    assert at.number_input(key="rel_level").value == 1


def test_quantise_needs_levels_or_precision(at):
    at.select_slider(key="sim_q_levels").set_value("off").run()
    assert_no_trouble(at)
    assert any("Choose a number of levels or a precision" in i.value for i in at.info)


def test_simulated_bundled_dataset_loads_in_the_sidebar(at):
    at.radio(key="dataset").set_value("simulated").run()
    assert_no_trouble(at)
    assert at.number_input(key="rel_level").value == 1
    at.switch_page("pages/overview.py").run()
    assert_no_trouble(at)
    table = shown_table(at.dataframe[0])  # the Overview's cells as shown (numbers underneath)
    assert table["run"].tolist() == ["fine-grained", "0-10", "5-point", "3-point", "bf16"]
    rr = [c for c in table.columns if c.startswith("RR")][0]
    # the numbers of sample_data/simulated/README.md
    assert table.set_index("run").loc["fine-grained", rr].endswith("0.731 [0.731, 0.731] · trec 0.731")
    assert "0.733 [0.674, 0.801] · trec 0.744" in table.set_index("run").loc["0-10", rr]
    assert "Synthetic data" in _text(at)


def test_empty_session_dataset_is_explained(at):
    at.radio(key="dataset").set_value(SESSION).run()
    assert_no_trouble(at)  # the Simulator still works without data
    assert any("no run to quantise" in i.value for i in at.info)
    assert "Nothing yet" in _text(at)
    at.switch_page("pages/overview.py").run()
    assert_no_trouble(at)
    assert any(f"{SESSION_LABEL}** is empty" in i.value for i in at.info)


def test_clear_my_runs(at):
    _generate(at, presets=["3-point"], queries=10)
    at.button(key="sim_add").click().run()
    assert "3-point" in _text(at)
    at.button(key="sim_clear").click().run()
    assert_no_trouble(at)
    assert any("No runs kept yet" in i.value for i in at.info)
    at.switch_page("pages/overview.py").run()
    assert any("is empty" in i.value for i in at.info)


# ---- pure helpers ------------------------------------------------------------------------------

def test_simulated_spec_names():
    assert simulated_spec("0-10").name == "0-10"
    assert simulated_spec("0-10", quality=0.5, tie_prob=0.2).name == "0-10_q0.5_tie0.2"
    spec = simulated_spec("custom", levels=7, precision="bf16")
    assert (spec.name, spec.levels, spec.precision) == ("custom-L7-bfloat16", 7, "bfloat16")
    assert simulated_spec("custom").name == "custom-continuous"
    assert simulated_spec("3-point", levels=20).levels == 3  # a preset keeps its scale
    with pytest.raises(ValueError, match="unknown reranker"):
        simulated_spec("nope")


def test_simulate_set_matches_the_simulator():
    run_set = simulate_set(["0-10", "bf16"], n_queries=4, docs_per_query=20,
                              relevant_per_query=(2, 30), seed=5)
    qrels = make_queries(4, 20, (2, 20), seed=5)
    assert run_set.qrels.frame.equals(qrels.frame)
    assert run_set.runs["bf16"].frame.equals(simulate_run(qrels, PRESETS["bf16"], seed=5).frame)
    assert "4 simulated queries x 20 candidates, 2-20 relevant" in run_set.origin
    with pytest.raises(ValueError):
        simulate_set([])


def test_add_runs_beside_dedupes_renames_and_replaces():
    first = simulate_set(["0-10"], n_queries=3)
    assert add_outcome(None, first) == "new"
    kept, outcome = add_runs(None, first)
    assert outcome == "new" and list(kept.runs) == ["0-10"]
    same = simulate_set(["0-10", "3-point"], n_queries=3)  # same query set, 0-10 identical
    assert "1 new run is added beside them (0-10 already there)" in add_message(kept, same)
    kept, outcome = add_runs(kept, same)
    assert outcome == "added" and list(kept.runs) == ["0-10", "3-point"]
    assert already_kept(kept, same) == ["0-10", "3-point"]
    assert "already in **my runs**" in add_message(kept, same)
    # another run under a taken name on the same query set gets a suffix
    other = make_run_set(first.qrels, {"0-10": same.runs["3-point"]}, "x")
    kept, outcome = add_runs(kept, other)
    assert list(kept.runs) == ["0-10", "3-point", "0-10 (2)"] and kept.runs["0-10 (2)"].name == "0-10 (2)"
    assert kept.key != first.key
    new_queries = simulate_set(["5-point"], n_queries=3, seed=1)
    assert "replaces" in add_message(kept, new_queries)
    kept, outcome = add_runs(kept, new_queries)
    assert outcome == "replaced" and list(kept.runs) == ["5-point"]


def test_trec_zip_round_trips(tmp_path):
    run_set = simulate_set(["0-10", "fine-grained"], n_queries=3, docs_per_query=10)
    archive = zipfile.ZipFile(io.BytesIO(trec_zip(run_set)))
    assert sorted(archive.namelist()) == ["README.txt", "qrels.txt", "runs/0-10.txt",
                                          "runs/fine-grained.txt"]
    qrels = read_qrels(archive.read("qrels.txt"))
    assert qrels.frame.equals(run_set.qrels.frame)
    run = read_run(archive.read("runs/fine-grained.txt"))
    assert run.name == "fine-grained"
    assert run.frame["score"].tolist() == run_set.runs["fine-grained"].frame["score"].tolist()
    assert "relevance level 1" in archive.read("README.txt").decode()
    assert file_stem("0-10 (2)") == "0-10_2"


def test_quantized_set_and_sweep():
    run_set = simulate_set(["fine-grained"], n_queries=5)
    quantized = quantized_set(run_set.runs["fine-grained"], run_set.qrels, levels=3,
                                 origin="here", rel_level=2)
    assert list(quantized.runs) == ["fine-grained", "fine-grained-L3"]
    assert quantized.rel_level == 2 and quantized.qrels_key == run_set.qrels_key
    table = simulator_sweep("levels", n_queries=5, metric="RR")
    assert table["value"].tolist() == list(range(2, 21))
    assert (table["range"] >= 0).all() and table["label"].iloc[0] == "2"
    assert simulator_sweep("precision", n_queries=5)["label"].tolist() == [
        "float64 (no cast)", "float32", "float16", "bfloat16"]
