"""Fixtures for io tests: one recorded pass of the small random model, and its snapshot."""

import pytest

from tfdebug.io.recording import Recording
from tfdebug.io.snapshot import save_snapshot
from tfdebug.models.loader import load_model
from tfdebug.adapters.reference import ReferenceAdapter
from tfdebug.sessions.session import DebugSession


def record(dtype: str = "float32", stages=None, device: str = "cpu") -> Recording:
    session = DebugSession(ReferenceAdapter(load_model("random", device=device, dtype=dtype)), {"src": "I love you", "tgt": "我 爱 你"}, stages=stages)
    return Recording.from_session(session)


@pytest.fixture(scope="session")
def recording() -> Recording:
    return record()


@pytest.fixture(scope="session")
def recording_bf16() -> Recording:
    return record("bfloat16")


@pytest.fixture(scope="session")
def snapshot_bytes(recording, tmp_path_factory) -> bytes:
    path = tmp_path_factory.mktemp("snap") / "good.safetensors"
    save_snapshot(recording, path)
    return path.read_bytes()


@pytest.fixture()
def snapshot_path(snapshot_bytes, tmp_path):
    path = tmp_path / "pass.safetensors"
    path.write_bytes(snapshot_bytes)
    return path
