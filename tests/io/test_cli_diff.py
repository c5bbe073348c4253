"""`tfdebug diff A B`: the table, the first divergent stage, and the exit status a script relies on."""

import json

import pytest

from tfdebug import cli
from tfdebug.io.exports import export_pass
from tfdebug.io.snapshot import open_snapshot, save_snapshot
from tfdebug.models.loader import demo_available

needs_demo = pytest.mark.skipif(not demo_available(), reason="the demo model's files are not here")


def run(argv, capsys):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def capture(tmp_path, capsys, name, *extra):
    path = tmp_path / name
    code, _, err = run(["capture", "--model", "demo", "--src", "I love you", "--tgt", "我 爱 你",
                        "--out", str(path), "--quiet", *extra], capsys)
    assert code == 0, err
    return path


@pytest.fixture(scope="module")
def demo_snapshot(tmp_path_factory):
    from tfdebug.adapters.reference import ReferenceAdapter
    from tfdebug.sessions.session import DebugSession
    from tfdebug.io.recording import Recording
    from tfdebug.models.loader import load_model

    if not demo_available():
        pytest.skip("the demo model's files are not here")
    path = tmp_path_factory.mktemp("diff") / "demo.safetensors"
    session = DebugSession(ReferenceAdapter(load_model("demo")), {"src": "I love you", "tgt": "我 爱 你"})
    save_snapshot(Recording.from_session(session), path)
    return path


def altered_copy(path, target, stage, delta):
    """A copy of the snapshot at `path` with `delta` added to one cell of `stage`."""
    with open_snapshot(path) as rec:
        for capture in rec.captures:
            capture.tensor = rec.tensor(capture).clone()
        rec[stage].tensor.view(-1)[5] += delta
        rec.load = None
        save_snapshot(rec, target)
    return target


@needs_demo
def test_a_stage_altered_by_1e_3_is_the_first_divergent(demo_snapshot, tmp_path, capsys):
    changed = altered_copy(demo_snapshot, tmp_path / "changed.safetensors", "enc.1.ffn.hidden", 1e-3)
    code, out, err = run(["diff", str(demo_snapshot), str(changed)], capsys)
    assert code == 1, err
    assert "first divergent stage: enc.1.ffn.hidden" in out
    rows = {line.split()[1]: line for line in out.splitlines() if line.startswith("» ")}
    assert list(rows) == ["enc.1.ffn.hidden"] and "DIVERGES" in rows["enc.1.ffn.hidden"]
    # only the stored stage was altered: every other stage, before or after it, is the same
    code, out, _ = run(["diff", str(demo_snapshot), str(changed), "--json"], capsys)
    doc = json.loads(out)
    assert code == 1 and doc["first_divergent"] == "enc.1.ffn.hidden"
    assert [s["name"] for s in doc["stages"] if s["diverges"]] == ["enc.1.ffn.hidden"]
    hidden = next(s for s in doc["stages"] if s["name"] == "enc.1.ffn.hidden")
    assert hidden["max_abs"] == pytest.approx(1e-3, rel=1e-3) and hidden["over_share"] == pytest.approx(1 / 768)


@needs_demo
def test_a_pass_against_itself_exits_0(demo_snapshot, capsys):
    code, out, _ = run(["diff", str(demo_snapshot), str(demo_snapshot)], capsys)
    assert code == 0
    assert "no stage diverges" in out and "DIVERGES" not in out
    with open_snapshot(demo_snapshot) as rec:
        n = len(rec.captures)
    assert f"{n} stages compared, 0 differ in shape, 0 only in A, 0 only in B" in out


@needs_demo
def test_float16_against_float32(demo_snapshot, tmp_path, capsys):
    half = capture(tmp_path, capsys, "half.safetensors", "--dtype", "float16")
    code, out, _ = run(["diff", str(demo_snapshot), str(half), "--json"], capsys)
    assert code == 1
    doc = json.loads(out)
    by_name = {s["name"]: s for s in doc["stages"]}
    # float16 rounds the very first stage: a relative error near its unit roundoff (2^-11), no more
    first = by_name[doc["first_divergent"]]
    assert doc["first_divergent"] == "src.embed"
    assert first["dtype_a"] == "float32" and first["dtype_b"] == "float16"
    assert 0 < first["rel_error"] < 2 ** -10
    # the masked (−∞) cells of the causal mask are equal in both passes, not infinitely apart
    masked = by_name["dec.0.self_attn.masked"]
    assert masked["mismatched"] == 0 and masked["max_abs"] != "inf"
    # the logits still agree to fp16's precision, and loose tolerances find no divergence
    assert by_name["logits"]["rel_error"] < 1e-2
    code, out, _ = run(["diff", str(demo_snapshot), str(half), "--atol", "0.05", "--rtol", "0.05"], capsys)
    assert code == 0 and "no stage diverges (atol 0.05 + rtol 0.05·|A|)" in out


def test_exports_compare_with_snapshots(snapshot_path, recording, tmp_path, capsys):
    npz = tmp_path / "pass.npz"
    export_pass(recording, npz, stages=["src.embed", "logits"])
    code, out, _ = run(["diff", str(snapshot_path), str(npz)], capsys)
    assert code == 0
    n = len(recording.captures)
    assert f"2 stages compared, 0 differ in shape, {n - 2} only in A, 0 only in B" in out
    assert "only in A" in out.split("dec.0.self_attn.q")[1].splitlines()[0]


@pytest.mark.parametrize("make, sentence", [
    (lambda d: d / "missing.safetensors", "does not exist"),
    (lambda d: (d / "notes.txt").write_text("x") and d / "notes.txt", "is not a recorded pass"),
    (lambda d: (d / "bad.safetensors").write_bytes(b"\x00" * 40) and d / "bad.safetensors", "bad.safetensors"),
])
def test_a_bad_file_is_one_sentence_and_exit_2(snapshot_path, tmp_path, capsys, make, sentence):
    bad = make(tmp_path)
    for argv in (["diff", str(snapshot_path), str(bad)], ["diff", str(bad), str(snapshot_path)]):
        code, out, err = run(argv, capsys)
        assert code == 2 and out == ""
        assert err.startswith("tfdebug: ") and sentence in err and err.count("\n") == 1


def test_bad_tolerance_is_refused(snapshot_path, capsys):
    code, _, err = run(["diff", str(snapshot_path), str(snapshot_path), "--atol", "-1"], capsys)
    assert code == 2 and "zero or positive" in err
