"""Arguments and text from files reach tfdebug checked and the terminal escaped: exit 2 and one sentence."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tfdebug import cli
from tfdebug.commands.arguments import argv_problem, finite_number
from tfdebug.core.errors import InputError
from tfdebug.core.safe_text import has_unsafe
from tfdebug.models.sampling import DecodingSettings

def run(argv, capsys):
    try:
        code = cli.main(argv)
    except SystemExit as stop:  # argparse's own refusal (an unparsable number) exits from inside parsing
        code = stop.code
    out, err = capsys.readouterr()
    return code, out, err


def one_sentence(argv, capsys) -> str:
    code, out, err = run(argv, capsys)
    assert code == 2, (out, err)
    assert err.startswith("tfdebug: ") and err.count("\n") == 1 and not has_unsafe(err.rstrip("\n")), err
    return err


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e400", "-1"])
def test_a_capture_budget_that_is_not_a_finite_size_is_one_sentence(value, capsys, tmp_path):
    err = one_sentence(["capture", "--model", "random", f"--max-capture-mb={value}", "--out",
                        str(tmp_path / "x.safetensors")], capsys)
    assert "--max-capture-mb takes a finite number" in err
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("args,words", [
    (["--temperature", "inf"], "temperature"), (["--temperature", "nan"], "temperature"),
    (["--temperature", "1e-45"], "temperature"), (["--temperature", "0"], "temperature"),
    (["--seed", str(2**70)], "seed"), (["--seed", str(-(2**64))], "seed"),
    (["--top-p", "nan"], "Top-p"), (["--seed", "2**70"], "invalid int value"),
])
def test_decoding_settings_a_sampler_cannot_use_are_one_sentence(args, words, capsys):
    assert words in one_sentence(["generate", "--model", "random", "--sample", *args], capsys)


def test_the_bounds_of_the_decoding_settings_themselves_are_accepted():
    DecodingSettings(sample=True, temperature=1e-4, seed=2**64 - 1)
    DecodingSettings(sample=True, temperature=1e4, seed=-(2**63))


@pytest.mark.parametrize("argv", [["stages", "--model", "random", "--src", "\udcff"],
                                  ["capture", "--model", "random", "--out", "\udcffx.safetensors"],
                                  ["info", "\ud800.safetensors"]])
def test_arguments_that_are_not_utf8_are_one_sentence(argv, capsys):
    assert "is not valid UTF-8" in one_sentence(argv, capsys)
    assert argv_problem(["ok", "我"]) is None


def test_invalid_utf8_bytes_in_a_real_argv_under_a_strict_locale_are_one_sentence():
    done = subprocess.run([sys.executable.encode(), b"-m", b"tfdebug", b"stages", b"--model", b"random",
                           b"--src", b"\xff\xfe"], capture_output=True, timeout=120,
                          env={"LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "utf-8:strict", "PATH": "/usr/bin:/bin"})
    assert done.returncode == 2, done.stderr
    assert done.stderr.count(b"\n") == 1 and b"not valid UTF-8" in done.stderr


def test_an_unknown_argument_is_echoed_escaped_on_one_line(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["stages", "--bogus\x1b[2J\ntfdebug: forged"])
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.count("\n") == 1 and "\\x1b[2J\\ntfdebug: forged" in err


def test_text_a_model_produces_reaches_stdout_escaped(capsys, monkeypatch):
    import tfdebug.commands.stages as stages

    real = stages.format_table
    monkeypatch.setattr(stages, "format_table", lambda rows: real(rows) + "\n\x1b]0;pwned\x07\u202e")
    code, out, _ = run(["stages", "--model", "random"], capsys)
    assert code == 0 and "\x1b" not in out and "\u202e" not in out and "\\x1b]0;pwned\\x07\\u202e" in out


def test_finite_number_names_the_option():
    assert finite_number(2.5, "--x") == 2.5 and finite_number(None, "--x") is None
    with pytest.raises(InputError, match=r"--x takes a finite number from 0 to 1, not inf"):
        finite_number(float("inf"), "--x", most=1)


@pytest.mark.parametrize("text", ["\\ud800", "\\udcff tail", "\\u001b[2J", "a\\u202eb"])
def test_a_manifest_string_with_a_lone_surrogate_or_control_is_one_sentence(snapshot_path, capsys, text):
    import json
    import struct

    blob = snapshot_path.read_bytes()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n])
    manifest = json.loads(header["__metadata__"]["tfdebug"])
    manifest["model"] = "MODEL"
    raw = json.dumps(manifest).replace('"MODEL"', '"' + text + '"')  # JSON escapes json.dumps would not write
    header["__metadata__"]["tfdebug"] = raw
    head = json.dumps(header).encode()
    snapshot_path.write_bytes(struct.pack("<Q", len(head)) + head + blob[8 + n:])
    assert "holds control characters or broken Unicode" in one_sentence(["info", str(snapshot_path)], capsys)
