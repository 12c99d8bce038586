"""Regenerate docs/report-diff.png, the README's picture of a `--report` page:

    python docs/make_screenshot.py

Writes the diff report of the README's worked example and photographs its first screen in
headless Chromium (the same DevTools-pipe driver the report tests use).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from headless_browser import HeadlessBrowser  # noqa: E402

CHARTS_DRAWN = "Array.from(document.querySelectorAll('.chart')).every(d => d.querySelector('svg.main-svg g.cartesianlayer'))"


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "diff.html"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "kschedctl",
                "diff",
                "examples/whatif-cluster.yaml",
                "--config-b",
                "profiles/bin-packing.yaml",
                "--report",
                str(page),
            ],
            cwd=ROOT,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        with HeadlessBrowser(width=1200, height=1250) as browser:
            browser.open(page)
            browser.wait_until(CHARTS_DRAWN)
            browser.screenshot(ROOT / "docs" / "report-diff.png", full_page=False)


if __name__ == "__main__":
    main()
