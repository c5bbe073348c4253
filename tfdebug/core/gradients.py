"""GradientRecorder: a Recorder that also receives each stage's gradient when the loss is backpropagated.

Each tap's tensor gets a hook (`Tensor.register_hook`) as it passes; autograd calls the hooks in backward
order, so `gradients` lists the stages from the logits back to the embeddings, each gradient a Capture with
the stage's own description (the stage's name, kind and axes: its tensor is ∂loss/∂stage). The forward's
captures stay in `captures` (gradient × activation needs them). A stage the loss does not depend on gets no
gradient (an encoder's padding rows still do; a stage after the loss's position does not).

Call `release()` once the backward has run: a hook lives in the tensor's C++ autograd data, where Python's
garbage collector does not see it, so a live tensor kept here and its hook (which calls this recorder) would
hold each other — and every stage's tensors, the attention planes whole — for the life of the process.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from tfdebug.core.recorder import Capture, Recorder

if TYPE_CHECKING:
    from torch import Tensor, nn

    from tfdebug.core.tap import Tap


class GradientRecorder(Recorder):
    """Records the taps of `model` matching `stages` forward (`captures`), their live tensors (`live`, which
    the loss is computed from) and, during backward, their gradients in the order autograd delivers them."""

    def __init__(self, model: nn.Module, stages: Sequence[str] | None = None):
        super().__init__(model, stages, keep=True)
        self.live: dict[str, Tensor] = {}
        self.gradients: list[Capture] = []
        self._handles: list = []

    def _hook(self, tap: Tap, output: Tensor) -> Tensor:
        output = super()._hook(tap, output)
        info = self.captures[-1].info
        if getattr(output, "requires_grad", False):
            self.live[info.name] = output
            self._handles.append(output.register_hook(lambda grad, info=info: self._arrived(info, grad)))
        return output

    def release(self) -> None:
        """Remove the gradient hooks and let the live tensors go (the gradients and captures stay)."""
        for handle in self._handles:
            handle.remove()
        self._handles.clear()
        self.live.clear()

    def _arrived(self, info, grad: Tensor) -> None:
        self.gradients.append(Capture.of(info, grad))
