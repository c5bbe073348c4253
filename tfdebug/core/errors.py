"""Typed errors. Each carries one sentence a user understands; the GUI and CLI show it."""

from tfdebug.core.phrases import Phrase


class TfdebugError(Exception):
    """Base of every error tfdebug raises on purpose.

    `message` is the English sentence. With a stable `id` ("input.empty"), `message` is a
    template filled from `params` (`str.format` names), so the window can translate the
    template by its id and fill in the same values; `template` keeps the unfilled text.
    """

    def __init__(self, message: str, *, id: str = "", **params):
        text = message.format(**params) if id else message
        super().__init__(text)
        self.message = text
        self.id = id
        self.template = message if id else ""
        self.params = params

    def phrase(self) -> str:
        """The sentence as a Phrase (context "errors") the window translates by its id; the English
        sentence when the error has no id. It holds no reference to the exception or its traceback."""
        if not self.id or not self.template:
            return self.message
        return Phrase(self.template, id=self.id, context="errors", english=self.message, **self.params)


class InputError(TfdebugError):
    """The input to a forward pass cannot be used."""


class EmptyInputError(InputError):
    """A sequence with no tokens."""


class SequenceTooLongError(InputError):
    """A sequence longer than the model's max_seq_len."""


class TokenOutOfRangeError(InputError):
    """A token id outside the model's vocabulary."""


class ConfigError(TfdebugError):
    """A model configuration that cannot build a model."""


class UnknownStageError(TfdebugError):
    """A stage name the model does not have."""


class StepperStateError(TfdebugError):
    """A stepper command that does not apply in the stepper's current state."""


class ReplacementError(TfdebugError):
    """A replacement tensor that does not fit the stage it replaces."""


class EditError(ReplacementError):
    """An edit of a paused tensor that cannot be applied (not a number, a CSV of the wrong shape); nothing changed."""


class ForwardFailedError(TfdebugError):
    """The forward pass raised part-way; the original exception is the cause."""


class ModelLoadError(TfdebugError):
    """A model or its vocabulary could not be loaded."""


class UnsupportedModelError(ModelLoadError):
    """A model, or a call inside it, that tfdebug cannot tap without changing its numbers (an unknown
    architecture, attention dropout, an attention keyword the tapped function does not implement)."""


class SnapshotError(TfdebugError):
    """A snapshot file that cannot be read or written."""


class ReadStoppedError(SnapshotError):
    """A read of a snapshot's stage stopped early because what it was for is no longer wanted (another stage
    was asked for meanwhile); nothing was read and the stage can be read again."""


class ExportError(TfdebugError):
    """An export that could not be written."""


class ExportCancelledError(ExportError):
    """An export or snapshot save the user cancelled; nothing was written."""


class CompareError(TfdebugError):
    """Two passes that could not be compared (the other pass could not be made, or the table is too large)."""


class DisplayError(TfdebugError):
    """The window cannot open here: no display, or a system library Qt needs is missing."""


class RecorderBusyError(TfdebugError):
    """A stage is already being recorded: one Recorder (or live pass) per model at a time."""
