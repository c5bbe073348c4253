"""Bad configurations and bad inputs raise typed errors with a sentence a user understands."""

import pytest
import torch

from tfdebug.core.errors import (ConfigError, EmptyInputError, ModelLoadError, SequenceTooLongError,
                                 TokenOutOfRangeError)
from tfdebug.models.config import ModelArgs
from tfdebug.models.loader import load_model
from tfdebug.models.transformer import Transformer
from tfdebug.models.vocab import UNK


def test_heads_must_divide_the_width():
    with pytest.raises(ConfigError, match="divisible by n_heads"):
        ModelArgs(n_embd=30, n_heads=4)


def test_config_round_trip_and_unknown_keys():
    args = ModelArgs(n_embd=32, n_heads=2, vocab_size=10, src_vocab_size=12)
    assert ModelArgs.from_dict(args.to_dict()) == args
    with pytest.raises(ConfigError, match="Unknown model config keys"):
        ModelArgs.from_dict({"n_embd": 32, "wings": 2})


@pytest.fixture(scope="module")
def model():
    return Transformer(ModelArgs(n_embd=32, n_heads=4, n_layer=1, vocab_size=20, max_seq_len=8)).eval()


def test_too_long_sequence(model):
    with pytest.raises(SequenceTooLongError, match="has 9 tokens; this model takes at most 8"):
        model(torch.ones(1, 9, dtype=torch.long), torch.ones(1, 2, dtype=torch.long))


def test_empty_sequence(model):
    with pytest.raises(EmptyInputError, match="target sequence is empty"):
        model(torch.ones(1, 3, dtype=torch.long), torch.ones(1, 0, dtype=torch.long))


def test_token_out_of_range(model):
    with pytest.raises(TokenOutOfRangeError, match="outside the vocabulary"):
        model(torch.tensor([[4, 25]]), torch.tensor([[1]]))
    with pytest.raises(TokenOutOfRangeError):
        model(torch.tensor([[4]]), torch.tensor([[-1]]))


def test_unknown_words_become_unk_and_are_listed():
    loaded = load_model("random")
    prepared = loaded.prepare("I love zebras", "我 爱 斑马")
    assert prepared.unknown == ["zebras", "斑马"]
    assert prepared.src[0, -1].item() == UNK and prepared.tgt[0, -1].item() == UNK
    assert prepared.tgt_tokens[0] == "<bos>" and prepared.tgt[0, 0].item() == 1
    with pytest.raises(EmptyInputError, match="source sentence is empty"):
        loaded.prepare("   ", "")


def test_unknown_model_and_device():
    with pytest.raises(ModelLoadError, match="Unknown model"):
        load_model("gpt-17")
    with pytest.raises(ConfigError, match="not a device name|not available"):
        load_model("random", device="tpu:3")
