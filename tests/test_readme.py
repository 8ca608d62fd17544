"""README's examples work as written, from any folder."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_python_example_runs_from_another_folder(tmp_path):
    text = README.read_text()
    block = re.search(r"From Python.*?```python\n(.*?)```", text, re.S)
    assert block, "README has no 'From Python' example"
    r = subprocess.run([sys.executable, "-c", block.group(1)], cwd=tmp_path, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
