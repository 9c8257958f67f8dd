"""Sharing a view (issue 28, item 7): every page shows its whole link ("Link to this view",
a code block with a copy button), and a link to runs simulated in a session carries the
Simulator's settings, so a new session (another browser) makes the same runs again, bit for
bit; settings it cannot make say so in one line."""
from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest
from streamlit.testing.v1 import AppTest

from apptest_support import assert_no_trouble, new_app, shown_table
from tiedrank.dashboard.datasets import SESSION
from tiedrank.dashboard.recipes import SIM_PARAM, RecipeError, parse_recipe
from tiedrank.dashboard.ui import MY_RUNS_KEY

pytestmark = pytest.mark.usefixtures("navigation_pages")

ROOT = Path(__file__).resolve().parents[2]
SIMULATOR = "pages/simulator.py"


def _link_shown(at: AppTest) -> str:
    """The link in the sidebar's "Link to this view" (its code block)."""
    codes = [c.value for c in at.sidebar.code]
    assert len(codes) == 1, codes
    return codes[0]


def _open_link(link: str) -> AppTest:
    """A new session opened on ``link`` (another browser, a day later: same server)."""
    parts = urlsplit(link)
    at = new_app()
    pairs = parse_qsl(parts.query)
    for name in dict.fromkeys(n for n, _ in pairs):
        values = [v for n, v in pairs if n == name]
        at.query_params[name] = values if len(values) > 1 else values[0]
    at.run()
    page = parts.path.strip("/")
    if page and page != "overview":
        at.switch_page(f"pages/{page}.py").run()
    return at


@pytest.mark.parametrize("page", ["pages/overview.py", "pages/compare.py", "pages/tsrr.py"])
def test_every_page_shows_its_link(page):
    at = new_app().run()
    at.switch_page(page).run()
    assert_no_trouble(at)
    link = _link_shown(at)
    query = dict(parse_qsl(urlsplit(link).query))
    assert query["dataset"] == "llmjudge" and query["rel_level"] == "2" and query["k"] == "10"
    if page == "pages/overview.py":  # what the page itself puts in the link is there too
        assert "overview_metrics" in query
    assert urlsplit(link).path.strip("/") in ("", page.removeprefix("pages/").removesuffix(".py"))


def test_a_page_that_stops_early_still_shows_its_link():
    at = new_app()
    at.query_params["dataset"] = SESSION
    at.run()  # no runs to show: the Overview stops on its empty state
    assert any("Simulated in this session" in i.value for i in at.info)
    assert "dataset=session" in _link_shown(at)


def _simulate_and_keep(at: AppTest, presets: list[str], **values) -> None:
    at.switch_page(SIMULATOR).run()
    at.slider(key="sim_queries").set_value(15)
    at.multiselect(key="sim_presets").set_value(presets)
    for key, value in values.items():
        next(w for kind in ("slider", "number_input", "selectbox", "select_slider")
             for w in at.get(kind) if w.key == key).set_value(value)
    at.button(key="sim_generate").click().run()
    at.button(key="sim_add").click().run()
    assert_no_trouble(at)


@pytest.mark.slow  # deep profile: the stateful walks and CI's browser step (app and slow) cover it
def test_a_link_to_simulated_runs_makes_them_again_bit_for_bit():
    at = new_app().run()
    _simulate_and_keep(at, ["0-10", "custom"], sim_quality=0.7, sim_tie_prob=0.15,
                       sim_seed=7, sim_levels=5, sim_precision="bfloat16")
    _simulate_and_keep(at, ["3-point"], sim_quality=0.7, sim_tie_prob=0.15, sim_seed=7,
                       sim_levels=5, sim_precision="bfloat16")  # same query set: added beside
    at.switch_page("pages/overview.py").run()  # (the browser test opens Compare's link)
    assert_no_trouble(at)
    mine = at.session_state[MY_RUNS_KEY]
    assert list(mine.runs) == ["0-10_q0.7_tie0.15", "custom-L5-bfloat16_q0.7_tie0.15",
                               "3-point_q0.7_tie0.15"]
    link = _link_shown(at)
    assert len(parse_recipe([v for n, v in parse_qsl(urlsplit(link).query) if n == SIM_PARAM])) == 2

    other = _open_link(link)  # another browser: a new session
    assert_no_trouble(other)
    again = other.session_state[MY_RUNS_KEY]
    assert again.key == mine.key  # same names and contents, in the same order
    for name, run in mine.runs.items():  # bit for bit
        assert again.runs[name].frame.equals(run.frame)
    assert again.qrels.frame.equals(mine.qrels.frame)
    assert other.radio(key="dataset").value == SESSION
    assert not any("not on this server" in i.value or "cannot make" in i.value for i in other.info)
    assert _link_shown(other) == link  # and the link it shows is the one it was opened with
    assert shown_table(other.dataframe[0]).equals(shown_table(at.dataframe[0]))


def test_a_link_to_a_quantised_bundled_run_makes_it_again():
    at = new_app().run()
    at.radio(key="dataset").set_value("trec_eval").run()
    at.switch_page(SIMULATOR).run()
    at.select_slider(key="sim_q_levels").set_value(5).run()
    at.button(key="sim_q_add").click().run()
    assert_no_trouble(at)
    mine = at.session_state[MY_RUNS_KEY]
    assert list(mine.runs) == ["STANDARD", "STANDARD-L5"] and mine.recipe
    other = _open_link(_link_shown(at))
    assert_no_trouble(other)
    assert other.session_state[MY_RUNS_KEY].key == mine.key


def test_runs_a_link_cannot_make_say_so():
    """Bad steps (hand-edited, or asking for more than the Simulator's form allows) and a
    session link without steps: one line, no exception, nothing simulated."""
    for sim in ("gen~0-10~q99999~d100~r1-10~Q1.0~t0.0~Lc~Pnone~s0~l1", "nonsense"):
        at = new_app()
        at.query_params["dataset"] = SESSION
        at.query_params[SIM_PARAM] = sim
        at.run()
        assert not at.exception and not at.error
        said = [i.value for i in at.info if "cannot make them again" in i.value]
        assert len(said) == 1, [i.value for i in at.info]
        assert MY_RUNS_KEY not in at.session_state
        assert SIM_PARAM in at.query_params  # the link keeps naming what it asked for
    with pytest.raises(RecipeError, match="more than"):
        parse_recipe(["gen~0-10.3-point.bf16.5-point.fine-grained.custom~q500~d1000~r1-10~Q1.0~"
                      "t0.0~Lc~Pnone~s0~l1", "gen~0-10~q500~d1000~r1-10~Q1.0~t0.0~Lc~Pnone~s1~l1"])
    at = new_app()
    at.query_params["dataset"] = SESSION
    at.run()
    assert any("without the settings that would make them again" in i.value for i in at.info)


def test_a_step_reads_back_the_arguments_exactly():
    """The link carries floats as repr: a slider's 0.30000000000000004 comes back as itself
    (the noise is scaled by it), and the set made from the step is the set made directly."""
    from tiedrank.dashboard.recipes import parse_step, replay
    from tiedrank.dashboard.simulator import simulate_set

    made = simulate_set(["5-point", "custom"], n_queries=6, docs_per_query=30,
                        relevant_per_query=(2, 4), quality=0.1 + 0.2, tie_prob=0.05 * 3,
                        levels=4, precision="float16", seed=11, rel_level=2)
    (step,) = made.recipe
    args = parse_step(step)
    assert args["quality"] == 0.1 + 0.2 and args["tie_prob"] == 0.05 * 3
    again = replay([step], load_bundled=None)
    assert again.key == made.key and again.rel_level == 2
    for name, run in made.runs.items():
        assert again.runs[name].frame.equals(run.frame)
