"""A Hugging Face config.json checked against what building the model needs, before anything is built.

transformers trusts its config: `n_layer: 1000000` builds a million layers (minutes, gigabytes),
`n_head: 0` divides by zero, a number written as a string or null fails deep inside a
constructor, `architectures: ["pipeline"]` names a function, `dtype: "float128"` a dtype
torch lacks. `check_config` refuses each with one sentence naming the key. The bounds are
generous — the largest real models (405B: 126 layers, 16,384 wide, 128 heads, 128k
context, 256k vocabularies) pass — and only bound damage; whether a config fits its
weights is checked against the weights themselves (tfdebug.adapters.hf.load).
"""

from __future__ import annotations

import math
import re

from tfdebug.core.errors import ModelLoadError
from tfdebug.core.safe_text import terminal_safe

# key -> (least, most, may be null): every size a family's constructor reads, by its name there.
_LAYERS, _HEADS, _WIDTH = (1, 1024, False), (1, 1024, False), (1, 131_072, False)
INT_FIELDS: dict[str, tuple[int, int, bool]] = {
    **dict.fromkeys(("num_hidden_layers", "n_layer", "n_layers", "num_layers", "encoder_layers",
                     "decoder_layers"), _LAYERS),
    "num_decoder_layers": (1, 1024, True),
    **dict.fromkeys(("num_attention_heads", "n_head", "num_heads", "encoder_attention_heads",
                     "decoder_attention_heads"), _HEADS),
    "num_key_value_heads": (1, 1024, True),
    **dict.fromkeys(("hidden_size", "n_embd", "d_model"), _WIDTH),
    **dict.fromkeys(("intermediate_size", "d_ff", "ffn_dim", "encoder_ffn_dim", "decoder_ffn_dim"),
                    (1, 1 << 20, False)),
    "n_inner": (1, 1 << 20, True),
    "head_dim": (1, 16_384, True),
    "d_kv": (1, 16_384, False),
    "vocab_size": (1, 1 << 24, False),
    **dict.fromkeys(("max_position_embeddings", "n_positions", "n_ctx"), (1, 1 << 27, False)),
    "type_vocab_size": (0, 1024, False),
    "relative_attention_num_buckets": (1, 65_536, False),
    "relative_attention_max_distance": (1, 1 << 27, False),
    **dict.fromkeys(("num_local_experts", "num_experts", "n_routed_experts"), (1, 4096, True)),
    "num_experts_per_tok": (1, 256, True),
    # 0 or null: no window (real Qwen2-MoE configs ship 0 with use_sliding_window false)
    "sliding_window": (0, 1 << 27, True),
}
# key -> whether 0 is allowed: epsilons and rates must be finite numbers, never strings or null.
FLOAT_FIELDS: dict[str, bool] = {
    "layer_norm_eps": False, "layer_norm_epsilon": False, "rms_norm_eps": False, "norm_eps": False,
    "rope_theta": False, "initializer_range": True,
}
LAYER_KEYS = ("num_hidden_layers", "n_layer", "n_layers", "num_layers", "encoder_layers", "decoder_layers",
              "num_decoder_layers")
HEAD_KEYS = ("num_attention_heads", "n_head", "num_heads")
WIDTH_KEYS = ("hidden_size", "n_embd", "d_model")
ACTIVATION_KEYS = ("hidden_act", "activation_function", "hidden_activation")
DTYPE_KEYS = ("dtype", "torch_dtype")
DTYPES = frozenset({"float32", "float16", "bfloat16", "float64", "auto"})
NESTED_CONFIGS = ("text_config",)  # a multimodal model's language half, checked the same way
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
_TYPE = re.compile(r"[a-z0-9][a-z0-9_\-]{0,63}")


def _shown(value: object) -> str:
    return terminal_safe(repr(value), 40)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_config(config: dict, file: str, activations: frozenset[str] | None = None) -> None:
    """Refuse (ModelLoadError, one sentence) a config whose values cannot build a model here.

    `activations` are the activation names transformers knows (checked when given).
    """
    model_type = config.get("model_type")
    if not isinstance(model_type, str) or not _TYPE.fullmatch(model_type):
        raise ModelLoadError("{file} has no usable model_type (it is {value}, not a short name such as 'llama').",
                             id="hf.config_model_type", file=file, value=_shown(model_type))
    architectures = config.get("architectures")
    if architectures is not None and (not isinstance(architectures, list) or len(architectures) > 8 or not all(
            isinstance(a, str) and _NAME.fullmatch(a) for a in architectures)):
        raise ModelLoadError("{file} lists architectures {value}, which are not model class names.",
                             id="hf.config_architectures", file=file, value=_shown(architectures))
    if config.get("quantization_config") is not None:
        method = config["quantization_config"].get("quant_method") if isinstance(
            config["quantization_config"], dict) else None
        raise ModelLoadError("{file} describes quantized weights ({method}); tfdebug shows the numbers of "
                             "unquantized float16, bfloat16 or float32 models only.", id="hf.config_quantized",
                             file=file, method=_shown(method) if method is not None else "quantization_config")
    _check_values(config, file, activations)
    for key in NESTED_CONFIGS:
        if isinstance(config.get(key), dict):
            _check_values(config[key], file, activations)


def _check_values(config: dict, file: str, activations: frozenset[str] | None) -> None:
    for key, (least, most, nullable) in INT_FIELDS.items():
        if key not in config or (config[key] is None and nullable):
            continue
        if key == "sliding_window" and config.get("use_sliding_window") is False:
            continue  # switched off: transformers does not read it (the config class sets it to None)
        value = config[key]
        if not _is_int(value):
            raise ModelLoadError("{file} gives '{key}' as {value}, not a whole number.", id="hf.config_not_int",
                                 file=file, key=key, value=_shown(value))
        if not least <= value <= most:
            raise ModelLoadError("{file} gives '{key}' as {value}; it must be from {least} to {most}.",
                                 id="hf.config_out_of_range", file=file, key=key, value=f"{value:,}",
                                 least=f"{least:,}", most=f"{most:,}")
    for key, zero in FLOAT_FIELDS.items():
        if key not in config:
            continue
        value = config[key]
        number = _is_int(value) or isinstance(value, float)
        if not number or not math.isfinite(value) or value < 0 or (value == 0 and not zero):
            raise ModelLoadError("{file} gives '{key}' as {value}, not a positive finite number.",
                                 id="hf.config_not_positive", file=file, key=key, value=_shown(value))
    for key in ACTIVATION_KEYS:
        value = config.get(key)
        if key in config and value is not None and (not isinstance(value, str) or (
                activations is not None and value not in activations)):
            raise ModelLoadError("{file} names the activation {value} ('{key}'), which transformers does not have.",
                                 id="hf.config_activation", file=file, key=key, value=_shown(value))
    for key in DTYPE_KEYS:
        value = config.get(key)
        if value is not None and (not isinstance(value, str) or value not in DTYPES):
            raise ModelLoadError("{file} gives '{key}' as {value}; tfdebug loads float32, float16 or bfloat16.",
                                 id="hf.config_dtype", file=file, key=key, value=_shown(value))
    heads = next((config[k] for k in HEAD_KEYS if _is_int(config.get(k))), None)
    kv_heads = config.get("num_key_value_heads")
    if heads is not None and _is_int(kv_heads) and heads % kv_heads:
        raise ModelLoadError("{file} gives {heads} attention heads and {kv} key/value heads; the heads must be a "
                             "multiple of the key/value heads.", id="hf.config_kv_heads", file=file, heads=heads,
                             kv=kv_heads)
    width = next((config[k] for k in WIDTH_KEYS if _is_int(config.get(k))), None)
    if heads is not None and width is not None and config.get("head_dim") is None and "d_kv" not in config \
            and width % heads:
        raise ModelLoadError("{file} gives a width of {width} for {heads} heads; without 'head_dim' the width must "
                             "be a multiple of the heads.", id="hf.config_head_split", file=file, width=width,
                             heads=heads)


def configured_layers(config: dict) -> int:
    """The most layers any stack of `config` asks for (0 when it names none)."""
    counts = [config[k] for k in LAYER_KEYS if _is_int(config.get(k))]
    for key in NESTED_CONFIGS:
        if isinstance(config.get(key), dict):
            counts.append(configured_layers(config[key]))
    return max(counts, default=0)
