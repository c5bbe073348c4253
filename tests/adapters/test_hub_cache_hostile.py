"""Hub-cache trees that lie: a ref that is a FIFO, a link to /dev/zero, bytes that are not UTF-8 or a path out of the
cache; a snapshot that leads elsewhere; config.json or tokenizer.json a link loop. Each is one ModelLoadError
sentence at once (the CLI: exit 2, no traceback), and nothing outside the cache is read."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.adapters.hf_tiny import gpt2, save_folder
from tests.adapters.hub_cache import COMMIT, add_to_cache

pytest.importorskip("huggingface_hub")

from tfdebug.adapters.hf import hub  # noqa: E402
from tfdebug.adapters.registry import load_adapter  # noqa: E402
from tfdebug.core.errors import ModelLoadError  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
MODEL = hub.HubId("org/model")


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """A 2-layer GPT-2 saved as a model folder."""
    return save_folder(gpt2(), tmp_path_factory.mktemp("tiny") / "tiny")


@pytest.fixture
def cache(tmp_path, folder, monkeypatch) -> Path:
    """A cache of org/model (refs/main → COMMIT), the environment pointing at it."""
    cache = tmp_path / "hub"
    add_to_cache(cache, "org/model", folder)
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return cache


def repo(cache: Path) -> Path:
    return cache / "models--org--model"


def refused(call=lambda: hub.resolve(MODEL)) -> ModelLoadError:
    """The error `call` raises, within 10 s (a FIFO read would wait forever)."""
    outcome: list = []

    def run():
        try:
            call()
            outcome.append(None)
        except BaseException as exc:  # noqa: BLE001 - the test looks at what it was
            outcome.append(exc)
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(10)
    assert outcome, "resolving the cache hung"
    assert isinstance(outcome[0], ModelLoadError), repr(outcome[0])
    return outcome[0]


def test_a_well_formed_cache_still_resolves(cache):
    assert hub.resolve(MODEL) == repo(cache) / "snapshots" / COMMIT


def test_a_ref_that_is_a_fifo_is_refused_at_once(cache):
    ref = repo(cache) / "refs" / "main"
    ref.unlink()
    os.mkfifo(ref)
    assert refused().id == "read.not_regular"


def test_a_ref_linked_to_dev_zero_is_refused_without_reading_it(cache):
    ref = repo(cache) / "refs" / "main"
    ref.unlink()
    ref.symlink_to("/dev/zero")
    assert refused().id == "hub.outside_cache"


def test_a_ref_too_large_or_not_utf8_is_refused(cache):
    ref = repo(cache) / "refs" / "main"
    ref.write_bytes(COMMIT.encode() + b" " * 4096)
    assert refused().id == "read.too_large"
    ref.write_bytes(b"\xff\xfe" + COMMIT.encode())
    assert refused().id == "read.not_utf8"


@pytest.mark.parametrize("content", ["../../models--org--other/snapshots/x", "/tmp/elsewhere", COMMIT[:39],
                                     COMMIT.upper(), ""])
def test_a_ref_that_is_not_a_commit_hash_is_refused_and_nothing_else_loads(cache, tmp_path, folder, content):
    elsewhere = tmp_path / "elsewhere"  # a model a path-holding ref would have led to
    add_to_cache(elsewhere, "org/other", folder)
    (repo(cache) / "refs" / "main").write_text(content)
    error = refused()
    assert error.id == "hub.bad_ref" and "40 hexadecimal digits" in error.message


def test_a_snapshot_that_leads_outside_the_cache_is_refused(cache, tmp_path, folder):
    snapshot = repo(cache) / "snapshots" / COMMIT
    outside = tmp_path / "outside"
    outside.mkdir()
    os.rename(snapshot, outside / COMMIT)
    snapshot.symlink_to(outside / COMMIT)
    error = refused()
    assert error.id == "hub.outside_cache" and "leads outside" in error.message


def test_a_snapshot_link_loop_is_refused(cache):
    snapshot = repo(cache) / "snapshots" / COMMIT
    os.rename(snapshot, repo(cache) / "moved")
    snapshot.symlink_to(snapshot)
    assert refused().id == "hub.link_loop"


@pytest.mark.parametrize("name", ["config.json", "tokenizer.json"])
def test_a_link_loop_as_a_snapshot_file_is_refused_in_a_sentence(cache, name):
    link = repo(cache) / "snapshots" / COMMIT / name
    link.unlink()
    link.symlink_to(link)
    error = refused(lambda: load_adapter("hf:org/model"))
    assert error.id in ("hf.link_loop", "read.failed"), error.message
    assert name in error.message


def test_the_cli_says_one_sentence_for_a_fifo_ref(cache):
    ref = repo(cache) / "refs" / "main"
    ref.unlink()
    os.mkfifo(ref)
    done = subprocess.run([sys.executable, "-m", "tfdebug", "stages", "--model", "hf:org/model"], capture_output=True,
                          text=True, cwd=ROOT, timeout=120, env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and "not a regular file" in done.stderr


def listed_within(seconds: float) -> list:
    listed: list = []
    thread = threading.Thread(target=lambda: listed.append(hub.scan_cache()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert listed, "listing the cache hung"
    return listed[0]


def _lie_in_ref(ref: Path) -> None:
    ref.unlink()
    os.mkfifo(ref)


def _lie_to_dev_zero(ref: Path) -> None:
    ref.unlink()
    ref.symlink_to("/dev/zero")


def _lie_in_a_loop(ref: Path) -> None:
    ref.unlink()
    ref.symlink_to(ref)


@pytest.mark.parametrize("lie", [_lie_in_ref, _lie_to_dev_zero, _lie_in_a_loop], ids=["fifo", "dev-zero", "loop"])
def test_the_cache_listing_skips_just_the_entry_with_a_bad_ref(cache, folder, caplog, lie):
    add_to_cache(cache, "org/other", folder)
    lie(repo(cache) / "refs" / "main")
    with caplog.at_level("WARNING", logger="tfdebug"):
        rows = listed_within(10)
    assert [r.repo_id for r in rows] == ["org/other"] and rows[0].supported
    said = [r.getMessage() for r in caplog.records if "not a small regular file" in r.getMessage()]
    assert len(said) == 1 and "models--org--model" in said[0]


def test_the_cache_listing_skips_a_snapshot_outside_the_cache_and_waits_on_no_config(cache, folder, caplog,
                                                                                   tmp_path):
    add_to_cache(cache, "org/other", folder)
    outside = tmp_path / "outside"
    (repo(cache) / "snapshots" / COMMIT).rename(outside)
    (repo(cache) / "snapshots" / COMMIT).symlink_to(outside)
    fifo_config = cache / "models--org--other" / "snapshots" / COMMIT / "config.json"
    fifo_config.unlink()
    os.mkfifo(fifo_config)
    with caplog.at_level("WARNING", logger="tfdebug"):
        rows = listed_within(10)
    assert [r.repo_id for r in rows] == ["org/other"]
    assert not rows[0].supported and "regular file" in rows[0].reason  # its FIFO config, said not waited on
    assert any("leads outside it" in r.getMessage() for r in caplog.records)