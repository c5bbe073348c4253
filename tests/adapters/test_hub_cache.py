"""`hf:ORG/NAME[@REVISION]` from a hub cache built the way huggingface_hub lays it out; no network anywhere."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.adapters.hf_tiny import gpt2, save_folder
from tests.adapters.hub_cache import COMMIT, add_to_cache

pytest.importorskip("huggingface_hub")

from tfdebug.adapters.hf import hub  # noqa: E402
from tfdebug.adapters.registry import load_adapter  # noqa: E402
from tfdebug.sessions.session import DebugSession  # noqa: E402
from tfdebug.core.errors import ModelLoadError  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    """A cache holding org/tiny-model (a 2-layer GPT-2) and org/pickled (a pickle checkpoint only)."""
    root = tmp_path_factory.mktemp("hub")
    cache = root / "hub"
    add_to_cache(cache, "org/tiny-model", save_folder(gpt2(), root / "tiny"))
    pickled = root / "pickled"
    pickled.mkdir()
    (pickled / "config.json").write_text(json.dumps({"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"]}))
    (pickled / "pytorch_model.bin").write_bytes(b"not opened")
    add_to_cache(cache, "org/pickled", pickled)
    return cache


@pytest.fixture
def in_cache(cache, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return cache


def test_hub_ids_are_told_from_paths(tmp_path, monkeypatch):
    assert hub.parse_hub_id("Qwen/Qwen3-0.6B") == hub.HubId("Qwen/Qwen3-0.6B")
    assert hub.parse_hub_id("org/name@v1.0") == hub.HubId("org/name", "v1.0")
    for not_an_id in ("/abs/path", "./rel", "~/m", "a/b/c", "../x", "org/..", "", "name", "org/name@"):
        assert hub.parse_hub_id(not_an_id) is None, not_an_id
    folder = tmp_path / "org" / "name"
    folder.mkdir(parents=True)
    monkeypatch.chdir(tmp_path)  # a folder that exists is a folder, even when it reads like an id
    assert hub.parse_hub_id("org/name") is None


def test_the_cache_follows_hf_home_and_hf_hub_cache(monkeypatch, tmp_path):
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "home"))
    assert hub.cache_dir() == tmp_path / "home" / "hub"
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "elsewhere"))
    assert hub.cache_dir() == tmp_path / "elsewhere"


def test_a_cached_model_resolves_by_ref_and_by_commit(in_cache):
    snapshot = in_cache / "models--org--tiny-model" / "snapshots" / COMMIT
    assert hub.resolve(hub.HubId("org/tiny-model")) == snapshot
    assert hub.resolve(hub.HubId("org/tiny-model", COMMIT)) == snapshot


def test_a_model_not_in_the_cache_says_how_to_get_it(in_cache):
    with pytest.raises(ModelLoadError) as err:
        load_adapter("hf:org/absent")
    assert err.value.id == "hub.not_cached" and "--download" in err.value.message


def test_a_cached_model_loads_runs_and_is_verified(in_cache):
    adapter = load_adapter("hf:org/tiny-model")
    session = DebugSession(adapter, {"prompt": "I love you"})
    captures, _ = session.capture_all()
    assert session.verification.ok
    assert captures[0].name == "tok.embed" and captures[-1].name == "logits"


def test_the_scan_lists_architecture_size_and_support(in_cache):
    rows = {row.repo_id: row for row in hub.scan_cache()}
    assert set(rows) == {"org/tiny-model", "org/pickled"}
    tiny, pickled = rows["org/tiny-model"], rows["org/pickled"]
    assert (tiny.spec, tiny.architecture, tiny.model_type, tiny.revision) == (
        "hf:org/tiny-model", "GPT2LMHeadModel", "gpt2", COMMIT)
    assert tiny.supported and tiny.reason == "" and tiny.size_on_disk > 10_000
    assert not pickled.supported and "pickle" in pickled.reason
    assert json.loads(json.dumps(tiny.to_dict()))["supported"] is True


def test_no_cache_is_an_empty_list(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "none"))
    assert hub.scan_cache() == []


def _cli(cache: Path, *args: str, **env: str):
    environ = {**os.environ, "HF_HUB_CACHE": str(cache), "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1", **env}
    return subprocess.run([sys.executable, "-m", "tfdebug", *args], capture_output=True, text=True, cwd=ROOT,
                          env=environ, timeout=240)


def test_cli_stages_reads_a_hub_id_offline(cache):
    done = _cli(cache, "stages", "--model", "hf:org/tiny-model", "--input", "prompt=I love you")
    assert done.returncode == 0, done.stderr
    assert "dec.1.self_attn.probs" in done.stdout and "logits" in done.stdout


@pytest.mark.parametrize("env", [{"HF_HUB_OFFLINE": "1"}, {"HF_HUB_OFFLINE": "0", "HF_ENDPOINT": "http://127.0.0.1:9"}])
def test_download_without_network_says_so_in_one_sentence(cache, env):
    done = _cli(cache, "stages", "--model", "hf:org/absent", "--download", **env)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "tfdebug: Could not download hf:org/absent: the Hugging Face hub cannot be reached from here "
        "(no network, or HF_HUB_OFFLINE is set)."]


def test_a_download_reports_its_bytes_and_stops_when_cancelled():
    seen, stop = [], []
    bar_class = hub._progress_class(lambda done, total: seen.append((done, total)), lambda: bool(stop))
    files = bar_class(total=3)  # the per-file bar huggingface_hub draws: not bytes, not reported
    files.update(1)
    bytes_bar = bar_class(total=1000, unit="B")
    bytes_bar.update(400)
    bytes_bar.update(600)
    assert seen == [(400, 1000), (1000, 1000)]
    stop.append(True)
    with pytest.raises(hub.DownloadCancelledError):
        bytes_bar.update(1)
    assert hub._progress_class(None, None) is None  # the command line keeps huggingface_hub's own bars


def test_a_download_ends_with_its_whole_size_when_the_hubs_totals_are_wrong(monkeypatch, tmp_path):
    """huggingface_hub adds each file's size to its shared bar's total from the file's thread without a lock, so
    a total can be lost, and its transfer bar's total is a guess: the last progress is still (all, all)."""
    import huggingface_hub

    def snapshot_download(tqdm_class, **_):
        written = tqdm_class(total=1500, unit="B")  # one file's 500 bytes were added to the total by a lost write
        guessed = tqdm_class(total=2000, unit="B")  # the transfer bar: a guess, grown as bytes came
        for chunk in (1000, 1000):
            written.update(chunk)
            guessed.update(chunk)
        return str(tmp_path)

    monkeypatch.setattr(huggingface_hub, "snapshot_download", snapshot_download)
    seen = []
    assert hub.resolve(hub.parse_hub_id("org/model"), download=True,
                       progress=lambda done, total: seen.append((done, total))) == tmp_path
    assert seen[-2] == (2000, 2000) and seen[-1] == (2000, 2000)
    assert (2000, 1500) in seen  # what the hub's bar said before the last word
