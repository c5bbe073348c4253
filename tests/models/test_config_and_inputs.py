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


# ----- issue 18, item 3: absurd model folders, devices and echoed words, as found -------------------
ABSURD = {
    "max_seq_len 1e9": ({"max_seq_len": 1e9}, "max_seq_len must be a whole number, not 1000000000.0"),
    "max_seq_len 10**9": ({"max_seq_len": 10**9}, "max_seq_len must be a whole number from 1 to 1,048,576"),
    "block_size 10**9": ({"block_size": 10**9}, "block_size must be a whole number from 1 to 1,048,576"),
    "hidden_dim 10**9": ({"hidden_dim": 10**9}, "hidden_dim must be a whole number from 1 to 1,048,576"),
    "n_layer 10**6": ({"n_layer": 10**6}, "n_layer must be a whole number from 1 to 1,024"),
    "pad_id 1e30": ({"pad_id": 1e30}, "pad_id must be a whole number, not 1e+30"),
    "pad_id outside the vocabulary": ({"pad_id": 40}, "pad_id (40) must be a token id of both vocabularies"),
    "a boolean layer count": ({"n_layer": True}, "n_layer must be a whole number, not True"),
    "a boolean dropout": ({"dropout": False}, "dropout must be a number in [0, 1), not False"),
    "a string width": ({"n_embd": "64"}, "n_embd must be a whole number, not '64'"),
    "an object width": ({"n_embd": {"x": 1}}, "n_embd must be a whole number, not an object"),
    "NaN dropout": ({"dropout": float("nan")}, "dropout must be a number in [0, 1), not nan"),
    "huge vocabulary": ({"n_embd": 8192, "n_heads": 8, "vocab_size": 1 << 24},
                        "mostly from vocab_size = 16,777,216"),
    "huge causal masks": ({"max_seq_len": 1 << 20, "block_size": 64}, "mostly from max_seq_len = 1,048,576"),
    "deep layers": ({"n_embd": 8192, "n_heads": 8, "n_layer": 1024}, "mostly from n_layer = 1,024"),
}


@pytest.mark.parametrize("case", sorted(ABSURD))
def test_absurd_configs_are_refused_before_anything_is_built(case, monkeypatch):
    changes, words = ABSURD[case]
    base = {"n_embd": 32, "n_heads": 4, "n_layer": 1, "vocab_size": 40, "max_seq_len": 16}
    monkeypatch.setattr(torch.nn.Module, "__init__", lambda *a, **k: pytest.fail("a module was built"))
    with pytest.raises(ConfigError) as info:
        ModelArgs.from_dict({**base, **changes})
    assert words in info.value.message and "\n" not in info.value.message and len(info.value.message) < 300


@pytest.mark.parametrize("kwargs", [{}, {"src_vocab_size": 50, "hidden_dim": 100, "vocab_size": 40},
                                    {"n_layer": 3, "max_seq_len": 20, "block_size": 30}])
def test_the_memory_estimate_is_what_the_model_takes(kwargs):
    args = ModelArgs(**kwargs)
    model = Transformer(args)
    actual = sum(t.numel() * t.element_size() for t in [*model.parameters(), *model.buffers()])
    assert sum(args.memory_parts().values()) == actual


def _folder(tmp_path, config_text: str):
    for name in ("model.safetensors", "vocab.en.txt", "vocab.zh.txt"):
        (tmp_path / name).write_text("")
    (tmp_path / "config.json").write_text(config_text)
    return tmp_path


def test_100000_levels_of_nesting_in_config_json(tmp_path, capsys):
    from tfdebug import cli

    folder = _folder(tmp_path, '{"n_embd": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(ConfigError, match="nested too deeply"):
        load_model(str(folder))
    assert cli.main(["stages", "--model", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err == "tfdebug: config.json is nested too deeply to be a model config.\n"


def test_a_model_folder_with_absurd_values_exits_2_with_the_field(tmp_path, capsys):
    from tfdebug import cli

    folder = _folder(tmp_path, '{"n_embd": 64, "n_heads": 4, "hidden_dim": 1000000000}')
    assert cli.main(["capture", "--model", str(folder), "--out", str(tmp_path / "x.safetensors")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tfdebug: hidden_dim must be a whole number") and err.count("\n") == 1


@pytest.mark.parametrize("name, words", [("", "device name is empty"), ("   ", "device name is empty"),
                                         ("cpu:1", "one CPU device"), ("cpu:7", "one CPU device"),
                                         ("tpu:3", "not a device name"), ("cu\x1bda", "not a device name")])
def test_devices_that_do_not_exist_are_refused(name, words, capsys):
    from tfdebug import cli
    from tfdebug.core.devices import resolve_device

    with pytest.raises(ConfigError, match=words):
        resolve_device(name)
    assert cli.main(["stages", "--model", "random", "--device", name]) == 2
    err = capsys.readouterr().err
    assert words in err and "\x1b" not in err and err.count("\n") == 1


def test_cpu_and_cpu_0_and_auto_still_work():
    from tfdebug.core.devices import resolve_device

    assert resolve_device("cpu").type == resolve_device("cpu:0").type == "cpu"
    assert resolve_device("auto") == resolve_device(None)


def test_unknown_words_are_echoed_with_control_characters_escaped(capsys):
    from tfdebug import cli

    assert cli.main(["stages", "--model", "random", "--stages", "logits",
                     "--src", "I love \x1b[31mred\x07 \u202eyou"]) == 0
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x07" not in err and "\u202e" not in err
    assert all(escaped in err for escaped in ("\\x1b", "\\x07", "\\u202e")) and "31mred" in err


def test_a_model_folder_that_cannot_be_read_is_one_sentence(tmp_path, monkeypatch):
    """chmod 000 on the folder (root is not stopped by it, so the refusal the OS gives is played here)."""
    import errno
    from pathlib import Path

    import pytest

    from tfdebug.core.errors import ModelLoadError
    from tfdebug.models.loader import load_model

    folder = tmp_path / "locked"
    folder.mkdir()
    real_is_file = Path.is_file

    def is_file(self):
        if self.parent == folder:
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real_is_file(self)
    monkeypatch.setattr(Path, "is_file", is_file)
    with pytest.raises(ModelLoadError) as caught:
        load_model(str(folder))
    assert caught.value.id == "model.folder_unreadable" and "cannot be read: permission denied" in caught.value.message.lower()
