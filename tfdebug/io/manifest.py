"""Reading and checking a manifest: the JSON description a snapshot or export carries.

Every problem becomes a SnapshotError with one sentence; nothing in a manifest is
executed or trusted before its type, size and consistency are checked. The same
checks run on a manifest about to be written, so tfdebug never writes a file it
would refuse to open.

Format 1 holds exactly the `src` and `tgt` token lists; format 2 any named token
streams, plus the optional `inputs` (texts typed, by field key) and `adapter`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

from tfdebug.core.errors import SnapshotError
from tfdebug.core.phrases import Phrase
from tfdebug.core.names import parse_token_ref
from tfdebug.core.stages import AXES, KINDS, TOKEN_AXES, StageInfo
from tfdebug.io.limits import (MAX_CONFIG_VALUES, MAX_NAME_CHARS, MAX_STAGES, MAX_STREAMS, MAX_TEXT_CHARS, name_problem,
                               shape_problem, shown, stream_problem, string_problem, structure_problem, tokens_problem)
from tfdebug.io.recipe_store import INPUT_PREFIX, check_recipe
from tfdebug.io.recording import FORMAT_VERSION, Recording
from tfdebug.io.safetensors_file import ITEMSIZE_BY_NAME, dtype_name, is_int, json_object, torch_dtype

if TYPE_CHECKING:
    import torch

V1_STREAMS = ("src", "tgt")


class _Damaged(Exception):
    """One problem found in a manifest; `parse_manifest` words it for the file or the pass."""


def parse_manifest(text: str | None, where: str) -> dict:
    """The manifest in `text` after checking its structure (not yet against tensors)."""
    if text is None:
        raise SnapshotError("{where} has no tfdebug manifest: it is a plain safetensors file, not a snapshot.",
                            id="manifest.missing", where=where)
    doc = json_object(text, Phrase("{where} has a damaged manifest: it", id="json.manifest", where=where))
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
                                problem=problem.args[0]) from None
        raise SnapshotError("{where} has a damaged manifest: {problem}.", id="manifest.damaged",
                            where=where, problem=problem.args[0]) from None
    except _Unsupported as problem:
        raise SnapshotError("{where} {problem}.", id="manifest.unsupported", where=where,
                            problem=problem.args[0]) from None
    return doc


class _Unsupported(Exception):
    """A manifest from another format version than this tfdebug reads."""


def _check(doc: dict) -> None:
    version = doc.get("format_version")
    if not is_int(version) or version < 1:
        raise _Unsupported(Phrase("has an unknown snapshot format version ({version})", id="manifest.unknown_version",
                                  version=repr(str(version)[:20])))
    if version > FORMAT_VERSION:
        raise _Unsupported(Phrase("uses snapshot format {version}, newer than this tfdebug reads ({ours}); "
                                  "update tfdebug to open it", id="manifest.newer", version=version,
                                  ours=FORMAT_VERSION))
    stages = doc.get("stages")
    if isinstance(stages, list) and len(stages) > MAX_STAGES:
        raise _Damaged(Phrase("it lists {n} stages (at most {most})", id="manifest.too_many_stages",
                              n=f"{len(stages):,}", most=f"{MAX_STAGES:,}"))
    problem = structure_problem(doc, long_texts="inputs")
    if problem:
        raise _Damaged(problem)
    _check_streams(doc, version)
    _check_image(doc)
    _check_backward(doc)
    for key, limit in (("device", 64), ("dtype", 64)):
        _require(string_problem(doc.get(key), f"'{key}'", limit))
    for key in ("model", "tfdebug_version", "adapter"):
        if doc.get(key) is not None:
            _require(string_problem(doc[key], f"'{key}'", MAX_NAME_CHARS))
    if not isinstance(doc.get("model_config", {}), dict):
        raise _Damaged(Phrase("'model_config' is not an object", id="manifest.config_not_object"))
    if structure_problem(doc.get("model_config", {}), max_items=MAX_CONFIG_VALUES):  # only its count is left
        raise _Damaged(Phrase("'model_config' holds more than {most} values (a model's config holds thousands)",
                              id="manifest.config_too_big", most=f"{MAX_CONFIG_VALUES:,}"))
    if not isinstance(stages, list) or not stages:
        raise _Damaged(Phrase("it lists no stages", id="manifest.no_stages"))
    if version < 3 and (doc.get("recipe_inputs") is not None or any(isinstance(s, dict) and "recipe" in s
                                                                     for s in stages)):
        raise _Damaged(Phrase("it has recipe stages, which snapshot format {version} cannot hold",
                              id="manifest.recipes_too_old", version=version))
    _check_recipe_inputs(doc.get("recipe_inputs", []))
    seen: set[str] = {entry["name"] for entry in doc.get("recipe_inputs", [])}
    for i, stage in enumerate(stages):
        _check_stage(stage, i, doc["tokens"])
        if stage["name"] in seen:
            raise _Damaged(Phrase("stage '{name}' is listed twice", id="manifest.stage_twice", name=stage["name"]))
        seen.add(stage["name"])


def _check_recipe_inputs(entries) -> None:
    """The extra tensors recipes read: a list of {name ("[recipe]N"), shape, dtype}."""
    if not isinstance(entries, list) or len(entries) > MAX_STAGES:
        raise _Damaged(Phrase("'recipe_inputs' is not a list of tensors", id="manifest.recipe_inputs"))
    for entry in entries:
        name = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not name.startswith(INPUT_PREFIX) \
                or not name[len(INPUT_PREFIX):].isdigit() or len(name) > len(INPUT_PREFIX) + 9:
            raise _Damaged(Phrase("'recipe_inputs' lists a tensor with an invalid name", id="manifest.recipe_name"))
        shape, dtype = entry.get("shape"), entry.get("dtype")
        if not isinstance(shape, list) or not all(is_int(d) and d >= 0 for d in shape) or len(shape) > 8 \
                or dtype not in ITEMSIZE_BY_NAME or shape_problem(shape, ITEMSIZE_BY_NAME[dtype]):
            raise _Damaged(Phrase("recipe input '{name}' has an invalid shape or dtype", id="manifest.recipe_shape",
                                  name=name))


def _check_image(doc: dict) -> None:
    """The picture a vision pass carries: well formed, and its patches the tokens of a stream the file lists (a
    vision-language prompt's text may follow them)."""
    if "image" not in doc:
        return
    from tfdebug.core.images import InputImage  # numpy: only for a file that carries a picture

    try:
        image = InputImage.from_manifest(doc["image"])
    except ValueError as exc:
        raise _Damaged(Phrase("the image it carries is damaged ({reason})", id="manifest.bad_image",
                              reason=str(exc))) from None
    words = doc["tokens"].get(image.stream)
    start, labels = len(image.prefix), image.token_labels()
    if words is None or list(words[start: len(labels)]) != labels[start:]:  # the patches' labels, in place
        raise _Damaged(Phrase("the image it carries does not match the tokens of stream '{stream}'",
                              id="manifest.image_tokens", stream=image.stream))


def _check_backward(doc: dict) -> None:
    """A backward pass's entry (io.recording.backward_doc): the objective in words, its value and the first
    non-finite stage."""
    if "backward" not in doc:
        return
    entry = doc["backward"]
    loss = entry.get("loss") if isinstance(entry, dict) else None
    first = entry.get("first_nonfinite") if isinstance(entry, dict) else None
    if not isinstance(entry, dict) or string_problem(entry.get("objective"), "objective") \
            or string_problem(entry.get("objective_kind"), "objective", 64) \
            or not (isinstance(loss, (int, float)) and not isinstance(loss, bool) or loss in ("nan", "inf", "-inf")) \
            or (first is not None and name_problem(first)) \
            or not all(entry.get(key) is None or is_int(entry[key]) for key in ("position", "target", "contrast")):
        raise _Damaged(Phrase("its backward pass's objective or loss is damaged", id="manifest.bad_backward"))


def _require(problem: str | None) -> None:
    if problem:
        raise _Damaged(problem)


def _check_streams(doc: dict, version: int) -> None:
    tokens = doc.get("tokens")
    if version == 1:
        if not isinstance(tokens, dict) or sorted(tokens) != sorted(V1_STREAMS):
            raise _Damaged(Phrase("'tokens' must hold the src and tgt word lists", id="manifest.v1_tokens"))
    elif not isinstance(tokens, dict) or not tokens:
        raise _Damaged(Phrase("'tokens' must hold at least one named list of tokens", id="manifest.no_tokens"))
    if len(tokens) > MAX_STREAMS:
        raise _Damaged(Phrase("it has {n} token streams (at most {most})", id="manifest.too_many_streams",
                              n=len(tokens), most=MAX_STREAMS))
    for stream, words in tokens.items():
        _require(stream_problem(stream) or tokens_problem(words, stream))
    inputs = doc.get("inputs", {}) if version >= 2 else {}
    if not isinstance(inputs, dict):
        raise _Damaged(Phrase("'inputs' is not a map of field names to texts", id="manifest.inputs_not_map"))
    for field, text in inputs.items():
        _require(stream_problem(field) or string_problem(text, Phrase("the input '{field}'", id="what.input",
                                                                       field=field), MAX_TEXT_CHARS))
    labels = doc.get("input_labels", {}) if version >= 2 else {}
    if not isinstance(labels, dict):
        raise _Damaged(Phrase("'input_labels' is not a map of field names to labels", id="manifest.labels_not_map"))
    for field, label in labels.items():
        _require(stream_problem(field) or string_problem(label, Phrase("the label of input '{field}'",
                                                                        id="what.input_label", field=field),
                                                         MAX_NAME_CHARS))


def _check_stage(stage, i: int, streams: dict) -> None:
    if not isinstance(stage, dict):
        raise _Damaged(Phrase("stage {i} is not an object", id="manifest.stage_not_object", i=i))
    name = stage.get("name")
    _require(name_problem(name))
    shape, dtype = stage.get("shape"), stage.get("dtype")
    if not isinstance(shape, list) or len(shape) > len(AXES) or not all(is_int(d) and d >= 0 for d in shape):
        raise _Damaged(Phrase("stage '{name}' has an invalid shape", id="manifest.bad_shape", name=name))
    for key in ("dtype", "stored_dtype"):
        value = stage.get(key, dtype)
        if not isinstance(value, str) or value not in ITEMSIZE_BY_NAME:
            raise _Damaged(Phrase("stage '{name}' has an unknown dtype", id="manifest.unknown_dtype", name=name)
                           if key == "dtype" else
                           Phrase("stage '{name}' has an unknown stored dtype", id="manifest.unknown_stored_dtype",
                                  name=name))
    assert isinstance(name, str) and isinstance(dtype, str)  # name_problem and the loop above checked them
    problem = shape_problem(shape, ITEMSIZE_BY_NAME[dtype])
    if problem:
        raise _Damaged(Phrase("stage '{name}' has {problem}", id="manifest.stage_shape", name=name, problem=problem))
    _check_description(stage, name)
    axes = stage.get("axes", [])
    if len(axes) != len(shape):
        raise _Damaged(Phrase("stage '{name}' names {n} axes for {dims} dimensions", id="manifest.axes_count",
                              name=name, n=len(axes), dims=len(shape)))
    if len(set(axes)) != len(axes):
        raise _Damaged(Phrase("stage '{name}' names an axis twice", id="manifest.axis_twice", name=name))
    for axis, ref in (stage.get("tokens") or {}).items():
        if axis not in axes or axis not in TOKEN_AXES:
            raise _Damaged(Phrase("stage '{name}' labels axis '{axis}', which it does not have as a token axis",
                                  id="manifest.not_token_axis", name=name, axis=axis))
        try:
            stream, start, stop = parse_token_ref(ref)
        except ValueError:
            raise _Damaged(Phrase("stage '{name}' labels its {axis} axis with {ref}, not a token stream",
                                  id="manifest.bad_token_ref", name=name, axis=axis, ref=shown(ref))) from None
        if stream not in streams:
            raise _Damaged(Phrase("stage '{name}' labels its {axis} axis with tokens '{stream}', which the file "
                                  "does not hold", id="manifest.missing_stream", name=name, axis=axis, stream=stream))
        # A generation step's stage reads a slice of a stream (its new token, the keys so far).
        held = (len(streams[stream]) if start is None or stop is None else  # a slice gives both ends
                stop - start if stop <= len(streams[stream]) else -1)
        length = shape[axes.index(axis)]
        if length != held:
            raise _Damaged(Phrase("stage '{name}' has {length} positions on its {axis} axis but '{ref}' "
                                  "lists {held} tokens", id="manifest.token_count", name=name, length=length,
                                  axis=axis, ref=ref, held=max(held, 0)))


def _check_description(stage: dict, name: str) -> None:
    """Type-check every descriptive field tfdebug reads; unknown extra keys are left alone."""
    if stage.get("kind") not in KINDS:
        raise _Damaged(Phrase("stage '{name}' has an unknown kind", id="manifest.unknown_kind", name=name))
    for key in ("site", "formula", "role", "source"):
        value = stage.get(key)
        if key == "site" or value is not None:
            _require(string_problem(value, Phrase("the {key} of stage '{name}'", id="what.stage_field",
                                                  key=key, name=name)))
    layer = stage.get("layer")
    if layer is not None and not (is_int(layer) and 0 <= layer < 1_000_000):
        raise _Damaged(Phrase("stage '{name}' has a layer that is not a whole number", id="manifest.bad_layer",
                              name=name))
    for key in ("axes", "ops", "inputs"):
        value = stage.get(key, [])
        if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
            raise _Damaged(Phrase("stage '{name}' has '{key}' that is not a list of names", id="manifest.not_names",
                                  name=name, key=key))
    if not all(axis in AXES for axis in stage.get("axes", [])):
        raise _Damaged(Phrase("stage '{name}' names an unknown axis", id="manifest.unknown_axis", name=name))
    for source in stage.get("inputs", []):
        _require(name_problem(source, "stage input name"))
    tokens = stage.get("tokens") or {}
    if not isinstance(tokens, dict) or not all(isinstance(v, str) for v in tokens.values()):
        raise _Damaged(Phrase("stage '{name}' has token labels that are not a map of axis to stream",
                              id="manifest.bad_token_labels", name=name))
    if not isinstance(stage.get("finite", False), bool):
        raise _Damaged(Phrase("stage '{name}' has a 'finite' mark that is not true or false",
                              id="manifest.bad_finite", name=name))
    if not isinstance(stage.get("edited", False), bool):
        raise _Damaged(Phrase("stage '{name}' has an 'edited' mark that is not true or false",
                              id="manifest.bad_edited", name=name))


def checked_manifest(recording: Recording, stored_dtypes: dict[str, str] | None = None,
                     finite: dict[str, bool] | None = None) -> dict:
    """`recording.manifest(...)` after the checks a file gets on opening (what is written must reopen)."""
    return check_manifest(recording.manifest(stored_dtypes, finite), Phrase("This pass", id="where.pass"),
                          writing=True)


def stage_info(stage: dict) -> StageInfo:
    """The StageInfo of a checked manifest stage entry."""
    return StageInfo.from_dict({**stage, "tokens": dict(stage.get("tokens") or {})})


def check_tensors(doc: dict, tensors: Mapping[str, tuple["torch.dtype | str", tuple[int, ...]]], where: str,
                  stored: bool = False) -> None:
    """The manifest must list exactly the file's tensors, with their shapes and dtypes.

    A dtype is a torch dtype or its manifest name ('float32'), so a header is checked without torch.
    `stored=True` compares against `stored_dtype` where a stage has one (exports).
    """
    listed = [s["name"] for s in doc["stages"] if "recipe" not in s]
    listed += [entry["name"] for entry in doc.get("recipe_inputs", [])]
    for name in listed:
        if name not in tensors:
            raise SnapshotError("{where} does not match its manifest: stage '{name}' has no tensor in the file.",
                                id="manifest.missing_tensor", where=where, name=name)
    extra = sorted(set(tensors) - set(listed))
    if extra:
        raise SnapshotError("{where} does not match its manifest: tensor '{name}' is not a listed stage.",
                            id="manifest.extra_tensor", where=where, name=extra[0])
    for stage in doc["stages"]:
        if "recipe" in stage:
            if stage["name"] in tensors:
                raise SnapshotError("{where} does not match its manifest: stage '{name}' is a recipe but has a "
                                    "tensor too.", id="manifest.recipe_with_tensor", where=where, name=stage["name"])
            check_recipe(stage, tensors)
            continue
        dtype, shape = tensors[stage["name"]]
        if tuple(shape) != tuple(stage["shape"]):
            raise SnapshotError("{where} does not match its manifest: stage '{name}' has shape "
                                "{shape} in the file but {listed} in the manifest.", id="manifest.shape_mismatch",
                                where=where, name=stage["name"], shape=tuple(shape), listed=tuple(stage["shape"]))
        want = stage.get("stored_dtype", stage["dtype"]) if stored else stage["dtype"]
        dtype = dtype if isinstance(dtype, str) else dtype_name(dtype)
        if want != dtype:
            raise SnapshotError("{where} does not match its manifest: stage '{name}' is "
                                "{dtype} in the file but {want} in the manifest.", id="manifest.dtype_mismatch",
                                where=where, name=stage["name"], dtype=dtype, want=want)


def tensor_bytes(doc: dict) -> int:
    """Bytes of all tensors a checked manifest lists (shape × element size): stages and recipe inputs."""
    total = 0
    for stage in [s for s in doc["stages"] if "recipe" not in s] + doc.get("recipe_inputs", []):
        numel = 1
        for d in stage["shape"]:
            numel *= d
        total += numel * ITEMSIZE_BY_NAME[stage["dtype"]]
    return total


def recording_from_manifest(doc: dict, **kwargs) -> Recording:
    """A Recording whose captures carry the checked manifest's descriptions and no tensors yet."""
    import torch

    from tfdebug.core.recorder import Capture

    cpu = torch.device("cpu")
    image = None
    if "image" in doc:
        from tfdebug.core.images import InputImage

        image = InputImage.from_manifest(doc["image"])
    captures = [Capture(info=stage_info(s), shape=tuple(s["shape"]), dtype=torch_dtype(s["dtype"]),
                        device=cpu, tensor=None, edited=s.get("edited", False), recipe="recipe" in s)
                for s in doc["stages"]]
    version = doc["format_version"]
    return Recording(captures=captures, tokens={k: list(v) for k, v in doc["tokens"].items()},
                     model_name=doc.get("model"), model_config=dict(doc.get("model_config") or {}),
                     device=doc["device"], dtype=doc["dtype"],
                     inputs=dict(doc.get("inputs", {})) if version >= 2 else {},
                     adapter=doc.get("adapter") if version >= 2 else None,
                     input_labels=dict(doc.get("input_labels", {})) if version >= 2 else {},
                     image=image, backward=dict(doc["backward"]) if "backward" in doc else None, **kwargs)
