"""Recording: a recorded forward pass as data — what snapshots hold and exporters take.

A recording is built from a live session (tensors in memory, on their device) or
opened from a snapshot (tensors read lazily, one stage at a time, when asked for).
It keeps no reference to a model.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

from tfdebug import __version__
from tfdebug.core.errors import ExportError, UnknownStageError
from tfdebug.core.phrases import Phrase
from tfdebug.io.limits import escape_controls
from tfdebug.io.safetensors_file import dtype_name

if TYPE_CHECKING:
    from tfdebug.core.images import InputImage
    from torch import Tensor

    from tfdebug.core.recorder import Capture
    from tfdebug.core.stepper import Stepper

# 1: tokens are exactly {"src": [...], "tgt": [...]} (the reference translator).
# 2: tokens are any named streams ({"prompt": [...]}, {"src": ..., "tgt": ...}), plus the
#    optional texts typed (`inputs`, by field key) and the model adapter's name (`adapter`);
#    optional `input_labels`, the adapter's label of each input field (a replay names its fields so);
#    optional `image`, the picture a vision model saw (core.images.InputImage.to_manifest: a replay draws it).
# 3: a stage may be a recipe (`"recipe"`: the steps that compute it from stored tensors, no tensor of its
#    own), reading stages or the extra tensors listed in `recipe_inputs` (tfdebug.io.recipe_store).
#    optional `backward` (no new version: a tfdebug that does not know it opens the file as a pass): the stages
#    hold gradients, listed in backward order (logits first); it says the objective and its value (`backward_doc`).
FORMAT_VERSION = 3
MANIFEST_KEY = "tfdebug"  # the safetensors metadata key holding the manifest
EXPORT_MANIFEST_KEY = "__tfdebug__"  # the same manifest inside .npz and .pt exports


@dataclass
class Recording:
    """Captured stages in forward order plus what is needed to read them elsewhere.

    `tokens` holds one list of token strings per named stream; `inputs` the texts
    typed, by input field key (may be empty); `adapter` names the model adapter and
    `input_labels` holds its label of each input field ("src": "Source sentence").
    `load(capture)` reads a tensor that is not in memory (a snapshot opened lazily);
    `close()` releases whatever the loader holds open.
    """

    captures: list[Capture]
    tokens: dict[str, list[str]]
    model_name: str | None = None
    model_config: dict = field(default_factory=dict)
    device: str = "cpu"
    dtype: str = "float32"
    load: Callable[..., Tensor] | None = None  # load(capture), or load(capture, stop=stop): a read that may stop
    #: `part(capture, leading)` reads the tensor at fixed leading indices alone (None where it cannot)
    part: Callable[[Capture, tuple[int, ...]], Tensor | None] | None = None
    path: str | None = None
    closer: Callable[[], None] | None = None
    inputs: dict[str, str] = field(default_factory=dict)
    adapter: str | None = None
    input_labels: dict[str, str] = field(default_factory=dict)
    #: the picture a vision model saw (`core.images.InputImage`), carried so a replay draws attention over it
    image: InputImage | None = None
    #: a backward pass (`backward_doc`): the stages are gradients in backward order; the objective and the loss
    backward: dict | None = None

    @classmethod
    def from_session(cls, session, captures: Sequence[Capture] | None = None) -> "Recording":
        """A recording of `session`'s pass: `captures` (e.g. a stepper's history), or a fresh full pass.

        Stages a capture budget dropped have no tensor to save and are left out.
        """
        if captures is None:
            fresh: Sequence[Capture]
            fresh, _ = session.capture_all()
            captures = fresh
        captures = [c for c in captures if not c.dropped]
        adapter = session.adapter
        return cls(captures=list(captures), tokens=session.tokens, model_name=adapter.name,
                   model_config=adapter.config(), device=str(adapter.device), dtype=dtype_name(adapter.dtype),
                   inputs=session.texts, adapter=adapter.adapter_kind,
                   input_labels={f.key: f.label for f in adapter.inputs},
                   image=getattr(getattr(session, "prepared", None), "image", None))

    # ----- tensors ---------------------------------------------------------------------
    def tensor(self, capture: Capture) -> Tensor:
        """The capture's tensor: in memory, or read now (not kept, so exports stream)."""
        tensor = capture.tensor if capture.tensor is not None else self.load(capture) if self.load is not None else None
        if tensor is None:
            raise UnknownStageError("Stage {name} has no tensor in this recording.", id="recording.no_tensor",
                                    name=capture.name)
        if tensor.device.type == "meta":  # a shape without values (a model built on the meta device): nothing to write or read
            raise ExportError("Stage {name} holds no values (its tensor is on the meta device), so it cannot "
                                    "be saved or exported.", id="recording.meta_tensor", name=capture.name)
        return tensor

    def __getitem__(self, name: str) -> Capture:
        for capture in self.captures:
            if capture.name == name:
                return capture
        raise UnknownStageError("There is no stage named '{name}' in this recording.", id="recording.unknown_stage",
                                name=name)

    def names(self) -> list[str]:
        """Stage names in forward order."""
        return [c.name for c in self.captures]

    @property
    def nbytes(self) -> int:
        """Bytes of all stage tensors."""
        return sum(c.nbytes for c in self.captures)

    def select(self, names: Iterable[str] | None) -> "Recording":
        """The recording restricted to `names` (kept in forward order); None keeps everything."""
        if names is None:
            return self
        wanted = set(names)
        unknown = wanted - set(self.names())
        if unknown:
            raise UnknownStageError("There is no stage named '{name}' in this recording.", id="recording.unknown_stage",
                                    name=sorted(unknown)[0])
        return replace(self, captures=[c for c in self.captures if c.name in wanted])

    def stepper(self) -> "Stepper":
        """A replay stepper over the recorded stages; tensors are read when shown."""
        from tfdebug.core.stepper import Stepper

        return Stepper.replay(self.captures, self.load, self.part)

    def close(self) -> None:
        """Release the file a lazily opened recording reads from (tensors already read stay valid)."""
        if self.closer is not None:
            self.closer()

    def __enter__(self) -> "Recording":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ----- manifest --------------------------------------------------------------------
    def manifest(self, stored_dtypes: dict[str, str] | None = None, finite: dict[str, bool] | None = None) -> dict:
        """The JSON manifest: format, versions, model, device, dtype, tokens and stages in order.

        `stored_dtypes` notes stages whose stored tensors use another dtype than the
        captured one (an .npz holds bfloat16 as float32); `finite` whether a floating
        stage held only finite values when written (what `tfdebug info --verify` checks).
        """
        stages = []
        for capture in self.captures:
            info = capture.info.to_dict()
            entry = {"name": info.pop("name"), "kind": info.pop("kind"), "site": info.pop("site"),
                     "layer": info.pop("layer"), "shape": list(capture.shape),
                     "dtype": dtype_name(capture.dtype), **info, "edited": bool(capture.edited)}
            if stored_dtypes and capture.name in stored_dtypes:
                entry["stored_dtype"] = stored_dtypes[capture.name]
            if finite and capture.name in finite:
                entry["finite"] = finite[capture.name]
            stages.append(entry)
        doc = {
            "format_version": FORMAT_VERSION,
            "tfdebug_version": __version__,
            "model": self.model_name,
            "model_config": dict(self.model_config),
            "device": self.device,
            "dtype": self.dtype,
            # A tokenizer may produce "\n" or other control characters: stored escaped, so
            # the file opens (manifests refuse raw control characters) and lengths still match.
            "tokens": {stream: [escape_controls(w) for w in words] for stream, words in self.tokens.items()},
            "stages": stages,
        }
        if self.inputs:
            doc["inputs"] = {key: escape_controls(text) for key, text in self.inputs.items()}
        if self.adapter is not None:
            doc["adapter"] = self.adapter
        if self.input_labels:
            doc["input_labels"] = dict(self.input_labels)
        if self.image is not None:
            doc["image"] = self.image.to_manifest()
        if self.backward is not None:
            doc["backward"] = dict(self.backward)
        return doc


def backward_doc(kind: str, objective: str, loss: float, first_nonfinite: str | None = None,
                 position: int | None = None, target: int | None = None, contrast: int | None = None,
                 summary: dict | None = None) -> dict:
    """The manifest's `backward` entry: the objective (`kind` and its words), its value (`loss`, a number, or
    "nan", "inf" or "-inf": JSON has no non-finite numbers), the first stage whose gradient is not finite, the
    objective's position and token ids where it has them, and the backward's summary where given
    (`io.backward_summary.summary_fields`' form: each token's saliency, the parameters' norms)."""
    import math

    doc = {"objective_kind": kind, "objective": objective,
           "loss": loss if math.isfinite(loss) else str(loss), "first_nonfinite": first_nonfinite}
    doc.update({key: value for key, value in (("position", position), ("target", target), ("contrast", contrast),
                                              ("summary", summary))
                if value is not None})
    return doc


def recording_on_screen(stepper: "Stepper | None", session, replayed: Recording | None) -> tuple[Recording | None, str]:
    """The pass a window shows as a Recording, and a note when it is incomplete.

    A replayed snapshot (`replayed`, the recording `stepper` replays) exports as it was
    opened; a live pass exports the stages it has run so far (with any edits), since the
    model cannot run twice at once.
    """
    if stepper is None:
        return None, ""
    if not stepper.is_live:
        return replayed, ""
    history = list(stepper.history)
    if session is None or not history:
        return None, ""
    note = ""
    if stepper.state != "finished":
        total = len(session.plan) if session.stages is None else len(history)
        note = Phrase("The pass has run {n} of {total} stages; only those are exported. "
                      "Continue to the end to export them all.", id="export.partial", n=len(history), total=total)
    return Recording.from_session(session, history), note
