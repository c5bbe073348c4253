"""The docs hold together: README stays short, every relative link and picture exists, every
generated table finds its JSON, and the MkDocs site builds with --strict (when mkdocs is installed)."""

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "CHANGELOG.md", *sorted(DOCS.rglob("*.md"))]
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
IMG = re.compile(r"<img[^>]*\ssrc=\"([^\"]+)\"")


def relative_targets(page: Path) -> list[str]:
    """The link and picture targets of `page` that point into the repository (code blocks left out)."""
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    targets = LINK.findall(text) + IMG.findall(text)
    return [t for t in targets if not re.match(r"^[a-z][a-z0-9+.-]*:", t) and not t.startswith("#")]


def load_gen_tables():
    spec = importlib.util.spec_from_file_location("gen_tables", DOCS / "gen_tables.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_readme_is_a_five_minute_read():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= 220, f"README.md has {lines} lines; move detail to docs/"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_and_picture_exists(page):
    missing = [t for t in relative_targets(page) if not (page.parent / t.split("#")[0]).exists()]
    assert not missing, f"{page.relative_to(ROOT)} points at files that do not exist: {missing}"


def test_the_link_check_sees_a_dead_link(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("![a](gone.png) [b](https://example.org) [c](#here)\n```\n[d](x.md)\n```\n", encoding="utf-8")
    assert relative_targets(page) == ["gone.png"]


def test_every_table_marker_is_filled_from_its_json():
    gen = load_gen_tables()
    for page in sorted(DOCS.rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        filled = gen.fill(text)
        assert not gen.MARKER.search(filled), page
        for name in gen.MARKER.findall(text):
            assert gen.TABLES[name]().strip(), f"{page.name}: table {name} is empty"
    bench = gen.load("docs/bench-cpu-2core.json")
    assert f"{bench['capture_overhead'][0]['taps_only_ms']:,.1f}" in gen.TABLES["capture-overhead"]()


def test_no_table_is_made_from_a_run_whose_aa_did_not_hold(tmp_path, monkeypatch):
    gen = load_gen_tables()
    monkeypatch.setattr(gen, "ROOT", tmp_path)
    (tmp_path / "busy.json").write_text(json.dumps({"run": {"aa_held": False, "too_busy": ["peers"]}}))
    (tmp_path / "held.json").write_text(json.dumps({"run": {"aa_held": True}, "x": 1}))
    with pytest.raises(ValueError, match="machine too busy"):
        gen.load("busy.json")
    assert gen.load("held.json")["x"] == 1


def test_an_unknown_table_marker_fails():
    with pytest.raises(KeyError):
        load_gen_tables().fill("<!-- table: no-such-table -->\n")


@pytest.mark.slow
@pytest.mark.skipif(any(importlib.util.find_spec(m) is None for m in ("mkdocs", "mkdocstrings", "material")),
                    reason="the docs extra is not installed (pip install -e '.[docs]')")
def test_the_site_builds_strictly(tmp_path):
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=280)
    assert done.returncode == 0, done.stderr[-4000:]
    api = (tmp_path / "site" / "api" / "core" / "index.html").read_text(encoding="utf-8")
    assert 'id="tfdebug.core.stepper.Stepper"' in api  # the API page lists the core's public names
    bench = (tmp_path / "site" / "benchmarks" / "index.html").read_text(encoding="utf-8")
    assert "<!-- table:" not in bench and bench.count("<table>") >= 9


def test_the_install_page_shows_the_readmes_install_lines():
    """docs/install.md is the README's Quick start, copied at build time (issue 52): one source for both."""
    gen = load_gen_tables()
    page = (DOCS / "install.md").read_text(encoding="utf-8")
    assert "<!-- table: readme-quick-start -->" in page
    filled = gen.fill(page)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for line in ('pip install torch==2.13.0 && pip install -e ".[hf]" && tfdebug', "sudo apt-get install -y libegl1",
                 "sudo dnf install -y mesa-libEGL"):
        assert line in filled and line in readme
    assert "install.md" in (DOCS / "index.md").read_text(encoding="utf-8")
    assert "Install: install.md" in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
