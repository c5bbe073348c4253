"""Train the bundled demo translator (English → Chinese) on the generated corpus.

    python -m tfdebug.demo.train_demo            # writes resources/demo/
    python -m tfdebug.demo.train_demo --out DIR --epochs 2 --n-embd 16   # a tiny run

Deterministic: fixed seeds for the corpus, its split, the initial weights and the batch
order, one CPU thread and PyTorch's deterministic algorithms (both restored afterwards).
Writes config.json, model.safetensors, vocab.en.txt, vocab.zh.txt, corpus.tsv (pairs with
their split) and metrics.json into the folder. After training, and only then, the model
is scored on the hand-written held-out, learner's and dev sets, which it never sees while training.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import torch
import torch.nn.functional as F

from tfdebug.core.recorder import Recorder
from tfdebug.models.config import ModelArgs
from tfdebug.demo.corpus import HANDWRITTEN_FILES, generate_pairs, load_pairs, save_tsv, split_pairs
from tfdebug.models.bundled import CONFIG_FILE, SRC_VOCAB_FILE, TGT_VOCAB_FILE, WEIGHTS_FILE, demo_dir
from tfdebug.models.transformer import Transformer
from tfdebug.models.translate import pad_batch, translate_batch
from tfdebug.models.vocab import BOS, BUILTIN_PAIRS, EOS, PAD, Vocab

DEFAULT_OUT = Path(__file__).resolve().parents[2] / "resources" / "demo"
CORPUS_FILE, METRICS_FILE = "corpus.tsv.gz", "metrics.json"
# Sentences the issue tracker and README quote; their translations are recorded in metrics.json.
SHOWCASE = ("I love you", "The apple is red", "Do you love me?", "I love my mother", "The weather is nice today")
# The notes' sentences are repeated in every epoch so that they stay exact among 40,000 others.
NOTES_REPEAT = 4
TRAIN_SAMPLE_EVERY = 9


@dataclass
class TrainConfig:
    """Hyper-parameters of one training run (the defaults make the shipped demo model)."""

    n_embd: int = 128
    n_heads: int = 4
    n_layer: int = 2
    hidden_dim: int = 256
    dropout: float = 0.1
    max_seq_len: int = 64
    epochs: int = 5
    max_steps: int | None = None
    batch_size: int = 64
    lr: float = 2e-3
    warmup: int = 200
    seed: int = 0
    threads: int = 1
    limit: int | None = None


class Progress:
    """A one-line text progress bar on stderr (no third-party dependency)."""

    def __init__(self, total: int, enabled: bool = True, width: int = 30):
        self.total, self.enabled, self.width = total, enabled, width
        self.start = time.monotonic()
        self._last = 0.0

    def update(self, step: int, text: str) -> None:
        now = time.monotonic()
        # Redraw at most ten times a second: the terminal is slower than a training step.
        if not self.enabled or (now - self._last < 0.1 and step < self.total):
            return
        self._last = now
        done = int(self.width * step / max(self.total, 1))
        bar = "#" * done + "." * (self.width - done)
        print(f"\r[{bar}] {step}/{self.total} {text} {now - self.start:5.0f}s", end="", file=sys.stderr)
        if step >= self.total:
            print(file=sys.stderr)


def encode_pairs(pairs, src_vocab: Vocab, tgt_vocab: Vocab) -> list[tuple[list[int], list[int]]]:
    return [(src_vocab.encode(en).ids, tgt_vocab.encode(zh).ids) for en, zh in pairs]


def make_batch(examples) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """src (B, Ts); decoder input <bos>+y (B, Tt); labels y+<eos> (B, Tt). Padding is <pad>."""
    src = pad_batch([s for s, _ in examples])
    tgt_in = pad_batch([[BOS] + t for _, t in examples])
    tgt_out = pad_batch([t + [EOS] for _, t in examples])
    return src, tgt_in, tgt_out


def lr_at(step: int, total: int, peak: float, warmup: int) -> float:
    """Linear warm-up, then cosine decay to a tenth of the peak."""
    if step < warmup:
        return peak * (step + 1) / warmup
    progress = (step - warmup) / max(total - warmup, 1)
    return peak * (0.1 + 0.9 * 0.5 * (1.0 + math.cos(math.pi * min(progress, 1.0))))


@torch.no_grad()
def token_accuracy(model: Transformer, examples, batch_size: int = 256) -> float:
    """Teacher-forced next-word accuracy over the target words and <eos>."""
    model.eval()
    correct = total = 0
    for start in range(0, len(examples), batch_size):
        src, tgt_in, tgt_out = make_batch(examples[start: start + batch_size])
        pred = model(src, tgt_in).argmax(-1)  # (B, Tt)
        keep = tgt_out != PAD
        correct += int(((pred == tgt_out) & keep).sum())
        total += int(keep.sum())
    return correct / max(total, 1)


def exact_match(model: Transformer, src_vocab: Vocab, tgt_vocab: Vocab, pairs) -> tuple[float, list]:
    """Share of pairs whose greedy translation equals the reference; and the misses."""
    if not pairs:
        return 1.0, []
    model.eval()
    # A translation longer than every reference is wrong anyway: stop there instead of at the model's limit.
    longest = max(len(zh.split()) for _, zh in pairs)
    outputs = translate_batch(model, src_vocab, tgt_vocab, [en for en, _ in pairs], max_len=longest + 2)
    misses = [(en, zh, " ".join(out)) for (en, zh), out in zip(pairs, outputs) if " ".join(out) != zh]
    return 1.0 - len(misses) / len(pairs), misses


@torch.no_grad()
def cross_attention_check(model: Transformer, src_vocab: Vocab, tgt_vocab: Vocab,
                          src: str = "I love you", tgt: str = "我 爱 你",
                          query_word: str = "我", key_word: str = "love") -> dict:
    """Last decoder layer's cross-attention at the position that predicts the word after `query_word`.

    Returns the stage name, the per-head weights on `key_word`, and which heads put
    their largest weight there (for "I love you": the row of 我, predicting 爱).
    """
    model.eval()
    src_ids, tgt_ids = src_vocab.encode(src), tgt_vocab.encode(tgt)
    stage = f"dec.{model.args.n_layer - 1}.cross_attn.probs"
    with Recorder(model, [stage]) as rec:
        model(torch.tensor([src_ids.ids]), torch.tensor([[BOS] + tgt_ids.ids]))
    probs = rec[stage].tensor[0].float()  # (H, Tt, Ts)
    row = 1 + tgt_ids.tokens.index(query_word)  # +1: the decoder input starts with <bos>
    col = src_ids.tokens.index(key_word)
    weights = probs[:, row, col].tolist()
    heads = [h for h in range(probs.shape[0]) if int(probs[h, row].argmax()) == col]
    return {"stage": stage, "row": row, "column": col, "weights_on_key": weights, "heads_with_max": heads}


def save_model(out: Path, model: Transformer, src_vocab: Vocab, tgt_vocab: Vocab) -> None:
    """config.json, model.safetensors and both vocabularies: what the loader reads."""
    from safetensors.torch import save_file

    out.mkdir(parents=True, exist_ok=True)
    (out / CONFIG_FILE).write_text(json.dumps(model.args.to_dict(), indent=1) + "\n", encoding="utf-8")
    state = {k: v.detach().contiguous().cpu() for k, v in model.state_dict().items()}
    save_file(state, str(out / WEIGHTS_FILE), metadata={"format": "pt", "model": "tfdebug demo translator"})
    src_vocab.save(out / SRC_VOCAB_FILE)
    tgt_vocab.save(out / TGT_VOCAB_FILE)


def score(model: Transformer, src_vocab: Vocab, tgt_vocab: Vocab, pairs, shown: int = 20) -> dict:
    """Exact match, teacher-forced token accuracy and the first `shown` misses on a list of pairs."""
    exact, misses = exact_match(model, src_vocab, tgt_vocab, pairs)
    examples = encode_pairs(pairs, src_vocab, tgt_vocab)
    return {"pairs": len(pairs), "exact_match": round(exact, 4),
            "token_accuracy": round(token_accuracy(model, examples), 4) if examples else 1.0,
            "misses": [{"en": en, "expected": zh, "got": got} for en, zh, got in misses[:shown]]}


class _Deterministic:
    """One thread and deterministic algorithms for a training run; the caller's settings come back after."""

    def __init__(self, threads: int):
        self.threads = threads

    def __enter__(self):
        self._saved = (torch.get_num_threads(), torch.are_deterministic_algorithms_enabled())
        torch.set_num_threads(self.threads)
        torch.use_deterministic_algorithms(True)
        return self

    def __exit__(self, *exc):
        torch.set_num_threads(self._saved[0])
        torch.use_deterministic_algorithms(self._saved[1])


def _fit(model: Transformer, examples, config: TrainConfig, progress: bool) -> tuple[int, float | None]:
    """The training loop: AdamW, warm-up then cosine decay, clipped gradients, seeded batch order."""
    steps_per_epoch = math.ceil(len(examples) / config.batch_size)
    total = steps_per_epoch * config.epochs
    if config.max_steps is not None:
        total = min(total, config.max_steps)
    # No weight decay: the model is tiny and the corpus is its whole world.
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=0.0)
    order = torch.Generator().manual_seed(config.seed)
    bar = Progress(total, enabled=progress)
    step, loss_avg = 0, None
    model.train()
    while step < total:
        for batch_index in torch.randperm(len(examples), generator=order).split(config.batch_size):
            if step >= total:
                break
            src, tgt_in, tgt_out = make_batch([examples[i] for i in batch_index.tolist()])
            for group in optimizer.param_groups:
                group["lr"] = lr_at(step, total, config.lr, config.warmup)
            logits = model(src, tgt_in)  # (B, Tt, vocab)
            # Padded rows carry label <pad> and are ignored, so they add no loss.
            loss = F.cross_entropy(logits.flatten(0, 1), tgt_out.flatten(), ignore_index=PAD)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            step += 1
            value = loss.item()
            loss_avg = value if loss_avg is None else 0.98 * loss_avg + 0.02 * value
            bar.update(step, f"epoch {1 + (step - 1) // steps_per_epoch} loss {loss_avg:.4f}")
    model.eval()
    return step, loss_avg


def train(config: TrainConfig, out: Path, progress: bool = True) -> dict:
    """Train on the generated corpus, write the model folder `out`, and return the metrics."""
    with _Deterministic(config.threads):
        return _train(config, Path(out), progress)


def _train(config: TrainConfig, out: Path, progress: bool) -> dict:
    torch.manual_seed(config.seed)
    pairs = generate_pairs(seed=config.seed)
    if config.limit:
        pairs = pairs[: config.limit]
    train_pairs, held_out = split_pairs(pairs, seed=config.seed)
    # Vocabularies from the training side only: a held-out word the model never saw stays <unk>.
    src_vocab = Vocab.build([en for en, _ in train_pairs], "en")
    tgt_vocab = Vocab.build([zh for _, zh in train_pairs], "zh")
    args = ModelArgs(n_embd=config.n_embd, n_heads=config.n_heads, n_layer=config.n_layer,
                     hidden_dim=config.hidden_dim, dropout=config.dropout, max_seq_len=config.max_seq_len,
                     vocab_size=len(tgt_vocab), src_vocab_size=len(src_vocab))
    model = Transformer(args)
    notes = [p for p in train_pairs if p in set(BUILTIN_PAIRS)] * (NOTES_REPEAT - 1)
    examples = encode_pairs(train_pairs + notes, src_vocab, tgt_vocab)

    started, cpu_started = time.monotonic(), time.process_time()
    step, loss_avg = _fit(model, examples, config, progress)
    train_seconds, cpu_seconds = time.monotonic() - started, time.process_time() - cpu_started

    # The weights are written first: scoring only reads them.
    save_model(out, model, src_vocab, tgt_vocab)
    save_tsv(out / CORPUS_FILE, train_pairs, held_out)
    # Every TRAIN_SAMPLE_EVERY-th training pair: greedy decoding of all 36,000 costs minutes on a CPU.
    train_exact, train_misses = exact_match(model, src_vocab, tgt_vocab, train_pairs[::TRAIN_SAMPLE_EVERY])
    template = score(model, src_vocab, tgt_vocab, held_out)
    metrics = {
        "config": asdict(config),
        "pairs": len(pairs), "train_pairs": len(train_pairs), "held_out_pairs": len(held_out),
        "src_vocab": len(src_vocab), "tgt_vocab": len(tgt_vocab),
        "parameters": model.get_num_params(), "steps": step, "train_seconds": round(train_seconds, 1),
        "train_cpu_seconds": round(cpu_seconds, 1), "final_loss": round(loss_avg or 0.0, 4),
        "train_exact_match": round(train_exact, 4),
        "train_exact_match_sample": len(train_pairs[::TRAIN_SAMPLE_EVERY]),
        "held_out_exact_match": template["exact_match"],
        "held_out_token_accuracy": template["token_accuracy"],
        "train_misses": train_misses[:20], "held_out_misses": template["misses"],
    }
    # Scored after training only: these sets choose nothing (no checkpoint, no hyper-parameter).
    for name in HANDWRITTEN_FILES:
        path = demo_dir() / name
        if path.is_file():
            metrics[name.removesuffix(".tsv")] = score(model, src_vocab, tgt_vocab, load_pairs(path), shown=100)
    outputs = translate_batch(model, src_vocab, tgt_vocab, list(SHOWCASE))
    metrics["showcase"] = {en: " ".join(words) for en, words in zip(SHOWCASE, outputs)}
    if "love" in src_vocab and "我" in tgt_vocab and "爱" in tgt_vocab:
        metrics["cross_attention"] = cross_attention_check(model, src_vocab, tgt_vocab)

    (out / METRICS_FILE).write_text(json.dumps(metrics, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return metrics


def parse_args(argv: list[str] | None = None) -> tuple[TrainConfig, Path, bool]:
    defaults = TrainConfig()
    parser = argparse.ArgumentParser(prog="python -m tfdebug.demo.train_demo", description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="model folder to write (default: resources/demo)")
    for name, value in asdict(defaults).items():
        kind = type(value) if value is not None else int
        parser.add_argument(f"--{name.replace('_', '-')}", type=kind, default=value, help=f"default: {value}")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    ns = parser.parse_args(argv)
    config = TrainConfig(**{k: getattr(ns, k) for k in asdict(defaults)})
    return config, ns.out, not ns.quiet


def main(argv: list[str] | None = None) -> int:
    config, out, progress = parse_args(argv)
    metrics = train(config, out, progress=progress)
    summary = {k: v for k, v in metrics.items() if not k.endswith("misses") and k != "config"}
    for name in HANDWRITTEN_FILES:  # the figures, not the lists of misses
        key = name.removesuffix(".tsv")
        if key in summary:
            summary[key] = {k: v for k, v in summary[key].items() if k != "misses"}
    print(json.dumps(summary, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
