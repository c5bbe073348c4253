"""The one export-format registry: what exports, `capture --out` and the window offer comes from it."""

import json

import pytest

from tfdebug import cli
from tfdebug.core.errors import ExportError
from tfdebug.io import formats as registry
from tfdebug.io.exports import export_pass, load_export
from tfdebug.io.formats import ExportFormat, format_for, formats, register, suffixes


@pytest.fixture()
def names_format():
    """A toy pass format registered for one test: the stage names as JSON."""
    saved = dict(registry._REGISTRY)
    written = []

    def write(recording, path, progress=None):
        written.append(path)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(recording.names(), f)

    register(ExportFormat(".names", "Stage names (.names)", "pass", write))
    yield written
    registry._REGISTRY.clear()
    registry._REGISTRY.update(saved)


def test_the_built_in_formats_in_the_order_offered():
    assert suffixes() == (".safetensors", ".npz", ".pt", ".csv", ".png", ".svg")
    assert suffixes("pass") == (".safetensors", ".npz", ".pt")
    assert all(f.reader is not None for f in formats("pass"))
    assert all(f.reader is None for f in formats("view"))


def test_suffix_and_scope_lookups_are_sentences():
    assert format_for("a/B.NPZ").suffix == ".npz" and format_for("x.bin", "pt").suffix == ".pt"
    with pytest.raises(ExportError, match=r"^Cannot export to \.xlsx: choose a \.safetensors, \.npz, \.pt, \.csv, "
                                          r"\.png or \.svg file\.$"):
        format_for("pass.xlsx")
    with pytest.raises(ExportError, match=r"^A whole pass cannot be exported as \.png; choose \.safetensors, \.npz "
                                          r"or \.pt\.$"):
        format_for("pass.png", scope="pass")
    with pytest.raises(ExportError, match="no suffix"):
        format_for("pass", scope="pass")


def test_a_registered_format_is_used_by_exports_and_capture(names_format, recording, tmp_path, capsys):
    export_pass(recording, tmp_path / "a.names", stages=["logits", "src.embed"])
    assert json.loads((tmp_path / "a.names").read_text()) == ["src.embed", "logits"]
    assert cli.main(["capture", "--model", "random", "--stages", "logits", "--quiet",
                     "--out", str(tmp_path / "b.names")]) == 0
    assert json.loads((tmp_path / "b.names").read_text()) == ["logits"]
    with pytest.raises(Exception, match="not a recorded pass"):
        load_export(tmp_path / "a.names")  # no reader: it holds no pass to read back


def test_view_formats_need_the_window_for_pictures(tmp_path):
    from tfdebug.io.exports import export_view
    from tfdebug.io.formats import View

    export_view(View([[1.0, 2.0]], ["r"], ["a", "b"]), tmp_path / "v.csv")
    assert (tmp_path / "v.csv").read_text().splitlines()[1] == "r,1,2"
    with pytest.raises(ExportError, match="only be drawn from the window"):
        export_view(View([[1.0]]), tmp_path / "v.png")
    drawn = []
    export_view(View([[1.0]], render=lambda path, suffix: drawn.append(suffix) or open(path, "wb").close()),
                tmp_path / "v.svg")
    assert drawn == [".svg"] and (tmp_path / "v.svg").exists()


def test_a_format_registered_before_first_use_is_not_replaced_by_the_built_in(tmp_path):
    """In a fresh interpreter, a plug-in's .npz writer registered before anything lists the formats stays."""
    import subprocess
    import sys

    code = ("from tfdebug.io.formats import ExportFormat, register, format_for\n"
            "mine = register(ExportFormat('.npz', 'My NumPy', 'pass', lambda r, p, progress=None: None))\n"
            "assert format_for('x.npz') is mine, format_for('x.npz')\n"
            "assert format_for('x.pt').label is not None  # the built-ins are there too\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
