"""`info --verify`: read every tensor byte of a snapshot and check it, in bounded memory.

Opening a snapshot checks its header and manifest but reads no tensor. Verifying reads
each stage's bytes in pieces of at most CHUNK_BYTES into one reused buffer (memory
stays bounded whatever the stages' sizes; time is one sequential read of the file) and
checks what the bytes must satisfy: every byte is there, a true/false stage holds only
0 and 1, and a stage the manifest marks `finite` holds no NaN or infinity. A recipe stage
stores no bytes; the tensors its steps read are checked.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable

import torch

from tfdebug.core.errors import SnapshotError
from tfdebug.core.phrases import os_reason
from tfdebug.io.safetensors_file import DTYPE_BY_NAME, open_regular, read_header, read_into
from tfdebug.io.snapshot import file_identity, manifest_of

CHUNK_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class Verified:
    """What a verification read: stages, tensor bytes, and stages whose values are not all finite."""

    stages: int
    nbytes: int
    nonfinite: tuple[str, ...]


def verify_snapshot(path: str | os.PathLike, progress: Callable[[int, int], None] | None = None) -> Verified:
    """Read and check every tensor byte of the snapshot at `path`; SnapshotError names the first problem."""
    path = os.fspath(path)
    identity = file_identity(path)
    header = read_header(path)
    doc = manifest_of(path, header)
    total = sum(e.end - e.begin for e in header.tensors.values())
    buffer = torch.empty(CHUNK_BYTES, dtype=torch.uint8)
    done, nonfinite = 0, []
    with open_regular(path) as f:
        if file_identity(f.fileno()) != identity:
            raise SnapshotError("The snapshot {path} changed on disk while being opened; open it again.",
                                id="snapshot.changed_opening", path=path)
        # A recipe stage has no bytes of its own: the tensors it reads (stages or `recipe_inputs`) are checked.
        stored = [s for s in doc["stages"] if "recipe" not in s] + doc.get("recipe_inputs", [])
        for stage in stored:
            entry = header.tensors[stage["name"]]
            dtype = DTYPE_BY_NAME[stage["dtype"]]
            step = CHUNK_BYTES - CHUNK_BYTES % dtype.itemsize
            finite = True
            for begin in range(entry.begin, entry.end, step):
                piece = buffer[:min(step, entry.end - begin)]
                try:
                    complete = read_into(f, header.data_start + begin, piece)
                except OSError as exc:
                    raise SnapshotError("Cannot read stage {name} from {path}: {reason}.",
                                        id="snapshot.read_failed", name=stage["name"], path=path,
                                        reason=os_reason(exc)) from exc
                if not complete or file_identity(f.fileno()) != identity:
                    raise SnapshotError("The snapshot {path} changed on disk after it was opened; open it again.",
                                        id="snapshot.changed", path=path)
                values = piece.view(dtype)
                if dtype == torch.bool and int(piece.max()) > 1:
                    raise SnapshotError("{path} is damaged: the true/false stage {name} holds bytes other than "
                                        "0 and 1.", id="verify.bad_bool", path=path, name=stage["name"])
                if dtype.is_floating_point and finite and not bool(torch.isfinite(values).all()):
                    finite = False
                done += len(piece)
                if progress is not None:
                    progress(done, total)
            if not finite:
                if stage.get("finite"):
                    raise SnapshotError("{path} is damaged: stage {name} was saved with only finite values but now "
                                        "holds NaN or infinity.", id="verify.not_finite", path=path,
                                        name=stage["name"])
                nonfinite.append(stage["name"])
    return Verified(stages=len(doc["stages"]), nbytes=done, nonfinite=tuple(nonfinite))
