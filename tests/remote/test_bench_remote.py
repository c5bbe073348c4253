"""`tfdebug bench --section remote`: bytes per step and loopback latency against local (figures not asserted,
except what crosses: the shown slice, not the stage)."""

from __future__ import annotations

import contextlib
import io
import json

from tfdebug.bench.remote import remote_row
from tfdebug.cli import main


def test_bench_remote_json_has_every_column():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["bench", "--section", "remote", "--tiny", "--json", "--max-load", "0"]) == 0
    section = json.loads(out.getvalue())["remote"]
    rows = section["rows"]
    assert [r["size"] for r in rows] == [64, 128]
    for row in rows:
        assert row["local_ms"] > 0 and row["remote_ms"] > 0 and row["bytes_per_step"] >= row["shown_plane_bytes"]
    # F10 to the painted heatmap in the window, local and attached to a server process on loopback
    assert [r["size"] for r in section["painted"]] == [64, 128]
    for row in section["painted"]:
        assert row["local_painted_ms"] > 0 and row["remote_painted_ms"] > 0


def test_only_the_downsampled_slice_crosses_for_a_stage_larger_than_the_view():
    row = remote_row(2048, repeats=2)
    assert row["shown_plane_bytes"] == 1024 * 1024 * 4
    # The plane plus a few kilobytes of headers and heartbeats; the 16 MB stage stays on the server.
    assert row["shown_plane_bytes"] <= row["bytes_per_step"] < row["shown_plane_bytes"] + 64 * 1024
    assert row["bytes_per_step"] < row["stage_bytes"] / 3
