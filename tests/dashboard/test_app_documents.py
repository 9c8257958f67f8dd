"""AppTest: Tie structure shows the bundled corpus's text beside each tie group."""
import gzip
from pathlib import Path

from streamlit.testing.v1 import AppTest

from apptest_support import APP, assert_no_trouble

SIM = Path(__file__).resolve().parents[2] / "sample_data" / "simulated"


def test_tie_structure_shows_bundled_texts():
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["dataset"] = "simulated"
    at.session_state["rel_level"] = 1
    at.run()
    at.switch_page("pages/tie_structure.py")
    at.run()
    assert_no_trouble(at)
    with gzip.open(SIM / "corpus.tsv.gz", "rt") as fh:
        texts = dict(line.rstrip("\n").split("\t", 1) for line in fh)
    frames = [df.value for df in at.dataframe if "text" in getattr(df.value, "columns", [])]
    assert frames, "no document-text table on Tie structure"
    shown = frames[0]
    assert len(shown) and all(texts[d] == t for d, t in zip(shown["doc"], shown["text"]))
    headers = [h.value for h in at.header]
    assert "Document text of this query's tie groups" in headers
