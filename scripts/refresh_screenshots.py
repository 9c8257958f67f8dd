"""Refresh the README's screenshots: run the browser tests, then copy their screenshots
from build/screenshots/ to docs/screenshots/ (tracked files change only through this script).

    python scripts/refresh_screenshots.py
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "build" / "screenshots"
DOCS = ROOT / "docs" / "screenshots"


def main() -> int:
    status = subprocess.call([sys.executable, "-m", "pytest", "-q", "-m", "browser", "tests/browser"],
                             cwd=ROOT)
    if status != 0:
        print("browser tests failed: screenshots not refreshed", file=sys.stderr)
        return status
    copied = 0
    for image in sorted(BUILD.glob("*.png")):  # every page, and Overview/Compare/Learn at 1280 and 800 px
        shutil.copy2(image, DOCS / image.name)
        copied += 1
    print(f"copied {copied} screenshots to {DOCS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
