"""The server's background imports: heavy modules (scipy.stats) are imported once per
process, off the page's thread, so the first visit to Compare does not pay for them."""
from __future__ import annotations

import sys
import threading

from tiedrank.dashboard.warmup import HEAVY_MODULES, BackgroundImports


def test_background_imports_run_once_in_their_own_thread(tmp_path, monkeypatch):
    (tmp_path / "slow_to_import.py").write_text(
        "import threading\nIMPORTED_BY = threading.current_thread().name\n")
    (tmp_path / "broken_module.py").write_text("raise RuntimeError('not importable')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "slow_to_import", raising=False)
    imports = BackgroundImports(("broken_module", "slow_to_import"))
    thread = imports.start()
    assert thread is not threading.current_thread() and thread.daemon
    assert imports.start() is None
    thread.join(30)
    assert sys.modules["slow_to_import"].IMPORTED_BY == "tiedrank-warm-up"  # the one failing is skipped
    monkeypatch.delitem(sys.modules, "slow_to_import")


def test_the_server_warms_up_scipy_stats():
    assert "scipy.stats" in HEAVY_MODULES
