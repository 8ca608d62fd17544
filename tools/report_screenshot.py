"""Regenerate docs/report.png, the README's picture of the HTML run report.

Runs the built-in leaf-spine with the incast pattern and a spine link that fails at 20 us,
writes its report, and has Debian's headless Chromium take a screenshot of the page's top
(then makes it a palette PNG, a few times smaller). Not run in CI.

    python tools/report_screenshot.py [--out docs/report.png] [--keep-html report.html]
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EVENTS = "- {at: 20us, link: [\"leaf1:p3\", \"spine1:p1\"], state: down}\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "report.png")
    parser.add_argument("--keep-html", type=Path, default=None, help="also keep the report page here")
    parser.add_argument("--size", default="1200,1500", help="window width,height in CSS pixels")
    args = parser.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("error: no chromium (apt-get install chromium)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        (tmp_path / "events.yaml").write_text(EVENTS)
        page = tmp_path / "report.html"
        subprocess.run([sys.executable, "-m", "dataplane", "run", "--traffic", "incast", "--duration", "300us",
                        "--events", str(tmp_path / "events.yaml"), "--report", str(page)],
                       check=True, stdout=subprocess.DEVNULL)
        shot = tmp_path / "shot.png"
        subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        f"--window-size={args.size}", f"--screenshot={shot}", page.as_uri()],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        from PIL import Image  # matplotlib's dependency

        Image.open(shot).convert("RGB").quantize(colors=128).save(args.out, optimize=True)
        if args.keep_html is not None:
            shutil.copy(page, args.keep_html)
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
