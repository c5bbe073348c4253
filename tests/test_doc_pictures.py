"""The docs' window pictures cannot go stale: each scripted picture has the texts its window showed
beside it (NAME.json), and rerunning the script headless gives the same texts (not pixels).

A change to the window that a picture would show (a stage count, a menu, a dock, a caption)
fails here until the picture is made again with the script that lists it (CONTRIBUTING.md,
Pictures). Every picture README.md and docs/ show is listed by one of the scripts, and the figures
the user guide quotes beside a picture are the ones its script recorded."""

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


def script_pictures(script: str) -> tuple[str, ...]:
    spec = importlib.util.spec_from_file_location(script, DOCS / f"{script}.py")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(DOCS))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(DOCS))
    return module.PICTURES


SCRIPTS = ("make_screenshots", "make_learn_screenshots", "make_model_screenshots", "make_compare_screenshots",
           "make_long_context_screenshots", "make_vision_screenshots", "make_why_screenshots")


def test_every_picture_the_docs_show_is_made_by_a_script():
    scripted = {name for script in SCRIPTS for name in script_pictures(script)}
    shown = set()
    for page in [ROOT / "README.md", *DOCS.glob("*.md")]:
        shown |= {Path(m).stem for m in re.findall(r"\]\(([^)\s]+\.png)\)", page.read_text(encoding="utf-8"))}
    on_disk = {path.stem for path in DOCS.glob("*.png")}
    assert shown and shown - scripted == set() and on_disk - scripted == set()


def test_the_figures_quoted_beside_the_compare_pictures_are_the_recorded_ones():
    guide = (DOCS / "user-guide.md").read_text(encoding="utf-8")
    compare = json.loads((DOCS / "compare-view.json").read_text(encoding="utf-8"))
    rms = json.loads((DOCS / "overview-rms.json").read_text(encoding="utf-8"))["quoted"]
    assert f"the logits move by up to {compare['logits max |Δ|']}." in guide
    scores, scaled = rms["dec.0.self_attn.scores"], rms["dec.0.self_attn.scaled"]
    assert f"(RMS {scores} at dec.0.self_attn.scores, {scaled} once scaled)" in guide


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_scripted_picture_has_its_texts_beside_it(script):
    for name in script_pictures(script):
        assert (DOCS / f"{name}.png").is_file(), name
        texts = json.loads((DOCS / f"{name}.json").read_text(encoding="utf-8"))
        assert texts.get("size") and (texts.get("stage") or texts.get("title")), name


# A cheap subset: one picture of each script (the stepped stage goes through typing, Return and F10).
@pytest.mark.slow
@pytest.mark.parametrize("script, name", [("make_screenshots", "gui-stepped-dec.0.self_attn.masked"),
                                          ("make_learn_screenshots", "learn-playground"),
                                          ("make_model_screenshots", "hf-qwen3-q-norm"),
                                          # File ▸ Open's dialog answered by a click on the file's row
                                          ("make_screenshots", "gui-zh-damaged-snapshot"),
                                          ("make_compare_screenshots", "overview-rms"),
                                          ("make_vision_screenshots", "vision-vit-cls-attention")])
def test_the_script_still_makes_what_the_picture_shows(script, name, tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, str(DOCS / f"{script}.py"), str(tmp_path), "--only", name],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=280)
    assert done.returncode == 0, done.stderr[-3000:]
    made = json.loads((tmp_path / f"{name}.json").read_text(encoding="utf-8"))
    committed = json.loads((DOCS / f"{name}.json").read_text(encoding="utf-8"))
    assert made == committed, (f"docs/{name}.png no longer shows what the window does; make it again with "
                               f"python docs/{script}.py (the texts differ: {made} != {committed})")
