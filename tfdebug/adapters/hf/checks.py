"""The check of a Hugging Face pass against the model: what `HFAdapter` answers about it (a part of the adapter).

The input against a second tokenizer transformers loads itself (`input_problem`, `reference_tokenizer`); each
layer's attention checked in the pass (`check_in_pass`, `verified_in_pass`: `inpass`); the whole check against a
second, unmodified pass (`verify`: `verify.verify_stages`); and the memory the check holds, for the stated peak
(`held_for_check`, `check_bytes`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tfdebug.adapters.base import Prepared, Verification
from tfdebug.adapters.hf.load import quiet_transformers

if TYPE_CHECKING:
    from pathlib import Path

    from torch import nn


class Checks:
    """The check's methods of `HFAdapter` (they read its `model`, `plan`, `tokenizer`, `folder` and the stages its
    last forward kept, `_kept`, `_fired`, `_found`)."""

    model: nn.Module
    plan: Any
    tokenizer: Any
    folder: Path | None
    _in_pass = ""  # `check_in_pass`

    def check_in_pass(self, mode: str) -> None:
        """Each layer's attention checked in the pass against the model's own eager function (`inpass`)."""
        self._in_pass = mode

    def verified_in_pass(self, prepared: Prepared) -> Verification | None:
        """What the check in the last pass found, with the input checked as `verify` does; None where it could not
        follow every attention site."""
        from tfdebug.adapters.hf.inpass import verification

        found = getattr(self, "_found", None)
        if found is None or not found.names or not found.complete:
            return None
        problem, against = self.input_problem(prepared)
        return verification(found, self._ran(), problem, against)

    def verify(self, prepared: Prepared, output: Any) -> Verification | None:
        """The input against the reference tokenizer's (`reference_tokenizer`), then the output and, stage by
        stage, the logits, every layer's probabilities and input against the unmodified model run with its
        own eager attention (`hf_verify`)."""
        from tfdebug.adapters.hf.verify import verify_stages

        problem, against = self.input_problem(prepared)
        with quiet_transformers():
            return verify_stages(self.model, prepared.kwargs, self.plan, getattr(self, "_kept", {}), output,
                                 self._ran(), problem, against, getattr(self, "_found", None))

    def _ran(self) -> list[str]:
        """The stages the last pass ran, in order (every planned one before a pass), a generation's cache left out."""
        fired = getattr(self, "_fired", None) or {n: None for n in self.plan.taps}
        return [n for n in fired if self.plan.taps[n].info.kind != "kv_cache"]

    def input_problem(self, prepared: Prepared) -> tuple[str, str]:
        """("" or where the pass's input differs from the one the reference tokenizer makes, what made it); the
        image and audio adapters check their pixels and features against a second processor instead."""
        from tfdebug.adapters.hf.inputs import check_inputs, reference_encoding

        call, problem, against = prepared.options.get("call"), "", ""
        if call is not None:
            tokenizer, against = self.reference_tokenizer()
            with quiet_transformers():
                problem = check_inputs(prepared.kwargs, reference_encoding(tokenizer, call), against)
        return problem, against

    def held_for_check(self, plan, kept) -> frozenset[str]:
        """The logits and every layer's input the pass holds for the whole check (`verify.stages_kept`) where the
        budget lets them go: at 8,192 tokens on SmolLM-135M's shape 31 layer inputs of 18.9 MB each. The
        probabilities it holds are recipe planes over q and k, which the budget keeps first."""
        from tfdebug.adapters.hf.verify import checked_stages

        checks, kept = checked_stages(self.plan), set(kept)
        return frozenset(c.name for c in plan if c.name in checks and not checks[c.name][2] and c.name not in kept)

    def check_bytes(self, plan) -> int:
        """What the check's reference holds besides the pass: the layer inputs and the output it returns (as
        large as the pass's own), and the working blocks of its bounded attention (`hf_reference`) — or, where
        it cannot be bounded, every layer's probabilities that transformers gathers; and the float32 blocks its
        comparisons make (`verify.DIFF_BLOCK`: never a whole stage's difference)."""
        from tfdebug.adapters.hf.reference import block_bytes, bounded
        from tfdebug.adapters.hf.verify import DIFF_BLOCK, checked_stages

        checks = checked_stages(self.plan)
        sizes = {c.name: c.nbytes for c in plan}
        held = sum(sizes.get(name, 0) for name, (_, _, probabilities) in checks.items() if not probabilities)
        held += diff_bytes(plan, checks, DIFF_BLOCK)
        planes = [c for c in plan if c.name in checks and checks[c.name][2]]
        if not bounded(self.plan):
            return held + sum(c.nbytes for c in planes)
        if not planes:
            return held
        largest = max(planes, key=lambda c: c.nbytes)
        groups = max((getattr(module, "num_key_value_groups", 1) for module in self.plan.sites), default=1)
        return held + 4 * block_bytes(tuple(largest.shape), groups, self.device)  # an eager block and the pass's

    def reference_tokenizer(self) -> tuple[Any, str]:
        """The tokenizer the input is checked against and its name: for a folder, a second one transformers
        loads itself (`folder_tokenizer`: AutoTokenizer when the folder has tokenizer_config.json); for a
        model wrapped from Python, the tokenizer it was given."""
        if getattr(self, "_reference", None) is None:
            from tfdebug.adapters.hf.load import folder_tokenizer

            if self.folder is None:
                self._reference = (self.tokenizer, "the given tokenizer")
            else:
                tokenizer = folder_tokenizer(self.folder)
                self._reference = (tokenizer, "AutoTokenizer" if (self.folder / "tokenizer_config.json").exists()
                                   else "PreTrainedTokenizerFast(tokenizer.json)")
        return self._reference


def diff_bytes(plan, checks, block: int) -> int:
    """Bytes a comparison of the check holds at once: its float32 difference block and a float32 copy of the
    pass's block (`verify._diff`), no larger than the largest compared stage (the probabilities' blocks are the
    reference's, counted apart)."""
    largest = max((c.nbytes // max(1, c.dtype.itemsize) for c in plan
                   if c.name in checks and not checks[c.name][2]), default=0)
    return 2 * 4 * min(block, largest)
