"""Generation speed: per-token time with and without the KV cache, and what capturing every stage adds.

The reference translator (random weights, n_embd 512, 8 heads) generates `new_tokens`
tokens after a prompt of L tokens (the decoder's <bos> and L − 1 target words, from a
source of L words), at L = 16, 128 and 512. A token's time is the interval between two
consecutive choices (the step that feeds the previous token and chooses this one), so
the prompt's step 0 is left out. Variants, interleaved within each repeat:

- no cache:    every step reruns the encoder and the whole target sequence
- cache:       each step feeds its one new token; the decoder attends over the cache
- capture all: cached, with every stage of every step captured (gen.{t}. names)
- cache again: the cached variant a second time; its ratio to the first is the A/A noise.
"""

from __future__ import annotations

import random
import time

import torch

from tfdebug.sessions.generation import GenerationSession
from tfdebug.adapters.reference import ReferenceAdapter
from tfdebug.bench.timing import machine, median, table
from tfdebug.models.loader import LoadedModel, random_model
from tfdebug.models.sampling import DecodingSettings

FULL = {"n_embd": 512, "n_heads": 8, "n_layer": 2, "prompts": (16, 128, 512), "new_tokens": 16}
TINY_GEN = {"n_embd": 32, "n_heads": 4, "n_layer": 1, "prompts": (4, 8), "new_tokens": 4}
VARIANTS = ("no_cache", "cache", "capture_all", "cache_again")


def _adapter(n_embd: int, n_heads: int, n_layer: int, longest: int, device: torch.device) -> ReferenceAdapter:
    model, src_vocab, tgt_vocab = random_model(n_embd=n_embd, n_heads=n_heads, n_layer=n_layer,
                                               max_seq_len=longest)
    model = model.to(device).eval()
    return ReferenceAdapter(LoadedModel("random", model, src_vocab, tgt_vocab, device, torch.float32))


def _texts(adapter: ReferenceAdapter, length: int) -> dict[str, str]:
    """A source of `length` words and a target prefix of `length` − 1 (after <bos>: a prompt of `length`)."""
    rng = random.Random(length)
    loaded = adapter.loaded
    src = [rng.choice(loaded.src_vocab.tokens[4:]) for _ in range(length)]
    tgt = [rng.choice(loaded.tgt_vocab.tokens[4:]) for _ in range(length - 1)]
    return {"src": " ".join(src), "tgt": " ".join(tgt)}


def _per_token_ms(session: GenerationSession, capture: bool, sync) -> list[float]:
    """Milliseconds between consecutive choices of one generation (one per token after the first)."""
    stamps: list[float] = []

    def stamp(_choice) -> None:
        if sync:
            sync()
        stamps.append(time.perf_counter())
    session.on_choice = stamp
    with torch.no_grad():
        if capture:
            captures, _ = session.capture_all()
            del captures
        else:
            session.run()
    return [(b - a) * 1000.0 for a, b in zip(stamps, stamps[1:])]


def generation_rows(device: torch.device, repeats: int, size: dict | None = None) -> list[dict]:
    """One row per prompt length: median per-token ms of each variant, the cache's speed-up,
    capture overhead against plain cached decoding, and the A/A ratio."""
    size = dict(size or FULL)
    new_tokens = size["new_tokens"]
    adapter = _adapter(size["n_embd"], size["n_heads"], size["n_layer"], max(size["prompts"]) + new_tokens + 1,
                       device)
    settings = DecodingSettings(max_new_tokens=new_tokens, stop_at_eos=False)
    sync = torch.cuda.synchronize if device.type == "cuda" else None
    rows = []
    for length in size["prompts"]:
        texts = _texts(adapter, length)
        cached = GenerationSession(adapter, texts, settings)
        uncached = GenerationSession(adapter, texts, settings, use_cache=False)
        runs = {"no_cache": (uncached, False), "cache": (cached, False), "capture_all": (cached, True),
                "cache_again": (cached, False)}
        for session, capture in runs.values():  # warm-up
            _per_token_ms(session, capture, sync)
        samples: dict[str, list[float]] = {name: [] for name in VARIANTS}
        for _ in range(repeats):
            for name, (session, capture) in runs.items():
                samples[name] += _per_token_ms(session, capture, sync)
        stages = len(cached.capture_all()[0])
        cached.close()
        uncached.close()
        ms = {name: median(values) for name, values in samples.items()}
        rows.append({
            "prompt": length, "new_tokens": new_tokens, "n_embd": size["n_embd"], "n_layer": size["n_layer"],
            "device": str(device), "stages_captured": stages,
            **{f"{name}_ms": round(value, 3) for name, value in ms.items()},
            "speedup_cache": round(ms["no_cache"] / ms["cache"], 2),
            "ratio_capture_all": round(ms["capture_all"] / ms["cache"], 3),
            "capture_overhead_ms": round(ms["capture_all"] - ms["cache"], 3),
            "aa_ratio": round(ms["cache_again"] / ms["cache"], 3),
        })
    return rows


COLUMNS = ["prompt", "no_cache_ms", "cache_ms", "speedup_cache", "capture_all_ms", "capture_overhead_ms",
           "ratio_capture_all", "aa_ratio"]


def format_generation(rows: list[dict]) -> list[str]:
    """The report's lines for the generation section: the reference model's rows, then the row against
    `model.generate` when there is one."""
    from tfdebug.bench.generation_real import format_hf_real_generation

    against = [r for r in rows if "generate_ms" in r]
    rows = [r for r in rows if "generate_ms" not in r]
    lines = [line for row in against for line in (format_hf_real_generation(row) if "window_ms" in row
                                                  else format_hf_generation(row))]
    if not rows:
        return lines
    first = rows[0]
    return lines + ["", f"Generation, per token (median ms between consecutive tokens; reference model {first['n_layer']} + "
                f"{first['n_layer']} layers × n_embd {first['n_embd']}, {first['new_tokens']} new tokens, "
                f"{first['device']}; A/A = cached decoding timed twice)"] + table(rows, COLUMNS)


def generation_only(quick: bool = False, tiny: bool = False, threads: int | None = None) -> dict:
    """`tfdebug bench --generation`: this section alone, with the machine it ran on."""
    if threads:
        torch.set_num_threads(threads)
    from tfdebug.bench.generation_real import real_generation_row

    rows = generation_rows(torch.device("cpu"), 2 if (quick or tiny) else 5, TINY_GEN if tiny else None)
    if torch.cuda.is_available():
        rows += generation_rows(torch.device("cuda"), 2 if (quick or tiny) else 5, TINY_GEN if tiny else None)
    shapes = ["tiny"] if tiny else ["smol135m"] if quick else ["smol135m", "smol135m-2k"]
    real = [real_generation_row(1 if tiny else 2 if quick else 3, shape) for shape in shapes]
    return {"machine": machine(quick), "generation": rows + [row for row in real if row is not None]}


def format_generation_only(result: dict) -> str:
    m = result["machine"]
    head = (f"tfdebug bench --generation — torch {m['torch']}, {m['torch_threads']} torch threads on "
            f"{m['cpu_count']} CPUs (load average {m['load_average'][0]})")
    lines = [head]
    for device in dict.fromkeys(r["device"] for r in result["generation"]):
        lines += format_generation([r for r in result["generation"] if r["device"] == device])
    return "\n".join(lines)


# Llama shapes with SmolLM-135M's width (576, 9 heads, 3 KV heads, 1,536 hidden), fewer layers for the quicker profiles.
HF_SHAPES = {"tiny": {"layers": 1, "hidden": 64, "heads": 4, "kv_heads": 2, "intermediate": 128, "prompt": 8,
                      "new_tokens": 4},
             "quick": {"layers": 4, "hidden": 576, "heads": 9, "kv_heads": 3, "intermediate": 1536, "prompt": 64,
                       "new_tokens": 12},
             "full": {"layers": 30, "hidden": 576, "heads": 9, "kv_heads": 3, "intermediate": 1536, "prompt": 128,
                      "new_tokens": 20}}
HF_VARIANTS = ("generate", "tfdebug_run", "tfdebug_capture_all", "generate_again")


def hf_generation_row(repeats: int, shape: str = "quick") -> dict | None:
    """Greedy generation by a Llama-shaped Hugging Face model (random weights, float32, the bundled tiny-gpt2
    tokenizer) through `model.generate` and through tfdebug's loop (a GenerationSession: plain, and with every
    stage of every step captured), interleaved; per-token ms = a whole generation's wall time over its new
    tokens (the prompt's step included, as `generate`'s). None without transformers."""
    from tfdebug.adapters.hf.load import transformers_available

    if not transformers_available():
        return None
    import transformers

    from tfdebug.adapters.hf.adapter import wrap
    from tfdebug.models.bundled import demo_dir

    s = HF_SHAPES[shape]
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(demo_dir().parent / "tiny-gpt2"))
    config = transformers.LlamaConfig(vocab_size=len(tokenizer), hidden_size=s["hidden"],
                                      intermediate_size=s["intermediate"], num_hidden_layers=s["layers"],
                                      num_attention_heads=s["heads"], num_key_value_heads=s["kv_heads"],
                                      max_position_embeddings=4096,
                                      bos_token_id=0, eos_token_id=0)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        model = transformers.LlamaForCausalLM(config).eval()
    adapter = wrap(model, tokenizer, name="bench")
    n = s["new_tokens"]
    words = " ".join(["the cat sat on the mat"] * s["prompt"])
    ids = adapter.prepare({"prompt": words}).kwargs["input_ids"][:, : s["prompt"]]
    session = GenerationSession(adapter, {"prompt": tokenizer.decode(ids[0])},
                                DecodingSettings(max_new_tokens=n, stop_at_eos=False))
    ids = session.prepared.kwargs["input_ids"]

    def generate():
        with torch.no_grad():
            return model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=n,
                                  min_new_tokens=n, do_sample=False, pad_token_id=0)

    def captured():
        captures, choices = session.capture_all()
        return choices, len(captures)
    runs = {"generate": generate, "tfdebug_run": session.run, "tfdebug_capture_all": captured,
            "generate_again": generate}
    made = {name: fn() for name, fn in runs.items()}  # warm-up; and both loops choose the same tokens
    same = [c.id for c in made["tfdebug_run"]] == made["generate"][0, ids.shape[1]:].tolist()
    samples: dict[str, list[float]] = {name: [] for name in HF_VARIANTS}
    for _ in range(repeats):
        for name, fn in runs.items():
            start = time.perf_counter()
            fn()
            samples[name].append((time.perf_counter() - start) * 1000.0 / n)
    ms = {name: median(values) for name, values in samples.items()}
    session.close()
    return {"model": f"llama {s['layers']}×{s['hidden']} (heads {s['heads']}, KV {s['kv_heads']})",
            "prompt": int(ids.shape[1]), "new_tokens": n, "dtype": "float32", "same_tokens": same,
            "stages_captured": made["tfdebug_capture_all"][1],
            **{f"{name}_ms": round(value, 3) for name, value in ms.items()},
            "ratio_run": round(ms["tfdebug_run"] / ms["generate"], 3),
            "ratio_capture_all": round(ms["tfdebug_capture_all"] / ms["generate"], 3),
            "aa_ratio": round(ms["generate_again"] / ms["generate"], 3)}


HF_COLUMNS = ["model", "prompt", "new_tokens", "same_tokens", "generate_ms", "tfdebug_run_ms", "ratio_run",
              "tfdebug_capture_all_ms", "ratio_capture_all", "aa_ratio"]


def format_hf_generation(row: dict) -> list[str]:
    """The report's lines for the row against `model.generate`."""
    return ["", "Generation against model.generate, per token (a generation's wall ms over its new tokens; "
                "A/A = generate timed twice)"] + table([row], HF_COLUMNS)
