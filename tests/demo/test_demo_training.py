"""The demo trainer runs a tiny configuration for a few steps, deterministically, and scores the
hand-written sets only after training."""

import json

import torch
from safetensors.torch import load_file

from tfdebug.demo.corpus import load_pairs
from tfdebug.demo.train_demo import main
from tfdebug.models.bundled import demo_dir
from tfdebug.models.loader import load_model
from tfdebug.models.translate import translate

TINY = ["--epochs", "1", "--max-steps", "3", "--n-embd", "16", "--n-heads", "2", "--hidden-dim", "32",
        "--n-layer", "1", "--limit", "150", "--batch-size", "16", "--warmup", "2", "--quiet"]


def test_tiny_training_writes_a_loadable_model_folder(tmp_path, capsys):
    threads, deterministic = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()
    assert main(["--out", str(tmp_path / "a"), *TINY]) == 0
    # Training opts into one thread and deterministic algorithms only while it runs.
    assert (torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()) == (threads, deterministic)
    summary = json.loads(capsys.readouterr().out)
    assert summary["steps"] == 3 and summary["train_pairs"] + summary["held_out_pairs"] == 150
    folder = tmp_path / "a"
    for name in ("config.json", "model.safetensors", "vocab.en.txt", "vocab.zh.txt", "corpus.tsv.gz", "metrics.json"):
        assert (folder / name).is_file(), name
    loaded = load_model(str(folder))
    assert loaded.args.n_embd == 16 and loaded.args.n_layer == 1
    assert isinstance(translate(loaded, "I love you", max_len=5).tokens, list)

    metrics = json.loads((folder / "metrics.json").read_text(encoding="utf-8"))
    held = metrics["heldout_handwritten"]
    assert held["pairs"] == len(load_pairs(demo_dir() / "heldout_handwritten.tsv"))
    assert 0.0 <= held["exact_match"] <= 1.0 and 0.0 <= held["token_accuracy"] <= 1.0
    assert all(set(miss) == {"en", "expected", "got"} for miss in held["misses"])
    assert set(metrics["showcase"]) >= {"The apple is red", "Do you love me?"}

    # Same seed, same weights.
    assert main(["--out", str(tmp_path / "b"), *TINY]) == 0
    first, second = load_file(str(folder / "model.safetensors")), load_file(str(tmp_path / "b" / "model.safetensors"))
    assert first.keys() == second.keys()
    assert all(first[k].equal(second[k]) for k in first)
