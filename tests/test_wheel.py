"""The wheel carries the demo model, and an install of it finds the model through importlib.resources."""

import importlib.util
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEMO_FILES = ("config.json", "model.safetensors", "vocab.en.txt", "vocab.zh.txt", "corpus.tsv.gz", "metrics.json")


def _build_command(src: Path, out: Path) -> list[str]:
    # Offline: no isolated build environment (it would download setuptools); the
    # installed setuptools builds the wheel itself.
    if importlib.util.find_spec("build") is not None:
        return [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--skip-dependency-check",
                "--outdir", str(out), str(src)]
    return [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
            "-w", str(out), str(src)]


@pytest.mark.slow
def test_the_wheel_contains_the_demo_model(tmp_path):
    # Build from a copy so the build/ and egg-info folders never land in the checkout.
    src = tmp_path / "src"
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("tfdebug", "resources"):
        shutil.copytree(ROOT / folder, src / folder, ignore=skip)
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    out = tmp_path / "dist"
    proc = subprocess.run(_build_command(src, out), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    wheel = next(out.glob("tfdebug-*.whl"))

    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        for name in DEMO_FILES:
            assert f"tfdebug/resources/demo/{name}" in names, name
        assert "tfdebug/resources/__init__.py" in names
        for name in ("config.json", "model.safetensors", "tokenizer.json"):  # the bundled Hugging Face model
            assert f"tfdebug/resources/tiny-gpt2/{name}" in names, name
        assert "tfdebug/resources/i18n/tfdebug_zh_CN.qm" in names  # the Chinese window
        for init in (ROOT / "tfdebug").rglob("__init__.py"):  # every subpackage ships (pyproject lists them)
            assert init.relative_to(ROOT).as_posix() in names, init
        site = tmp_path / "site"
        zf.extractall(site)  # a pure-Python wheel installs by unpacking it

    # From outside the checkout, the unpacked wheel alone must load and run the demo.
    code = ("from tfdebug.models.loader import default_model_name, load_model;"
            "from tfdebug.models.bundled import demo_dir;"
            "from tfdebug.models.translate import translate;"
            "print(demo_dir()); print(default_model_name()); print(translate(load_model('demo'), 'I love you').text)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
                         env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"}, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    demo_dir, name, text = run.stdout.strip().splitlines()
    assert Path(demo_dir).is_relative_to(site)
    assert (name, text) == ("demo", "我 爱 你")
    cli = subprocess.run([sys.executable, "-m", "tfdebug", "translate", "I love you"], capture_output=True,
                         text=True, cwd=tmp_path, env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"},
                         timeout=300)
    assert cli.returncode == 0 and cli.stdout.strip() == "我 爱 你", cli.stderr[-2000:]
