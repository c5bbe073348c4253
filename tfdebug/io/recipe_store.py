"""Recipe stages in a snapshot: the recipe and its inputs are stored, never the tokens² plane.

A recipe stage (tfdebug.core.recipes: scores, scaled, masked, probabilities …) is written as a
description in its manifest entry, `"recipe": {"steps": [...]}`, whose steps name the tensors they read
by key: a stage of the file (q after its rotation, k) or an extra tensor listed in the manifest's
`recipe_inputs` (an additive mask, a position bias; keys "[recipe]0", "[recipe]1" …, which no stage may be named).
Each tensor is stored once, however many steps read it (the four planes of a layer share q and k; every
layer shares one mask). Opening rebuilds the plane from the stored tensors when the stage is first
shown, with the same steps, so a replayed plane equals the live one bit for bit.

Everything in a description is checked before use (op names from a fixed list, finite numbers, known
dtypes, keys the file holds, shapes that fit the stage); a problem is one SnapshotError sentence.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Callable, Mapping

from tfdebug.core.errors import SnapshotError
from tfdebug.core.phrases import Phrase
from tfdebug.io.safetensors_file import ITEMSIZE_BY_NAME, dtype_name, torch_dtype

if TYPE_CHECKING:
    from torch import Tensor

    from tfdebug.core.recipes import Plane

INPUT_PREFIX = "[recipe]"
VALUE_OPS = ("scale", "softcap")
TENSOR_OPS = ("bias", "mask")
MAX_STEPS = 16


def _identity(tensor: "Tensor") -> tuple:
    """What makes two tensors the same stored values: storage, offset, shape, strides, dtype, device."""
    return (tensor.untyped_storage().data_ptr(), tensor.storage_offset(), tuple(tensor.shape), tuple(tensor.stride()),
            tensor.dtype, str(tensor.device))


def recipe_parts(planes: Mapping[str, "Plane"], stored: Mapping[str, "Tensor"]
                 ) -> tuple[dict[str, dict], dict[str, "Tensor"]]:
    """Descriptions of the recipe stages `planes` (by stage name), and the extra tensors they read, by key.

    `stored`: the plain stages written to the file, by name (a recipe input that is one of them is
    named by it)."""
    known = {_identity(t): name for name, t in stored.items() if not t.is_meta}
    extra: dict[str, "Tensor"] = {}

    def key_of(tensor: "Tensor") -> str:
        ident = _identity(tensor)
        if ident not in known:
            known[ident] = f"{INPUT_PREFIX}{len(extra)}"
            extra[known[ident]] = tensor
        return known[ident]

    descriptions = {name: {"steps": [_describe(step, key_of) for step in plane.steps()]}
                    for name, plane in planes.items()}
    return descriptions, extra


def _describe(step: "Plane", key_of: Callable[["Tensor"], str]) -> dict:
    from tfdebug.core.recipes import FromTensor, Scores

    if isinstance(step, Scores):
        return {"op": "scores", "query": key_of(step.query), "key": key_of(step.key)}
    if isinstance(step, FromTensor):
        return {"op": "tensor", "tensor": key_of(step.tensor)}
    entry = {"op": step.op, "dtype": dtype_name(step.dtype)}
    if step.tensor is not None:
        entry["tensor"] = key_of(step.tensor)
    if step.value is not None:
        entry["value"] = float(step.value)
    return entry


def _bad(name: str, problem: str) -> SnapshotError:
    return SnapshotError("The recipe of stage '{name}' is damaged: {problem}.", id="recipe.damaged", name=name,
                         problem=problem)


def check_recipe(name: str, recipe: object, keys: set[str]) -> None:
    """Refuse a recipe description that is not one tfdebug writes (`keys`: the tensors the file holds)."""
    steps = recipe.get("steps") if isinstance(recipe, dict) else None
    if not isinstance(steps, list) or not 1 <= len(steps) <= MAX_STEPS:
        raise _bad(name, Phrase("it has no list of at most {most} steps", id="recipe.no_steps", most=MAX_STEPS))
    for i, entry in enumerate(steps):
        op = entry.get("op") if isinstance(entry, dict) else None
        first = op in ("scores", "tensor")
        if first != (i == 0) or op not in ("scores", "tensor", "softmax", *VALUE_OPS, *TENSOR_OPS):
            raise _bad(name, Phrase("step {i} is not a step tfdebug writes", id="recipe.bad_step", i=i))
        refs = {"scores": ("query", "key"), "tensor": ("tensor",)}.get(op, ("tensor",) if op in TENSOR_OPS else ())
        for ref in refs:
            if not isinstance(entry.get(ref), str) or entry[ref] not in keys:
                raise _bad(name, Phrase("step {i} reads a tensor the file does not hold", id="recipe.missing_input",
                                        i=i))
        if not first and entry.get("dtype") not in ITEMSIZE_BY_NAME:
            raise _bad(name, Phrase("step {i} has an unknown dtype", id="recipe.bad_dtype", i=i))
        value = entry.get("value")
        if op in VALUE_OPS and (not isinstance(value, (int, float)) or isinstance(value, bool)
                                or not math.isfinite(value) or (op == "softcap" and value == 0)):
            raise _bad(name, Phrase("step {i} has no finite constant", id="recipe.bad_value", i=i))


def rebuild(name: str, recipe: dict, shape: tuple[int, ...], fetch: Callable[[str], "Tensor"]) -> "Plane":
    """The plane a checked description makes, reading its tensors with `fetch(key)`; its shape must be `shape`."""
    from tfdebug.core.recipes import FromTensor, Scores, step

    steps = recipe["steps"]
    first = steps[0]
    if first["op"] == "scores":
        query, key = fetch(first["query"]), fetch(first["key"])
        if query.dim() != 4 or key.dim() != 4 or key.shape[1] == 0 or query.shape[1] % key.shape[1] \
                or query.shape[-1] != key.shape[-1] or query.shape[0] != key.shape[0]:
            raise _bad(name, Phrase("its query and key do not fit together", id="recipe.qk_shapes"))
        plane = Scores(query, key)
    else:
        plane = FromTensor(fetch(first["tensor"]))
    if tuple(plane.shape) != tuple(shape):
        raise _bad(name, Phrase("it makes a plane of another shape than the stage's", id="recipe.shape"))
    for entry in steps[1:]:
        tensor = fetch(entry["tensor"]) if "tensor" in entry else None
        if tensor is not None and not _broadcasts(tensor.shape, shape):
            raise _bad(name, Phrase("a step's tensor does not fit the plane", id="recipe.tensor_shape"))
        plane = step(plane, entry["op"], tensor=tensor, value=entry.get("value"), dtype=torch_dtype(entry["dtype"]))
    return plane


def _broadcasts(have: tuple[int, ...], shape: tuple[int, ...]) -> bool:
    """A mask or bias a plane step adds: (B or 1, H or 1, Tq, ≥ Tk) (a longer key axis is cut, as the model does)."""
    return (len(have) == 4 and have[0] in (1, shape[0]) and have[1] in (1, shape[1]) and have[2] == shape[2]
            and have[3] >= shape[3])
