"""What every kind of stage does: for learners reading the Explain panel.

One `Explanation` per stage kind of the design's vocabulary: two or three sentences on
what the stage does, its formula in the notes' notation, and what to look for in its
tensor. The texts were written for tfdebug (the seed notes gave the concepts, not the
words). They are English `Phrase`s with stable ids, so the window translates them through
the same catalogue as every other text (`python -m tfdebug.ui.i18n.catalog`); a formula
that is only symbols is a plain string.
"""

from __future__ import annotations

from dataclasses import dataclass

from tfdebug.core.phrases import Phrase


@dataclass(frozen=True)
class Explanation:
    """What a kind of stage does, its formula (notes' notation), and what to look for in it."""

    what: Phrase
    formula: str  # mostly symbols; a Phrase where it has words to translate
    look_for: Phrase


EXPLANATIONS: dict[str, Explanation] = {
    "embedding": Explanation(
        Phrase('Looks up one learned vector per token id in the embedding table. The rows of this '
               'stage are the words of the sentence before the model knows their order or their '
               'neighbours.', id="explain.embedding.what"),
        'X = E[token]   (E: vocab_size × d_model)',
        Phrase('The same word always gives the same row. Values are small (initialised near 0, std '
               '0.02) and no row depends on any other token.', id="explain.embedding.look_for"),
    ),
    "positional_encoding": Explanation(
        Phrase('The fixed sinusoidal table that tells the model where each token sits. Even features'
               ' are sines, odd features cosines, with wavelengths that grow from the first feature '
               'to the last, like the fast and slow hands of a clock.', id="explain.positional_encoding.what"),
        'PE(pos, 2i) = sin(pos / 10000^(2i/d_model)),  PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model))',
        Phrase('Row 0 is exactly [0, 1, 0, 1, …] (sin 0 = 0, cos 0 = 1). Every value lies in [−1, '
               '1]. The first columns change quickly from row to row, the last ones hardly at all. '
               'Open the PE curves to see them.', id="explain.positional_encoding.look_for"),
    ),
    "positional_add": Explanation(
        Phrase('Adds the positional table to the token embeddings, so that each row now says both '
               'which word it is and where it is. The same table is broadcast over every sentence of'
               ' the batch.', id="explain.positional_add.what"),
        'X = E[token] + PE[pos]',
        Phrase('This stage minus the embedding is exactly the PE table. Two copies of one word at '
               'different positions now have different rows.', id="explain.positional_add.look_for"),
    ),
    "layer_norm": Explanation(
        Phrase("Normalises each token's features to mean 0 and standard deviation 1, then scales by "
               'a₂ and shifts by b₂ (both learned). Pre-norm: it runs before each sublayer, so '
               'attention and the FFN read well-scaled numbers.', id="explain.layer_norm.what"),
        'LayerNorm(x) = a₂ · (x − mean) / (std + ε) + b₂',
        Phrase('Along the model axis each row has a mean near mean(b₂) and a spread near that of a₂ '
               '(0 and 1 in an untrained model). Rows never mix: it works on each token alone.',
               id="explain.layer_norm.look_for"),
    ),
    "rms_norm": Explanation(
        Phrase("Divides each token's features by their root mean square and scales by a learned "
               'weight. Unlike LayerNorm it does not subtract the mean.', id="explain.rms_norm.what"),
        'RMSNorm(x) = w · x / √(mean(x²) + ε)',
        Phrase("Each row's root mean square is close to that of the weight w; the mean is not forced"
               ' to 0.', id="explain.rms_norm.look_for"),
    ),
    "q_proj": Explanation(
        Phrase('Multiplies the normalised input by W^Q: every token gets a query, the question it '
               "asks the other tokens. One wide matrix stands for the eight heads' matrices side by "
               'side.', id="explain.q_proj.what"),
        'Q = X · W^Q',
        Phrase('The shape keeps (batch, tokens, d_model); the head split comes next and only '
               'regroups these numbers.', id="explain.q_proj.look_for"),
    ),
    "k_proj": Explanation(
        Phrase('Multiplies the input by W^K: every token gets a key, the label the queries are '
               "matched against. In cross-attention the keys come from the encoder's output, that is"
               ' from the source tokens.', id="explain.k_proj.what"),
        Phrase('K = X · W^K   (cross-attention: K = H_enc · W^K)', id="explain.k_proj.formula"),
        Phrase('Cross-attention keys are source tokens: this axis is labelled with the source '
               'sentence.', id="explain.k_proj.look_for"),
    ),
    "v_proj": Explanation(
        Phrase('Multiplies the input by W^V: every token gets a value, the content it hands over '
               'when it is attended to. Keys decide how much is taken, values what is taken.',
               id="explain.v_proj.what"),
        'V = X · W^V',
        Phrase('Values have the same shape as keys; in cross-attention they also come from the '
               'source tokens.', id="explain.v_proj.look_for"),
    ),
    "head_split": Explanation(
        Phrase('Splits d_model into H heads of d_k features without computing anything: a view makes'
               ' the last axis (H, d_k), a transpose moves the head axis forward so that every head '
               'attends on its own.', id="explain.head_split.what"),
        '(B, T, d_model) —view→ (B, T, H, d_k) —transpose→ (B, H, T, d_k),  d_k = d_model / H',
        Phrase('H × d_k equals d_model, and head h holds features h·d_k … (h+1)·d_k − 1 of the '
               'projection, unchanged.', id="explain.head_split.look_for"),
    ),
    "rotary": Explanation(
        Phrase('Rotates pairs of query and key features by an angle that grows with the position, so'
               ' that the dot product of a query and a key depends on how far apart they are.',
               id="explain.rotary.what"),
        '(x₂ᵢ, x₂ᵢ₊₁) ↦ rotation by pos · θᵢ',
        Phrase('The length of each feature pair is unchanged; position 0 is not rotated at all.',
               id="explain.rotary.look_for"),
    ),
    "kv_repeat": Explanation(
        Phrase('Grouped-query attention: fewer key/value heads than query heads, so each K/V head is'
               ' repeated to serve a group of query heads.', id="explain.kv_repeat.what"),
        'K_h = K_(h // group)',
        Phrase('Heads within one group are identical copies.', id="explain.kv_repeat.look_for"),
    ),
    "kv_cache": Explanation(
        Phrase("The keys or values kept from earlier generation steps plus this step's: the new "
               "token's query attends over all of them, and nothing earlier is computed again.",
               id="explain.kv_cache.what"),
        Phrase("cache = concat(cached, this step's K or V)", id="explain.kv_cache.formula"),
        Phrase('The key axis grows by one token per step; the old rows are unchanged from the step '
               'before.', id="explain.kv_cache.look_for"),
    ),
    "scores": Explanation(
        Phrase("The dot product of every query with every key: how well each token's question "
               "matches each token's label. Each head computes its own score matrix.", id="explain.scores.what"),
        Phrase('x = Q · Kᵀ   (per head: (T_q, d_k) · (d_k, T_k) → (T_q, T_k))', id="explain.scores.formula"),
        Phrase('The head_dim axis is gone: (B, H, T, d_k) · (B, H, d_k, T) gives (B, H, T, T). '
               'Scores grow with d_k, which is why the next stage divides by √d_k.', id="explain.scores.look_for"),
    ),
    "scale": Explanation(
        Phrase("Divides the scores by √d_k. With d_k features summed, the scores' spread grows like "
               '√d_k; without this the softmax would put almost all weight on one key.', id="explain.scale.what"),
        'scaled = Q · Kᵀ / √d_k',
        Phrase("scaled × √d_k equals scores exactly (the check above uses this pass's d_k). In the "
               "notes' model d_k = 512 / 8 heads = 64, so every score there is divided by 8.",
               id="explain.scale.look_for"),
    ),
    "position_bias": Explanation(
        Phrase('Adds a bias that depends on the distance between query and key, in place of position'
               " embeddings: T5's learned relative positions, ALiBi's per-head slope times the "
               "distance (BLOOM), or DeBERTa's content-to-position and position-to-content scores.",
               id="explain.position_bias.what"),
        'scores + b(i − j)',
        Phrase('With T5 and ALiBi, cells on one diagonal (the same distance) get the same bias; '
               "DeBERTa's also depends on the tokens.", id="explain.position_bias.look_for"),
    ),
    "softcap": Explanation(
        Phrase('Squashes very large scores smoothly into a fixed range with tanh, so that no single '
               'score can dominate the softmax. Gemma 2 caps its final logits the same way, after '
               'the output layer.', id="explain.softcap.what"),
        'c · tanh(x / c)',
        Phrase('No value exceeds the cap c in absolute size.', id="explain.softcap.look_for"),
    ),
    "mask": Explanation(
        Phrase('Adds a mask M of 0 and −∞. A causal mask hides the future: a token may not read the '
               'tokens after it. A padding mask hides <pad> keys, which are not words. After '
               'softmax, −∞ becomes weight 0.', id="explain.mask.what"),
        Phrase('scores + M,  M = 0 where allowed, −∞ where masked', id="explain.mask.formula"),
        Phrase('Causal: −∞ strictly above the diagonal, the diagonal itself allowed. Padding: whole '
               'key columns at <pad>. M is one small tensor broadcast over every sentence and head. '
               'No row may be masked entirely. A sliding window (Mistral, Gemma 2, GPT-OSS, '
               'ModernBERT: the formula names its size) leaves a band: each query sees only the '
               'nearest w keys, older ones are −∞ too.', id="explain.mask.look_for"),
    ),
    "softmax": Explanation(
        Phrase("Turns each query's row of scores into weights that are positive and sum to 1: e^x "
               'over the sum of e^x across the keys. Computed in float32 even for half-precision '
               'models.', id="explain.softmax.what"),
        Phrase('softmax(x_i) = e^(x_i) / Σ_j e^(x_j)   (over the key axis)', id="explain.softmax.formula"),
        Phrase('Every row sums to 1. Masked cells (−∞) are exactly 0, so with a causal mask '
               'everything strictly above the diagonal is 0. A row with one value near 1 looks at a '
               'single token.', id="explain.softmax.look_for"),
    ),
    "attn_dropout": Explanation(
        Phrase('Randomly zeroes attention weights during training; in evaluation (as here) it passes'
               ' them through unchanged.', id="explain.attn_dropout.what"),
        'Dropout(P)',
        Phrase('In evaluation this stage equals the softmax stage exactly.', id="explain.attn_dropout.look_for"),
    ),
    "attn_v": Explanation(
        Phrase("Each query's weights mix the value vectors of all keys: the new representation of a "
               'token is a weighted sum of what the other tokens hand over.', id="explain.attn_v.what"),
        'head = softmax(Q·Kᵀ / √d_k) · V',
        Phrase("A query whose weights are one-hot copies that key's value. Shape (B, H, T_q, d_k): "
               'the key axis is summed away.', id="explain.attn_v.look_for"),
    ),
    "head_merge": Explanation(
        Phrase('Puts the heads side by side again: transpose the head axis back, then view (H, d_k) '
               'as d_model. Nothing is computed; W^O mixes the heads next.', id="explain.head_merge.what"),
        'Concat(head_1, …, head_H) : (B, H, T, d_k) —transpose→ (B, T, H, d_k) —view→ (B, T, d_model)',
        Phrase("Features h·d_k … (h+1)·d_k − 1 of each row are head h's context, unchanged.",
               id="explain.head_merge.look_for"),
    ),
    "out_proj": Explanation(
        Phrase('Multiplies the concatenated heads by W^O, which mixes what the heads found into one '
               'd_model vector per token.', id="explain.out_proj.what"),
        'MultiHead(Q, K, V) = Concat(head_1, …, head_H) · W^O',
        Phrase('The shape is back to (batch, tokens, d_model), ready to be added to the residual '
               'stream.', id="explain.out_proj.look_for"),
    ),
    "residual": Explanation(
        Phrase("Adds the sublayer's output to its input. The input travels past the sublayer "
               'unchanged, so a token keeps what it was and gains what the sublayer found, and '
               'gradients flow through the +.', id="explain.residual.what"),
        'x + Sublayer(LayerNorm(x))',
        Phrase("This stage minus the block's input equals the sublayer's output exactly.",
               id="explain.residual.look_for"),
    ),
    "ffn_gate": Explanation(
        Phrase('The gate of a gated feed-forward layer: one projection decides, feature by feature, '
               'how much of the other passes.', id="explain.ffn_gate.what"),
        'act(x · W_gate)',
        Phrase('Values near 0 close a feature for that token.', id="explain.ffn_gate.look_for"),
    ),
    "ffn_hidden": Explanation(
        Phrase('The feed-forward layer widens each token to hidden_dim features and applies ReLU. It'
               ' works on each token alone: attention exchanged information between tokens, this '
               'refines each one.', id="explain.ffn_hidden.what"),
        'h = ReLU(x · W₁)',
        Phrase('No negative values (ReLU); many exact zeros.', id="explain.ffn_hidden.look_for"),
    ),
    "ffn_out": Explanation(
        Phrase('Narrows the hidden features back to d_model with W₂, ready to be added to the '
               'residual stream.', id="explain.ffn_out.what"),
        'FFN(x) = ReLU(x · W₁) · W₂',
        Phrase('Shape (batch, tokens, d_model) again.', id="explain.ffn_out.look_for"),
    ),
    "logits": Explanation(
        Phrase('Scores every word of the vocabulary for the next position: the final hidden state '
               'times the output matrix. Softmax over this axis gives the next-token probabilities.',
               id="explain.logits.what"),
        'logits = h · W_lm',
        Phrase('At each position the largest logit is the word the model predicts next.',
               id="explain.logits.look_for"),
    ),
    "qk_norm": Explanation(
        Phrase("Normalises the queries (or keys) before the scores are taken, each head's features "
               'on their own (Qwen3, Gemma 3) or all heads at once (OLMo 2). It keeps Q·Kᵀ from '
               'growing without bound, so the softmax stays smooth. In latent attention '
               '(DeepSeek-V3) the same kind shows the compressed query or key/value after its norm.',
               id="explain.qk_norm.what"),
        'q̂ = γ · q / √(mean(q²) + ε)   (per head)',
        Phrase("Every head's row has a similar size now (an RMS near the mean of γ), whatever the "
               'projection gave.', id="explain.qk_norm.look_for"),
    ),
    "attn_sink": Explanation(
        Phrase('Attention sinks (GPT-OSS): each head has one learned logit, appended as an extra '
               'last column of the scores. The softmax runs over the keys and that column together, '
               'so a query can put weight on “nothing” instead of on some token; the column is then '
               'dropped.', id="explain.attn_sink.what"),
        'softmax([S | s_h]) over keys + 1',
        Phrase('Each row sums to 1 including the last column; that column is how much the head chose'
               ' to ignore. The next stage, P, is this without the last column, so its rows sum to '
               'less than 1.', id="explain.attn_sink.look_for"),
    ),
    "router_logits": Explanation(
        Phrase('Mixture of experts: the router scores every expert for every token with one linear '
               'layer. The highest scores decide which few experts process the token.',
               id="explain.router_logits.what"),
        'r = x · W_router   (tokens × experts)',
        Phrase('Look along a row for the experts this token prefers; a column that is high '
               'everywhere is an expert every token uses.', id="explain.router_logits.look_for"),
    ),
    "routing": Explanation(
        Phrase('The experts chosen for each token and the weight each gets: the top k of the '
               "router's probabilities (renormalised in many models), laid out over all experts with"
               ' 0 where an expert was not chosen.', id="explain.routing.what"),
        'w = topk(softmax(r), k)',
        Phrase('Exactly k non-zero cells in each row; their sum is 1 where the model renormalises.',
               id="explain.routing.look_for"),
    ),
    "expert_out": Explanation(
        Phrase("The experts' combined output for each token: each chosen expert's feed-forward "
               'output times its routing weight, summed. Experts that no token chose did not run at '
               'all.', id="explain.expert_out.what"),
        'y = Σ_k w_k · FFN_k(x)',
        Phrase('Its rows are the tokens flattened over the batch; the shape is (tokens, d_model).',
               id="explain.expert_out.look_for"),
    ),
    "embed_scale": Explanation(
        Phrase('Multiplies the embeddings by a constant before the first layer (Gemma: √d_model; '
               'Granite: its embedding multiplier), so they have the size the layers expect.',
               id="explain.embed_scale.what"),
        'X = c · E[token]',
        Phrase('This stage divided by the embedding is the same number c everywhere.',
               id="explain.embed_scale.look_for"),
    ),
    "logit_scale": Explanation(
        Phrase('Scales the logits after the output layer by a constant (Granite divides by its '
               'logits scaling, Cohere multiplies by its logit scale). The ranking of the words does'
               " not change, the softmax's sharpness does.", id="explain.logit_scale.what"),
        'logits = c · h · W_vocab',
        Phrase('The same word wins as in the stage before; the values are c times as large.',
               id="explain.logit_scale.look_for"),
    ),
}


def explain(kind: str) -> Explanation | None:
    """The explanation of a stage kind, or None for a kind outside the vocabulary."""
    return EXPLANATIONS.get(kind)
