"""Which token of the clean text goes into which token of the corrupted one, when patching between two passes.

Texts of the same length pair position by position. Texts of different lengths ("The Eiffel Tower is in" and
"The Colosseum is in") pair by default the tokens they share at the start, position by position, and every other
token from the end: the last token with the last, and so on back, as far as the shorter text goes after the shared
start. The user may give the pairs instead (`tfdebug patch --align 0:0,3:2,4:3`: clean position : corrupted
position). A corrupted position that no clean position pairs with is never patched (a sweep's cell there is NaN).

    alignment = Alignment.default(clean_labels, corrupt_labels)
    alignment.clean_of(4)   # the clean position whose value goes into corrupted position 4, or None
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from tfdebug.core.readout import ReadoutError

#: the most pairs `parse` reads (a text longer than this many tokens is aligned by default, not by hand)
MAX_PAIRS = 1 << 16


@dataclass(frozen=True)
class Alignment:
    """Pairs (clean position, corrupted position) between a clean text of `clean_count` tokens and a corrupted one
    of `corrupt_count`; each corrupted position at most once, each clean position at most once."""

    pairs: tuple[tuple[int, int], ...]
    clean_count: int
    corrupt_count: int
    by_hand: bool = False  # the user gave the pairs

    @classmethod
    def default(cls, clean: Sequence[object], corrupt: Sequence[object]) -> "Alignment":
        """The shared first tokens (`clean` and `corrupt`: each text's tokens, compared with ==) position by position,
        then every other token from the end."""
        shared = 0
        while shared < min(len(clean), len(corrupt)) and clean[shared] == corrupt[shared]:
            shared += 1
        pairs = [(p, p) for p in range(shared)]
        tail = min(len(clean), len(corrupt)) - shared
        pairs += [(len(clean) - tail + k, len(corrupt) - tail + k) for k in range(tail)]
        return cls(tuple(pairs), len(clean), len(corrupt))

    @classmethod
    def given(cls, pairs: Iterable[tuple[int, int]], clean_count: int, corrupt_count: int) -> "Alignment":
        """The user's pairs (negative positions count from the end), checked; ReadoutError saying which pair is
        wrong."""
        seen_clean: set[int] = set()
        seen_corrupt: set[int] = set()
        out = []
        for clean, corrupt in pairs:
            if not -clean_count <= clean < clean_count:
                raise ReadoutError(f"Clean position {clean} is outside the clean text's {clean_count} tokens.")
            if not -corrupt_count <= corrupt < corrupt_count:
                raise ReadoutError(f"Corrupted position {corrupt} is outside the corrupted text's {corrupt_count} "
                                   "tokens.")
            clean, corrupt = clean % clean_count, corrupt % corrupt_count
            if clean in seen_clean or corrupt in seen_corrupt:
                raise ReadoutError(f"Position {clean if clean in seen_clean else corrupt} is paired twice; each "
                                   "position pairs with at most one other.")
            seen_clean.add(clean)
            seen_corrupt.add(corrupt)
            out.append((clean, corrupt))
        if not out:
            raise ReadoutError("The alignment pairs no positions, so nothing could be patched.")
        return cls(tuple(sorted(out, key=lambda pair: pair[1])), clean_count, corrupt_count, by_hand=True)

    @classmethod
    def parse(cls, text: str, clean_count: int, corrupt_count: int) -> "Alignment":
        """`text` as CLEAN:CORRUPTED pairs separated by commas ("0:0,3:2"), checked as `given`."""
        items = [item.strip() for item in text.split(",") if item.strip()]
        if len(items) > MAX_PAIRS:
            raise ReadoutError(f"An alignment gives at most {MAX_PAIRS} pairs, not {len(items)}.")
        pairs = []
        for item in items:
            clean, _, corrupt = item.partition(":")
            if not (_whole(clean) and _whole(corrupt)):
                raise ReadoutError(f"An alignment is CLEAN:CORRUPTED position pairs separated by commas (e.g. "
                                   f"0:0,3:2), not {item[:40]!r}.")
            pairs.append((int(clean), int(corrupt)))
        return cls.given(pairs, clean_count, corrupt_count)

    @property
    def identity(self) -> bool:
        """Every position paired with itself, the two texts of one length."""
        return self.clean_count == self.corrupt_count and len(self.pairs) == self.clean_count and \
            all(a == b for a, b in self.pairs)

    def clean_of(self, corrupt: int) -> int | None:
        """The clean position paired with corrupted position `corrupt` (negative: from the end), or None."""
        corrupt %= max(1, self.corrupt_count)
        return next((clean for clean, other in self.pairs if other == corrupt), None)

    def describe(self) -> str:
        """The alignment in one sentence (what the CLI and the Patching tabs say above their results)."""
        if self.identity:
            return f"Both texts have {self.clean_count} tokens: each position is patched from the same one."
        shown = ", ".join(f"{a}→{b}" for a, b in self.pairs[:12]) + (" …" if len(self.pairs) > 12 else "")
        how = "as given" if self.by_hand else "the shared first tokens from the start, the rest from the end"
        return (f"The clean text has {self.clean_count} tokens and the corrupted one {self.corrupt_count}: "
                f"{len(self.pairs)} positions pair up ({how}; clean→corrupted {shown}).")

    def to_dict(self) -> dict:
        """JSON-ready: the pairs as [clean, corrupted] lists, the two counts, whether by hand."""
        return {"pairs": [list(p) for p in self.pairs], "clean_count": self.clean_count,
                "corrupt_count": self.corrupt_count, "by_hand": self.by_hand}


def _whole(text: str) -> bool:
    """Whether `text` is a whole number as written (an optional minus, then at most 9 digits)."""
    digits = text.strip().removeprefix("-")
    return digits.isascii() and digits.isdigit() and len(digits) <= 9
