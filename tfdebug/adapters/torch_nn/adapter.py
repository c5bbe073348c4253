"""Your own module, or a torch.nn Transformer, as a tfdebug model: attention decomposed and tapped.

From Python:

    adapter = tfdebug.adapters.torch_nn.adapter.wrap(module, make_inputs)

from the command line and the window: `--model torch:package.module:factory`, where
`factory()` returns `(module, make_inputs)` and `make_inputs(text)` returns `(args, tokens)`:
the module's positional arguments and the token strings they stand for (a list, or a
dict of named lists such as {'src': [...], 'tgt': [...]} for an encoder–decoder).

Every call of `F.scaled_dot_product_attention` inside the module — its own, or the one
nested in nn.MultiheadAttention — becomes the stages `q_split, k_split, v_split,
[k_repeat, v_repeat], scores, scaled, [masked], probs, context` (see sdpa_math), and
nn.Transformer layers add their Q/K/V, output projection, norms and feed-forward. The
module itself is not changed: the switches (sdpa_patch) are on only during a tapped
forward. Every pass is verified against the unmodified module on the same input.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import torch
from torch import Tensor, nn

from tfdebug.adapters.base import InputField, ModelAdapter, Prepared, Verification, max_abs_difference
from tfdebug.adapters.torch_nn.names import Naming, StageSpec, name_modules
from tfdebug.adapters.torch_nn.padding import batch_first, mismatch_cause, padded_rows, refuse_nested, without_padded_rows
from tfdebug.adapters.torch_nn.patch import StageSink, TappedPass
from tfdebug.core.errors import InputError, ModelLoadError, TfdebugError, UnsupportedModelError
from tfdebug.core.tap import Tap, iter_taps

SPEC_PREFIX = "torch:"
DEFAULT_EXAMPLES = ("the cat sat on the mat",)
# The largest |Δ| against the unmodified module that still counts as the same numbers.
TOLERANCE = {torch.float32: 1e-5, torch.float64: 1e-10, torch.float16: 1e-2, torch.bfloat16: 5e-2}
_ADAPTERS_DIR = os.path.dirname(os.path.abspath(__file__))
_MODULE_FILE = os.path.abspath(nn.Module.__call__.__code__.co_filename)

MakeInputs = Callable[[str], tuple[Sequence[Any], Any]]


class TappedModule(nn.Module):
    """The wrapped module and the taps tfdebug adds beside it (where the Recorder finds them)."""

    def __init__(self, model: nn.Module):
        super().__init__()
        self.model = model
        self.taps = nn.ModuleDict()

    def forward(self, *args, **kwargs):
        return self.model(*args, **kwargs)


class SdpaAdapter(ModelAdapter):
    """A module calling scaled_dot_product_attention (or nn.MultiheadAttention), with one text input."""

    kind = "sdpa"

    inputs = (InputField("text", "Text", "words your make_inputs turns into the module's arguments"),)
    layer_titles = {"enc": "Encoder layer", "dec": "Decoder layer", "blocks": "Block", "layers": "Layer",
                    "h": "Block"}
    stack_titles = {"enc": "Encoder", "dec": "Decoder"}
    site_titles = {"enc": "Encoder norm", "dec": "Decoder norm", "attn": "Attention"}

    def __init__(self, module: nn.Module, make_inputs: MakeInputs, *, name: str, device: torch.device,
                 dtype: torch.dtype, examples: Sequence[str] = DEFAULT_EXAMPLES):
        self.name = name
        self.module = TappedModule(module)
        self.make_inputs = make_inputs
        self.device, self.dtype = device, dtype
        self.presets = tuple({"text": text} for text in examples)
        self._taps: dict[str, Tap] = {}
        self._call_stages: dict[str, list[str]] = {}
        self._naming: Naming = name_modules(module, ["text"])
        self._token_lengths: dict[str, int] = {}

    # ----- the protocol ----------------------------------------------------------------
    def config(self) -> dict:
        model = self.module.model
        return {"adapter": "sdpa", "class": f"{type(model).__module__}.{type(model).__qualname__}",
                "parameters": sum(p.numel() for p in model.parameters()),
                "attention_calls": len(self._call_stages)}

    def prepare(self, texts: Mapping[str, str]) -> Prepared:
        texts = self.check_texts(texts)
        args, tokens = self._inputs_for(texts["text"])
        prepared = Prepared(texts=texts, args=args, tokens=tokens)
        self._discover(prepared)
        return prepared

    def forward(self, prepared: Prepared) -> Any:
        with self._tapped_pass():
            return self.module.model(*prepared.args, **prepared.kwargs)

    def verify(self, prepared: Prepared, output: Any) -> Verification:
        """The unmodified module (fused attention, fast path as the process has it) on the same input.

        Rows a key padding mask marks as padding are left out (sdpa_padding: the fast path
        gives zeros there, the tapped pass computes them; no real token reads them)."""
        model = self.module.model
        with torch.no_grad():
            reference = model(*prepared.args, **prepared.kwargs)
        rows = padded_rows(model, prepared.args, prepared.kwargs)
        if rows is not None:
            first = batch_first(model)
            output, reference = (without_padded_rows(t, rows, first) for t in (output, reference))
        return Verification(max_abs_difference(output, reference), TOLERANCE.get(self.dtype, 1e-5),
                            cause=mismatch_cause(model, prepared.args, prepared.kwargs))

    # ----- inputs ------------------------------------------------------------------------
    def _inputs_for(self, text: str) -> tuple[tuple, dict[str, list[str]]]:
        try:
            result = self.make_inputs(text)
        except TfdebugError:
            raise
        except Exception as exc:
            raise InputError("make_inputs could not use this text: {error}: {reason}", id="sdpa.make_inputs_failed",
                             error=type(exc).__name__, reason=str(exc)) from exc
        if not (isinstance(result, tuple) and len(result) == 2):
            raise InputError("make_inputs(text) must return (args, tokens): the module's arguments "
                             "and the token strings they stand for.", id="sdpa.make_inputs_result")
        args, tokens = result
        args = (args,) if isinstance(args, Tensor) else tuple(args)
        refuse_nested(args, {})
        if isinstance(tokens, Mapping):
            streams = {str(k): [str(t) for t in v] for k, v in tokens.items()}
        else:
            streams = {"text": [str(t) for t in tokens]}
        moved = tuple(self._to_device(a) for a in args)
        return moved, streams

    def _to_device(self, value: Any) -> Any:
        if not isinstance(value, Tensor):
            return value
        if value.is_floating_point():
            return value.to(device=self.device, dtype=self.dtype)
        return value.to(device=self.device)

    # ----- taps --------------------------------------------------------------------------
    def _tapped_pass(self, discovering: bool = False) -> TappedPass:
        return TappedPass(self.module.model, self._naming, StageSink(self._make_tap, self._taps),
                          discovering=discovering, call_stages=self._call_stages)

    def _discover(self, prepared: Prepared) -> None:
        """Run the module once with the switches on, creating a tap for every stage it passes through."""
        self._naming = name_modules(self.module.model, list(prepared.tokens))
        self._token_lengths = {k: len(v) for k, v in prepared.tokens.items()}
        try:
            with torch.no_grad(), self._tapped_pass(discovering=True):
                self.module.model(*prepared.args, **prepared.kwargs)
        except TfdebugError:
            raise
        except Exception as exc:
            raise InputError("The module failed on the inputs make_inputs gave: {error}: {reason}",
                             id="sdpa.module_failed", error=type(exc).__name__, reason=str(exc)) from exc
        if not any(True for _ in iter_taps(self.module)):
            raise UnsupportedModelError(
                "{model} calls neither F.scaled_dot_product_attention nor "
                "nn.MultiheadAttention, and holds no Tap: tfdebug found no stage to show.",
                id="sdpa.no_stages", model=type(self.module.model).__name__)

    def _make_tap(self, name: str, spec: StageSpec, tokens: dict[str, str], tensor: Tensor) -> Tap:
        # An axis indexes tokens only when it is as long as the stream it would be labelled with.
        tokens = {axis: stream for axis, stream in tokens.items()
                  if axis in spec.axes and tensor.shape[spec.axes.index(axis)] == self._token_lengths.get(stream)}
        tap = Tap(name, spec.kind, spec.axes, spec.formula, role=spec.role, tokens=tokens, inputs=spec.inputs)
        location = _call_site()
        if location is not None:
            tap.info = tap.info.with_source(location)
        self.module.taps[name.replace(".", "__")] = tap
        self._taps[name] = tap
        return tap


def _call_site() -> str | None:
    """file:line of the code that made the stage: the first frame outside the adapters and nn.Module's call machinery."""
    frame = sys._getframe(2)
    while frame is not None:
        filename = os.path.abspath(frame.f_code.co_filename)
        if not filename.startswith(_ADAPTERS_DIR) and filename != _MODULE_FILE:
            return f"{filename}:{frame.f_lineno}"
        frame = frame.f_back
    return None


def _resolve_dtype(dtype: str | torch.dtype | None, module: nn.Module) -> torch.dtype:
    if isinstance(dtype, torch.dtype):
        return dtype
    if dtype:
        resolved = getattr(torch, str(dtype), None)
        if not isinstance(resolved, torch.dtype):
            raise ModelLoadError("Unknown dtype '{dtype}': use float32, float16 or bfloat16.", id="sdpa.unknown_dtype",
                                 dtype=dtype)
        return resolved
    param = next(iter(module.parameters()), None)
    return param.dtype if param is not None else torch.float32


def wrap(module: nn.Module, make_inputs: MakeInputs, *, name: str | None = None,
         device: str | torch.device | None = None, dtype: str | torch.dtype | None = None,
         examples: Sequence[str] | None = None) -> SdpaAdapter:
    """Your module as a tfdebug model (put in eval mode; moved when `device`/`dtype` are given).

    `make_inputs(text)` returns `(args, tokens)`: the module's positional arguments and
    the token strings they stand for (a list, or a dict of named lists).
    """
    if not isinstance(module, nn.Module):
        raise ModelLoadError("wrap() takes an nn.Module, not {type}.", id="sdpa.not_a_module",
                             type=type(module).__name__)
    if not callable(make_inputs):
        raise ModelLoadError("wrap() needs make_inputs(text) -> (args, tokens) as its second argument.",
                             id="sdpa.no_make_inputs")
    resolved = _resolve_dtype(dtype, module)
    param = next(iter(module.parameters()), None)
    dev = torch.device(device) if device is not None else (param.device if param is not None else torch.device("cpu"))
    module = module.to(device=dev, dtype=resolved).eval()
    return SdpaAdapter(module, make_inputs, name=name or type(module).__name__, device=dev, dtype=resolved,
                       examples=tuple(examples) if examples else DEFAULT_EXAMPLES)


def load_torch(spec: str, device: torch.device, dtype: str | torch.dtype) -> SdpaAdapter:
    """`torch:package.module:factory` (or `torch:path/to/file.py:factory`) as an adapter."""
    target = spec.removeprefix(SPEC_PREFIX)
    module_name, sep, factory_name = target.rpartition(":")
    if not sep or not module_name or not factory_name.isidentifier():
        raise ModelLoadError("'{spec}' is not torch:package.module:factory (e.g. torch:examples.gpt_block:factory).",
                             id="sdpa.bad_spec", spec=spec)
    source = _import(module_name)
    factory = getattr(source, factory_name, None)
    if not callable(factory):
        raise ModelLoadError("{module} has no function called {factory}.", id="sdpa.no_factory",
                             module=module_name, factory=factory_name)
    try:
        made = factory()
    except Exception as exc:
        raise ModelLoadError("{module}.{factory}() failed: {error}: {reason}", id="sdpa.factory_failed",
                             module=module_name, factory=factory_name, error=type(exc).__name__, reason=str(exc)) from exc
    if not (isinstance(made, tuple) and len(made) == 2):
        raise ModelLoadError("{module}.{factory}() must return (module, make_inputs).", id="sdpa.factory_result",
                             module=module_name, factory=factory_name)
    module, make_inputs = made
    return wrap(module, make_inputs, name=spec, device=device, dtype=dtype,
                examples=getattr(source, "EXAMPLES", None))


def _import(module_name: str):
    """Import a module by name, or a .py file by path; the current directory counts, as with `python -m`."""
    if module_name.endswith(".py"):
        path = Path(module_name)
        if not path.is_file():
            raise ModelLoadError("There is no file {path}.", id="sdpa.no_file", path=module_name)
        loader_spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(loader_spec)
        _run_import(lambda: loader_spec.loader.exec_module(module), module_name)
        return module
    cwd = os.getcwd()
    added = cwd not in sys.path and "" not in sys.path
    if added:
        sys.path.insert(0, cwd)
    try:
        return _run_import(lambda: importlib.import_module(module_name), module_name)
    finally:
        if added:
            sys.path.remove(cwd)


def _run_import(load: Callable[[], Any], module_name: str):
    try:
        return load()
    except ModuleNotFoundError as exc:
        raise ModelLoadError("Cannot import {module}: {reason}. Run tfdebug from the folder that holds it "
                             "(e.g. the repository root for examples.gpt_block) or install it.",
                             id="sdpa.cannot_import", module=module_name, reason=str(exc)) from exc
    except Exception as exc:
        raise ModelLoadError("Importing {module} failed: {error}: {reason}", id="sdpa.import_failed",
                             module=module_name, error=type(exc).__name__, reason=str(exc)) from exc
