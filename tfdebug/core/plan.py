"""Plan: the stages of one pass in forward order, with a name → index map."""

from __future__ import annotations

from typing import Iterable, Iterator, Sequence

from tfdebug.core.errors import UnknownStageError
from tfdebug.core.recorder import Capture


class Plan(Sequence[Capture]):
    """Ordered captures (a plan carries shapes but no tensors) that look up names in O(1)."""

    def __init__(self, captures: Iterable[Capture] = ()):
        self._captures = list(captures)
        self._index = {c.name: i for i, c in enumerate(self._captures)}

    def __len__(self) -> int:
        return len(self._captures)

    def __getitem__(self, i):
        return self._captures[i]

    def __iter__(self) -> Iterator[Capture]:
        return iter(self._captures)

    def __contains__(self, name: object) -> bool:
        return name in self._index

    def index_of(self, name: str) -> int:
        """Position of the stage called `name`; UnknownStageError when the pass has none."""
        try:
            return self._index[name]
        except KeyError:
            raise UnknownStageError("There is no stage named '{name}' in this pass.", id="plan.unknown_stage",
                                    name=name) from None

    def find(self, name: str) -> Capture | None:
        i = self._index.get(name)
        return None if i is None else self._captures[i]

    def names(self) -> list[str]:
        return [c.name for c in self._captures]
