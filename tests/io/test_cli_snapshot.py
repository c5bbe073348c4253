"""`tfdebug capture`, `info` and `open` from the command line."""

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tfdebug import cli
from tfdebug.commands.capture import ProgressBar
from tfdebug.io.snapshot import open_snapshot


def run(argv, capsys):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture()
def captured(tmp_path, capsys):
    path = tmp_path / "pass.safetensors"
    code, out, err = run(["capture", "--model", "random", "--src", "I love you", "--tgt", "我 爱",
                          "--out", str(path)], capsys)
    assert code == 0, err
    assert "wrote" in out and "117 stages" in out
    return path


def test_capture_writes_a_snapshot(captured):
    with open_snapshot(captured) as rec:
        assert rec.tokens == {"src": ["i", "love", "you"], "tgt": ["<bos>", "我", "爱"]}
        assert rec.names()[0] == "src.embed" and rec.names()[-1] == "logits"


def test_capture_with_stage_patterns(tmp_path, capsys):
    path = tmp_path / "cross.safetensors"
    code, _, err = run(["capture", "--model", "random", "--out", str(path), "--stages", "dec.*.cross_attn.probs",
                        "logits", "--quiet"], capsys)
    assert code == 0, err
    with open_snapshot(path) as rec:
        assert rec.names() == ["dec.0.cross_attn.probs", "dec.1.cross_attn.probs", "logits"]


def test_capture_errors_are_one_line(tmp_path, capsys):
    code, _, err = run(["capture", "--model", "random", "--out", str(tmp_path / "x.safetensors"),
                        "--stages", "nothing.*"], capsys)
    assert code != 0 and err.startswith("tfdebug: No stage matches") and "Traceback" not in err
    code, _, err = run(["capture", "--model", "random", "--out", str(tmp_path / "no" / "x.safetensors")], capsys)
    assert code != 0 and "does not exist" in err and err.count("\n") == 1


def test_info_summarises_a_good_snapshot(captured, capsys):
    code, out, _ = run(["info", str(captured), "--verify"], capsys)
    assert code == 0
    assert "model    random on cpu (float32)" in out
    assert "src      i love you" in out and "tgt      <bos> 我 爱" in out
    assert "stages   117," in out and "bytes of tensors" in out
    assert "enc.0.attn.probs" in out and "softmax" in out and "(1, 4, 3, 3)" in out
    code, out, _ = run(["info", str(captured), "--json"], capsys)
    assert code == 0 and json.loads(out)["format_version"] == 3


def test_info_cuts_a_long_prompt_to_one_line_with_its_length(tmp_path, capsys):
    """A long prompt is its start on one line and its length; `--tokens` prints every token (issue 52)."""
    path = tmp_path / "long.safetensors"
    source = " ".join(["i love you"] * 20)  # 60 words: far wider than a terminal
    code, _, err = run(["capture", "--model", "random", "--src", source, "--tgt", "我", "--out", str(path),
                        "--stages", "logits", "--quiet"], capsys)
    assert code == 0, err
    code, out, _ = run(["info", str(path)], capsys)
    assert code == 0
    line = next(row for row in out.splitlines() if row.startswith("src "))
    assert len(line) <= 100 and line.startswith("src      i love you i love") and "…" in line
    assert "(60 tokens; --tokens prints them all)" in line
    assert "tgt      <bos> 我" in out  # a short stream whole, as before
    code, out, _ = run(["info", str(path), "--tokens"], capsys)
    assert code == 0 and f"src      {source}" in out


@pytest.mark.parametrize("command", ["info", "open"])
def test_bad_file_exits_non_zero_with_one_sentence(command, captured, capsys):
    blob = captured.read_bytes()
    captured.write_bytes(blob[: len(blob) // 2])
    code, out, err = run([command, str(captured)], capsys)
    assert code != 0 and out == ""
    assert err.startswith("tfdebug: The file") and "truncated" in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_open_launches_the_gui_in_replay(captured, capsys, monkeypatch):
    calls = []
    fake = type(sys)("tfdebug.ui.app")
    fake.run_app = lambda **kw: calls.append(kw) or 0
    monkeypatch.setitem(sys.modules, "tfdebug.ui.app", fake)
    code, _, err = run(["open", str(captured)], capsys)
    assert code == 0 and calls == [{"open_path": str(captured), "goto": None, "screenshot": None}], err
    code, _, err = run(["open", str(captured), "--goto", "enc.7.nothing"], capsys)
    assert code != 0 and "no stage named 'enc.7.nothing'" in err and len(calls) == 1


def test_open_screenshot_runs_the_real_window_and_exits(captured, tmp_path):
    shot = tmp_path / "shot.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path),
           "XDG_CONFIG_HOME": str(tmp_path / "config")}
    done = subprocess.run([sys.executable, "-m", "tfdebug", "open", str(captured), "--goto", "enc.0.attn.probs",
                           "--screenshot", str(shot)], env=env, capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr
    assert shot.read_bytes()[:4] == b"\x89PNG"


def test_progress_bar_waits_a_moment_then_draws(monkeypatch):
    stream = io.StringIO()
    bar = ProgressBar(stream=stream, delay=0.0, force=True)
    bar.update("writing", 5_000_000, 10_000_000, "B")
    bar.close()
    assert "\rwriting" in stream.getvalue() and "50%" in stream.getvalue() and "5.0 MB/10.0 MB" in stream.getvalue()
    quiet = io.StringIO()
    slow = ProgressBar(stream=quiet, delay=60.0, force=True)
    slow.update("forward", 1, 2)
    slow.close()
    assert quiet.getvalue() == ""
    not_a_terminal = io.StringIO()
    ProgressBar(stream=not_a_terminal, delay=0.0).update("forward", 1, 2)
    assert not_a_terminal.getvalue() == ""


def test_capture_draws_its_bar_on_stderr_when_slow(tmp_path, capsys, monkeypatch):
    from tfdebug.commands import capture

    class Eager(ProgressBar):
        def __init__(self, **kw):
            super().__init__(stream=sys.stderr, delay=0.0, force=True, **kw)

    monkeypatch.setattr(capture, "ProgressBar", Eager)
    code, out, err = run(["capture", "--model", "random", "--out", str(tmp_path / "p.safetensors")], capsys)
    assert code == 0
    assert "\rforward" in err and "117/117" in err and "\rwriting" in err and "100%" in err
    assert "\r" not in out


def test_capture_verify_never_skips_the_check_and_says_so(tmp_path, capsys, monkeypatch):
    from tfdebug.sessions.session import DebugSession

    checks = []
    real = DebugSession.verify
    monkeypatch.setattr(DebugSession, "verify", lambda self, output: checks.append(1) or real(self, output))
    code, out, err = run(["capture", "--model", "random", "--out", str(tmp_path / "a.safetensors"),
                          "--verify", "never"], capsys)
    assert code == 0, err
    assert checks == [] and "not verified" in out and "--verify never" in out
    code, out, err = run(["capture", "--model", "random", "--out", str(tmp_path / "b.safetensors")], capsys)
    assert code == 0 and checks == [1] and "not verified" not in out  # auto: checked, its verdict printed
    with pytest.raises(SystemExit) as exited:
        cli.main(["capture", "--model", "random", "--out", str(tmp_path / "c.safetensors"), "--verify", "sometimes"])
    assert exited.value.code == 2 and "invalid choice" in capsys.readouterr().err


def test_capture_verify_always_is_refused_when_the_check_cannot_fit(tmp_path, capsys, monkeypatch):
    from tfdebug.commands import capture

    monkeypatch.setattr("tfdebug.sessions.peak.check_fits", lambda session, peak: False)  # fits only without it
    code, out, err = run(["capture", "--model", "random", "--out", str(tmp_path / "a.safetensors"),
                          "--verify", "always"], capsys)
    last = err.splitlines()[-1]  # after the plan's line: one sentence
    assert code == 2 and last.startswith("tfdebug: With the check") and "--verify auto" in last
    assert not (tmp_path / "a.safetensors").exists()
    code, out, err = run(["capture", "--model", "random", "--out", str(tmp_path / "b.safetensors")], capsys)
    assert code == 0 and "check against the model is left out" in err and "not verified" in out
    assert capture.VERIFY == ("auto", "always", "attention", "never")
