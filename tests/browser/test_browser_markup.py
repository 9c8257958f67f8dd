"""Nothing from a file is rendered as markup (issue 29, item 2): a run tagged
``![t](http://127.0.0.1:PORT/tag.png)`` made the browser fetch that address on every page (a
tracking pixel: whoever hands over a run learns when and where it is opened), plain URLs
became links, ``b**bold**`` rendered bold (and ``:smile:`` an emoji).

Uploads whose run tags, query id, document id, label-run file name and column name are
Markdown, served beside a local HTTP server that counts the requests it gets: every page is
visited; the server gets no request, the browser asks for none of the addresses, no link
points at them, and the tag is shown as typed.
"""
from __future__ import annotations

import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from browser_support import MENU, wait_idle

pytestmark = pytest.mark.browser

PAGES = {"Tie structure": "tie_structure", "Spread": "spread", "TsRR": "tsrr",
         "Compare": "compare", "Judge agreement": "agreement",
         "Two runs, one query": "side_by_side", "Simulator": "simulator", "Checkpoints": "checkpoints",
         "Overview": "overview"}
"""Every page but Learn (a toy ranking typed on the page, no file), by its title in the
menu and its address."""


class _Counter(BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        type(self).hits.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


@pytest.fixture()
def pixel_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Counter)
    _Counter.hits = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", _Counter.hits
    finally:
        server.shutdown()
        server.server_close()


def _files(tmp_path, base: str) -> dict[str, object]:
    """12 ordinary queries and one whose id is an image; the baseline (uploaded first,
    tagged with the pixel) loses to a run tagged ``b**bold**`` on every query, and a label
    run (qrels format) is named by its file, an image of a relative address."""
    tag, query, doc = f"![t]({base}/tag.png)", f"![q]({base}/q.png)", f"![d]({base}/d.png)"
    queries = [f"q{i:02d}" for i in range(12)] + [query]
    qrels, worse, better, labels = [], [], [], []
    for i, q in enumerate(queries):
        first = doc if q == query else "d1"
        qrels += [f"{q} 0 {first} 2", f"{q} 0 d2 1", f"{q} 0 d3 0", f"{q} 0 d4 0"]
        order = ["d3", "d4", first, "d2"] if i % 2 else ["d4", first, "d3", "d2"]
        worse += [f"{q} Q0 {d} {r + 1} {4 - r if r != 1 else 3} {tag}" for r, d in enumerate(order)]
        better += [f"{q} Q0 {d} {r + 1} {4 - r} b**bold**:smile:"
                   for r, d in enumerate([first, "d2", "d3", "d4"])]
        labels += [f"{q} 0 {first} 2", f"{q} 0 d2 {i % 2}", f"{q} 0 d3 0", f"{q} 0 d4 1"]
    paths = {"qrels.txt": qrels, "worse.txt": worse, "better.txt": better,
             "![j](j.png).txt": labels}
    out = {}
    for name, lines in paths.items():
        out[name] = tmp_path / name
        out[name].write_text("\n".join(lines) + "\n")
    out["tag"] = tag
    return out


def test_file_text_is_never_markup_on_any_page(ui, tmp_path, pixel_server):
    base, hits = pixel_server
    files = _files(tmp_path, base)
    asked: list[str] = []
    ui.page.on("request", lambda request: asked.append(request.url))

    ui.page.goto(f"{ui.url}/?dataset=upload")
    ui.wait('[data-testid="stFileUploader"]')
    uploaders = ui.page.get_by_test_id("stFileUploader")
    uploaders.nth(0).locator('input[type="file"]').set_input_files(str(files["qrels.txt"]))
    wait_idle(ui.page)
    uploaders.nth(1).locator('input[type="file"]').set_input_files(
        [str(files[name]) for name in ("worse.txt", "better.txt", "![j](j.png).txt")])
    ui.wait(r'text=/Uploaded\W*: 3 runs/')  # a word joiner before the colon
    shown = ui.page.get_by_test_id("stMain").inner_text().replace("\u2060", "")  # invisible
    assert f"Uploaded: 3 runs ({files['tag']}, b**bold**:smile:, ![j](j.png))" in shown

    for title, path in PAGES.items():
        ui.page.locator(MENU).get_by_text(title, exact=True).click()
        ui.page.wait_for_url(re.compile(rf"/{path}\b|/\?" if path == "overview" else rf"/{path}\b"))
        wait_idle(ui.page, "h1")
        ui.page.wait_for_timeout(500)  # images ask for their address when drawn
        wait_idle(ui.page)
        assert ui.exceptions() == 0, title
        main = ui.page.get_by_test_id("stApp")
        links = main.locator(f'a[href*="{base}"], a[href*="j.png"], img[src*="{base}"]')
        assert links.count() == 0, (title, [a.evaluate("e => e.closest('[data-testid]').getAttribute('data-testid') + ' ' + e.closest('[data-testid]').outerHTML.slice(0, 600)") for a in links.all()])
        bold = main.locator("strong, b").filter(has_text=re.compile(r"^bold$"))
        assert bold.count() == 0, title
        assert hits == [], (title, hits)

    assert hits == [], hits
    assert [url for url in asked if re.search(r"(tag|q|d|j)\.png", url)] == []
    ui.page.locator(MENU).get_by_text("Compare", exact=True).click()
    wait_idle(ui.page, 'h1:has-text("Compare runs")')
    assert "Significantly better than " + files["tag"] in \
        ui.page.get_by_test_id("stMain").inner_text().replace("\u2060", "")
