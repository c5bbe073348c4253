"""`.npz` and `.pt` exports are bounded before they are read: each damaged family is one sentence, fast.

Every case starts from a real export of the small random pass and changes one thing:
compressed members (a zip bomb), arrays whose `.npy` header disagrees with the manifest,
member names and keys holding escapes, views that claim terabytes over a few bytes.
`tfdebug diff` must answer each with exit 2 and one line on stderr.
"""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest
import torch

from tfdebug import cli
from tfdebug.core.errors import SnapshotError
from tfdebug.io import export_read
from tfdebug.io.exports import export_pass, load_export
from tfdebug.io.recording import EXPORT_MANIFEST_KEY


@pytest.fixture(scope="module")
def exports(recording, tmp_path_factory):
    folder = tmp_path_factory.mktemp("exports")
    for suffix in (".npz", ".pt"):
        export_pass(recording, folder / f"good{suffix}")
    return folder


def one_sentence(path, capsys, other) -> str:
    code = cli.main(["diff", str(other), str(path)])
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert err.startswith("tfdebug: ") and err.count("\n") == 1 and "\x1b" not in err, err
    return err


def _members(path) -> list[tuple[str, bytes]]:
    with zipfile.ZipFile(path) as archive:
        return [(info.filename, archive.read(info)) for info in archive.infolist()]


def _write_zip(path, members, compression=zipfile.ZIP_STORED):
    with zipfile.ZipFile(path, "w", compression=compression) as archive:
        for name, data in members:
            archive.writestr(name, data)


def _npy(array) -> bytes:
    out = io.BytesIO()
    np.lib.format.write_array(out, np.asarray(array), allow_pickle=False)
    return out.getvalue()


def test_a_good_npz_still_reads(exports, recording):
    back = load_export(exports / "good.npz")
    assert back.names() == recording.names()
    assert torch.equal(back["logits"].tensor, recording["logits"].tensor)


def test_a_zip_bomb_is_refused_from_its_directory_alone(exports, tmp_path, capsys):
    members = _members(exports / "good.npz")
    name = members[0][0]
    bomb = _npy(np.zeros(64 * 2**20, dtype=np.uint8))  # 64 MiB that deflates to ~64 kB
    _write_zip(tmp_path / "bomb.npz", [(name, bomb), *members[1:]], zipfile.ZIP_DEFLATED)
    assert (tmp_path / "bomb.npz").stat().st_size < 2**20
    assert "compressed" in one_sentence(tmp_path / "bomb.npz", capsys, exports / "good.npz")


MANIFEST = EXPORT_MANIFEST_KEY + ".npy"
# Each way an .npz can disagree with itself, applied to (all members, one stage's name, its bytes, the others).
NPZ_MUTATIONS = {
    "no manifest": lambda m, s, d, rest: [(n, b) for n, b in m if n != MANIFEST],
    "manifest not text": lambda m, s, d, rest: [(n, _npy(np.zeros(3)) if n == MANIFEST else b) for n, b in m],
    "wrong shape": lambda m, s, d, rest: [(s, _npy(np.zeros((7, 7), dtype=np.float32))), *rest],
    "wrong dtype": lambda m, s, d, rest: [(s, _npy(np.lib.format.read_array(io.BytesIO(d)).astype(np.float64))),
                                          *rest],
    "fortran order": lambda m, s, d, rest: [(s, d.replace(b"'fortran_order': False", b"'fortran_order': True ")),
                                            *rest],
    "truncated": lambda m, s, d, rest: [(s, d[:-8]), *rest],
    "extended": lambda m, s, d, rest: [(s, d + b"\0" * 8), *rest],
    "not npy": lambda m, s, d, rest: [(s, b"hello"), *rest],
    "object dtype": lambda m, s, d, rest: [(s, d.replace(b"'descr': '<f4'", b"'descr': '|O' ")), *rest],
    "extra member": lambda m, s, d, rest: [*m, ("extra.npy", d)],
    "escape in a name": lambda m, s, d, rest: [*m, ("\x1b[2J\ntfdebug: forged.npy", d)],
    "path in a name": lambda m, s, d, rest: [*m, ("../x.npy", d)],
    "not .npy": lambda m, s, d, rest: [*m, ("x.txt", b"x")],
    "missing stage": lambda m, s, d, rest: rest,
}


@pytest.mark.parametrize("case", sorted(NPZ_MUTATIONS))
def test_an_npz_that_disagrees_with_itself_is_one_sentence(exports, tmp_path, capsys, case):
    members = _members(exports / "good.npz")
    stage = next(n for n, _ in members if n != MANIFEST and n.startswith("enc.0.attn.probs"))
    rest = [(n, b) for n, b in members if n != stage]
    path = tmp_path / "bad.npz"
    _write_zip(path, NPZ_MUTATIONS[case](members, stage, dict(members)[stage], rest))
    err = one_sentence(path, capsys, exports / "good.npz")
    if case == "escape in a name":
        assert "\\x1b" in err and "forged" in err


def test_too_many_members_are_refused_before_any_is_read(exports, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(export_read, "MAX_MEMBERS", 5)
    assert "members (at most 5)" in one_sentence(exports / "good.npz", capsys, exports / "good.pt")


# Each way a .pt can hold something other than stages that own their data, from (its dict, a stage's tensor).
PT_CASES = {
    "stride-0 4 TiB": lambda t: torch.zeros(1).expand(2**40),
    "stride-0 bool 1 TiB": lambda t: torch.zeros(1, dtype=torch.bool).expand(2**40),
    "overlapping view": lambda t: torch.zeros(8).as_strided((4, 4), (1, 1)),
    "offset view": lambda t: torch.zeros(t.numel() + 3)[3:].view(t.shape),
    "part of a bigger storage": lambda t: torch.zeros(t.numel() * 2)[: t.numel()].view(t.shape),
    "not a tensor": lambda t: [1, 2, 3],
}


@pytest.mark.parametrize("case", [*sorted(PT_CASES), "escape in a key", "not a dict", "manifest not text"])
def test_a_pt_holding_views_or_other_values_is_one_sentence(exports, tmp_path, capsys, case):
    data = torch.load(exports / "good.pt", weights_only=True)
    if case in PT_CASES:
        value = {**data, "enc.0.attn.probs": PT_CASES[case](data["enc.0.attn.probs"])}
    else:
        value = {"escape in a key": {**data, "\x1b]0;pwned\x07\ntfdebug: forged": torch.zeros(1)},
                 "not a dict": [data["logits"]], "manifest not text": {**data, EXPORT_MANIFEST_KEY: 7}}[case]
    path = tmp_path / "bad.pt"
    torch.save(value, path)
    assert path.stat().st_size < 2**20
    err = one_sentence(path, capsys, exports / "good.pt")
    if "TiB" in case:
        assert "not stored as its own data" in err


def test_a_transposed_stage_is_its_own_data_and_reads_back(exports, recording):
    # export_pt keeps a stage's own layout (a head split is a transposed view): that is not damage.
    back = load_export(exports / "good.pt")
    assert all(torch.equal(back[c.name].tensor, c.tensor) for c in recording.captures
               if not c.dtype.is_floating_point or torch.isfinite(c.tensor).all())


def test_an_export_is_read_from_a_regular_file_only(tmp_path):
    import os

    os.mkfifo(tmp_path / "pipe.npz")
    with pytest.raises(SnapshotError, match="not a regular file"):
        load_export(tmp_path / "pipe.npz")
