"""Model adapters: everything tfdebug needs to know about one kind of model.

`load_adapter(spec, device, dtype)` turns a model spec (`demo`, `random`, a folder, …)
into a `ModelAdapter`; the window, the CLI, snapshots and exports know models only
through adapters.
"""

import importlib

# Name -> the module it lives in. Imported when first used (PEP 562): a submodule that needs no
# torch (tfdebug.adapters.specs, hf.folder, hf.hub) is imported without it.
_EXPORTS = {"InputField": "base", "ModelAdapter": "base", "Prepared": "base", "Verification": "base",
            "available_models": "registry", "default_model_name": "registry", "load_adapter": "registry"}
__all__ = list(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
