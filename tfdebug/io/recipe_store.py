"""Recipe stages in a snapshot: the recipe and its inputs are stored, never the tokens² plane.

A recipe stage (tfdebug.core.recipes: scores, scaled, masked, probabilities …) is written as a
description in its manifest entry, `"recipe": {"steps": [...]}`, whose steps name the tensors they read
by key: a stage of the file (q after its rotation, k) or an extra tensor listed in the manifest's
`recipe_inputs` (an additive mask, a position bias; keys "[recipe]0", "[recipe]1" …, which no stage may be named).
Each tensor is stored once, however many steps read it (the four planes of a layer share q and k; every
layer shares one mask). Opening rebuilds the plane from the stored tensors when the stage is first
shown, with the same steps, so a replayed plane equals the live one bit for bit. A grouped-query attention's
repeated K or V (tfdebug.core.repeats) is a recipe of one step, `{"op": "repeat", "tensor": key, "groups": g}`.

A backward's plane gradient (tfdebug.core.gradient_planes.GradientPlane: ∂L/∂scores … ∂L/∂probabilities) is a
recipe too: its description holds the forward chain to the probabilities (`steps`, as above) and
`"gradient": {"at": i, "d_context": key, "value": key}` — which step of the chain it is the gradient of, and the
O(tokens × width) tensors it reads: dO, the gradient of the per-head context (a stage of the file, or an extra
tensor), and V as the product read it. Reopened, it recomputes autograd's gradient bit for bit.

Everything in a description is checked as data before use (op names from a fixed list, finite numbers in
range, keys the file holds, a recipe only on a stage of a recipe kind, the plane's shape and every step's dtype
worked out from the stored inputs and equal to the stage's); a problem is one SnapshotError sentence.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Callable, Mapping

from tfdebug.core.errors import SnapshotError
from tfdebug.core.phrases import Phrase
from tfdebug.io.safetensors_file import dtype_name, torch_dtype

if TYPE_CHECKING:
    import torch
    from torch import Tensor

    from tfdebug.core.recipes import Plane

INPUT_PREFIX = "[recipe]"
VALUE_OPS = ("scale", "softcap")
TENSOR_OPS = ("bias", "mask")
MAX_STEPS = 16
#: the ops a chain starts with (`repeat`, a grouped-query attention's repeated K or V, is a chain alone)
FIRST_OPS = ("scores", "tensor", "repeat")
#: the most times a repeat step may repeat each K/V head
MAX_GROUPS = 4096
#: the dtypes a recipe computes in, by width (a step's promotion: the wider; float16 with bfloat16 makes float32)
FLOAT_RANK = {"float16": 0, "bfloat16": 0, "float32": 1, "float64": 2}
#: the largest scale or soft cap a recipe may hold: float32's largest finite value
MAX_CONSTANT = 3.4028234663852886e38


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

    return {name: _description(plane, key_of) for name, plane in planes.items()}, extra


def _description(plane: "Plane", key_of: Callable[["Tensor"], str]) -> dict:
    """A recipe stage's manifest description: its chain's steps, and for a plane's gradient what it reads."""
    from tfdebug.core.gradient_planes import GradientPlane

    if not isinstance(plane, GradientPlane):
        return {"steps": [_describe(step, key_of) for step in plane.steps()]}
    return {"steps": [_describe(step, key_of) for step in plane.forward_chain],
            "gradient": {"at": plane.at, "d_context": key_of(plane.d_context), "value": key_of(plane.backing.value)}}


def _describe(step: "Plane", key_of: Callable[["Tensor"], str]) -> dict:
    from tfdebug.core.recipes import FromTensor, Scores
    from tfdebug.core.repeats import Repeated

    if isinstance(step, Repeated):
        return {"op": "repeat", "tensor": key_of(step.source), "groups": step.groups}
    if isinstance(step, Scores):
        return {"op": "scores", "query": key_of(step.query), "key": key_of(step.key)}
    if isinstance(step, FromTensor):
        return {"op": "tensor", "tensor": key_of(step.tensor)}
    entry: dict[str, str | float] = {"op": step.op, "dtype": dtype_name(step.dtype)}
    if step.tensor is not None:
        entry["tensor"] = key_of(step.tensor)
    if step.value is not None:
        entry["value"] = float(step.value)
    return entry


def _bad(name: str, problem: str) -> SnapshotError:
    return SnapshotError("The recipe of stage '{name}' is damaged: {problem}.", id="recipe.damaged", name=name,
                         problem=problem)


def check_recipe(stage: dict, tensors: Mapping[str, tuple["torch.dtype | str", tuple[int, ...]]]) -> None:
    """Refuse a recipe description that is not one tfdebug writes, as data: its steps, constants and the plane
    they make are worked out from the stored inputs' dtypes and shapes (`tensors`: key → (dtype name, or a torch
    dtype, and shape) of every tensor the file holds) and must be the checked manifest `stage`'s own — a recipe
    only on a stage of a recipe kind, a plane exactly as large as its inputs imply, every step's dtype the one
    that step computes; a plane's gradient (`"gradient"`) of a step of a chain that ends at the probabilities,
    reading a dO and a V of that plane's batch, heads, rows and keys."""
    from tfdebug.core.recipes import RECIPE_KINDS
    from tfdebug.core.repeats import REPEAT_KIND

    name, recipe = stage["name"], stage["recipe"]
    if stage.get("kind") not in RECIPE_KINDS | {REPEAT_KIND}:
        raise _bad(name, Phrase("a stage of kind {kind} is never a recipe", id="recipe.wrong_kind",
                                kind=str(stage.get("kind"))[:40]))
    steps = recipe.get("steps") if isinstance(recipe, dict) else None
    if not isinstance(steps, list) or not 1 <= len(steps) <= MAX_STEPS:
        raise _bad(name, Phrase("it has no list of at most {most} steps", id="recipe.no_steps", most=MAX_STEPS))
    repeat = len(steps) == 1 and isinstance(steps[0], dict) and steps[0].get("op") == "repeat"
    if (stage["kind"] == REPEAT_KIND) != repeat or (repeat and "gradient" in recipe):
        raise _bad(name, Phrase("a stage of kind {kind} is never that recipe", id="recipe.wrong_recipe",
                                kind=str(stage["kind"])[:40]))
    shape, dtypes = _chain_made(name, steps, tensors)
    dtype = dtypes[-1] if "gradient" not in recipe else _gradient_made(name, recipe["gradient"], steps, shape,
                                                                       dtypes, tensors)
    if shape != tuple(stage["shape"]):
        raise _bad(name, Phrase("its inputs make a plane of shape {made}, not the stage's {shape}", id="recipe.shape",
                                made=shape, shape=tuple(stage["shape"])))
    if dtype != stage["dtype"]:
        raise _bad(name, Phrase("its steps make {made}, not the stage's {dtype}", id="recipe.dtype", made=dtype,
                                dtype=stage["dtype"]))


def _read(name: str, i: int, entry: dict, ref: str, tensors: Mapping) -> tuple[str, tuple[int, ...]]:
    """The dtype name and shape of the tensor step `i` (`entry`) reads by its field `ref`: a 4-axis floating-point
    tensor the file holds."""
    if not isinstance(entry.get(ref), str) or entry[ref] not in tensors:
        raise _bad(name, Phrase("step {i} reads a tensor the file does not hold", id="recipe.missing_input", i=i))
    kind, have = _dtype(tensors[entry[ref]][0]), tuple(tensors[entry[ref]][1])
    if kind not in FLOAT_RANK or len(have) != 4:
        raise _bad(name, Phrase("step {i} reads a tensor that is not a 4-axis floating-point tensor",
                                id="recipe.input_kind", i=i))
    return kind, have


def _chain_made(name: str, steps: list, tensors: Mapping) -> tuple[tuple[int, ...], list[str]]:
    """The plane's shape the checked chain `steps` makes from the stored inputs, and each step's dtype."""
    shape: tuple[int, ...] = ()
    dtype = ""
    dtypes: list[str] = []
    for i, entry in enumerate(steps):
        op = entry.get("op") if isinstance(entry, dict) else None
        first = op in FIRST_OPS
        if first != (i == 0) or op not in (*FIRST_OPS, "softmax", *VALUE_OPS, *TENSOR_OPS):
            raise _bad(name, Phrase("step {i} is not a step tfdebug writes", id="recipe.bad_step", i=i))
        refs = {"scores": ("query", "key")}.get(op, ("tensor",) if op in ("tensor", "repeat", *TENSOR_OPS) else ())
        read = [_read(name, i, entry, ref, tensors) for ref in refs]
        if op == "repeat":
            groups = entry.get("groups")
            if isinstance(groups, bool) or not isinstance(groups, int) or not 1 <= groups <= MAX_GROUPS:
                raise _bad(name, Phrase("its repeat count is not a whole number from 1 to {most}",
                                        id="recipe.bad_groups", most=MAX_GROUPS))
            dtype, (batch, heads, length, width) = read[0]
            shape = (batch, heads * groups, length, width)
            dtypes.append(dtype)
            continue
        if op == "scores":
            (dtype, query), (key_dtype, key) = read
            if key[1] == 0 or query[1] % key[1] or query[3] != key[3] or query[0] != key[0] or dtype != key_dtype:
                raise _bad(name, Phrase("its query and key do not fit together", id="recipe.qk_shapes"))
            shape = query[:3] + key[2:3]
            dtypes.append(dtype)
            continue
        if op == "tensor":
            dtype, shape = read[0]
            dtypes.append(dtype)
            continue
        made = entry.get("dtype")
        if op in TENSOR_OPS:
            if not _broadcasts(read[0][1], shape):
                raise _bad(name, Phrase("a step's tensor does not fit the plane", id="recipe.tensor_shape"))
            dtype = _promoted(dtype, read[0][0])
        elif op == "softmax":
            dtype = made if made in FLOAT_RANK else ""
        if made != dtype:
            raise _bad(name, Phrase("step {i} gives {given} where its inputs make {made}", id="recipe.step_dtype",
                                    i=i, given=str(made)[:20], made=dtype or "a floating-point type"))
        value = entry.get("value")
        if op in VALUE_OPS and not _constant(value, op):
            raise _bad(name, Phrase("step {i} has no finite constant within ±{most}", id="recipe.bad_value", i=i,
                                    most=f"{MAX_CONSTANT:.3g}"))
        dtypes.append(dtype)
    return shape, dtypes


GRADIENT_FIELDS = ("at", "d_context", "value")


def _gradient_made(name: str, gradient: object, steps: list, shape: tuple[int, ...], dtypes: list[str],
                   tensors: Mapping) -> str:
    """The dtype of the plane's gradient a checked `gradient` entry describes (that of the step it is the gradient
    of): a step of a chain that ends at the softmax, a dO (B, H, Tq, Dh) and a V (B, H, Tk, Dh) of one dtype."""
    if not isinstance(gradient, dict) or sorted(gradient) != sorted(GRADIENT_FIELDS):
        raise _bad(name, Phrase("its gradient is not an object of {fields}", id="recipe.gradient_fields",
                                fields=", ".join(GRADIENT_FIELDS)))
    at = gradient["at"]
    if isinstance(at, bool) or not isinstance(at, int) or not 0 <= at < len(steps) or steps[-1]["op"] != "softmax":
        raise _bad(name, Phrase("its gradient is not of a step of a chain that ends at the probabilities",
                                id="recipe.gradient_step"))
    if not all(isinstance(gradient[ref], str) and gradient[ref] in tensors for ref in ("d_context", "value")):
        raise _bad(name, Phrase("its gradient reads a tensor the file does not hold", id="recipe.gradient_missing"))
    (d_dtype, d_context), (v_dtype, value) = (_read(name, len(steps), gradient, ref, tensors)
                                              for ref in ("d_context", "value"))
    batch, heads, rows, keys = shape
    if d_context[:3] != (batch, heads, rows) or value[:3] != (batch, heads, keys) or d_context[3] != value[3] \
            or d_dtype != v_dtype:
        raise _bad(name, Phrase("its gradient's dO and V do not fit the plane", id="recipe.gradient_inputs"))
    return dtypes[at]


def _dtype(dtype: "str | torch.dtype") -> str:
    return dtype if isinstance(dtype, str) else dtype_name(dtype)


def _promoted(a: str, b: str) -> str:
    """The dtype `a + b` gives for two floating dtypes (torch's promotion, without torch)."""
    if a == b:
        return a
    return max((a, b), key=FLOAT_RANK.__getitem__) if "float32" in (a, b) or "float64" in (a, b) else "float32"


def _constant(value: object, op: str) -> bool:
    """Whether `value` is a usable constant of a scale or soft-cap step: a finite number within ±MAX_CONSTANT
    (a JSON integer of 400 digits is not; converting it would overflow), a soft cap not 0."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    if isinstance(value, int) and abs(value) > MAX_CONSTANT:
        return False
    return math.isfinite(value) and abs(value) <= MAX_CONSTANT and not (op == "softcap" and value == 0)


def rebuild(name: str, recipe: dict, shape: tuple[int, ...], fetch: Callable[[str], "Tensor"]) -> "Plane":
    """The plane a description `check_recipe` passed makes, reading its tensors with `fetch(key)`."""
    from tfdebug.core.recipes import FromTensor, Scores, step
    from tfdebug.core.repeats import Repeated

    steps = recipe["steps"]
    first = steps[0]
    plane: Plane = Scores(fetch(first["query"]), fetch(first["key"])) if first["op"] == "scores" \
        else Repeated(fetch(first["tensor"]), first["groups"]) if first["op"] == "repeat" \
        else FromTensor(fetch(first["tensor"]))
    for entry in steps[1:]:
        tensor = fetch(entry["tensor"]) if "tensor" in entry else None
        plane = step(plane, entry["op"], tensor=tensor, value=entry.get("value"), dtype=torch_dtype(entry["dtype"]))
    if "gradient" in recipe:
        from tfdebug.core.gradient_planes import gradient_of

        gradient = recipe["gradient"]
        plane = gradient_of(plane, gradient["at"], fetch(gradient["d_context"]), fetch(gradient["value"]))
    if tuple(plane.shape) != tuple(shape):  # never after check_recipe: the tensors are the header's
        raise _bad(name, Phrase("its inputs make a plane of shape {made}, not the stage's {shape}", id="recipe.shape",
                                made=tuple(plane.shape), shape=tuple(shape)))
    return plane


def _broadcasts(have: tuple[int, ...], shape: tuple[int, ...]) -> bool:
    """A mask or bias a plane step adds: (B or 1, H or 1, Tq, ≥ Tk) (a longer key axis is cut, as the model does)."""
    return (len(have) == 4 and have[0] in (1, shape[0]) and have[1] in (1, shape[1]) and have[2] == shape[2]
            and have[3] >= shape[3])
