"""Models the why and backward tests share: GPT-2- and Llama-shaped random models saved as Hugging Face folders,
and the bundled pretrained tiny GPT-2 (trained weights)."""

from __future__ import annotations

import pytest

KINDS = ("gpt2", "llama", "pretrained")


def model_folder(kind: str, tmp_path_factory):
    """The folder of one of KINDS (the random ones saved under a new temporary folder)."""
    pytest.importorskip("transformers")
    if kind == "pretrained":
        from tfdebug.adapters.bundled import bundled_folder

        return bundled_folder("tiny-gpt2")
    from tests.adapters.hf_tiny import gpt2, llama, save_folder

    return save_folder({"gpt2": gpt2, "llama": llama}[kind](), tmp_path_factory.mktemp(kind))


@pytest.fixture(scope="module", params=KINDS)
def hf_folder(request, tmp_path_factory):
    """A model folder of each kind, once per test module."""
    return model_folder(request.param, tmp_path_factory)
