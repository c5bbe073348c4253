"""Open a recorded pass from any pass format, for tools that compare or replay passes."""

from __future__ import annotations

import os
from pathlib import Path

from tfdebug.core.errors import SnapshotError
from tfdebug.core.phrases import Choices
from tfdebug.io.exports import load_export
from tfdebug.io.formats import suffixes
from tfdebug.io.recording import Recording


def open_pass(path: str | os.PathLike) -> Recording:
    """The recorded pass in a .safetensors snapshot or a .npz / .pt export; SnapshotError in one sentence.

    A snapshot is read lazily (close the recording to release the file); exports are read whole.
    """
    path = os.fspath(path)
    pass_suffixes = suffixes("pass")
    if Path(path).suffix.lower() not in pass_suffixes:
        raise SnapshotError("{path} is not a recorded pass: choose a {choices} file.",
                            id="pass.wrong_suffix", path=path, choices=Choices(pass_suffixes))
    if not os.path.exists(path):
        raise SnapshotError("The file {path} does not exist.", id="pass.missing", path=path)
    return load_export(path)
