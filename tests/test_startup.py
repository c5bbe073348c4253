"""Commands that only read files start without torch or Qt (importing torch alone takes 1–2 s).

Each command runs in a fresh interpreter, which then reports what it imported.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tfdebug.cli import main

V1 = Path(__file__).parent / "io" / "data" / "v1_random.safetensors"

# Runs the CLI like `python -m tfdebug ARGS`, then prints which heavy modules it imported.
PROBE = """
import sys
from tfdebug.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:  # argparse's --help exits
    code = exc.code
print("\\n@@" + __import__("json").dumps({"code": code, "loaded": [m for m in ("torch", "PySide6", "numpy",
      "safetensors") if m in sys.modules]}))
"""


def _probe(*args: str) -> tuple[dict, str]:
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=120)
    out, _, report = done.stdout.rpartition("\n@@")
    assert report, done.stderr
    return json.loads(report), out


@pytest.fixture(scope="module")
def v2_snapshot(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("startup") / "pass.safetensors"
    assert main(["capture", "--model", "random", "--out", str(path)]) == 0
    return path


@pytest.mark.parametrize("args", [("--help",), ("stages", "--help"), ("info", "--help"), ("bench", "--help"), ("--version",)])
def test_help_imports_neither_torch_nor_qt(args):
    report, out = _probe(*args)
    assert report["code"] == 0
    assert "usage: tfdebug" in out or out.startswith("tfdebug ")
    assert "torch" not in report["loaded"] and "PySide6" not in report["loaded"]


def test_top_level_help_still_lists_every_command():
    report, out = _probe("--help")
    for command in ("gui", "stages", "capture", "info", "diff", "bench"):
        assert command in out


@pytest.mark.parametrize("as_json", [False, True])
def test_info_reads_a_snapshot_without_torch(v2_snapshot, as_json):
    report, out = _probe("info", *(["--json"] if as_json else []), str(v2_snapshot))
    assert report["code"] == 0
    assert report["loaded"] == []  # not even numpy: the header is JSON
    if as_json:
        doc = json.loads(out)
        assert doc["format_version"] == 3 and doc["stages"]
    else:
        assert "stages   " in out and "bytes of tensors" in out


def test_info_of_a_format_1_snapshot_without_torch():
    report, out = _probe("info", str(V1))
    assert report["code"] == 0 and report["loaded"] == []
    assert "format 1" in out


def test_info_counts_the_same_bytes_as_the_opened_snapshot(v2_snapshot, capsys):
    from tfdebug.io.snapshot import open_snapshot

    with open_snapshot(v2_snapshot) as recording:
        nbytes = recording.nbytes
    assert main(["info", str(v2_snapshot)]) == 0
    assert f"{nbytes:,} bytes of tensors" in capsys.readouterr().out


def test_a_damaged_snapshot_is_still_refused_without_torch(tmp_path, v2_snapshot):
    bad = tmp_path / "bad.safetensors"
    data = bytearray(v2_snapshot.read_bytes())
    bad.write_bytes(bytes(data[:-1]))  # one byte short: the last tensor ends past the end
    report, _ = _probe("info", str(bad))
    assert report["code"] == 2 and "torch" not in report["loaded"]


def test_info_verify_still_reads_every_tensor(v2_snapshot):
    report, out = _probe("info", "--verify", str(v2_snapshot))
    assert report["code"] == 0 and "stages read back" in out


@pytest.mark.parametrize("command", [("stages",), ("capture", "--out", "never.safetensors"), ()])
@pytest.mark.parametrize("model, said", [
    ("hf:/no/such/folder", "No model folder at /no/such/folder."),
    ("/no/such/folder", "Unknown model '/no/such/folder'"),
    ("hf:no-such-org/no-such-model", "is not in the Hugging Face cache"),
])
def test_a_model_that_cannot_load_is_refused_before_torch(tmp_path, command, model, said):
    # `()` is the window (the default command): refused on the command line before Qt or torch loads.
    env_cache = {"HF_HUB_CACHE": str(tmp_path / "empty-cache")}
    done = subprocess.run([sys.executable, "-c", PROBE, *command, "--model", model], capture_output=True, text=True,
                          timeout=120, env={**__import__("os").environ, **env_cache}, cwd=tmp_path)
    report = json.loads(done.stdout.rpartition("\n@@")[2])
    assert report["code"] == 2
    assert said in done.stderr and done.stderr.count("\n") == 1  # one sentence, no traceback
    assert "torch" not in report["loaded"] and "PySide6" not in report["loaded"]


def test_a_folder_that_is_not_a_model_is_refused_before_torch(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    report, _ = _probe("stages", "--model", f"hf:{tmp_path}")
    assert report["code"] == 2 and "torch" not in report["loaded"]


# Runs `tfdebug ARGS` (the window) and reports whether torch had been imported when the window was first shown.
SHOW_PROBE = """
import json, sys
from tfdebug.cli import main
from tfdebug.ui.shell import window as window_module

shown = []
show_event = window_module.MainWindow.showEvent


def noting_show(self, event):  # the real showEvent, and a note of what was imported by then
    shown.append(sorted(m for m in ("torch", "transformers") if m in sys.modules))
    show_event(self, event)


window_module.MainWindow.showEvent = noting_show
code = main(sys.argv[1:])
report = {"code": code, "at_show": shown[0] if shown else None, "torch_at_end": "torch" in sys.modules}
print("\\n@@" + json.dumps(report))
"""


def test_the_window_is_shown_before_torch_is_imported_and_then_paints_the_first_stage(tmp_path):
    # The real start-up path (`tfdebug --fresh`, the default command): the window is up while torch loads behind
    # it; --screenshot saves the window once its first stage is painted, so the run ends with the demo's pass shown.
    picture = tmp_path / "window.png"
    env = {**__import__("os").environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-c", SHOW_PROBE, "--fresh", "--screenshot", str(picture)],
                          capture_output=True, text=True, timeout=600, env=env, cwd=tmp_path)
    report = json.loads(done.stdout.rpartition("\n@@")[2] or "{}")
    assert report.get("code") == 0, done.stderr[-2000:]
    assert report["at_show"] == []  # neither torch nor transformers when the window first showed
    assert report["torch_at_end"] and picture.stat().st_size > 0  # then the pass ran and was painted
