"""Reading and checking a manifest: the JSON description a snapshot or export carries.

Every problem becomes a SnapshotError with one sentence; nothing in a manifest is
executed or trusted before it is checked.
"""

from __future__ import annotations

from typing import Mapping

import torch

from tfdebug.core.errors import SnapshotError
from tfdebug.core.recorder import Capture
from tfdebug.core.stages import StageInfo
from tfdebug.io.recording import FORMAT_VERSION, Recording
from tfdebug.io.safetensors_file import DTYPE_BY_NAME, is_int, json_object

CPU = torch.device("cpu")


def parse_manifest(text: str | None, where: str) -> dict:
    """The manifest in `text` after checking its structure (not yet against tensors)."""
    if text is None:
        raise SnapshotError(f"{where} has no tfdebug manifest: it is a plain safetensors file, not a snapshot.")
    doc = json_object(text, f"{where} has a damaged manifest: it")
    version = doc.get("format_version")
    if not is_int(version) or version < 1:
        raise SnapshotError(f"{where} has an unknown snapshot format version ({version!r}).")
    if version > FORMAT_VERSION:
        raise SnapshotError(f"{where} uses snapshot format {version}, newer than this tfdebug reads "
                            f"({FORMAT_VERSION}); update tfdebug to open it.")
    tokens = doc.get("tokens")
    if (not isinstance(tokens, dict)
            or not all(isinstance(tokens.get(k), list) and all(isinstance(w, str) for w in tokens[k])
                       for k in ("src", "tgt"))):
        raise SnapshotError(f"{where} has a damaged manifest: 'tokens' must hold the src and tgt word lists.")
    for key in ("device", "dtype"):
        if not isinstance(doc.get(key), str):
            raise SnapshotError(f"{where} has a damaged manifest: '{key}' is missing.")
    if not isinstance(doc.get("model_config", {}), dict):
        raise SnapshotError(f"{where} has a damaged manifest: 'model_config' is not an object.")
    if doc.get("model") is not None and not isinstance(doc["model"], str):
        raise SnapshotError(f"{where} has a damaged manifest: 'model' is not a name.")
    stages = doc.get("stages")
    if not isinstance(stages, list) or not stages:
        raise SnapshotError(f"{where} has a damaged manifest: it lists no stages.")
    seen: set[str] = set()
    for i, stage in enumerate(stages):
        _check_stage(stage, i, where)
        if stage["name"] in seen:
            raise SnapshotError(f"{where} has a damaged manifest: stage '{stage['name']}' is listed twice.")
        seen.add(stage["name"])
    return doc


def _check_stage(stage, i: int, where: str) -> None:
    if not isinstance(stage, dict) or not isinstance(stage.get("name"), str) or not stage["name"]:
        raise SnapshotError(f"{where} has a damaged manifest: stage {i} has no name.")
    name = stage["name"]
    shape = stage.get("shape")
    if not isinstance(shape, list) or not all(is_int(d) and d >= 0 for d in shape):
        raise SnapshotError(f"{where} has a damaged manifest: stage '{name}' has an invalid shape.")
    if stage.get("dtype") not in DTYPE_BY_NAME:
        raise SnapshotError(f"{where} has a damaged manifest: stage '{name}' has an unknown dtype.")
    try:
        info = stage_info(stage)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise SnapshotError(f"{where} has a damaged manifest: stage '{name}' is not described properly.") from exc
    if len(info.axes) != len(shape):
        raise SnapshotError(f"{where} has a damaged manifest: stage '{name}' names {len(info.axes)} axes "
                            f"for {len(shape)} dimensions.")


def stage_info(stage: dict) -> StageInfo:
    """The StageInfo of a manifest stage entry; raises on a malformed one."""
    for key in ("kind", "site", "formula"):
        if not isinstance(stage.get(key, ""), str):
            raise TypeError(key)
    layer = stage.get("layer")
    if layer is not None and not is_int(layer):
        raise TypeError("layer")
    for key in ("axes", "ops", "inputs"):
        if not isinstance(stage.get(key, []), list) or not all(isinstance(a, str) for a in stage.get(key, [])):
            raise TypeError(key)
    tokens = stage.get("tokens") or {}
    if not isinstance(tokens, dict) or not all(isinstance(v, str) for v in tokens.values()):
        raise TypeError("tokens")
    for key in ("role", "source"):
        if stage.get(key) is not None and not isinstance(stage[key], str):
            raise TypeError(key)
    return StageInfo.from_dict({**stage, "tokens": tokens})


def check_tensors(doc: dict, tensors: Mapping[str, tuple[torch.dtype, tuple[int, ...]]], where: str,
                  stored: bool = False) -> None:
    """The manifest must list exactly the file's tensors, with their shapes and dtypes.

    `stored=True` compares against `stored_dtype` where a stage has one (exports).
    """
    listed = [s["name"] for s in doc["stages"]]
    for name in listed:
        if name not in tensors:
            raise SnapshotError(f"{where} does not match its manifest: stage '{name}' has no tensor in the file.")
    extra = sorted(set(tensors) - set(listed))
    if extra:
        raise SnapshotError(f"{where} does not match its manifest: tensor '{extra[0]}' is not a listed stage.")
    for stage in doc["stages"]:
        dtype, shape = tensors[stage["name"]]
        if tuple(shape) != tuple(stage["shape"]):
            raise SnapshotError(f"{where} does not match its manifest: stage '{stage['name']}' has shape "
                                f"{tuple(shape)} in the file but {tuple(stage['shape'])} in the manifest.")
        want = stage.get("stored_dtype", stage["dtype"]) if stored else stage["dtype"]
        if want not in DTYPE_BY_NAME or DTYPE_BY_NAME[want] != dtype:
            raise SnapshotError(f"{where} does not match its manifest: stage '{stage['name']}' is "
                                f"{str(dtype).removeprefix('torch.')} in the file but {want} in the manifest.")


def recording_from_manifest(doc: dict, **kwargs) -> Recording:
    """A Recording whose captures carry the manifest's descriptions and no tensors yet."""
    captures = [Capture(info=stage_info(s), shape=tuple(s["shape"]), dtype=DTYPE_BY_NAME[s["dtype"]],
                        device=CPU, tensor=None, edited=bool(s.get("edited", False)))
                for s in doc["stages"]]
    return Recording(captures=captures, tokens={"src": list(doc["tokens"]["src"]), "tgt": list(doc["tokens"]["tgt"])},
                     model_name=doc.get("model"), model_config=dict(doc.get("model_config") or {}),
                     device=doc["device"], dtype=doc["dtype"], **kwargs)
