"""Your files in the browser (issue 41): ``tiedrank dashboard QRELS DIR`` shows the folder's
runs on the Overview under "Your files", and a run file added to the folder shows after a
reload, with its note."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from browser_support import wait_idle
from conftest import ROOT, TIMEOUT_MS
from server_support import free_port, stop, wait_until_answering

pytestmark = pytest.mark.browser

LLMJUDGE = ROOT / "sample_data" / "llmjudge"


@pytest.fixture()
def files_server(tmp_path):
    """``tiedrank dashboard qrels runs/`` on a copy of LLMJudge's runs, less one run."""
    folder = tmp_path / "runs"
    shutil.copytree(LLMJUDGE / "runs", folder)
    (folder / "willia-umbrela1.txt").rename(tmp_path / "willia-umbrela1.txt")
    port = free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    process = subprocess.Popen(
        [sys.executable, "-m", "tiedrank", "dashboard", str(LLMJUDGE / "qrels.test.txt"),
         str(folder), "-l", "2", "--server.headless", "true", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_answering(process, f"{url}/_stcore/health", why=lambda: "no server")
        yield url, folder, tmp_path / "willia-umbrela1.txt"
    finally:
        stop(process)


def test_files_from_the_command_line_show_and_a_new_one_after_reload(chromium, files_server):
    url, folder, extra = files_server
    context = chromium.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    try:
        page.goto(url)
        wait_idle(page, "text=Your files: 7 runs")
        sidebar = page.get_by_test_id("stSidebar")
        assert sidebar.get_by_role("radio", name="Your files").is_checked()
        table = page.get_by_test_id("stDataFrame").first
        table.wait_for()
        assert "dataset=files" in page.url
        shutil.copy(extra, folder / extra.name)
        page.reload()
        wait_idle(page, "text=Your files: 8 runs")
        page.get_by_text("willia-umbrela1 added").first.wait_for()
        assert str(folder) not in page.content()
        assert page.locator('[data-testid="stException"]').count() == 0
    finally:
        context.close()
