"""GradientRecorder: a Recorder that also receives each stage's gradient when the loss is backpropagated.

Each tap's tensor gets a hook (`Tensor.register_hook`) as it passes; autograd calls the hooks in backward
order, so `gradients` lists the stages from the logits back to the embeddings, each gradient a Capture with
the stage's own description (the stage's name, kind and axes: its tensor is ∂loss/∂stage). The forward's
captures stay in `captures` (gradient × activation needs them). A stage the loss does not depend on gets no
gradient (an encoder's padding rows still do; a stage after the loss's position does not).

The gradient of an attention plane (scores … probabilities) is not kept: where the attention function noted the
plane's recipe on its tensor (`core.gradient_planes`, inside `planes_noted()`), the forward capture keeps that
recipe and the gradient capture a `GradientPlane` computed when looked at, from the context's gradient and V.
Whether each gradient is finite is read as it arrives (`nonfinite`), so finding the first non-finite one computes
no plane again.

Call `release()` once the backward has run: a hook lives in the tensor's C++ autograd data, where Python's
garbage collector does not see it, so a live tensor kept here and its hook (which calls this recorder) would
hold each other — and every stage's tensors, the attention planes whole — for the life of the process.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from tfdebug.core.gradient_planes import GradientPlane, Note, noted
from tfdebug.core.recipes import as_tensor
from tfdebug.core.recorder import Capture, Recorder

if TYPE_CHECKING:
    from torch import Tensor, nn

    from tfdebug.core.tap import Tap


#: how a gradient capture's formula begins (`sessions.backward.BackwardPass.gradient_captures` writes it)
GRADIENT_PREFIX = "∂L/∂("


def is_gradient(info) -> bool:
    """Whether a stage description (`StageInfo`) is that of a gradient, ∂L/∂stage, not of an activation."""
    return (getattr(info, "formula", "") or "").startswith(GRADIENT_PREFIX)


class GradientRecorder(Recorder):
    """Records the taps of `model` matching `stages` forward (`captures`), their live tensors (`live`, which
    the loss is computed from) and, during backward, their gradients in the order autograd delivers them."""

    def __init__(self, model: nn.Module, stages: Sequence[str] | None = None):
        super().__init__(model, stages, keep=True)
        self.live: dict[str, Tensor] = {}
        self.gradients: list[Capture] = []
        #: per gradient (in `gradients`' order), a 0-dim bool tensor on its device: whether it holds NaN or ±Inf
        self.nonfinite: list[Tensor] = []
        self._handles: list = []

    def _hook(self, tap: Tap, output: Tensor) -> Tensor:
        output = super()._hook(tap, output)
        capture = self.captures[-1]
        note = noted(output)
        if note is not None and note.plane is not None:  # the plane whole is autograd's, not kept here
            capture.tensor, capture.recipe = as_tensor(note.plane), True
        if getattr(output, "requires_grad", False):
            if note is None or note.plane is None:  # the logits are read from here; no plane is held
                self.live[capture.info.name] = output
            self._handles.append(output.register_hook(
                lambda grad, info=capture.info, note=note: self._arrived(info, grad, note)))
        return output

    def release(self) -> None:
        """Remove the gradient hooks and let the live tensors go (the gradients and captures stay)."""
        for handle in self._handles:
            handle.remove()
        self._handles.clear()
        self.live.clear()

    def first_nonfinite(self) -> str | None:
        """The first stage, in backward order, whose gradient holds NaN or ±Inf (one synchronisation)."""
        import torch

        if not self.nonfinite:
            return None
        device = self.nonfinite[0].device
        flags = torch.stack([f.to(device) for f in self.nonfinite]).tolist()
        return next((c.name for c, bad in zip(self.gradients, flags) if bad), None)

    def _arrived(self, info, grad: Tensor, note: Note | None) -> None:

        self.nonfinite.append(_nonfinite(grad))
        if note is not None and note.plane is None:
            note.backing.d_context = grad.detach()
        elif (note is not None and note.plane is not None and note.backing.d_context is not None
              and note.backing.probs is not None):
            # autograd's gradient of the plane is let go; the recipe recomputes it bit for bit
            plane = GradientPlane(note.backing, note.plane, dtype=grad.dtype)
            self.gradients.append(Capture.of(info, as_tensor(plane)))
            return
        self.gradients.append(Capture.of(info, grad))


def _nonfinite(grad: Tensor) -> Tensor:
    """Whether `grad` holds NaN or ±Inf, as a 0-dim bool tensor on its device (no synchronisation on a GPU): its
    minimum and maximum in one pass (NaN propagates into both, an infinity is one of them), far faster than
    `isfinite(grad).all()`, which makes a mask as large as a tokens² gradient. On the CPU its sum (in float32 at
    least) comes first, about twice as fast again: a finite sum has no NaN and no infinity in it (NaN propagates,
    +∞ and −∞ make NaN); only a sum that is not finite (a NaN, an infinity, or finite values that overflow it) is
    settled by the minimum and maximum."""
    import torch

    if grad.numel() == 0 or not grad.is_floating_point():
        return torch.zeros((), dtype=torch.bool, device=grad.device)
    if grad.device.type == "cpu" and bool(torch.isfinite(grad.sum(dtype=torch.promote_types(grad.dtype,
                                                                                            torch.float32)))):
        return torch.zeros((), dtype=torch.bool)
    low, high = torch.aminmax(grad)
    return ~(torch.isfinite(low) & torch.isfinite(high))
