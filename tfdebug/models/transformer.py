"""The reference encoder–decoder Transformer (pre-norm), with a Tap at every stage.

Reads like the notes: `wte`/`wpe` embeddings, N encoder layers (self-attention + FFN),
N decoder layers (masked self-attention, cross-attention reading the encoder, FFN),
final norms, `lm_head`. The decoder reads the BOS-prefixed target tokens.

For generation the same model runs in two halves: `encode(src)` once, then
`decode(tgt_new, memory, cache)` once per step with a `DecoderCache`, feeding only the
new tokens; each attention block keeps its K and V in the cache (see attention.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from tfdebug.core.errors import EmptyInputError, InputError, SequenceTooLongError, TokenOutOfRangeError
from tfdebug.core.tap import Tap
from tfdebug.models.attention import KVCache, MultiHeadAttention
from tfdebug.models.config import ModelArgs
from tfdebug.models.layers import MLP, LayerNorm, PositionalEncoding

_STREAM = ("batch", "token", "model")


def _norm_tap(name: str, tokens: str, x_from: str) -> Tap:
    return Tap(name, "layer_norm", _STREAM, "a₂·(x − μ)/(σ + ε) + b₂", tokens={"token": tokens},
               inputs=(x_from,))


def _resid_tap(name: str, sublayer: str, tokens: str, x_from: str) -> Tap:
    # x + sublayer(...): the block's input and the sublayer's output (its `out` stage).
    return Tap(name, "residual", _STREAM, f"x + {sublayer}(LayerNorm(x))", tokens={"token": tokens},
               inputs=(x_from, ".out"))


def _pe_tap(stream: str) -> Tap:
    """The sinusoidal table rows added to a stream's tokens: row 0 is [0, 1, 0, 1, …] (sin 0, cos 0)."""
    return Tap(f"{stream}.pe", "positional_encoding", ("token", "model"),
               "PE[pos, 2i] = sin(pos / 10000^(2i/d_model)),  PE[pos, 2i+1] = cos(pos / 10000^(2i/d_model))",
               tokens={"token": stream})


def _layer_input(stack: str, index: int) -> str:
    """The stage a layer reads: the positional encoding for the first layer, else the last layer's output."""
    return f"{'src' if stack == 'enc' else 'tgt'}.pos" if index == 0 else f"{stack}.{index - 1}.ffn.resid"


class EncoderLayer(nn.Module):
    """Pre-norm encoder layer: x + Attn(LN(x)), then h + FFN(LN(h))."""

    def __init__(self, args: ModelArgs, index: int):
        super().__init__()
        p = f"enc.{index}"
        self.attention_norm = LayerNorm(args.n_embd)
        self.attention = MultiHeadAttention(args, f"{p}.attn", "src", "src")
        self.fnn_norm = LayerNorm(args.n_embd)
        self.feed_forward = MLP(args, f"{p}.ffn", "src")
        x_from = _layer_input("enc", index)
        self.taps = nn.ModuleDict({
            "attn_norm": _norm_tap(f"{p}.attn.norm", "src", x_from),
            "attn_resid": _resid_tap(f"{p}.attn.resid", "Attn", "src", x_from),
            "ffn_norm": _norm_tap(f"{p}.ffn.norm", "src", f"{p}.attn.resid"),
            "ffn_resid": _resid_tap(f"{p}.ffn.resid", "FFN", "src", f"{p}.attn.resid"),
        })

    def forward(self, x: Tensor, src_padding: Tensor | None) -> Tensor:
        taps = self.taps
        normed = taps["attn_norm"](self.attention_norm(x))  # (B, Ts, D)
        h = taps["attn_resid"](x + self.attention(normed, normed, normed, src_padding))  # (B, Ts, D)
        normed = taps["ffn_norm"](self.fnn_norm(h))  # (B, Ts, D)
        return taps["ffn_resid"](h + self.feed_forward(normed))  # (B, Ts, D)


class DecoderLayer(nn.Module):
    """Pre-norm decoder layer: masked self-attention, cross-attention on the encoder output, FFN."""

    def __init__(self, args: ModelArgs, index: int):
        super().__init__()
        p = f"dec.{index}"
        self.attention_norm_1 = LayerNorm(args.n_embd)
        self.mask_attention = MultiHeadAttention(args, f"{p}.self_attn", "tgt", "tgt", is_causal=True)
        self.attention_norm_2 = LayerNorm(args.n_embd)
        self.attention = MultiHeadAttention(args, f"{p}.cross_attn", "tgt", "src", is_cross=True,
                                            kv_from="enc.norm")
        self.ffn_norm = LayerNorm(args.n_embd)
        self.feed_forward = MLP(args, f"{p}.ffn", "tgt")
        x_from = _layer_input("dec", index)
        self.taps = nn.ModuleDict({
            "self_norm": _norm_tap(f"{p}.self_attn.norm", "tgt", x_from),
            "self_resid": _resid_tap(f"{p}.self_attn.resid", "MaskedAttn", "tgt", x_from),
            "cross_norm": _norm_tap(f"{p}.cross_attn.norm", "tgt", f"{p}.self_attn.resid"),
            "cross_resid": _resid_tap(f"{p}.cross_attn.resid", "CrossAttn", "tgt", f"{p}.self_attn.resid"),
            "ffn_norm": _norm_tap(f"{p}.ffn.norm", "tgt", f"{p}.cross_attn.resid"),
            "ffn_resid": _resid_tap(f"{p}.ffn.resid", "FFN", "tgt", f"{p}.cross_attn.resid"),
        })

    def forward(self, x: Tensor, enc_out: Tensor, src_padding: Tensor | None,
                tgt_padding: Tensor | None, cache: "LayerCache | None" = None) -> Tensor:
        taps = self.taps
        self_cache, cross_cache = (cache.self_attn, cache.cross_attn) if cache is not None else (None, None)
        normed = taps["self_norm"](self.attention_norm_1(x))  # (B, Tt, D)
        x = taps["self_resid"](x + self.mask_attention(normed, normed, normed, tgt_padding,
                                                       cache=self_cache))  # (B, Tt, D)
        normed = taps["cross_norm"](self.attention_norm_2(x))  # (B, Tt, D)
        # Q from the decoder, K and V from the encoder's output: no causal mask here.
        x = taps["cross_resid"](x + self.attention(normed, enc_out, enc_out, src_padding,
                                                   cache=cross_cache))  # (B, Tt, D)
        normed = taps["ffn_norm"](self.ffn_norm(x))  # (B, Tt, D)
        return taps["ffn_resid"](x + self.feed_forward(normed))  # (B, Tt, D)


class LayerCache:
    """One decoder layer's caches: its masked self-attention's (grows) and its cross-attention's (filled once)."""

    def __init__(self):
        self.self_attn = KVCache()
        self.cross_attn = KVCache()


class DecoderCache:
    """Every decoder layer's KV caches for one generation; `length` is how many target tokens were fed."""

    def __init__(self, n_layer: int):
        self.layers = [LayerCache() for _ in range(n_layer)]

    @property
    def length(self) -> int:
        return self.layers[0].self_attn.length if self.layers else 0


@dataclass(frozen=True)
class Memory:
    """The encoder's output for one source batch and its padding mask: read by every decoding step."""

    enc_out: Tensor  # (B, Ts, D)
    src_padding: Tensor | None  # (B, 1, 1, Ts) additive, or None


class Encoder(nn.Module):
    """N encoder layers and a final LayerNorm."""

    def __init__(self, args: ModelArgs):
        super().__init__()
        self.layers = nn.ModuleList([EncoderLayer(args, i) for i in range(args.n_layer)])
        self.norm = LayerNorm(args.n_embd)
        self.tap = _norm_tap("enc.norm", "src", _layer_input("enc", args.n_layer))

    def forward(self, x: Tensor, src_padding: Tensor | None) -> Tensor:
        for layer in self.layers:
            x = layer(x, src_padding)
        return self.tap(self.norm(x))  # (B, Ts, D)


class Decoder(nn.Module):
    """N decoder layers and a final LayerNorm."""

    def __init__(self, args: ModelArgs):
        super().__init__()
        self.layers = nn.ModuleList([DecoderLayer(args, i) for i in range(args.n_layer)])
        self.norm = LayerNorm(args.n_embd)
        self.tap = _norm_tap("dec.norm", "tgt", _layer_input("dec", args.n_layer))

    def forward(self, x: Tensor, enc_out: Tensor, src_padding: Tensor | None,
                tgt_padding: Tensor | None, cache: DecoderCache | None = None) -> Tensor:
        for i, layer in enumerate(self.layers):
            x = layer(x, enc_out, src_padding, tgt_padding, cache.layers[i] if cache is not None else None)
        return self.tap(self.norm(x))  # (B, Tt, D)


class Transformer(nn.Module):
    """The reference encoder–decoder model: forward(src, tgt) -> logits (B, Tt, vocab_size)."""

    def __init__(self, args: ModelArgs):
        super().__init__()
        args.validate()
        self.args = args
        modules = dict(
            wte=nn.Embedding(args.vocab_size, args.n_embd),
            wpe=PositionalEncoding(args),
            drop=nn.Dropout(args.dropout),
            encoder=Encoder(args),
            decoder=Decoder(args),
        )
        if args.src_vocab_size is not None:
            modules["src_wte"] = nn.Embedding(args.src_vocab_size, args.n_embd)
        self.transformer = nn.ModuleDict(modules)
        self.lm_head = nn.Linear(args.n_embd, args.vocab_size, bias=False)
        emb = "E[token]"
        self.taps = nn.ModuleDict({
            "src_embed": Tap("src.embed", "embedding", _STREAM, emb, tokens={"token": "src"}),
            "src_pe": _pe_tap("src"),
            "src_pos": Tap("src.pos", "positional_add", _STREAM, f"{emb} + PE[pos]", tokens={"token": "src"},
                           inputs=("src.embed", "src.pe")),
            "tgt_embed": Tap("tgt.embed", "embedding", _STREAM, emb, tokens={"token": "tgt"}),
            "tgt_pe": _pe_tap("tgt"),
            "tgt_pos": Tap("tgt.pos", "positional_add", _STREAM, f"{emb} + PE[pos]", tokens={"token": "tgt"},
                           inputs=("tgt.embed", "tgt.pe")),
            "logits": Tap("logits", "logits", ("batch", "token", "vocab"), "h·W_lm", tokens={"token": "tgt"},
                          inputs=("dec.norm",)),
        })
        self.apply(self._init_weights)

    @staticmethod
    def _init_weights(module: nn.Module) -> None:
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def get_num_params(self) -> int:
        return sum(p.numel() for p in self.parameters())

    def forward(self, src: Tensor, tgt: Tensor) -> Tensor:
        """src: (B, Ts) source ids; tgt: (B, Tt) BOS-prefixed target ids. Returns (B, Tt, vocab_size)."""
        src_padding, tgt_padding = self._check_inputs(src, tgt)
        enc_out = self._encode(src, src_padding)  # (B, Ts, D)
        return self._decode(tgt, enc_out, src_padding, tgt_padding)  # (B, Tt, vocab_size)

    def encode(self, src: Tensor) -> "Memory":
        """Run the encoder once over the source: what every decoding step reads."""
        src_padding, _ = self._check_inputs(src, None)
        return Memory(self._encode(src, src_padding), src_padding)

    def decode(self, tgt: Tensor, memory: "Memory", cache: DecoderCache) -> Tensor:
        """Feed the next target tokens tgt (B, T_new) after the `cache.length` already fed; logits (B, T_new, vocab).

        The cache grows by T_new keys per self-attention; the first call also fills the
        cross-attention caches from the encoder output.
        """
        start = cache.length
        _, tgt_padding = self._check_inputs(None, tgt, start)
        return self._decode(tgt, memory.enc_out, memory.src_padding, tgt_padding, cache, start)

    def _encode(self, src: Tensor, src_padding: Tensor | None) -> Tensor:
        taps = self.taps
        src_wte = self.transformer["src_wte"] if "src_wte" in self.transformer else self.transformer.wte
        x = taps["src_embed"](src_wte(src))  # (B, Ts, D)
        pe = taps["src_pe"](self.transformer.wpe.table(x.size(1)))  # (Ts, D): the same rows for every sentence
        x = self.transformer.drop(taps["src_pos"](x + pe))  # (B, Ts, D): PE broadcast over the batch
        return self.transformer.encoder(x, src_padding)  # (B, Ts, D)

    def _decode(self, tgt: Tensor, enc_out: Tensor, src_padding: Tensor | None, tgt_padding: Tensor | None,
                cache: DecoderCache | None = None, start: int = 0) -> Tensor:
        taps = self.taps
        y = taps["tgt_embed"](self.transformer.wte(tgt))  # (B, Tt, D)
        pe = taps["tgt_pe"](self.transformer.wpe.table(y.size(1), start))  # (Tt, D): positions start … start+Tt−1
        y = self.transformer.drop(taps["tgt_pos"](y + pe))  # (B, Tt, D)
        y = self.transformer.decoder(y, enc_out, src_padding, tgt_padding, cache)  # (B, Tt, D)
        return taps["logits"](self.lm_head(y))  # (B, Tt, vocab_size)

    def _check_inputs(self, src: Tensor | None, tgt: Tensor | None,
                      start: int = 0) -> tuple[Tensor | None, Tensor | None]:
        """Validate the sequences given (None: not checked); return additive key-padding masks (or None).

        `start` is how many target tokens were fed before `tgt` (decoding with a cache).
        All value checks are gathered into one small tensor read once, so a forward on a
        GPU synchronises with the host at most once.
        """
        args = self.args
        checks = []
        given = [(label, ids, vocab, offset) for label, ids, vocab, offset in (
            ("source", src, args.source_vocab_size, 0), ("target", tgt, args.vocab_size, start)) if ids is not None]
        for label, ids, vocab, offset in given:
            if not isinstance(ids, Tensor) or ids.dim() != 2:
                raise (InputError("The source must be a (batch, tokens) tensor of token ids.", id="input.not_2d_source")
                       if label == "source" else
                       InputError("The target must be a (batch, tokens) tensor of token ids.", id="input.not_2d_target"))
            if ids.dtype not in (torch.int64, torch.int32):
                raise (InputError("The source token ids must be integers, not {dtype}.", id="input.not_int_source",
                                  dtype=str(ids.dtype)) if label == "source" else
                       InputError("The target token ids must be integers, not {dtype}.", id="input.not_int_target",
                                  dtype=str(ids.dtype)))
            if ids.shape[0] == 0 or ids.shape[1] == 0:
                raise (EmptyInputError("The source sequence is empty: give at least one token.", id="input.empty_source")
                       if label == "source" else
                       EmptyInputError("The target sequence is empty: give at least one token.", id="input.empty_target"))
            if offset + ids.shape[1] > args.max_len:
                n = offset + ids.shape[1]
                if label == "source":  # one sentence per side: the window translates each by its id
                    raise SequenceTooLongError("The source sequence has {n} tokens; this model takes at most {most}.",
                                               id="input.too_long_source", n=n, most=args.max_len)
                raise SequenceTooLongError("The target sequence has {n} tokens; this model takes at most {most}.",
                                           id="input.too_long_target", n=n, most=args.max_len)
            checks.append(((ids < 0) | (ids >= vocab)).any())
            checks.append((ids == args.pad_id).any())
        flags = torch.stack(checks).tolist()
        padded = {}
        for (label, ids, vocab, offset), bad, pad in zip(given, flags[0::2], flags[1::2]):
            if bad:
                raise (TokenOutOfRangeError("A source token id is outside the vocabulary (0 to {last}).",
                                              id="input.out_of_range_source", last=vocab - 1) if label == "source" else
                       TokenOutOfRangeError("A target token id is outside the vocabulary (0 to {last}).",
                                            id="input.out_of_range_target", last=vocab - 1))
            if pad and offset:
                # A cache holds every earlier key: a padding mask over the new tokens alone would not fit it.
                raise InputError("A <pad> token cannot be fed while decoding with a cache.", id="input.pad_with_cache")
            padded[label] = self._padding(ids) if pad else None
        return padded.get("source"), padded.get("target")

    def _padding(self, ids: Tensor) -> Tensor:
        """Additive key-padding mask (B, 1, 1, T): −∞ at <pad> keys, 0 elsewhere."""
        dtype = self.lm_head.weight.dtype
        pad = (ids == self.args.pad_id)[:, None, None, :]  # (B, 1, 1, T)
        return torch.zeros(pad.shape, dtype=dtype, device=ids.device).masked_fill(pad, float("-inf"))
