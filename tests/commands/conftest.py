"""Command tests read snapshots too: reuse the io fixtures (one recorded pass and its snapshot)."""

from tests.io.conftest import recording, snapshot_bytes, snapshot_path  # noqa: F401
