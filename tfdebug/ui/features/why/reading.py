"""WhyReader: the lens and attribution of the pass on screen (`PassSource.why`), read off the GUI thread.

It reads them again when another pass goes on screen or the pass ends, and only while its panel is on screen;
`ready` says a finished pass can be read (`why`), `unavailable(sentence)` why it cannot (a pass still
running, a recording, a model without a language-model head). `why` is a `sessions.why_view.WhyView`: the views
ask it only what that protocol has, so a served pass (computed on the server) reads as a local one. `run(work,
done)` runs one reading on a worker and hands its result to `done` on the GUI thread, unless another pass came on
screen meanwhile.
"""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QObject, Signal

from tfdebug.ui.i18n.language import shown_text
from tfdebug.ui.state.controller import DebugController
from tfdebug.ui.workers.jobs import Job


class WhyReader(QObject):
    """The `Why` of the pass on screen, or the sentence saying why there is none."""

    ready = Signal()
    unavailable = Signal(str)

    def __init__(self, ctl: DebugController, parent: QObject | None = None):
        super().__init__(parent)
        self.ctl = ctl
        self.why = None
        self._read_for = None  # the (source, finished) the current reading is of
        self._generation = 0  # bumped for each pass: results of an older one are dropped

    def refresh(self) -> None:
        """Read the pass on screen again when it is another one or has ended since the last reading."""
        source = self.ctl.source
        stepper = getattr(source, "stepper", None)
        key = (source, bool(stepper is not None and not stepper.alive))
        if key == self._read_for:
            return
        self._read_for = key
        self._generation += 1
        self.why = None
        if source is None:
            self.unavailable.emit(self.tr("No pass is loaded."))
            return
        self.unavailable.emit(self.tr("Reading the pass…"))  # no view keeps showing the pass before
        self.run(source.why, self._arrived)

    def run(self, work: Callable[[], Any], done: Callable[[Any], None],
            failed: Callable[[str], Any] | None = None) -> Job:
        """`work()` on a worker; `done(result)` on the GUI thread while the same pass is on screen, and a failure
        said by `failed(sentence)` (by default in every view: `unavailable`). A pass closed meanwhile (the window's
        `close`, which says nothing to this reader) is not on screen either: drawing a result then read its closed
        snapshot."""
        generation, source = self._generation, self.ctl.source
        said = failed or self.unavailable.emit

        def current() -> bool:
            return generation == self._generation and self.ctl.source is source
        job = Job(lambda _job: work(), name="why")
        job.finished.connect(lambda result: current() and done(result))
        job.failed.connect(lambda sentence, _details: current() and said(shown_text(sentence)))
        job.start()
        return job

    def _arrived(self, why) -> None:
        self.why = why
        self.ready.emit()

    def quoted_word(self, token: int) -> str:
        """Token `token`'s text quoted as Python writes it ('猫'), or "#ID" when it has none to show."""
        word = self.why.word(token) if self.why is not None else None
        return repr(word) if word is not None else f"#{token}"
