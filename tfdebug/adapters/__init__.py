"""Model adapters: everything tfdebug needs to know about one kind of model.

`load_adapter(spec, device, dtype)` turns a model spec (`demo`, `random`, a folder, …)
into a `ModelAdapter`; the window, the CLI, snapshots and exports know models only
through adapters.
"""

from tfdebug.adapters.base import InputField, ModelAdapter, Prepared, Verification
from tfdebug.adapters.registry import available_models, default_model_name, load_adapter

__all__ = ["InputField", "ModelAdapter", "Prepared", "Verification", "available_models",
           "default_model_name", "load_adapter"]
