"""A snapshot that changes on disk while open: no fault, one sentence, what was read stays valid; `info --verify`."""

import os
import subprocess
import sys
import textwrap

import pytest
import torch

from tfdebug import cli
from tfdebug.core.errors import SnapshotError
from tfdebug.io.safetensors_file import read_header
from tfdebug.io.snapshot import open_snapshot, read_manifest
from tfdebug.io.verify import verify_snapshot


def test_a_stage_read_before_the_file_is_truncated_stays_valid_and_the_next_read_says_so(snapshot_path):
    with open_snapshot(snapshot_path) as rec:
        shown = rec.tensor(rec["enc.0.attn.probs"])
        before = shown.clone()
        os.truncate(snapshot_path, 200)  # what `cp other.safetensors FILE` does first
        assert torch.equal(shown, before)  # a mapped view would fault here (SIGBUS)
        with pytest.raises(SnapshotError, match="changed on disk after it was opened"):
            rec.tensor(rec["enc.0.attn.scores"])


def test_truncating_underneath_does_not_kill_the_process(snapshot_path):
    # In a child process, so that a regression (a fault) cannot take the test run with it.
    script = textwrap.dedent(f"""
        import os
        from tfdebug.core.errors import SnapshotError
        from tfdebug.io.snapshot import open_snapshot
        rec = open_snapshot({str(snapshot_path)!r})
        tensors = [rec.tensor(c) for c in rec.captures[:10]]
        os.truncate({str(snapshot_path)!r}, 100)
        print(sum(float(t.float().sum()) for t in tensors) == sum(float(t.float().sum()) for t in tensors))
        try:
            rec.tensor(rec.captures[-1])
        except SnapshotError as exc:
            print(exc.id)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "snapshot.changed"]


def test_a_rewrite_in_place_of_the_same_size_is_refused(snapshot_path, tmp_path):
    with open_snapshot(snapshot_path) as rec:
        rec.tensor(rec.captures[0])
        data = bytearray(snapshot_path.read_bytes())
        data[-1] ^= 0xFF
        with open(snapshot_path, "r+b") as f:  # same inode, same size, new bytes
            f.write(data)
        with pytest.raises(SnapshotError, match="changed on disk"):
            rec.tensor(rec.captures[-1])


def test_a_file_replaced_by_a_rename_keeps_reading_what_was_opened(snapshot_path, tmp_path):
    with open_snapshot(snapshot_path) as rec:
        expected = rec.tensor(rec["logits"]).clone()
        other = tmp_path / "other.safetensors"
        other.write_bytes(b"not a snapshot")
        os.replace(other, snapshot_path)  # an atomic save over it
        assert torch.equal(rec.tensor(rec["logits"]), expected)


def _stage_bytes(path, name):
    header = read_header(path)
    entry = header.tensors[name]
    return header.data_start + entry.begin, header.data_start + entry.end


def test_snapshots_mark_which_stages_were_finite(snapshot_path):
    marks = {s["name"]: s.get("finite") for s in read_manifest(snapshot_path)["stages"]}
    assert marks["enc.0.attn.probs"] is True
    assert marks["dec.0.self_attn.masked"] is False  # −∞ cells
    verified = verify_snapshot(snapshot_path)
    assert verified.stages == len(marks) and "dec.0.self_attn.masked" in verified.nonfinite
    assert verified.nbytes == sum(e.end - e.begin for e in read_header(snapshot_path).tensors.values())


@pytest.mark.parametrize("damage", ["nan", "inf"])
def test_verify_finds_a_damaged_value_where_the_manifest_says_finite(snapshot_path, capsys, damage):
    begin, _ = _stage_bytes(snapshot_path, "enc.0.attn.probs")
    data = bytearray(snapshot_path.read_bytes())
    data[begin:begin + 4] = torch.tensor([float(damage)], dtype=torch.float32).view(torch.uint8).numpy().tobytes()
    snapshot_path.write_bytes(data)
    assert cli.main(["info", str(snapshot_path)]) == 0  # the header and manifest are fine
    capsys.readouterr()
    code = cli.main(["info", "--verify", str(snapshot_path)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "enc.0.attn.probs was saved with only finite values" in err


def test_verify_reads_every_byte_in_bounded_pieces(snapshot_path, monkeypatch, capsys):
    import tfdebug.io.verify as verify

    whole = verify.verify_snapshot(snapshot_path)
    monkeypatch.setattr(verify, "CHUNK_BYTES", 64)  # many pieces per stage: the same answer
    assert verify.verify_snapshot(snapshot_path) == whole
    code = cli.main(["info", "--verify", str(snapshot_path)])
    out = capsys.readouterr().out
    assert code == 0 and "stages read back" in out and "hold NaN or infinity" in out


def test_verify_refuses_bool_bytes_other_than_0_and_1(tmp_path):
    from dataclasses import replace

    from tfdebug.io.recording import Recording
    from tfdebug.io.snapshot import save_snapshot
    from tests.io.conftest import record

    first = record().captures[0]
    mask = replace(first, dtype=torch.bool, tensor=first.tensor > 0)
    rec = Recording(captures=[mask], tokens={"src": ["i", "love", "you"], "tgt": ["<bos>", "我", "爱", "你"]})
    path = tmp_path / "b.safetensors"
    save_snapshot(rec, path)
    begin, _ = _stage_bytes(path, mask.name)
    data = bytearray(path.read_bytes())
    data[begin] = 7
    path.write_bytes(data)
    with pytest.raises(SnapshotError, match="bytes other than 0 and 1"):
        verify_snapshot(path)


def test_verify_refuses_a_file_changed_while_it_is_read(snapshot_path, monkeypatch):
    import tfdebug.io.verify as verify

    real = verify.read_into
    calls = []

    def truncate_after_first(f, offset, tensor):
        calls.append(offset)
        if len(calls) == 2:
            os.truncate(snapshot_path, 300)
        return real(f, offset, tensor)

    monkeypatch.setattr(verify, "read_into", truncate_after_first)
    with pytest.raises(SnapshotError, match="changed on disk"):
        verify_snapshot(snapshot_path)
