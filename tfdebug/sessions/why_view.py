"""`WhyView`: what the Why This Output dock asks of a finished pass, wherever the pass runs.

`PassSource.why()` returns one: the local `sessions.why.Why` (the pass's captures and its model in this
process) or `tfdebug.remote.explaining.RemoteWhy` (a served pass: the server computes, only the cells in
view cross). The dock talks to it through these members only, so it never asks which kind of pass it holds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Mapping, Protocol, Sequence

from tfdebug.core.attribution import Attribution
from tfdebug.core.lens import LensGrid

if TYPE_CHECKING:
    from tfdebug.sessions.patch_one import PatchedPass
    from tfdebug.sessions.patching import Sweep

#: `progress(done, total)` after each forward of a sweep; False stops it
Progress = Callable[[int, int], bool]


class WhyView(Protocol):
    """The lens, the attribution and the patching sweep of one finished pass."""

    #: the lens's rows: the embeddings' stage, then each layer's last residual stage
    rows: list[str]

    @property
    def count(self) -> int:
        """Tokens along the logits stage's token axis."""
        ...

    @property
    def vocabulary_size(self) -> int:
        """Entries of the model's vocabulary (0 when unknown)."""
        ...

    def token_labels(self) -> list[str]:
        """The token strings along the logits stage's token axis, [] when unknown."""
        ...

    def word(self, token: int) -> str | None:
        """The vocabulary entry of token id `token`, or None when it is not known here."""
        ...

    def prediction(self, position: int) -> int:
        """The id of the most probable next token at `position` (the logits' argmax)."""
        ...

    def token_id(self, text: str) -> int:
        """The id of the one token `text` names (`#ID`, a vocabulary entry, or text read as one token);
        ReadoutError saying what it is instead."""
        ...

    def lens(self, positions: Sequence[int] | None = None, target: int | None = None, k: int = 5) -> LensGrid:
        """The logit lens of every row at `positions` (all by default)."""
        ...

    def attribute(self, target: int, contrast: int | None = None, position: int = -1) -> Attribution:
        """The direct logit attribution of logit(target) − logit(contrast) at `position`."""
        ...

    @property
    def head_rows(self) -> list[str]:
        """The attention contexts (each head's P·V) a head sweep patches, in forward order; [] when none."""
        ...

    @property
    def heads(self) -> int:
        """The most heads of any of `head_rows`: a head sweep's columns."""
        ...

    def patch_one(self, corrupt: Mapping[str, str], stage: str, position: int | None = None,
                  head: int | None = None, align: str | None = None) -> PatchedPass:
        """This pass's `stage` (whole, at `position`, for `head`) put into the pass on `corrupt` and that pass run on
        (`sessions.patch_one.PatchedPass`); `align` as `sweep`'s; ReadoutError where it cannot be done."""
        ...

    def sweep(self, corrupt: Mapping[str, str], progress: Progress | None = None,
              across: str = "position", align: str | None = None) -> tuple[Sweep, int, int]:
        """Patch every residual row × position (`across` "head": every head of every attention) of the pass on
        `corrupt` (texts by input field, the rest as this pass's) with this pass's values, measuring logit(clean
        prediction) − logit(corrupted prediction) at the last position: (`sessions.patching.Sweep`, target id,
        contrast id). Texts of different lengths pair their positions by `align` ("CLEAN:CORRUPTED,…"; None: the
        shared first tokens, then the rest from the end, `sessions.alignment`)."""
        ...
