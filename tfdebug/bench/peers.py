"""Peers measured beside tfdebug when they are installed (never dependencies).

Two kinds of rows. Beside each reference-model capture row: TransformerLens and nnsight
on a model of the same size (ms per layer, so rows of different architectures compare).
`peers_section` (`tfdebug bench --peers`): every library on one Hugging Face GPT-2 and
one input, interleaved with an A/A, each peer on its own copy of the model. A peer that
is not installed is reported as "not installed", one that fails with its error.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util

import torch

from tfdebug.bench.capture import BenchConfig, build
from tfdebug.bench.timing import interleaved_ms, median

NOT_INSTALLED = "not installed"


def _version(package: str, module: str) -> str | None:
    try:
        if importlib.util.find_spec(module) is None:
            return None
        return importlib.metadata.version(package)
    except (ImportError, ValueError, importlib.metadata.PackageNotFoundError):
        return None


def _timed(plain, hooked, repeats: int, layers: int) -> dict:
    times = interleaved_ms({"plain": plain, "hooked": hooked}, repeats)
    plain_ms, hooked_ms = median(times["plain"]), median(times["hooked"])
    return {"plain_ms": round(plain_ms, 3), "hooked_ms": round(hooked_ms, 3),
            "ratio": round(hooked_ms / plain_ms, 4), "layers": layers,
            "plain_ms_per_layer": round(plain_ms / layers, 3), "hooked_ms_per_layer": round(hooked_ms / layers, 3)}


def transformer_lens_row(config: BenchConfig, repeats: int) -> dict:
    """TransformerLens' plain forward against `run_with_cache` on a model of tfdebug's size.

    TransformerLens builds decoder-only models, so it gets 2 × n_layer layers (tfdebug's
    n_layer encoder + n_layer decoder layers), the same width, heads, sequence length
    and vocabulary. Before 4.0 the API is HookedTransformer; 4.x builds the same
    config through TransformerBridge's native source (a different code path).
    """
    version = _version("transformer-lens", "transformer_lens")
    if version is None:
        return {"peer": "TransformerLens", "status": NOT_INSTALLED}
    layers = 2 * config.n_layer
    cfg = dict(n_layers=layers, d_model=config.n_embd, n_heads=config.n_heads,
               d_head=config.n_embd // config.n_heads, d_mlp=4 * config.n_embd, d_vocab=config.vocab_size,
               n_ctx=config.seq_len, act_fn="relu", normalization_type="LN")
    try:
        from transformer_lens.model_bridge.sources.native import boot

        model, api = boot(cfg, device="cpu"), "TransformerBridge (native source)"
    except ImportError:
        from transformer_lens import HookedTransformer, HookedTransformerConfig

        model, api = HookedTransformer(HookedTransformerConfig(**cfg, device="cpu")), "HookedTransformer"
    model.eval()
    tokens = torch.randint(0, config.vocab_size, (1, config.seq_len))

    def plain():
        with torch.no_grad():
            return model(tokens)

    def cached():
        with torch.no_grad():
            return model.run_with_cache(tokens)
    return {"peer": "TransformerLens", "status": "ok", "version": version, "api": f"{api}.run_with_cache",
            **_timed(plain, cached, repeats, layers)}


def nnsight_row(config: BenchConfig, repeats: int) -> dict:
    """nnsight tracing tfdebug's own reference model, saving every attention softmax."""
    version = _version("nnsight", "nnsight")
    if version is None:
        return {"peer": "nnsight", "status": NOT_INSTALLED}
    from nnsight import NNsight

    model, src, tgt = build(config, torch.device("cpu"))
    wrapped = NNsight(model)
    stacks = [model.transformer.encoder.layers, model.transformer.decoder.layers]

    def plain():
        with torch.no_grad():
            return model(src, tgt)

    def traced():
        saved = []
        with torch.no_grad(), wrapped.trace(src, tgt):
            for name, stack in (("encoder", stacks[0]), ("decoder", stacks[1])):
                for i in range(len(stack)):
                    layer = getattr(wrapped.transformer, name).layers[i]
                    blocks = [layer.attention] if name == "encoder" else [layer.mask_attention, layer.attention]
                    saved += [block.taps["probs"].output.save() for block in blocks]
        return saved
    return {"peer": "nnsight", "status": "ok", "version": version,
            "api": "NNsight(model).trace: every attention softmax .save()",
            **_timed(plain, traced, repeats, 2 * config.n_layer)}


# ----- the peers side by side on one Hugging Face GPT-2 (`tfdebug bench --peers`) -------------------------------

def _eager(model, implementation: str):
    """The model's plain forward with the given attention implementation (its config switched back after)."""
    config = model.config

    def run(ids):
        before = config._attn_implementation_internal
        config._attn_implementation_internal = implementation
        try:
            with torch.no_grad():
                return model(input_ids=ids, use_cache=False).logits
        finally:
            config._attn_implementation_internal = before
    return run


def _tensors(value) -> list[torch.Tensor]:
    """Every tensor in a nest of tuples, lists, dicts and objects with tensor attributes (a peer's cache)."""
    from torch.utils._pytree import tree_leaves

    if hasattr(value, "cache_dict"):  # TransformerLens' ActivationCache
        value = dict(value.cache_dict)
    if hasattr(value, "layer_list"):  # TorchLens' Trace
        value = [getattr(layer, "out", None) for layer in value.layer_list]
    return [t for t in tree_leaves(value) if isinstance(t, torch.Tensor)]


def _transformer_lens(model, folder: str):
    version = _version("transformer-lens", "transformer_lens")
    if version is None:
        return None
    from transformer_lens.model_bridge import TransformerBridge

    model.config.save_pretrained(folder)  # the bridge reads the config by name; the weights are the model's own
    bridge = TransformerBridge.boot_transformers(folder, hf_model=model, device="cpu")
    bridge.eval()

    def plain(ids):
        with torch.no_grad():
            return bridge(ids)

    def cached(ids):
        with torch.no_grad():
            return bridge.run_with_cache(ids)[1]
    return version, "TransformerBridge.boot_transformers(hf_model=the model).run_with_cache", plain, cached


def _nnsight(model):
    version = _version("nnsight", "nnsight")
    if version is None:
        return None
    from nnsight import NNsight

    wrapped = NNsight(model)
    eager = _eager(model, "eager")  # eager attention returns the attention weights nnsight saves

    def traced(ids):
        config = model.config
        before = config._attn_implementation_internal
        config._attn_implementation_internal = "eager"
        saved = []  # nnsight runs the block's body in its own frame: results go into an outer list
        try:
            with torch.no_grad(), wrapped.trace(input_ids=ids, use_cache=False):
                for block in wrapped.transformer.h:
                    saved.append(block.attn.output.save())
        finally:
            config._attn_implementation_internal = before
        return saved
    return version, "NNsight(model).trace: every attention block's output and weights .save()", eager, traced


def _module_order(model, ids) -> list[str]:
    """The model's submodules in the order one forward finishes them (the order nnsight lets a trace read them)."""
    order: list[str] = []
    hooks = [m.register_forward_hook(lambda _m, _i, _o, name=name: order.append(name))
             for name, m in model.named_modules() if name]
    try:
        _eager(model, "eager")(ids)
    finally:
        for hook in hooks:
            hook.remove()
    return order


def _nnsight_every_module(model, ids):
    version = _version("nnsight", "nnsight")
    if version is None:
        return None
    from nnsight import NNsight

    order = _module_order(model, ids)
    wrapped = NNsight(model)
    eager = _eager(model, "eager")

    def traced(ids):
        config = model.config
        before = config._attn_implementation_internal
        config._attn_implementation_internal = "eager"
        saved = []
        try:
            with torch.no_grad(), wrapped.trace(input_ids=ids, use_cache=False):
                for name in order:
                    envoy = wrapped
                    for part in name.split("."):
                        envoy = envoy[int(part)] if part.isdigit() else getattr(envoy, part)
                    saved.append(envoy.output.save())
        finally:
            config._attn_implementation_internal = before
        return saved
    return version, f"NNsight(model).trace: every module's output .save() ({len(order)} modules)", eager, traced


def _torchlens(model):
    version = _version("torchlens", "torchlens")
    if version is None:
        return None
    import torchlens
    from torchlens.options import CaptureOptions

    eager = _eager(model, "eager")

    def logged(ids):
        config = model.config
        before = config._attn_implementation_internal
        config._attn_implementation_internal = "eager"
        try:
            with torch.no_grad():
                # unwrap_when_done: TorchLens wraps torch's functions, which would slow every other variant
                return torchlens.trace(model, ids, capture=CaptureOptions(unwrap_when_done=True))
        finally:
            config._attn_implementation_internal = before
    return version, "torchlens.trace (saves every operation's output; torch unwrapped after)", eager, logged


# Peers' estimated need beyond the model at a length, in units of one tokens² plane per head in every layer
# (float32) and of tokens × width tensors per layer: what decides whether a variant runs at that length.
PLANES_AND_WIDTHS = {"transformer_lens": (2, 20), "nnsight": (1, 2), "nnsight_every_module": (1, 16),
                     "torchlens": (3, 30)}
DEFAULT_CAP = 6 << 30  # a variant needing more than this at a length is stated, not run
PEER_LENGTHS = {"tiny": (8,), "quick": (256,), "default": (256, 1024, 4096), "full": (256, 1024, 4096)}
TOO_LARGE = 32_768  # the row where the peers' caches do not fit: needs stated, tfdebug's planned
# Lengths up to SHORT run SHORT_ROUNDS times the rounds: a round there takes a second or less, and seven rounds' A/A
# moved by ±13% on a quiet machine (a round at 4,096 tokens takes about 90 s: seven there).
SHORT, SHORT_ROUNDS = 1024, 3


def peer_need(name: str, n_layer: int, n_heads: int, n_embd: int, seq_len: int) -> int:
    """A peer's estimated bytes held at `seq_len` (see PLANES_AND_WIDTHS)."""
    planes, widths = PLANES_AND_WIDTHS[name]
    return 4 * n_layer * (planes * n_heads * seq_len ** 2 + widths * seq_len * n_embd)


def peers_section(shape: str, repeats: int, lengths: tuple[int, ...] = (256,), cap_bytes: int = DEFAULT_CAP,
                  too_large: int | None = TOO_LARGE) -> dict:
    """`peers_at` at each length (`repeats` rounds, SHORT_ROUNDS times as many up to SHORT tokens; a variant above
    `cap_bytes` stated with its need, not run), and at
    `too_large` tokens each peer's need against tfdebug's planned capture under the default budget."""
    from dataclasses import replace

    from tfdebug.bench.hf import GPT2_SHAPES

    config = GPT2_SHAPES[shape]
    runs = [peers_at(replace(config, name=f"{config.name} seq {n}", seq_len=n),
                     repeats * SHORT_ROUNDS if n <= SHORT else repeats, cap_bytes) for n in lengths]
    result = {"lengths": list(lengths), "cap_bytes": cap_bytes, "runs": runs}
    if too_large:
        result["too_large"] = _too_large(replace(config, seq_len=too_large))
    return result


def _too_large(config) -> dict:
    """At a length where the peers' caches do not fit: each one's need, and tfdebug's plan (on the meta device:
    nothing runs) under the default capture budget: what it keeps, what it would hold had every plane been kept."""
    from tfdebug.adapters.base import Prepared
    from tfdebug.adapters.hf.adapter import wrap
    from tfdebug.bench.hf import build_gpt2
    from tfdebug.core.budget import default_capture_budget, estimate_capture, free_memory
    from tfdebug.core.plan import plan_pass

    model, ids = build_gpt2(config)
    adapter = wrap(model, tokenizer=None, name="bench")
    plan = plan_pass(adapter.module, lambda: adapter.forward(Prepared(texts={}, kwargs={"input_ids": ids,
                                                                                         "use_cache": False})), [ids])
    budget = default_capture_budget(adapter.device)
    estimate = estimate_capture(plan, limit=budget)
    shape = (config.n_layer, config.n_heads, config.n_embd, config.seq_len)
    return {"seq_len": config.seq_len, "free_bytes": free_memory(adapter.device),
            "needs": {name: peer_need(name, *shape) for name in PLANES_AND_WIDTHS},
            "tfdebug": {"stages": len(plan), "recipes": sum(c.recipe for c in plan),
                        "held_bytes": sum(c.held_nbytes for c in plan),
                        "planes_kept_whole_bytes": sum(c.nbytes for c in plan), "budget_bytes": budget,
                        "kept_bytes": estimate.kept_bytes, "kept": len(estimate.kept),
                        "dropped": len(estimate.dropped)}}


def peers_at(config, repeats: int, cap_bytes: int = DEFAULT_CAP) -> dict:
    """Every variant on one GPT-2 of `config` and one input, interleaved: ms per forward, × its own plain
    forward, × HF sdpa, tensors captured, bytes they hold. Peers not installed, that fail, or whose
    estimated need is above `cap_bytes` are named with the reason."""
    import copy
    import gc
    import tempfile

    from tfdebug.adapters.base import Prepared
    from tfdebug.adapters.hf.adapter import wrap
    from tfdebug.bench.hf import build_gpt2
    from tfdebug.bench.timing import adapter_passes
    from tfdebug.core.memory import allocator_tuned
    from tfdebug.core.recorder import held_bytes

    model, ids = build_gpt2(config)
    adapter = wrap(model, tokenizer=None, name="bench")
    taps_only, capture_all = adapter_passes(adapter, Prepared(texts={}, kwargs={"input_ids": ids,
                                                                               "use_cache": False}))
    rows: dict[str, dict] = {}
    fns: dict[str, object] = {"hf_sdpa": _eager(model, "sdpa"), "hf_eager": _eager(model, "eager")}
    for name, api in (("hf_sdpa", "model(input_ids) with sdpa attention"),
                      ("hf_eager", "model(input_ids) with eager attention")):
        rows[name] = {"variant": name, "library": "transformers", "api": api, "own_plain": name}
    rows["tfdebug_taps_only"] = {"variant": "tfdebug_taps_only", "library": "tfdebug", "own_plain": "hf_eager",
                                 "api": "Recorder(keep=False): every tap hooked, nothing kept"}
    rows["tfdebug_capture_all"] = {"variant": "tfdebug_capture_all", "library": "tfdebug", "own_plain": "hf_eager",
                                   "api": "Recorder: every stage kept (attention planes as recipes)"}
    fns["tfdebug_taps_only"] = lambda _ids: taps_only()
    fns["tfdebug_capture_all"] = lambda _ids: [c.tensor for c in capture_all()]
    shape = (config.n_layer, config.n_heads, config.n_embd, config.seq_len)
    with tempfile.TemporaryDirectory(prefix="tfdebug-peers-") as folder:
        # Each peer gets its own copy of the model (same weights): a peer may rewrap modules it is handed.
        for name, make in (("transformer_lens", lambda: _transformer_lens(copy.deepcopy(model), folder)),
                           ("nnsight", lambda: _nnsight(copy.deepcopy(model))),
                           ("nnsight_every_module", lambda: _nnsight_every_module(copy.deepcopy(model), ids)),
                           ("torchlens", lambda: _torchlens(copy.deepcopy(model)))):
            need = peer_need(name, *shape)
            if need > cap_bytes:
                rows[name] = {"variant": name, "library": name, "need_bytes": need,
                              "status": f"not run: needs ~{need / 1e9:.1f} GB"}
                continue
            try:
                made = make()
                if made is not None:
                    version, api, plain, capture = made
                    capture(ids)  # a peer that cannot run this model fails here, before the timing
            except Exception as exc:  # noqa: BLE001 - a peer's failure is reported, not raised
                rows[name] = {"variant": name, "library": name, "status": f"failed: {type(exc).__name__}: "
                                                                         f"{str(exc).splitlines()[0][:200]}"}
                continue
            if made is None:
                rows[name] = {"variant": name, "library": name, "status": NOT_INSTALLED}
                continue
            rows[name] = {"variant": name, "library": name, "version": version, "api": api,
                          "own_plain": f"{name}_plain", "need_bytes": need}
            fns[name], fns[f"{name}_plain"] = capture, plain
        fns["hf_eager_again"] = fns["hf_eager"]
        faults: dict[str, list[int]] = {}
        # Each timed run starts from the memory the process has handed back, so no variant reuses pages the one
        # before it freed and its time does not depend on its place in the round (the A/A's twin follows another
        # eager forward; one run read 0.83 at 4,096 tokens without this).
        times = interleaved_ms({name: (lambda fn=fn: fn(ids)) for name, fn in fns.items()}, repeats, warmup=1,
                               faults=faults, between=_fresh_memory)
        ms = {name: median(values) for name, values in times.items()}
        for name, row in rows.items():
            if name not in fns:
                continue
            gc.collect()
            kept = fns[name](ids)
            tensors = _tensors(kept)
            row.update(status="ok", ms=round(ms[name], 2), own_plain_ms=round(ms[row["own_plain"]], 2),
                       ratio_own_plain=round(ms[name] / ms[row["own_plain"]], 4),
                       ratio_hf_sdpa=round(ms[name] / ms["hf_sdpa"], 4),
                       tensors_kept=len(tensors), bytes_held=held_bytes(_as_captures(tensors)),
                       faults_per_pass=round(median(faults[name])))
            del kept, tensors
    return {"config": config.name, "n_layer": config.n_layer, "n_embd": config.n_embd, "n_heads": config.n_heads,
            "seq_len": config.seq_len, "vocab_size": config.vocab_size, "repeats": repeats,
            "threads": torch.get_num_threads(), "allocator_tuned": allocator_tuned(),
            "aa_ratio": round(ms["hf_eager_again"] / ms["hf_eager"], 4), "rows": list(rows.values())}


def _fresh_memory() -> None:
    """Collect garbage and hand freed memory back to the system (glibc), before a timed run."""
    import gc

    from tfdebug.core.memory import release_freed_memory

    gc.collect()
    release_freed_memory()


def _as_captures(tensors: list[torch.Tensor]):
    """Stand-ins with a `tensor` attribute, so held_bytes counts each storage once."""
    from types import SimpleNamespace

    return [SimpleNamespace(tensor=t, recipe=False) for t in tensors]


PEER_COLUMNS = ["variant", "version", "ms", "ratio_own_plain", "ratio_hf_sdpa", "tensors_kept", "bytes_held",
                "faults_per_pass", "status"]


def format_peers(result: dict) -> list[str]:
    """The report's lines for the peers section: a table per length, then the too-large row."""
    from tfdebug.bench.timing import table

    out = []
    for run in result.get("runs", [result]):  # a result older than the lengths is one run
        out += ["", f"Peers on one Hugging Face GPT-2 ({run['config']}, {run['n_heads']} heads, seq "
                    f"{run['seq_len']}, {run['threads']} thread(s), allocator "
                    f"{'opted in' if run['allocator_tuned'] else 'untuned'}; interleaved, A/A {run['aa_ratio']})"]
        out += table(run["rows"], PEER_COLUMNS)
    big = result.get("too_large")
    if big:
        t = big["tfdebug"]
        out += ["", f"At {big['seq_len']:,} tokens (not run; {(big['free_bytes'] or 0) / 1e9:.1f} GB free): "
                    + ", ".join(f"{name} needs ~{need / 1e9:,.0f} GB" for name, need in big["needs"].items())
                    + f"; tfdebug's plan holds {t['held_bytes'] / 1e9:.1f} GB ({t['recipes']} planes as recipes; "
                      f"{t['planes_kept_whole_bytes'] / 1e9:,.0f} GB had they been kept), its default budget "
                      f"{t['budget_bytes'] / 1e9:.1f} GB keeps {t['kept']} of {t['stages']} stages "
                      f"({t['kept_bytes'] / 1e9:.1f} GB)"]
    return out
