"""The run settings as an evented model: what the next Run starts and how (Qt-free).

`RunModel` holds, once for the window, the inputs of the next run (`inputs`, a `tfdebug.core.view.RunInputs`: the
model, device, texts, precision, chat and batch), whether it generates token by token (`generation`: the
`DecodingSettings` it generates with, or None: one pass), the settings Generate uses (`decoding`, Debug ▸ Decoding
Settings…) and the inputs of the last live pass that loaded and started (`worked`: what the window saves as its
last session; a choice that failed never becomes the next launch's start) and when a finished pass is checked
against the unmodified model (`verify`: "auto", "always" or "never", Debug ▸ Check Against the Model). Each field changes only through its
setter, which emits the field's event with its new value when, and only when, it changed (psygnal signals, as
napari's models do); the input bar subscribes to `inputs_changed`. What a pass on screen is (its plan, tokens,
title, device …) is its source's, not this model's.
"""

from __future__ import annotations

from psygnal import Signal

from tfdebug.core.view import RunInputs
from tfdebug.models.sampling import DecodingSettings


class RunModel:
    """The next run's inputs, generation and decoding settings, and the inputs that last worked."""

    inputs_changed = Signal(object)  # the RunInputs the next Run starts (typed, or restored after a failed Run)
    generation_changed = Signal(object)  # the DecodingSettings the next run generates with, or None: one pass
    decoding_changed = Signal(object)  # the DecodingSettings Generate uses
    worked_changed = Signal(object)  # the RunInputs of the last live pass that loaded and started
    verify_changed = Signal(str)  # when a finished pass is checked: "auto", "always" or "never" (sessions.peak.VERIFY)

    def __init__(self, inputs: RunInputs | None = None, decoding: DecodingSettings | None = None):
        self._inputs = inputs if inputs is not None else RunInputs("random")
        self._generation: DecodingSettings | None = None
        self._decoding = decoding if decoding is not None else DecodingSettings()
        self._worked: RunInputs | None = None
        self._verify = "auto"

    @property
    def inputs(self) -> RunInputs:
        """What the next Run starts."""
        return self._inputs

    @property
    def generation(self) -> DecodingSettings | None:
        """The decoding settings the next run generates token by token with, or None: one pass."""
        return self._generation

    @property
    def decoding(self) -> DecodingSettings:
        """What Generate uses (Debug ▸ Decoding Settings…)."""
        return self._decoding

    @property
    def worked(self) -> RunInputs | None:
        """The inputs of the last live pass that loaded and started, or None until one has."""
        return self._worked

    @property
    def verify(self) -> str:
        """When a finished pass is checked against the unmodified model: "auto" (where the check fits in the memory
        free), "always" or "never"."""
        return self._verify

    def set_verify(self, policy: str) -> None:
        """Check finished passes by `policy` from now on (one of `sessions.peak.VERIFY`; anything else is refused)."""
        from tfdebug.sessions.peak import VERIFY

        if policy not in VERIFY:
            raise ValueError(f"unknown check policy {policy!r}; choose one of {', '.join(VERIFY)}")
        if policy != self._verify:
            self._verify = policy
            self.verify_changed.emit(policy)

    def set_inputs(self, inputs: RunInputs) -> None:
        """What the next Run starts."""
        if inputs != self._inputs:
            self._inputs = inputs
            self.inputs_changed.emit(inputs)

    def set_generation(self, settings: DecodingSettings | None) -> None:
        """The next run generates with `settings` (None: one pass)."""
        if settings != self._generation:
            self._generation = settings
            self.generation_changed.emit(settings)

    def set_decoding(self, settings: DecodingSettings) -> None:
        """The settings Generate uses from now on."""
        if settings != self._decoding:
            self._decoding = settings
            self.decoding_changed.emit(settings)

    def set_worked(self, inputs: RunInputs) -> None:
        """`inputs` loaded and started a live pass."""
        if inputs != self._worked:
            self._worked = inputs
            self.worked_changed.emit(inputs)

    def disconnect_all(self) -> None:
        """No receiver hears this model again (the window that connected them is closing)."""
        for signal in (self.inputs_changed, self.generation_changed, self.decoding_changed, self.worked_changed,
                       self.verify_changed):
            signal.disconnect()
