"""What the window says about the pass on screen: words its inputs did not have, the adapter's notes, a
breakpoint hit, the pass failing or finishing. The controller owns one `PassNotices` and hands it the new
pass and each stepper event; the sentences reach the message bar through the controller's `message` and
`info` signals, said again in the new language after View ▸ Language.
"""

from __future__ import annotations

from PySide6.QtCore import QObject

from tfdebug.core.stepper import FINISHED, StepperEvent
from tfdebug.models.vocab import closest_known, named_words, shown_word, vocabularies_of
from tfdebug.ui.i18n.language import breakpoint_text, error_phrase, phrase_text, said
from tfdebug.ui.state.messages import Message


class PassNotices(QObject):
    """The sentences of one controller (`ctl`) about its passes."""

    def __init__(self, ctl):
        super().__init__(ctl)
        self.ctl = ctl

    def opened(self, session) -> None:
        """A live pass was shown: the words not in the model's vocabulary, and what its adapter says of the inputs."""
        if session.unknown_words:
            vocabs = vocabularies_of(getattr(session.adapter, "loaded", None))
            named, more = named_words(session.unknown_words)
            hinted = [(shown_word(word), closest_known(word, vocabs)) for word in named]
            hinted += [("…", None)] if more else []
            self.ctl.say(Message("warning", said(lambda: self.tr(
                "Not in the vocabulary (shown as <unk>): {words}.").format(words=", ".join(
                    self.tr("{word} (did you mean {close}?)").format(word=word, close=close) if close else word
                    for word, close in hinted))), topic="unknown-words"))
        if session.notes:  # the adapter's own sentences about these inputs (Phrases: said in the window's language)
            notes = tuple(session.notes)
            self.ctl.say(Message("info", said(lambda: " ".join(phrase_text(n) for n in notes)),
                                     topic="input-notes"))

    def on_event(self, stepper, event: StepperEvent) -> None:
        """What `event` of the pass on screen tells the user, if anything."""
        hit = event.breakpoint if event.reason == "breakpoint" else None
        stage = event.capture.name if event.capture is not None else ""
        if event.type == "paused" and hit is not None:
            self.ctl.inform(said(lambda: self.tr("Stopped at {stage}: breakpoint on {what}.").format(
                stage=stage, what=breakpoint_text(hit))))
        elif event.type == "failed":
            cause = event.error.__cause__ if event.error is not None else None
            self.ctl.say(Message("error", error_phrase(event.error) if event.error is not None
                                     else said(lambda: self.tr("The forward pass failed.")),
                                     f"{type(cause).__name__}: {cause}" if cause is not None else "",
                                     topic="run"))
        elif event.type == "finished" and hit is not None:
            self.ctl.inform(said(lambda: self.tr(
                "The pass finished; the first stage with a breakpoint hit is {stage} "
                "({what}): the stages after it have already run.").format(stage=stage, what=breakpoint_text(hit))))
        elif event.type == "finished" and stepper.state == FINISHED:
            self.ctl.inform(said(lambda: self.tr("The forward pass finished.")))
