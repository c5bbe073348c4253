"""Which torch devices this machine has, and turning a user's device string into one."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfdebug.core.errors import ConfigError

if TYPE_CHECKING:  # torch loads when a function first needs it, not with the window
    import torch


def available_devices() -> list[str]:
    """'cpu', then 'cuda:N' for each GPU, then 'mps' when Apple's backend is usable."""
    import torch
    devices = ["cpu"]
    if torch.cuda.is_available():
        devices += [f"cuda:{i}" for i in range(torch.cuda.device_count())]
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        devices.append("mps")
    return devices


def available_device_maps(devices: list[str] | None = None) -> list[str]:
    """The device maps that make sense here, for a picker: 'auto' and 'cpu' always, 'balanced' with two
    GPUs or more, then 'cuda:N' for each GPU (accelerate places the model; see adapters.registry)."""
    devices = available_devices() if devices is None else devices
    gpus = [d for d in devices if d.startswith("cuda:")]
    return ["auto"] + (["balanced"] if len(gpus) > 1 else []) + ["cpu"] + gpus


def default_device(devices: list[str] | None = None) -> str:
    """The first GPU (or Apple's backend) when there is one, else the CPU: a debugger of GPU-resident
    models loads them where they are meant to run unless told otherwise."""
    devices = available_devices() if devices is None else devices
    return next((d for d in devices if d != "cpu"), "cpu")


def initial_device(given: str | None, remembered: str | None = None, devices: list[str] | None = None) -> str:
    """The device a window starts on: the one `given` (the command line's --device; "auto" is the default
    device), else the one the user chose last time when this machine still has it, else the default device.

    A given device this machine lacks is kept: loading then refuses it by name (resolve_device).
    """
    devices = available_devices() if devices is None else devices
    if given is not None and given != "auto":
        return given
    if given is None and remembered in devices:
        return remembered
    return default_device(devices)


def bfloat16_native(device: str) -> bool:
    """Whether `device` is a CUDA GPU that computes in bfloat16 natively (compute capability 8.0 and later;
    older GPUs only emulate it, slowly)."""
    if not device.startswith("cuda"):
        return False
    import torch
    return torch.cuda.is_available() and torch.cuda.is_bf16_supported(including_emulation=False)


def initial_dtype(given: str | None, remembered: str | None, device: str) -> str:
    """The precision a window starts in: the one `given` (--dtype), else the user's last choice, else
    bfloat16 on a GPU that supports it (half the memory of float32, how such models are run), else float32."""
    return given or remembered or ("bfloat16" if bfloat16_native(device) else "float32")


def gpu_memory(device: str) -> tuple[int, int] | None:
    """(free, total) bytes of the CUDA GPU `device` names, as the driver reports them now; None for
    another device or when the driver cannot say."""
    if not device.startswith("cuda:"):
        return None
    import torch
    if not torch.cuda.is_available():
        return None
    try:
        free, total = torch.cuda.mem_get_info(int(device.partition(":")[2]))
    except (RuntimeError, ValueError):  # a GPU lost or busy in another mode: the list still shows its name
        return None
    return int(free), int(total)


def resolve_device(name: str | None) -> torch.device:
    """A torch.device for 'cpu', 'cuda', 'cuda:N', 'mps' or 'auto'/None; ConfigError if absent here.

    An empty name is refused (it is a mistake, e.g. an unset shell variable, not a choice),
    and so is any CPU index but 0: there is one CPU device.
    """
    import torch
    if name is None or name == "auto":
        return torch.device(default_device())
    shown = repr(name)[:60]  # quoted, control characters escaped
    if not isinstance(name, str) or not name.strip():
        raise ConfigError("The device name is empty; use cpu, cuda, cuda:N, mps or auto.", id="device.empty")
    try:
        device = torch.device(name)
    except (RuntimeError, TypeError, ValueError) as exc:
        raise ConfigError("{device} is not a device name; use cpu, cuda, cuda:N, mps or auto.",
                          id="device.bad_name", device=shown) from exc
    if device.type == "cpu" and device.index not in (None, 0):
        raise ConfigError("{device} names a CPU that does not exist: there is one CPU device, 'cpu'.",
                          id="device.no_such_cpu", device=shown)
    if device.type == "cuda" and device.index is None:
        device = torch.device("cuda:0")
    if device.type != "cpu" and str(device) not in available_devices():
        raise ConfigError("Device {device} is not available on this machine; available: {available}.",
                          id="device.unavailable", device=shown, available=", ".join(available_devices()))
    return device


DTYPES = ("float32", "float16", "bfloat16")  # the precisions a model loads in, by torch's names


def resolve_dtype(name: str | torch.dtype) -> torch.dtype:
    """The torch dtype `name` names ("float32", "float16", "bfloat16"), or `name` itself if it is one."""
    import torch
    if isinstance(name, torch.dtype):
        return name
    if name not in DTYPES:
        raise ConfigError("dtype must be one of {choices}, not '{name}'.", id="config.unknown_dtype",
                          choices=", ".join(DTYPES), name=name)
    return getattr(torch, name)


def device_description(device: torch.device | str) -> str:
    """The device in words: 'cuda:0 (NVIDIA H200)', or 'cpu'."""
    import torch
    device = torch.device(device)
    if device.type == "cuda" and torch.cuda.is_available():
        return f"{device} ({torch.cuda.get_device_name(device)})"
    return str(device)
