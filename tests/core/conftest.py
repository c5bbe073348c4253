"""Fixtures for core tests: a small reference model and a prepared sentence pair."""

import pytest
import torch

from tfdebug.models.loader import load_model

DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


@pytest.fixture(scope="session")
def loaded():
    return load_model("random", device="cpu")


@pytest.fixture()
def pair(loaded):
    return loaded.prepare("I love you", "我 爱 你")


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param
