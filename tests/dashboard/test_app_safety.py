"""The dashboard's safety settings (local bind, upload cap, no error details,
every cache the one bounded by memory and expiring) and the page-level error wrapper."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_config_binds_locally_caps_uploads_and_hides_error_details():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["address"] == "127.0.0.1"
    assert 0 < config["server"]["maxUploadSize"] <= 500
    assert config["client"]["showErrorDetails"] == "none"


def test_every_cache_is_the_one_memory_bounded_cache():
    """No cache of its own anywhere: Streamlit's are bounded by entries, not bytes, so every
    cache goes through ``shared_cache`` / ``ctx.memo`` (tiedrank.dashboard.cache.SHARED,
    bounded by memory and expiring), the uploads' store included."""
    sources = [ROOT / "app.py", *(ROOT / "pages").glob("*.py"),
               *(ROOT / "tiedrank" / "dashboard").rglob("*.py")]
    texts = {path: path.read_text() for path in sources}
    own = [f"{path.name}: {m.group(0)}" for path, text in texts.items()
           for m in re.finditer(r"@st\.cache_\w+|st\.cache_\w+\(", text)]  # not the docs
    assert own == []
    # one small memo stays: file hashes of the bundled data by (path, size, mtime), 256 short strings
    memos = [(path.name, m.group(1)) for path, text in texts.items()
             for m in re.finditer(r"lru_cache\((?:maxsize=)?([^)]*)\)", text)]
    assert memos == [("datasets.py", "256")]
    # Loaded data and everything derived from it go through the memory-bounded cache.
    ui = (ROOT / "tiedrank" / "dashboard" / "ui.py").read_text()
    for loader in ("cached_run", "cached_qrels", "_tables", "_evaluation", "_memo"):
        assert re.search(r"@shared_cache\([^)]*\)\ndef " + loader + r"\(", ui), loader
    simulator = (ROOT / "pages" / "simulator.py").read_text()
    for step in ("_evaluate", "_sweep"):
        assert re.search(r"@shared_cache\([^)]*\)[^\n]*\ndef " + step + r"\(", simulator), step
    assert "ctx.memo(name, compute" in (ROOT / "pages" / "compare.py").read_text()
    assert "STORE = UploadStore()" in (ROOT / "tiedrank" / "dashboard" / "upload_store.py").read_text()


def test_page_errors_show_one_message_not_a_traceback(tmp_path):
    """A page that raises shows one st.error, no exception box."""
    from streamlit.testing.v1 import AppTest

    script = tmp_path / "app.py"
    script.write_text(  # app.py runs the page through ui.run_page
        "from tiedrank.dashboard import ui as common\n"
        "class _Page:\n    def run(self):\n        raise ValueError('/secret/server/path')\n"
        "pg = _Page()\ncommon.run_page(pg.run, common.control_remedy)\n")
    assert "common.run_page(pg.run, common.control_remedy)" in (ROOT / "app.py").read_text()
    at = AppTest.from_file(str(script)).run()
    assert not at.exception
    assert len(at.error) == 1
    assert "/secret/server/path" not in at.error[0].value


def test_one_session_cannot_change_another_sessions_cached_data():
    """Mutate the cached evaluation and tie tables in one AppTest session; a second session
    sees the original numbers."""
    from streamlit.testing.v1 import AppTest

    script = '''
import streamlit as st
from tiedrank.dashboard import ui
from tiedrank.dashboard.datasets import BUNDLED, DEFAULT_DATASET
from tiedrank.dashboard.settings import ViewSettings
dataset = BUNDLED[DEFAULT_DATASET]
ctx, _ = ui.bundled_context(dataset, ViewSettings(rel_level=dataset.rel_level, gain="linear", k=10, round=None))
evaluation = ctx.evaluation(["ndcg@10"])
first = float(evaluation.summary.select_dtypes("number").to_numpy().ravel()[0])
st.session_state.setdefault("first", first)
st.write(repr(first))
if st.session_state.get("attack"):
    numeric = evaluation.summary.select_dtypes("number").columns
    evaluation.summary[numeric] = -1.0
    table = next(iter(ctx.tables().values()))
    try:
        table.group_size[:] = 0
    except ValueError:
        st.write("frozen")
'''
    attacker = AppTest.from_string(script, default_timeout=60)
    attacker.session_state["attack"] = True
    attacker.run()
    assert not attacker.exception, attacker.exception
    assert any(m.value == "frozen" for m in attacker.markdown)
    victim = AppTest.from_string(script, default_timeout=60).run()
    assert not victim.exception
    assert victim.markdown[0].value == attacker.markdown[0].value
    assert float(victim.markdown[0].value) != -1.0
