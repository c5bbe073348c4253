"""The demo trainer runs a tiny configuration for a few steps, deterministically."""

import json

from safetensors.torch import load_file

from tfdebug.models.loader import load_model
from tfdebug.models.train_demo import main
from tfdebug.models.translate import translate

TINY = ["--epochs", "1", "--max-steps", "3", "--n-embd", "16", "--n-heads", "2", "--hidden-dim", "32",
        "--n-layer", "1", "--limit", "150", "--batch-size", "16", "--warmup", "2", "--quiet"]


def test_tiny_training_writes_a_loadable_model_folder(tmp_path, capsys):
    assert main(["--out", str(tmp_path / "a"), *TINY]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["steps"] == 3 and summary["train_pairs"] + summary["held_out_pairs"] == 150
    folder = tmp_path / "a"
    for name in ("config.json", "model.safetensors", "vocab.en.txt", "vocab.zh.txt", "corpus.tsv", "metrics.json"):
        assert (folder / name).is_file(), name
    loaded = load_model(str(folder))
    assert loaded.args.n_embd == 16 and loaded.args.n_layer == 1
    assert isinstance(translate(loaded, "I love you", max_len=5).tokens, list)

    # Same seed, same weights.
    assert main(["--out", str(tmp_path / "b"), *TINY]) == 0
    first, second = load_file(str(folder / "model.safetensors")), load_file(str(tmp_path / "b" / "model.safetensors"))
    assert first.keys() == second.keys()
    assert all(first[k].equal(second[k]) for k in first)
