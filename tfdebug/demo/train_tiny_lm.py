"""Train the bundled tiny GPT-2-style language model on the demo corpus (needs tfdebug[hf]).

Each training text is one demo pair written as a continuation: "<|endoftext|> i love you
= 我 爱 你 <|endoftext|>". After "=" the model writes the Chinese, so its attention reads
the English words it translates, and the Chinese words (English and Chinese in one
model). The tokenizer is a word-level `tokenizers` tokenizer (lower-cased, split on
whitespace and punctuation) built from the training pairs.

    nice python -m tfdebug.demo.train_tiny_lm [--out resources/tiny-gpt2] [--epochs 3]

Deterministic: fixed seeds, one CPU thread, a fixed batch order. Writes config.json,
model.safetensors, tokenizer.json and metrics.json (accuracy on the held-out pairs).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch
import torch.nn.functional as F

from tfdebug.demo.corpus import generate_pairs, split_pairs

EOT, UNK, SEP = "<|endoftext|>", "<unk>", "="
DEFAULT_OUT = Path(__file__).resolve().parents[2] / "resources" / "tiny-gpt2"
SHAPE = {"n_embd": 64, "n_layer": 2, "n_head": 4, "n_positions": 64}
EVAL_PAIRS = 400  # greedy decoding is slow on a shared CPU: evenly spaced samples of each split


def build_tokenizer(pairs):
    """A word-level tokenizer over the pairs' words; every text starts with <|endoftext|>."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers

    tok = Tokenizer(models.WordLevel(unk_token=UNK))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    texts = [f"{en} {SEP} {zh}" for en, zh in pairs]
    tok.train_from_iterator(texts, trainers.WordLevelTrainer(special_tokens=[EOT, UNK], min_frequency=1))
    tok.post_processor = processors.TemplateProcessing(single=f"{EOT} $A", special_tokens=[(EOT, 0)])
    tok.decoder = None
    return tok


def encode_pair(tok, en: str, zh: str) -> list[int]:
    return tok.encode(f"{en} {SEP} {zh}").ids + [tok.token_to_id(EOT)]


def batches(examples: list[list[int]], size: int, generator: torch.Generator, pad: int):
    """(input ids, labels) batches in a seeded order; labels are -100 at padding."""
    order = torch.randperm(len(examples), generator=generator).tolist()
    for start in range(0, len(order), size):
        chunk = [examples[i] for i in order[start:start + size]]
        width = max(len(e) for e in chunk)
        ids = torch.full((len(chunk), width), pad)
        labels = torch.full((len(chunk), width), -100)
        for row, example in enumerate(chunk):
            ids[row, :len(example)] = torch.tensor(example)
            labels[row, :len(example)] = torch.tensor(example)
        yield ids, labels


def greedy_chinese(model, tok, en: str, limit: int = 20) -> str:
    """The Chinese the model writes after 'en =' (greedy, until <|endoftext|>)."""
    ids = tok.encode(f"{en} {SEP}").ids
    eot = tok.token_to_id(EOT)
    out: list[int] = []
    with torch.no_grad():
        for _ in range(limit):
            nxt = int(model(torch.tensor([ids + out])).logits[0, -1].argmax())
            if nxt == eot:
                break
            out.append(nxt)
    return " ".join(tok.id_to_token(i) for i in out)


def evaluate(model, tok, pairs) -> dict:
    """Exact match of the greedy Chinese, and teacher-forced next-token accuracy after '='."""
    exact = correct = total = 0
    sep = tok.token_to_id(SEP)
    with torch.no_grad():
        for en, zh in pairs:
            exact += greedy_chinese(model, tok, en) == zh.lower()
            ids = encode_pair(tok, en, zh)
            start = ids.index(sep)
            predicted = model(torch.tensor([ids])).logits[0, :-1].argmax(-1)
            target = torch.tensor(ids[1:])
            correct += int((predicted[start:] == target[start:]).sum())
            total += len(ids) - 1 - start
    return {"pairs": len(pairs), "exact_match": round(exact / len(pairs), 4),
            "token_accuracy": round(correct / total, 4)}


def _spaced(pairs: list, count: int = EVAL_PAIRS) -> list:
    """`count` evenly spaced pairs (all of them when there are fewer)."""
    step = max(1, len(pairs) // count)
    return pairs[::step][:count]


def train(out: Path, epochs: int, batch_size: int = 64, lr: float = 3e-3) -> dict:
    import transformers

    torch.manual_seed(0)
    torch.set_num_threads(1)
    train_pairs, held_out = split_pairs(generate_pairs())
    tok = build_tokenizer(train_pairs)
    config = transformers.GPT2Config(vocab_size=tok.get_vocab_size(), bos_token_id=0, eos_token_id=0,
                                     pad_token_id=0, resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, **SHAPE)
    model = transformers.GPT2LMHeadModel(config)
    examples = [encode_pair(tok, en, zh) for en, zh in train_pairs]
    steps = epochs * ((len(examples) + batch_size - 1) // batch_size)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=lr, total_steps=steps, pct_start=0.05)
    generator = torch.Generator().manual_seed(0)
    started, loss = time.perf_counter(), torch.zeros(())
    model.train()
    for epoch in range(epochs):
        for ids, labels in batches(examples, batch_size, generator, pad=0):
            logits = model(ids).logits[:, :-1]
            # Every next token is a target, padding (-100) left out.
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels[:, 1:].reshape(-1), ignore_index=-100)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
        print(f"epoch {epoch + 1}/{epochs}: loss {loss.item():.4f}", flush=True)
    model.eval()
    metrics = {"train_seconds": round(time.perf_counter() - started, 1), "steps": steps,
               "final_loss": round(loss.item(), 5), "parameters": sum(p.numel() for p in model.parameters()),
               "held_out": evaluate(model, tok, _spaced(held_out)), "training_sample": evaluate(model, tok, _spaced(train_pairs))}
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out))
    tok.save(str(out / "tokenizer.json"))
    (out / "metrics.json").write_text(json.dumps(metrics, indent=1) + "\n", encoding="utf-8")
    return metrics


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder to write (default: resources/tiny-gpt2)")
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args(argv)
    print(json.dumps(train(args.out, args.epochs), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
