"""Fixtures for core tests: a small reference model and a prepared sentence pair."""

import pytest
import torch

from tfdebug.models.loader import load_model

DEVICES = ["cpu", pytest.param("cuda", marks=[pytest.mark.cuda, pytest.mark.skipif(
    not torch.cuda.is_available(), reason="no CUDA device here")])]


@pytest.fixture(scope="session")
def loaded():
    return load_model("random", device="cpu")


@pytest.fixture()
def pair(loaded):
    return loaded.prepare("I love you", "我 爱 你")


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param
