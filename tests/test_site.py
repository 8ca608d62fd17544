"""The documentation site builds: `mkdocs build --strict` over docs/ and mkdocs.yml, so a broken
link or anchor, a page left out of the navigation, or an API page whose module or name no
longer exists fails the suite (the pages' examples are tests/test_readme.py's)."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.no_pypy   # the site is the same bytes under PyPy; the test extra installs mkdocs on CPython


def _build(config: Path, site: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}     # material's notice about its successor, not a warning
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config),
                           "--site-dir", str(site)], cwd=config.parent, capture_output=True, text=True, timeout=600,
                          env=env)


def test_the_site_builds_strictly(tmp_path):
    """Every page builds with no warning: links and anchors resolve, every page is in the nav, and
    the API pages find their modules in this checkout."""
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    pytest.importorskip("mkdocstrings_handlers.python")
    r = _build(ROOT / "mkdocs.yml", tmp_path / "site")
    assert r.returncode == 0, r.stderr[-4000:]
    for page in ("index.html", "commands/run/index.html", "api/switch/index.html"):
        assert (tmp_path / "site" / page).is_file(), page
    # the API pages hold the docstrings, not just their headings
    assert "send_and_dissect" in (tmp_path / "site" / "api" / "switch" / "index.html").read_text()


@pytest.mark.parametrize("link, caught", [("other.md#other", False), ("other.md#no-such-heading", True),
                                         ("no-such-page.md", True)])
def test_a_broken_link_fails_the_build(tmp_path, link, caught):
    """mkdocs.yml's own settings make the build strict about links: a page linking to a heading or
    a page that does not exist stops it, a good link does not (two pages built with the site's
    settings, its nav and API plugin left out)."""
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    config["nav"] = ["index.md", "other.md"]
    config["plugins"] = [p for p in config["plugins"] if p == "search"]
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text(f"# Home\n\n[there]({link})\n")
    (tmp_path / "docs" / "other.md").write_text("# Other\n")
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config))
    r = _build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert (r.returncode != 0) is caught, r.stderr[-2000:]


def test_every_public_name_has_an_api_page():
    """Each name ``dataplane`` exports is rendered on a Python API page, where it is defined (a
    ``::: module.name`` line, or a member listed under its module's)."""
    import dataplane

    text = "\n".join(p.read_text() for p in sorted((ROOT / "docs" / "api").glob("*.md")))
    rendered = set(re.findall(r"^::: [\w.]+\.(\w+)$", text, re.M))
    rendered |= {name for names in re.findall(r"members: \[([^\]]*)\]", text) for name in re.split(r",\s*", names)}
    missing = [name for name in dataplane.__all__ if name != "__version__" and name not in rendered]
    assert missing == []
