"""The Capture dock: the budget, what the pass will hold (from its plan, before it runs) and, once stages
were dropped, their names and sizes."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QLabel, QListWidget, QVBoxLayout, QWidget

from tfdebug.core.budget import FIRST, format_bytes
from tfdebug.sessions.peak import peak_of
from tfdebug.ui.i18n.language import phrase_text, said
from tfdebug.ui.state.capture_budget import AUTO
from tfdebug.ui.state.keeping import describe_keep
from tfdebug.ui.state.messages import Message
from tfdebug.ui.widgets.when_seen import WhenSeen


class CapturePanel(QWidget):
    """The budget, what the pass will hold, and the stages the budget dropped (names and sizes)."""

    def __init__(self, ctl, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctl = ctl
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.dropped_title = QLabel()
        self.dropped_title.setWordWrap(True)  # one sentence; unwrapped it held the window wider than 1600 px
        self.dropped_list = QListWidget()
        self.dropped_list.setObjectName("dropped-stages")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.summary)
        layout.addWidget(self.dropped_title)
        layout.addWidget(self.dropped_list, 1)
        self._announced = None  # the stepper whose first drop the message bar has reported
        self._shown: tuple | None = None
        self._peak: tuple | None = None  # (the estimate it was worked out for, its Phrase)
        self.when_seen = WhenSeen(self, self.refresh)  # a tab behind Stats redraws when it comes to the front
        ctl.session_changed.connect(self._changed)
        ctl.state_changed.connect(self._changed)
        self.refresh()

    def dropped_names(self) -> list[str]:
        """The stage names the list shows, in forward order."""
        return [self.dropped_list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.dropped_list.count())]

    def _changed(self) -> None:
        self._announce()  # said in the message bar whether the panel is on screen or not
        self.when_seen.ask()

    def refresh(self) -> None:
        """Say the budget, what the pass will hold and what it dropped."""
        ctl = self.ctl
        stepper = ctl.stepper
        session = ctl.session
        limit = getattr(stepper, "max_capture_bytes", None) if stepper is not None and stepper.is_live else None
        if limit is None:
            lines = [self.tr("Capture budget: none, every stage is kept.")]
        elif ctl.capture_budget == AUTO:
            lines = [self.tr("Capture budget: {size} (half of the free memory when the pass was planned).").format(
                size=format_bytes(limit))]
        else:
            lines = [self.tr("Capture budget: {size}.").format(size=format_bytes(limit))]
        keep = getattr(stepper, "keep", None) if limit is not None else None
        if keep is not None:
            lines.append(self.tr("It keeps {what}.").format(what=describe_keep(keep.mode, keep.pinned)))
        if ctl.capabilities.reruns_here and stepper is not None and stepper.is_live:
            lines.append(self._estimate_line(session.capture_estimate()))
            if limit is not None:  # what the pass reaches, not only what it keeps (tfdebug.sessions.peak)
                lines.append(self._peak_line(session))
        self.summary.setText("\n".join(lines))
        dropped = stepper.dropped if stepper is not None and stepper.is_live else []
        if tuple(dropped) != self._shown:  # unchanged: leave the list (and its scroll position) alone
            self._list(dropped)

    def _list(self, dropped) -> None:
        ctl = self.ctl
        self._shown = tuple(dropped)
        self.dropped_list.clear()
        for name in dropped:
            capture = ctl.plan.find(name)
            size = f"  ({format_bytes(capture.nbytes)})" if capture is not None else ""
            self.dropped_list.addItem(name + size)
            self.dropped_list.item(self.dropped_list.count() - 1).setData(Qt.ItemDataRole.UserRole, name)
        self.dropped_title.setText(
            self.tr("{count} stages dropped: shown while the pass is paused at them, then gone from the history "
                    "(Restart and run to one to see it again).").format(count=len(dropped)) if dropped
            else self.tr("No stage dropped."))

    def _announce(self) -> None:
        """The first stage the budget drops, said once per pass in the message bar."""
        stepper = self.ctl.stepper
        live = stepper is not None and stepper.is_live
        dropped = stepper.dropped if live else []
        limit = getattr(stepper, "max_capture_bytes", None) if live else None
        keep = getattr(stepper, "keep", None) if limit is not None else None
        if dropped and self._announced is not stepper:
            self._announced = stepper
            size, first = format_bytes(limit or 0), dropped[0]
            if keep is not None and keep.mode != FIRST:
                sentence = said(lambda: self.tr(
                    "The capture budget ({size}) is full: the stages farthest from where you are and where the pass "
                    "is leave the history, {stage} first. The Capture panel lists them.").format(size=size,
                                                                                            stage=first))
            else:
                sentence = said(lambda: self.tr(
                    "The capture budget ({size}) is full: from {stage} on, stages are kept only while the pass is "
                    "paused at them. The Capture panel lists them.").format(size=size, stage=first))
            self.ctl.say(Message("warning", sentence, topic="capture-budget"))

    def _peak_line(self, session) -> str:
        """The pass's stated peak, worked out once per estimate (refresh runs at every step)."""
        estimate = session.capture_estimate()
        if self._peak is None or self._peak[0] is not estimate:
            self._peak = (estimate, peak_of(session).describe())
        peak = phrase_text(self._peak[1])
        return peak[:1].upper() + peak[1:] + "."

    def _estimate_line(self, estimate) -> str:
        """What the plan says the pass will hold, and what the budget keeps and drops."""
        stages = len(estimate.kept) + len(estimate.dropped)
        if not estimate.dropped:
            return self.tr("The pass will hold {total} in {stages} stages: all of them fit.").format(
                total=format_bytes(estimate.total_bytes), stages=stages)
        if estimate.policy.mode != FIRST:
            return self.tr("The pass will hold {total} in {stages} stages: run straight through, the budget keeps "
                           "{kept} ({kept_size}) and drops {dropped}, those farthest from where you are and where "
                           "the pass is.").format(
                total=format_bytes(estimate.total_bytes), stages=stages, kept=len(estimate.kept),
                kept_size=format_bytes(estimate.kept_bytes), dropped=len(estimate.dropped))
        return self.tr("The pass will hold {total} in {stages} stages: the budget keeps {kept} ({kept_size}) and "
                       "drops {dropped}, from {first} on.").format(
            total=format_bytes(estimate.total_bytes), stages=stages, kept=len(estimate.kept),
            kept_size=format_bytes(estimate.kept_bytes), dropped=len(estimate.dropped), first=estimate.dropped[0])

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self._shown = None  # every text again, in the new language
            self.refresh()
        super().changeEvent(event)
