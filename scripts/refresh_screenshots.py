"""Refresh the README's screenshots: run the browser tests, then copy their screenshots
from build/screenshots/ to docs/screenshots/ (tracked files change only through this script).

    python scripts/refresh_screenshots.py
    python scripts/refresh_screenshots.py --tests tests/browser/test_browser_layout.py \
        --only tsrr_1280 tsrr_800

``--tests``: the browser tests to run (default: all of tests/browser); ``--only``: the
screenshots to copy, by name without ``.png`` (default: every one the tests wrote), so a
branch refreshes the pages it changed and leaves the others as they are.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "build" / "screenshots"
DOCS = ROOT / "docs" / "screenshots"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", nargs="+", default=["tests/browser"],
                        help="browser test files or node ids to run (default: tests/browser)")
    parser.add_argument("--only", nargs="+", default=None, metavar="NAME",
                        help="copy only these screenshots (names without .png)")
    args = parser.parse_args(argv)
    env = {**os.environ, "TIEDRANK_README_SCREENSHOTS": "1"}  # the layout walk's screenshots too
    status = subprocess.call([sys.executable, "-m", "pytest", "-q", "-m", "browser", *args.tests],
                             cwd=ROOT, env=env)
    if status != 0:
        print("browser tests failed: screenshots not refreshed", file=sys.stderr)
        return status
    images = sorted(BUILD.glob("*.png"))  # every page, and several at 1280 and 800 px
    if args.only is not None:
        missing = set(args.only) - {image.stem for image in images}
        if missing:
            print(f"no screenshot named {', '.join(sorted(missing))} in {BUILD}", file=sys.stderr)
            return 1
        images = [image for image in images if image.stem in set(args.only)]
    for image in images:
        shutil.copy2(image, DOCS / image.name)
    print(f"copied {len(images)} screenshots to {DOCS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
