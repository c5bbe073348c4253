"""Hugging Face hub ids (`hf:ORG/NAME[@REVISION]`) from the local cache, and the cache as a model list.

A hub id resolves to a snapshot folder through huggingface_hub's own cache functions
(`snapshot_download(..., local_files_only=True)`, `scan_cache_dir`), in the cache that
`HF_HUB_CACHE`, else `HF_HOME`/hub, names — read when called, so a changed environment
counts. Nothing reaches the network unless the user asks for a download (`--download`);
a download fetches safetensors weights, configs and tokenizer files only (never a pickle
checkpoint).
"""

from __future__ import annotations

import json
import logging
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from tfdebug.core.errors import ModelLoadError, TfdebugError
from tfdebug.core.files import read_text
from tfdebug.core.safe_text import terminal_safe

# What a download fetches: enough for hf_load.check_folder, nothing that needs unpickling.
DOWNLOAD_PATTERNS = ("*.json", "*.safetensors", "tokenizer.model", "*.txt", "*.tiktoken")
_REPO_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,95}/[A-Za-z0-9][A-Za-z0-9_.-]{0,95}$")
_REVISION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_./-]{0,127}$")
_COMMIT = re.compile(r"^[0-9a-f]{40}$")
MAX_REF_BYTES = 1024  # a ref holds a 40-character commit hash
log = logging.getLogger("tfdebug")


class DownloadCancelledError(TfdebugError):
    """The user cancelled a download (nothing half-written is used: the cache keeps only complete blobs)."""


@dataclass(frozen=True)
class HubId:
    """A model on the Hugging Face hub: `repo_id` ("org/name") and an optional revision (branch, tag or commit)."""

    repo_id: str
    revision: str | None = None

    @property
    def spec(self) -> str:
        return "hf:" + self.repo_id + (f"@{self.revision}" if self.revision else "")


def parse_hub_id(text: str) -> HubId | None:
    """The hub id `text` ("org/name" or "org/name@revision") names, or None when it is not one.

    A path that exists is never a hub id (a folder "org/name" beside the user wins), and
    neither is anything absolute, home-relative or dotted like a path.
    """
    if not text or text.startswith(("/", "~", ".")) or "\\" in text or Path(text).exists():
        return None
    repo, at, revision = text.partition("@")
    if not _REPO_ID.match(repo) or ".." in repo or (at and (not _REVISION.match(revision) or ".." in revision)):
        return None
    return HubId(repo, revision or None)


def cache_dir() -> Path:
    """The hub cache: $HF_HUB_CACHE, else $HF_HOME/hub, else huggingface_hub's default (~/.cache/huggingface/hub)."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    if os.environ.get("HF_HOME"):
        return Path(os.environ["HF_HOME"]).expanduser() / "hub"
    from huggingface_hub import constants

    return Path(constants.HF_HUB_CACHE)


def _require_hub() -> None:
    try:
        import huggingface_hub  # noqa: F401
    except ImportError:
        raise ModelLoadError('Hub ids need the optional extra: pip install "tfdebug[hf]" (huggingface_hub).',
                             id="hub.install_hint") from None


def resolve(hub_id: HubId, download: bool = False, progress: Callable[[int, int], None] | None = None,
            cancelled: Callable[[], bool] | None = None) -> Path:
    """The snapshot folder of `hub_id` in the cache; with `download`, fetched first when missing or stale.

    `progress(done_bytes, total_bytes)` follows a download; `cancelled()` returning True stops
    it (DownloadCancelledError). Without `download` nothing touches the network: a model not in the
    cache is a ModelLoadError that says how to get it.
    """
    _require_hub()
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import LocalEntryNotFoundError, RepositoryNotFoundError, RevisionNotFoundError

    if not download:
        return cached_snapshot(hub_id)
    args = dict(repo_id=hub_id.repo_id, revision=hub_id.revision, cache_dir=str(cache_dir()))
    bars = _progress_class(progress, cancelled)
    try:
        folder = Path(snapshot_download(**args, allow_patterns=list(DOWNLOAD_PATTERNS), tqdm_class=bars))
        if progress is not None and bars is not None and bars.most_bytes:
            # The last word is the whole: the hub's bars add their totals from several threads without a
            # lock (a total can be lost), and its transfer bar's total is a guess.
            progress(bars.most_bytes, bars.most_bytes)
        return folder
    except LocalEntryNotFoundError:
        if not download:
            raise _not_cached(hub_id) from None
        raise ModelLoadError("Could not download {model}: the Hugging Face hub cannot be reached from here "
                             "(no network, or HF_HUB_OFFLINE is set).", id="hub.offline", model=hub_id.spec) from None
    except RevisionNotFoundError:
        raise ModelLoadError("{model}: the hub has no revision {revision}.", id="hub.no_revision",
                             model=hub_id.spec, revision=str(hub_id.revision)) from None
    except RepositoryNotFoundError:
        raise ModelLoadError("The Hugging Face hub has no model {model} you can read (a typo, a private or a "
                             "gated model: log in with `hf auth login`).", id="hub.no_repo",
                             model=hub_id.spec) from None
    except OSError as exc:  # a network error huggingface_hub passes through, a full disk
        raise ModelLoadError("Could not download {model}: {reason}", id="hub.download_failed", model=hub_id.spec,
                             reason=str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from None


def cached_snapshot(hub_id: HubId) -> Path:
    """The snapshot folder of `hub_id` in the cache, read as huggingface_hub lays it out, never leaving the cache.

    The cache is data from anyone: a ref is read only as a small regular file inside the repository (not a FIFO,
    a device or a link elsewhere) and must hold a 40-hex commit hash; the snapshot it names must really lie in
    the cache (no link or path out of it). Each problem is one ModelLoadError sentence."""
    cache = cache_dir()
    repo = cache / ("models--" + hub_id.repo_id.replace("/", "--"))
    revision = hub_id.revision or "main"
    commit = revision
    if not _COMMIT.match(revision):
        ref = repo / "refs" / revision
        if not os.path.lexists(ref):
            raise _not_cached(hub_id)
        _within(ref, repo, hub_id)
        text = read_text(ref, MAX_REF_BYTES, ModelLoadError).strip()
        if not _COMMIT.match(text):
            raise ModelLoadError("The Hugging Face cache's ref {ref} does not hold a commit hash (40 hexadecimal "
                                 "digits), so {model} was not read from it: download it again (--download).",
                                 id="hub.bad_ref", ref=terminal_safe(os.fspath(ref), 300), model=hub_id.spec)
        commit = text
    snapshot = repo / "snapshots" / commit
    if not os.path.lexists(snapshot):
        raise _not_cached(hub_id)
    if not _within(snapshot, cache, hub_id).is_dir():
        raise _not_cached(hub_id)
    return snapshot


def _within(path: Path, root: Path, hub_id: HubId) -> Path:
    """Where `path` really leads, refused unless that lies inside `root` (a link loop is refused too)."""
    try:
        real, inside_of = path.resolve(strict=True), root.resolve(strict=True)
    except FileNotFoundError:
        raise _not_cached(hub_id) from None
    except (OSError, RuntimeError):  # a symbolic link loop (RuntimeError before Python 3.13), or no permission
        raise ModelLoadError("{path} in the Hugging Face cache is a symbolic link that leads nowhere (a loop, or a "
                             "folder that cannot be read), so {model} was not read from it.", id="hub.link_loop",
                             path=terminal_safe(os.fspath(path), 300), model=hub_id.spec) from None
    if not real.is_relative_to(inside_of):
        raise ModelLoadError("{path} in the Hugging Face cache leads outside it (to {target}), so {model} was not "
                             "read from it; tfdebug reads only the cache's own files.", id="hub.outside_cache",
                             path=terminal_safe(os.fspath(path), 300), target=terminal_safe(os.fspath(real), 300),
                             model=hub_id.spec)
    return real


def _not_cached(hub_id: HubId) -> ModelLoadError:
    return ModelLoadError("{model} is not in the Hugging Face cache ({cache}); add --download to fetch it.",
                          id="hub.not_cached", model=hub_id.spec, cache=str(cache_dir()))


def cached_repo(hub_id: HubId) -> Path:
    """The cache's folder of `hub_id`'s repository, from the file system alone (huggingface_hub's layout,
    models--ORG--NAME); ModelLoadError when the cache has none. Which revision it holds is left to `resolve`."""
    _require_hub()
    folder = cache_dir() / ("models--" + hub_id.repo_id.replace("/", "--"))
    if not folder.is_dir():
        raise _not_cached(hub_id)
    return folder


def fetch_spec(spec: str) -> Path | None:
    """Download the hub model a model spec names (huggingface_hub's bars on stderr); None when it names none."""
    hub_id = parse_hub_id(spec.removeprefix("hf:")) if spec.startswith("hf:") else None
    return resolve(hub_id, download=True) if hub_id else None


def _progress_class(progress, cancelled):
    """A tqdm class for snapshot_download: reports the byte bars to `progress`, raises when `cancelled()`."""
    if progress is None and cancelled is None:
        return None  # huggingface_hub's own bars on stderr (the CLI)
    import threading

    from tqdm.auto import tqdm

    lock = threading.Lock()

    class Reporting(tqdm):
        most_bytes = 0  # the most bytes any bar of this download counted (its files' threads update it)

        def __init__(self, *args, **kwargs):
            kwargs["disable"] = True  # the caller draws the bar
            super().__init__(*args, **kwargs)
            self._bytes = kwargs.get("unit") == "B"
            self._done = kwargs.get("initial", 0) or 0  # a disabled tqdm counts nothing itself

        def update(self, n=1):
            if cancelled is not None and cancelled():
                raise DownloadCancelledError("The download was cancelled.", id="hub.cancelled")
            with lock:
                self._done += n or 0
                done = int(self._done)
                if self._bytes:
                    Reporting.most_bytes = max(Reporting.most_bytes, done)
            if progress is not None and self._bytes:
                progress(done, int(self.total or 0))

    return Reporting


def local_folder(rest: str) -> Path:
    """The folder `hf:REST` names when REST is not a hub id. A bare name that is no folder here (`hf:gpt2`) is
    refused with what each form needs: a hub id is ORG/NAME, a folder path must exist."""
    folder = Path(rest).expanduser()
    if not folder.exists() and "/" not in rest and os.sep not in rest:
        raise ModelLoadError("hf:{name} is no model folder here, and a hub id is ORG/NAME (e.g. "
                             "hf:openai-community/{name}): write the hub id with its ORG, or the path of a folder "
                             "that exists.", id="hf.bare_name", name=terminal_safe(rest, 100))
    return folder


def load(spec: str, device, dtype, device_map: str | None = None, download: bool = False):
    """The registry's loader for `hf:…`: a GGUF file, a hub id from the cache, else a folder (hf_load checks it)."""
    from tfdebug.adapters.hf.adapter import PREFIX

    from tfdebug.adapters.hf.folder import is_gguf

    rest = spec[len(PREFIX):] if spec.startswith(PREFIX) else spec
    if is_gguf(rest):  # a GGUF file (llama.cpp's, Ollama's): transformers dequantises it
        from tfdebug.adapters.hf.gguf import load_gguf
        from tfdebug.core.devices import resolve_dtype

        return load_gguf(Path(rest), device, resolve_dtype(dtype), device_map, name=spec)
    hub_id = parse_hub_id(rest)
    folder = resolve(hub_id, download=download) if hub_id else local_folder(rest)
    return _adapter(folder, spec, device, dtype, device_map)


def load_bundled(spec: str, device, dtype, device_map: str | None = None, download: bool = False):
    """The registry's loader for a bundled tiny model (`tiny-gpt2`); `download` does not apply."""
    from tfdebug.adapters.hf.load import bundled_folder

    return _adapter(bundled_folder(spec), spec, device, dtype, device_map)


def _adapter(folder: Path, name: str, device, dtype, device_map: str | None):
    from tfdebug.adapters.hf.adapter import HFAdapter
    from tfdebug.adapters.hf.load import load_folder, require_transformers
    from tfdebug.core.devices import resolve_dtype

    require_transformers()
    from tfdebug.adapters.hf.folder import read_config
    from tfdebug.adapters.hf.vision import VisionAdapter, is_vision_folder, load_vision_folder

    config = read_config(folder) if folder.is_dir() and (folder / "config.json").is_file() else {}
    if config.get("model_type") in ("clip", "siglip"):
        from tfdebug.adapters.hf.clip import load_clip_folder

        return load_clip_folder(folder, device, resolve_dtype(dtype), device_map, name=name)
    if config.get("model_type") == "llava":
        from tfdebug.adapters.hf.vlm import load_vlm_folder

        return load_vlm_folder(folder, device, resolve_dtype(dtype), device_map, name=name)
    if config.get("model_type") == "whisper":
        from tfdebug.adapters.hf.speech import load_speech_folder

        return load_speech_folder(folder, device, resolve_dtype(dtype), device_map, name=name)
    if is_vision_folder(config):
        model, processor = load_vision_folder(folder, device, resolve_dtype(dtype), device_map=device_map)
        return VisionAdapter(model, processor, name=name, folder=folder)
    model, tokenizer = load_folder(folder, device, resolve_dtype(dtype), device_map=device_map)
    return HFAdapter(model, tokenizer, name=name, folder=folder)


@dataclass(frozen=True)
class CachedModel:
    """One model in the hub cache, for a picker: what it is, how big, and whether tfdebug opens it (and why not)."""

    spec: str
    repo_id: str
    revision: str
    architecture: str
    model_type: str
    size_on_disk: int
    supported: bool
    reason: str = ""

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def scan_cache() -> list[CachedModel]:
    """The models in the hub cache (one row per repository: the revision `main` points at, else the newest),
    sorted by id. An absent or unreadable cache is an empty list.

    Each repository is scanned by huggingface_hub's own step of `scan_cache_dir` once its refs are known to be
    small regular files (that scan reads every ref: a FIFO waits forever, a link to /dev/zero never ends); a
    repository with a ref that is not, or that the scan finds damaged, is left out of the list, and one warning
    line names each one left out for a bad ref."""
    _require_hub()
    # scan_cache_dir's per-repository step (a private name, present since huggingface_hub 0.9): scanning
    # repository by repository is what lets one bad entry be skipped instead of the whole cache.
    from huggingface_hub.utils._cache_manager import CorruptedCacheException, _scan_cached_repo

    try:
        repo_paths = sorted(p for p in cache_dir().iterdir() if p.name.startswith("models--") and p.is_dir())
    except OSError:
        return []
    rows = []
    for repo_path in repo_paths:
        bad = _bad_ref(repo_path)
        if bad is not None:
            log.warning("the Hugging Face cache's ref %s is not a small regular file, so its model is not listed; "
                        "remove it (the model can be downloaded again).", terminal_safe(os.fspath(bad), 300))
            continue
        try:
            repo = _scan_cached_repo(repo_path)
        except (CorruptedCacheException, OSError, ValueError, RuntimeError):
            continue  # huggingface_hub's scan leaves it out too (a missing snapshot, a blob gone)
        if repo.repo_type != "model" or not repo.revisions:
            continue
        commit = sorted(repo.revisions, key=lambda r: ("main" in r.refs, r.last_modified))[-1].commit_hash
        try:  # the snapshot as a load resolves it: inside the cache, no link loop
            folder = cached_snapshot(HubId(repo.repo_id, commit))
        except ModelLoadError as exc:
            log.warning("%s", exc.message)
            continue
        rows.append(_row(repo.repo_id, commit, folder, repo.size_on_disk))
    return sorted(rows, key=lambda r: r.repo_id.lower())


def _bad_ref(repo: Path) -> Path | None:
    """The first ref of the cached repository `repo` that is not a regular file of at most MAX_REF_BYTES (None:
    all are)."""
    for ref in sorted(repo.glob("refs/**/*")):
        try:
            info = os.stat(ref)
        except OSError:
            return ref  # a link loop, or a link to nothing
        if stat.S_ISDIR(info.st_mode):
            continue
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_REF_BYTES:
            return ref
    return None


def _row(repo_id: str, commit: str, folder: Path, size: int) -> CachedModel:
    config = _config(folder)
    architecture = ", ".join(config.get("architectures") or []) if isinstance(config.get("architectures"), list) else ""
    model_type = str(config.get("model_type", ""))
    supported, reason = support(folder)
    return CachedModel("hf:" + repo_id, repo_id, commit, architecture or model_type or "?", model_type,
                       int(size), supported, reason)


def _config(folder: Path) -> dict:
    """config.json read bounded (a FIFO or /dev/zero is not waited on); {} when it cannot be read."""
    from tfdebug.adapters.hf.folder import MAX_CONFIG_BYTES

    try:
        config = json.loads(read_text(folder / "config.json", MAX_CONFIG_BYTES, ModelLoadError))
    except (TfdebugError, json.JSONDecodeError, RecursionError):
        return {}
    return config if isinstance(config, dict) else {}


def support(folder: Path) -> tuple[bool, str]:
    """Whether tfdebug can open the model folder, and the sentence saying why not ("" when it can).

    Config-only, for a picker: the folder's files are checked the way a load checks them; nothing is
    imported from transformers and no weight is read. A model the planner can only judge by running
    it once is refused at Run.
    """
    from tfdebug.adapters.hf.folder import check_folder

    try:
        check_folder(folder)
    except TfdebugError as exc:
        return False, exc.phrase()  # the window says it in its language
    return True, ""
