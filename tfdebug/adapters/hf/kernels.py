"""The attention kernels a pass can run with on this machine: tfdebug's tapped eager attention and those transformers
has registered whose requirements (their package, a GPU) this machine meets; a kernel named that cannot run here is
refused in one sentence naming the ones that can."""

from __future__ import annotations

from tfdebug.core.errors import UnsupportedModelError

EAGER = "eager"  # tfdebug's own tapped function, equal to transformers' eager attention bit for bit


#: kernels transformers registers everywhere that run only where their package (and a GPU) is: the check it offers
KERNEL_NEEDS = {"flash_attention_2": "is_flash_attn_2_available", "flash_attention_3": "is_flash_attn_3_available",
                "flash_attention_4": "is_flash_attn_4_available", "flex_attention": "is_torch_flex_attn_available"}


def kernel_available(kernel: str) -> bool:
    """Whether transformers' `kernel` can run on this machine (a flash kernel needs its package and a CUDA GPU)."""
    need = KERNEL_NEEDS.get(kernel)
    if need is None:
        return True
    try:
        import transformers.utils

        check = getattr(transformers.utils, need, None)
        return bool(check()) if check is not None else False
    except Exception:  # no transformers, or a broken optional package: a kernel that is not here
        return False


def attention_kernels() -> tuple[str, ...]:
    """The kernels a pass can run with here: tfdebug's eager and those transformers has registered whose
    requirements this machine meets."""
    from transformers import AttentionInterface

    return (EAGER, *(name for name in AttentionInterface._global_mapping if "|" not in name and kernel_available(name)))


def check_kernel(kernel: str) -> str:
    """`kernel` when a pass can run with it here, else an UnsupportedModelError naming the ones it can."""
    from transformers import AttentionInterface

    from tfdebug.core.phrases import Choices

    kernels = attention_kernels()
    if kernel in AttentionInterface._global_mapping and kernel not in kernels:
        raise UnsupportedModelError("The attention kernel {kernel} is not available on this machine (it needs its "
                                    "package and a GPU it supports); the kernels here are {choices}.",
                                    id="hf.kernel_unavailable", kernel=kernel, choices=Choices(kernels))
    if kernel not in kernels:
        raise UnsupportedModelError("There is no attention kernel named {kernel} here; the kernels are {choices}.",
                                    id="hf.unknown_kernel", kernel=repr(kernel)[:60], choices=Choices(kernels))
    return kernel
