"""A Hugging Face hub cache built by hand, laid out the way huggingface_hub writes it (no network).

    <cache>/models--ORG--NAME/blobs/<sha256>            file contents
    <cache>/models--ORG--NAME/refs/main                 the commit hash `main` points at
    <cache>/models--ORG--NAME/snapshots/<commit>/<file> a symlink to ../../blobs/<sha256>
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def add_to_cache(cache: Path, repo_id: str, folder: Path, commit: str = COMMIT, ref: str | None = "main") -> Path:
    """Put every file of `folder` into `cache` as revision `commit` of `repo_id`; the snapshot folder."""
    repo = cache / ("models--" + repo_id.replace("/", "--"))
    snapshot = repo / "snapshots" / commit
    (repo / "blobs").mkdir(parents=True, exist_ok=True)
    snapshot.mkdir(parents=True, exist_ok=True)
    for file in sorted(folder.rglob("*")):
        if not file.is_file():
            continue
        digest = hashlib.sha256(file.read_bytes()).hexdigest()
        blob = repo / "blobs" / digest
        if not blob.exists():
            shutil.copyfile(file, blob)
        link = snapshot / file.relative_to(folder)
        link.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(os.path.relpath(blob, link.parent), link)
    if ref:
        (repo / "refs").mkdir(exist_ok=True)
        (repo / "refs" / ref).write_text(commit)
    return snapshot
