"""Reading and checking a manifest: the JSON description a snapshot or export carries.

Every problem becomes a SnapshotError with one sentence; nothing in a manifest is
executed or trusted before its type, size and consistency are checked. The same
checks run on a manifest about to be written, so tfdebug never writes a file it
would refuse to open.

Format 1 holds exactly the `src` and `tgt` token lists; format 2 any named token
streams, plus the optional `inputs` (texts typed, by field key) and `adapter`.
"""

from __future__ import annotations

from typing import Mapping

import torch

from tfdebug.core.errors import SnapshotError
from tfdebug.core.recorder import Capture
from tfdebug.core.names import parse_token_ref
from tfdebug.core.stages import AXES, KINDS, TOKEN_AXES, StageInfo
from tfdebug.io.limits import (MAX_NAME_CHARS, MAX_STAGES, MAX_STREAMS, name_problem, shape_problem, shown,
                               stream_problem, string_problem, structure_problem, tokens_problem)
from tfdebug.io.recording import FORMAT_VERSION, Recording
from tfdebug.io.safetensors_file import DTYPE_BY_NAME, is_int, json_object

CPU = torch.device("cpu")
V1_STREAMS = ("src", "tgt")
MAX_INPUT_CHARS = 10_000


class _Damaged(Exception):
    """One problem found in a manifest; `parse_manifest` words it for the file or the pass."""


def parse_manifest(text: str | None, where: str) -> dict:
    """The manifest in `text` after checking its structure (not yet against tensors)."""
    if text is None:
        raise SnapshotError("{where} has no tfdebug manifest: it is a plain safetensors file, not a snapshot.",
                            id="manifest.missing", where=where)
    doc = json_object(text, f"{where} has a damaged manifest: it")
    return check_manifest(doc, where)


def check_manifest(doc: dict, where: str, writing: bool = False) -> dict:
    """Check a parsed manifest; SnapshotError names the first problem. Returns `doc`.

    `writing=True` words the problem for a pass about to be saved instead of a file.
    """
    try:
        _check(doc)
    except _Damaged as problem:
        if writing:
            raise SnapshotError("This pass cannot be saved: {problem}.", id="manifest.unsavable",
                                problem=str(problem)) from None
        raise SnapshotError("{where} has a damaged manifest: {problem}.", id="manifest.damaged",
                            where=where, problem=str(problem)) from None
    except _Unsupported as problem:
        raise SnapshotError("{where} {problem}.", id="manifest.unsupported", where=where,
                            problem=str(problem)) from None
    return doc


class _Unsupported(Exception):
    """A manifest from another format version than this tfdebug reads."""


def _check(doc: dict) -> None:
    version = doc.get("format_version")
    if not is_int(version) or version < 1:
        raise _Unsupported(f"has an unknown snapshot format version ({str(version)[:20]!r})")
    if version > FORMAT_VERSION:
        raise _Unsupported(f"uses snapshot format {version}, newer than this tfdebug reads "
                           f"({FORMAT_VERSION}); update tfdebug to open it")
    stages = doc.get("stages")
    if isinstance(stages, list) and len(stages) > MAX_STAGES:
        raise _Damaged(f"it lists {len(stages):,} stages (at most {MAX_STAGES:,})")
    problem = structure_problem(doc)
    if problem:
        raise _Damaged(problem)
    _check_streams(doc, version)
    for key, limit in (("device", 64), ("dtype", 64)):
        _require(string_problem(doc.get(key), f"'{key}'", limit))
    for key in ("model", "tfdebug_version", "adapter"):
        if doc.get(key) is not None:
            _require(string_problem(doc[key], f"'{key}'", MAX_NAME_CHARS))
    if not isinstance(doc.get("model_config", {}), dict):
        raise _Damaged("'model_config' is not an object")
    if not isinstance(stages, list) or not stages:
        raise _Damaged("it lists no stages")
    seen: set[str] = set()
    for i, stage in enumerate(stages):
        _check_stage(stage, i, doc["tokens"])
        if stage["name"] in seen:
            raise _Damaged(f"stage '{stage['name']}' is listed twice")
        seen.add(stage["name"])


def _require(problem: str | None) -> None:
    if problem:
        raise _Damaged(problem)


def _check_streams(doc: dict, version: int) -> None:
    tokens = doc.get("tokens")
    if version == 1:
        if not isinstance(tokens, dict) or sorted(tokens) != sorted(V1_STREAMS):
            raise _Damaged("'tokens' must hold the src and tgt word lists")
    elif not isinstance(tokens, dict) or not tokens:
        raise _Damaged("'tokens' must hold at least one named list of tokens")
    if len(tokens) > MAX_STREAMS:
        raise _Damaged(f"it has {len(tokens)} token streams (at most {MAX_STREAMS})")
    for stream, words in tokens.items():
        _require(stream_problem(stream) or tokens_problem(words, stream))
    inputs = doc.get("inputs", {}) if version >= 2 else {}
    if not isinstance(inputs, dict):
        raise _Damaged("'inputs' is not a map of field names to texts")
    for field, text in inputs.items():
        _require(stream_problem(field) or string_problem(text, f"the input '{field}'", MAX_INPUT_CHARS))


def _check_stage(stage, i: int, streams: dict) -> None:
    if not isinstance(stage, dict):
        raise _Damaged(f"stage {i} is not an object")
    name = stage.get("name")
    _require(name_problem(name))
    shape, dtype = stage.get("shape"), stage.get("dtype")
    if not isinstance(shape, list) or len(shape) > len(AXES) or not all(is_int(d) and d >= 0 for d in shape):
        raise _Damaged(f"stage '{name}' has an invalid shape")
    for key in ("dtype", "stored_dtype"):
        value = stage.get(key, dtype)
        if not isinstance(value, str) or value not in DTYPE_BY_NAME:
            raise _Damaged(f"stage '{name}' has an unknown {key.replace('_', ' ')}")
    problem = shape_problem(shape, DTYPE_BY_NAME[dtype].itemsize)
    if problem:
        raise _Damaged(f"stage '{name}' has {problem}")
    _check_description(stage, name)
    axes = stage.get("axes", [])
    if len(axes) != len(shape):
        raise _Damaged(f"stage '{name}' names {len(axes)} axes for {len(shape)} dimensions")
    if len(set(axes)) != len(axes):
        raise _Damaged(f"stage '{name}' names an axis twice")
    for axis, ref in (stage.get("tokens") or {}).items():
        if axis not in axes or axis not in TOKEN_AXES:
            raise _Damaged(f"stage '{name}' labels axis '{axis}', which it does not have as a token axis")
        try:
            stream, start, stop = parse_token_ref(ref)
        except ValueError:
            raise _Damaged(f"stage '{name}' labels its {axis} axis with {shown(ref)}, not a token stream") from None
        if stream not in streams:
            raise _Damaged(f"stage '{name}' labels its {axis} axis with tokens '{stream}', which the file "
                           f"does not hold")
        # A generation step's stage reads a slice of a stream (its new token, the keys so far).
        held = len(streams[stream]) if start is None else (stop - start if stop <= len(streams[stream]) else -1)
        length = shape[axes.index(axis)]
        if length != held:
            raise _Damaged(f"stage '{name}' has {length} positions on its {axis} axis but '{ref}' "
                           f"lists {max(held, 0)} tokens")


def _check_description(stage: dict, name: str) -> None:
    """Type-check every descriptive field tfdebug reads; unknown extra keys are left alone."""
    if stage.get("kind") not in KINDS:
        raise _Damaged(f"stage '{name}' has an unknown kind")
    for key in ("site", "formula", "role", "source"):
        value = stage.get(key)
        if key == "site" or value is not None:
            _require(string_problem(value, f"the {key} of stage '{name}'"))
    layer = stage.get("layer")
    if layer is not None and not (is_int(layer) and 0 <= layer < 1_000_000):
        raise _Damaged(f"stage '{name}' has a layer that is not a whole number")
    for key in ("axes", "ops", "inputs"):
        value = stage.get(key, [])
        if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
            raise _Damaged(f"stage '{name}' has '{key}' that is not a list of names")
    if not all(axis in AXES for axis in stage.get("axes", [])):
        raise _Damaged(f"stage '{name}' names an unknown axis")
    for source in stage.get("inputs", []):
        _require(name_problem(source, "stage input name"))
    tokens = stage.get("tokens") or {}
    if not isinstance(tokens, dict) or not all(isinstance(v, str) for v in tokens.values()):
        raise _Damaged(f"stage '{name}' has token labels that are not a map of axis to stream")
    if not isinstance(stage.get("edited", False), bool):
        raise _Damaged(f"stage '{name}' has an 'edited' mark that is not true or false")


def checked_manifest(recording: Recording, stored_dtypes: dict[str, str] | None = None) -> dict:
    """`recording.manifest(...)` after the checks a file gets on opening (what is written must reopen)."""
    return check_manifest(recording.manifest(stored_dtypes), "This pass", writing=True)


def stage_info(stage: dict) -> StageInfo:
    """The StageInfo of a checked manifest stage entry."""
    return StageInfo.from_dict({**stage, "tokens": dict(stage.get("tokens") or {})})


def check_tensors(doc: dict, tensors: Mapping[str, tuple[torch.dtype, tuple[int, ...]]], where: str,
                  stored: bool = False) -> None:
    """The manifest must list exactly the file's tensors, with their shapes and dtypes.

    `stored=True` compares against `stored_dtype` where a stage has one (exports).
    """
    listed = [s["name"] for s in doc["stages"]]
    for name in listed:
        if name not in tensors:
            raise SnapshotError("{where} does not match its manifest: stage '{name}' has no tensor in the file.",
                                id="manifest.missing_tensor", where=where, name=name)
    extra = sorted(set(tensors) - set(listed))
    if extra:
        raise SnapshotError("{where} does not match its manifest: tensor '{name}' is not a listed stage.",
                            id="manifest.extra_tensor", where=where, name=extra[0])
    for stage in doc["stages"]:
        dtype, shape = tensors[stage["name"]]
        if tuple(shape) != tuple(stage["shape"]):
            raise SnapshotError("{where} does not match its manifest: stage '{name}' has shape "
                                "{shape} in the file but {listed} in the manifest.", id="manifest.shape_mismatch",
                                where=where, name=stage["name"], shape=tuple(shape), listed=tuple(stage["shape"]))
        want = stage.get("stored_dtype", stage["dtype"]) if stored else stage["dtype"]
        if DTYPE_BY_NAME[want] != dtype:
            raise SnapshotError("{where} does not match its manifest: stage '{name}' is "
                                "{dtype} in the file but {want} in the manifest.", id="manifest.dtype_mismatch",
                                where=where, name=stage["name"], dtype=str(dtype).removeprefix("torch."), want=want)


def recording_from_manifest(doc: dict, **kwargs) -> Recording:
    """A Recording whose captures carry the checked manifest's descriptions and no tensors yet."""
    captures = [Capture(info=stage_info(s), shape=tuple(s["shape"]), dtype=DTYPE_BY_NAME[s["dtype"]],
                        device=CPU, tensor=None, edited=s.get("edited", False))
                for s in doc["stages"]]
    version = doc["format_version"]
    return Recording(captures=captures, tokens={k: list(v) for k, v in doc["tokens"].items()},
                     model_name=doc.get("model"), model_config=dict(doc.get("model_config") or {}),
                     device=doc["device"], dtype=doc["dtype"],
                     inputs=dict(doc.get("inputs", {})) if version >= 2 else {},
                     adapter=doc.get("adapter") if version >= 2 else None, **kwargs)
