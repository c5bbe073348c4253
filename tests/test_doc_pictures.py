"""The docs' window pictures cannot go stale: each scripted picture has the texts its window showed
beside it (NAME.json), and rerunning the script headless gives the same texts (not pixels).

A change to the window that a picture would show (a stage count, a menu, a dock, a caption)
fails here until the picture is made again: `python docs/make_screenshots.py` and
`python docs/make_learn_screenshots.py` (CONTRIBUTING.md, Pictures)."""

import importlib.util
import json
import os
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


SCRIPTS = ("make_screenshots", "make_learn_screenshots", "make_model_screenshots")


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
                                          ("make_model_screenshots", "hf-qwen3-q-norm")])
def test_the_script_still_makes_what_the_picture_shows(script, name, tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, str(DOCS / f"{script}.py"), str(tmp_path), "--only", name],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=280)
    assert done.returncode == 0, done.stderr[-3000:]
    made = json.loads((tmp_path / f"{name}.json").read_text(encoding="utf-8"))
    committed = json.loads((DOCS / f"{name}.json").read_text(encoding="utf-8"))
    assert made == committed, (f"docs/{name}.png no longer shows what the window does; make it again with "
                               f"python docs/{script}.py (the texts differ: {made} != {committed})")
