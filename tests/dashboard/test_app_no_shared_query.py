"""A run that shares no query with the qrels (issue 28: ``Z49`` in the run, ``q49`` in the
qrels, the commonest first-upload mistake): every page says the same clear sentence and
none is replaced by "could not be drawn"; beside readable runs, the run is left out and every
page and drill-down works on the others. Also: Spread's query picker keeps the query chosen
when its labels change with the run (the browser sends the old label back)."""
from __future__ import annotations

import pytest

from apptest_support import new_app, upload
from browser_labels import BrowserLabels

pytestmark = pytest.mark.usefixtures("navigation_pages")

QUERIES = range(41, 50)
QRELS = "".join(f"q{q} 0 d{d} {int(d in (2, 3))}\n" for q in QUERIES for d in range(1, 6)).encode()
# tied scores, so that every page has something to draw for the readable run
GOOD = "".join(f"q{q} Q0 d{d} {d} {[0.9, 0.8, 0.8, 0.6, 0.6][d - 1]} good\n"
               for q in QUERIES for d in range(1, 6)).encode()
Z_RUN = GOOD.replace(b"q4", b"Z4").replace(b" good", b" zrun")
DATA_PAGES = ["overview", "tie_structure", "spread", "tsrr", "compare", "agreement", "side_by_side"]
MESSAGE = ("Run **zrun** shares no query with the qrels, so it has nothing to evaluate and is left "
           "out of every page: its 9 query ids (Z41, Z42, Z43, …) are none of the qrels' 9 (q41, "
           "q42, q43, …). Check that the run and the qrels use the same query ids (a run's Z49 is "
           "not the qrels' q49), then upload the corrected file in the sidebar (**Data → Upload "
           "your own**).")


def _page_wide_errors(at) -> list[str]:
    return [e.value for e in at.exception] + [e.value for e in at.error]


def _uploaded(runs):
    at = new_app().run()
    return upload(at, ("qrels.txt", QRELS, "text/plain"),
                  [(f"{name}.txt", data, "text/plain") for name, data in runs])


def test_only_a_run_without_a_shared_query_gives_one_message_on_every_page():
    at = _uploaded([("zrun", Z_RUN)])
    for page in DATA_PAGES + ["simulator"]:
        at.switch_page(f"pages/{page}.py").run()
        assert not _page_wide_errors(at), (page, _page_wide_errors(at))
        assert [w.value for w in at.warning] == [MESSAGE], page


def test_beside_readable_runs_it_is_left_out_and_the_pages_work():
    at = _uploaded([("good", GOOD), ("zrun", Z_RUN)])
    for page in DATA_PAGES:
        at.switch_page(f"pages/{page}.py").run()
        assert not _page_wide_errors(at), (page, _page_wide_errors(at))
        assert MESSAGE in [w.value for w in at.warning], page
        for box in at.selectbox:  # no run picker offers it
            assert "zrun" not in box.options, (page, box.key)
    at.switch_page("pages/spread.py").run()
    assert at.selectbox(key="spread_run").options == ["good"]
    # a drill-down still opens its target: a click on query q44's range opens Tie structure
    at.session_state["spread_range_chart"] = {"selection": {"points": [{"y": "q44"}],
                                                            "point_indices": [0], "box": [], "lasso": []}}
    at.run()
    assert not _page_wide_errors(at)
    assert at.title[0].value.startswith("Tie structure")
    assert at.selectbox(key="tie_query").value == "q44"


def test_spread_when_no_query_of_the_run_is_evaluated():
    """Queries the run shares, but none evaluated (no relevant document, and the query set
    leaves such queries out): Spread said "could not be drawn (ValueError)"."""
    at = new_app().run()
    upload(at, ("qrels.txt", b"q1 0 d1 0\nq1 0 d2 0\nq2 0 d1 1\n", "text/plain"),
           [("r.txt", b"q1 Q0 d1 1 1.0 r\nq1 Q0 d2 2 1.0 r\n", "text/plain")])
    at.selectbox(key="query_set").set_value("relevant").run()
    at.switch_page("pages/spread.py").run()
    assert not _page_wide_errors(at), _page_wide_errors(at)
    assert "No query of run r is evaluated for RR." in [i.value for i in at.info]


def test_spread_keeps_the_chosen_query_when_its_label_changes(monkeypatch):
    """The query labels hold the run's RR range, so they change with the run; the browser
    still holds the old label and sends it with the next interaction. The chosen query
    stays, and the browser is told its new label."""
    browser = BrowserLabels(monkeypatch)
    at = new_app()
    browser.run(at)
    at.switch_page("pages/spread.py")
    browser.run(at)
    runs = at.selectbox(key="spread_run").options

    def labels() -> dict[str, str]:  # "<query id> — <text>  (RR range <width>)", by query id
        return {label.split()[0]: label for label in at.selectbox(key="spread_query").options}

    first, before = runs[0], labels()
    for second in runs[1:]:  # a run where a query other than the widest has another label
        at.selectbox(key="spread_run").select(second)
        browser.run(at)
        after = labels()
        query = next((q for q in before if q in after and before[q] != after[q]
                      and q != next(iter(after))), None)
        if query is not None:
            break
    assert query is not None
    at.selectbox(key="spread_run").select(first)
    browser.run(at)
    at.selectbox(key="spread_query").select(query)
    browser.run(at)
    at.selectbox(key="spread_run").select(second)
    browser.run(at)
    assert at.selectbox(key="spread_query").value == query
    at.selectbox(key="spread_metric").select_index(1)  # any other interaction on the page
    browser.run(at)
    assert not _page_wide_errors(at)
    assert at.session_state["spread_query"] == query  # a key, never a label
    assert at.selectbox(key="spread_query").value == query
