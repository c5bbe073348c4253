"""Which inputs a window starts on: what the command line gives, else the user's last session, else the
defaults (the default model and its first example, on this machine's default device and precision).

Qt-free, so the choice is tested with a faked device list; `tfdebug.ui.app` and File ▸ New Session use it.
"""

from __future__ import annotations

from tfdebug.core.devices import initial_device, initial_dtype
from tfdebug.core.view import RunInputs


def starting_inputs(model: str | None = None, texts: dict[str, str] | None = None, device: str | None = None,
                    dtype: str | None = None, device_map: str | None = None, remembered: RunInputs | None = None,
                    saved: tuple[str | None, str | None] = (None, None),
                    devices: list[str] | None = None) -> tuple[RunInputs, bool]:
    """The inputs to start on, and whether they are the last session's (model and texts restored).

    `model`, `texts`, `device`, `dtype`, `device_map` are the command line's (None: not given);
    `remembered` is the last session's inputs and `saved` its (dtype, device map), both None for a
    fresh start. A given model or text starts a new session; the device and precision chosen last
    time still win over the defaults unless given.
    """
    from tfdebug.adapters.registry import default_model_name

    restored = remembered is not None and model is None and not texts
    chosen = initial_device(device, remembered.device if remembered else None, devices)
    saved_dtype, saved_map = saved
    inputs = RunInputs(model or (remembered.model if restored else default_model_name()), chosen,
                       dict(texts) if texts else (dict(remembered.texts) if restored else {}),
                       dtype=initial_dtype(dtype, saved_dtype, chosen),
                       device_map=device_map if device_map is not None else saved_map)
    return inputs, restored


def default_inputs(devices: list[str] | None = None) -> RunInputs:
    """The defaults, as the first start shows them: the default model's first example on the default
    device and precision (File ▸ New Session, `tfdebug --fresh`)."""
    return starting_inputs(devices=devices)[0]
