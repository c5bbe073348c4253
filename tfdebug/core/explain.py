"""What every kind of stage does, in English and Chinese: for learners reading the Explain panel.

One `Explanation` per stage kind of the design's vocabulary: two or three sentences on
what the stage does, its formula in the notes' notation, and what to look for in its
tensor. The texts were written for tfdebug (the seed notes gave the concepts, not the
words). Both languages live side by side so that a test can hold every kind to both,
and any front end (window, console) can show them; `Text.get(lang)` picks one.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Text:
    """One text in English and Chinese."""

    en: str
    zh: str

    def get(self, lang: str) -> str:
        """The Chinese text for a language code starting with 'zh', else the English one."""
        return self.zh if lang.lower().startswith("zh") else self.en


@dataclass(frozen=True)
class Explanation:
    """What a kind of stage does, its formula (notes' notation), and what to look for in it."""

    what: Text
    formula: Text  # mostly symbols; the words in it are translated too
    look_for: Text


def _e(what_en: str, what_zh: str, formula: str | Text, look_en: str, look_zh: str) -> Explanation:
    formula = formula if isinstance(formula, Text) else Text(formula, formula)
    return Explanation(Text(what_en, what_zh), formula, Text(look_en, look_zh))


EXPLANATIONS: dict[str, Explanation] = {
    "embedding": _e(
        "Looks up one learned vector per token id in the embedding table. The rows of this stage are the "
        "words of the sentence before the model knows their order or their neighbours.",
        "按词元 id 在嵌入表里查出一行可学习的向量。此时每一行只代表这个词本身，模型还不知道它的位置和上下文。",
        "X = E[token]   (E: vocab_size × d_model)",
        "The same word always gives the same row. Values are small (initialised near 0, std 0.02) and "
        "no row depends on any other token.",
        "同一个词永远得到同一行。数值通常很小（初始化标准差 0.02），而且每一行都与其他词无关。"),
    "positional_encoding": _e(
        "The fixed sinusoidal table that tells the model where each token sits. Even features are sines, "
        "odd features cosines, with wavelengths that grow from the first feature to the last, like the "
        "fast and slow hands of a clock.",
        "固定的正弦/余弦位置编码表，告诉模型每个词在句子中的位置。偶数维是正弦、奇数维是余弦，"
        "波长从第一维到最后一维越来越长，就像钟表上转得快和转得慢的指针。",
        "PE(pos, 2i) = sin(pos / 10000^(2i/d_model)),  PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model))",
        "Row 0 is exactly [0, 1, 0, 1, …] (sin 0 = 0, cos 0 = 1). Every value lies in [−1, 1]. The first "
        "columns change quickly from row to row, the last ones hardly at all. Open the PE curves to see them.",
        "第 0 行恰好是 [0, 1, 0, 1, …]（sin 0 = 0，cos 0 = 1）。所有数值都在 [−1, 1] 之间。"
        "前几列随行快速变化，最后几列几乎不变。打开位置编码曲线可以看到它们。"),
    "positional_add": _e(
        "Adds the positional table to the token embeddings, so that each row now says both which word it "
        "is and where it is. The same table is broadcast over every sentence of the batch.",
        "把位置编码加到词嵌入上：每一行既包含\u201c我是谁\u201d，也包含\u201c我在哪\u201d。同一张位置表会广播到批次中的每个句子。",
        "X = E[token] + PE[pos]",
        "This stage minus the embedding is exactly the PE table. Two copies of one word at different "
        "positions now have different rows.",
        "本阶段减去词嵌入，恰好等于位置编码表。同一个词出现在不同位置时，现在得到不同的行。"),
    "layer_norm": _e(
        "Normalises each token's features to mean 0 and standard deviation 1, then scales by a₂ and shifts "
        "by b₂ (both learned). Pre-norm: it runs before each sublayer, so attention and the FFN read "
        "well-scaled numbers.",
        "把每个词的特征归一化为均值 0、标准差 1，再乘以可学习的 a₂、加上 b₂。这里是 Pre-Norm："
        "在每个子层之前做，让注意力和前馈网络读到尺度稳定的数。",
        "LayerNorm(x) = a₂ · (x − mean) / (std + ε) + b₂",
        "Along the model axis each row has a mean near mean(b₂) and a spread near that of a₂ (0 and 1 in "
        "an untrained model). Rows never mix: it works on each token alone.",
        "沿 model 轴，每一行的均值接近 b₂ 的均值，离散程度接近 a₂（未训练的模型里分别是 0 和 1）。"
        "各行互不混合：它只处理单个词。"),
    "rms_norm": _e(
        "Divides each token's features by their root mean square and scales by a learned weight. Unlike "
        "LayerNorm it does not subtract the mean.",
        "用每个词特征的均方根去除它们，再乘以可学习的权重。与 LayerNorm 不同，它不减去均值。",
        "RMSNorm(x) = w · x / √(mean(x²) + ε)",
        "Each row's root mean square is close to that of the weight w; the mean is not forced to 0.",
        "每一行的均方根接近权重 w 的尺度；均值不会被强制为 0。"),
    "q_proj": _e(
        "Multiplies the normalised input by W^Q: every token gets a query, the question it asks the other "
        "tokens. One wide matrix stands for the eight heads' matrices side by side.",
        "把归一化后的输入乘以 W^Q：每个词得到一个查询向量 Q，也就是它向其他词提出的\u201c问题\u201d。"
        "一个大矩阵相当于 8 个头各自的小矩阵并排拼在一起。",
        "Q = X · W^Q",
        "The shape keeps (batch, tokens, d_model); the head split comes next and only regroups these "
        "numbers.",
        "形状仍是 (batch, tokens, d_model)；接下来的多头切分只是重新分组这些数。"),
    "k_proj": _e(
        "Multiplies the input by W^K: every token gets a key, the label the queries are matched against. "
        "In cross-attention the keys come from the encoder's output, that is from the source tokens.",
        "把输入乘以 W^K：每个词得到一个键向量 K，也就是供查询匹配的\u201c标签\u201d。在交叉注意力里，"
        "键来自编码器的输出，也就是源语言的词。",
        Text("K = X · W^K   (cross-attention: K = H_enc · W^K)", "K = X · W^K   （交叉注意力：K = H_enc · W^K）"),
        "Cross-attention keys are source tokens: this axis is labelled with the source sentence.",
        "交叉注意力的键是源句子的词：这条轴用源句子的词来标注。"),
    "v_proj": _e(
        "Multiplies the input by W^V: every token gets a value, the content it hands over when it is "
        "attended to. Keys decide how much is taken, values what is taken.",
        "把输入乘以 W^V：每个词得到一个值向量 V，即它被关注时交出的\u201c内容\u201d。键决定取多少，值决定取什么。",
        "V = X · W^V",
        "Values have the same shape as keys; in cross-attention they also come from the source tokens.",
        "值与键的形状相同；在交叉注意力里它们同样来自源句子的词。"),
    "head_split": _e(
        "Splits d_model into H heads of d_k features without computing anything: a view makes the last "
        "axis (H, d_k), a transpose moves the head axis forward so that every head attends on its own.",
        "把 d_model 切成 H 个头、每个头 d_k 维，不做任何计算：view 把最后一维变成 (H, d_k)，"
        "transpose 把头这一维移到前面，让每个头各自独立地做注意力。",
        "(B, T, d_model) —view→ (B, T, H, d_k) —transpose→ (B, H, T, d_k),  d_k = d_model / H",
        "H × d_k equals d_model, and head h holds features h·d_k … (h+1)·d_k − 1 of the projection, "
        "unchanged.",
        "H × d_k 等于 d_model；第 h 个头恰好是投影结果中第 h·d_k 到 (h+1)·d_k − 1 维，数值不变。"),
    "rotary": _e(
        "Rotates pairs of query and key features by an angle that grows with the position, so that the "
        "dot product of a query and a key depends on how far apart they are.",
        "按位置增大的角度旋转查询和键的成对特征，使查询与键的点积取决于它们相隔多远。",
        "(x₂ᵢ, x₂ᵢ₊₁) ↦ rotation by pos · θᵢ",
        "The length of each feature pair is unchanged; position 0 is not rotated at all.",
        "每对特征的长度不变；位置 0 完全不旋转。"),
    "kv_repeat": _e(
        "Grouped-query attention: fewer key/value heads than query heads, so each K/V head is repeated to "
        "serve a group of query heads.",
        "分组查询注意力：K/V 头比查询头少，所以每个 K/V 头被复制，供一组查询头共用。",
        "K_h = K_(h // group)",
        "Heads within one group are identical copies.",
        "同一组里的头是完全相同的副本。"),
    "kv_cache": _e(
        "The keys or values kept from earlier generation steps plus this step's: the new token's query "
        "attends over all of them, and nothing earlier is computed again.",
        "生成时保存下来的前几步的键或值，加上这一步新算的：新词的查询对它们全部做注意力，之前的部分不再重算。",
        Text("cache = concat(cached, this step's K or V)", "cache = concat(已缓存的, 这一步的 K 或 V)"),
        "The key axis grows by one token per step; the old rows are unchanged from the step before.",
        "键这一维每一步增加一个词；旧的行与上一步完全相同。"),
    "scores": _e(
        "The dot product of every query with every key: how well each token's question matches each "
        "token's label. Each head computes its own score matrix.",
        "每个查询与每个键的点积：每个词的\u201c问题\u201d与每个词的\u201c标签\u201d有多匹配。每个头各算一张分数表。",
        Text("x = Q · Kᵀ   (per head: (T_q, d_k) · (d_k, T_k) → (T_q, T_k))",
             "x = Q · Kᵀ   （每个头：(T_q, d_k) · (d_k, T_k) → (T_q, T_k)）"),
        "The head_dim axis is gone: (B, H, T, d_k) · (B, H, d_k, T) gives (B, H, T, T). Scores grow with "
        "d_k, which is why the next stage divides by √d_k.",
        "head_dim 这一维被消耗掉了：(B, H, T, d_k) · (B, H, d_k, T) 得到 (B, H, T, T)。"
        "分数会随 d_k 变大，所以下一步要除以 √d_k。"),
    "scale": _e(
        "Divides the scores by √d_k. With d_k features summed, the scores' spread grows like √d_k; "
        "without this the softmax would put almost all weight on one key.",
        "把分数除以 √d_k。d_k 个乘积相加后，分数的离散程度按 √d_k 增长；不缩放的话，"
        "softmax 会几乎把全部权重给一个键（赢家通吃）。",
        "scaled = Q · Kᵀ / √d_k",
        "scaled × √d_k equals scores exactly (the check above uses this pass's d_k). In the notes' model "
        "d_k = 512 / 8 heads = 64, so every score there is divided by 8.",
        "scaled × √d_k 恰好等于 scores（上面的检查用的是本次前向的 d_k）。笔记中的模型 "
        "d_k = 512 / 8 个头 = 64，所以那里每个分数都除以 8。"),
    "position_bias": _e(
        "Adds a bias that depends on the distance between query and key, in place of position embeddings: "
        "T5's learned relative positions, ALiBi's per-head slope times the distance (BLOOM), or DeBERTa's "
        "content-to-position and position-to-content scores.",
        "加上一个随查询与键之间距离变化的偏置，代替位置嵌入：T5 的可学习相对位置、ALiBi 的每头斜率乘以距离（BLOOM），"
        "或 DeBERTa 的内容到位置与位置到内容分数。",
        "scores + b(i − j)",
        "With T5 and ALiBi, cells on one diagonal (the same distance) get the same bias; DeBERTa's also "
        "depends on the tokens.",
        "在 T5 和 ALiBi 中，同一条对角线上（相同距离）的格子得到相同的偏置；DeBERTa 的偏置还取决于词元本身。"),
    "softcap": _e(
        "Squashes very large scores smoothly into a fixed range with tanh, so that no single score can "
        "dominate the softmax. Gemma 2 caps its final logits the same way, after the output layer.",
        "用 tanh 把过大的分数平滑地压进固定范围，使任何一个分数都无法独占 softmax。"
        "Gemma 2 也用同样的方法在输出层之后给最终的 logits 封顶。",
        "c · tanh(x / c)",
        "No value exceeds the cap c in absolute size.",
        "所有数值的绝对值都不超过上限 c。"),
    "mask": _e(
        "Adds a mask M of 0 and −∞. A causal mask hides the future: a token may not read the tokens after "
        "it. A padding mask hides <pad> keys, which are not words. After softmax, −∞ becomes weight 0.",
        "加上一个由 0 和 −∞ 组成的掩码 M。因果掩码遮住未来：一个词不能读它后面的词。"
        "填充掩码遮住 <pad> 键，因为它们不是真正的词。经过 softmax 后，−∞ 变成权重 0。",
        Text("scores + M,  M = 0 where allowed, −∞ where masked", "scores + M，M 在允许处为 0，在遮住处为 −∞"),
        "Causal: −∞ strictly above the diagonal, the diagonal itself allowed. Padding: whole key columns "
        "at <pad>. M is one small tensor broadcast over every sentence and head. No row may be masked "
        "entirely. A sliding window (Mistral, Gemma 2, GPT-OSS, ModernBERT: the formula names its size) "
        "leaves a band: each query sees only the nearest w keys, older ones are −∞ too.",
        "因果掩码：对角线以上严格为 −∞，对角线本身允许。填充掩码：<pad> 所在的整列键被遮住。"
        "M 是一个小张量，广播到每个句子和每个头上。任何一行都不能被完全遮住。"
        "滑动窗口（Mistral、Gemma 2、GPT-OSS、ModernBERT，公式里写着窗口大小）只留下一条带：每个查询只能看到最近的 w 个键，"
        "更早的键也是 −∞。"),
    "softmax": _e(
        "Turns each query's row of scores into weights that are positive and sum to 1: e^x over the sum "
        "of e^x across the keys. Computed in float32 even for half-precision models.",
        "把每个查询那一行分数变成正的、和为 1 的权重：e^x 除以所有键的 e^x 之和。"
        "即使模型是半精度，这一步也用 float32 计算。",
        Text("softmax(x_i) = e^(x_i) / Σ_j e^(x_j)   (over the key axis)",
             "softmax(x_i) = e^(x_i) / Σ_j e^(x_j)   （沿键这一维）"),
        "Every row sums to 1. Masked cells (−∞) are exactly 0, so with a causal mask everything strictly "
        "above the diagonal is 0. A row with one value near 1 looks at a single token.",
        "每一行的和都是 1。被遮住的格子（−∞）恰好为 0，所以有因果掩码时对角线以上严格全为 0。"
        "某一行若有一个值接近 1，说明它只看一个词。"),
    "attn_dropout": _e(
        "Randomly zeroes attention weights during training; in evaluation (as here) it passes them "
        "through unchanged.",
        "训练时随机把一些注意力权重置零；推理时（如此处）原样通过。",
        "Dropout(P)",
        "In evaluation this stage equals the softmax stage exactly.",
        "推理时本阶段与 softmax 阶段完全相同。"),
    "attn_v": _e(
        "Each query's weights mix the value vectors of all keys: the new representation of a token is a "
        "weighted sum of what the other tokens hand over.",
        "每个查询用自己的权重把所有键的值向量混合起来：一个词的新表示，是其他词交出的内容的加权和。",
        "head = softmax(Q·Kᵀ / √d_k) · V",
        "A query whose weights are one-hot copies that key's value. Shape (B, H, T_q, d_k): the key axis "
        "is summed away.",
        "权重是 one-hot 的查询，会原样复制那个键的值。形状为 (B, H, T_q, d_k)：键这一维被求和消去了。"),
    "head_merge": _e(
        "Puts the heads side by side again: transpose the head axis back, then view (H, d_k) as d_model. "
        "Nothing is computed; W^O mixes the heads next.",
        "把各个头重新并排拼接：先把头这一维转置回去，再把 (H, d_k) 看成 d_model。"
        "这里不做计算；接下来由 W^O 融合各头的信息。",
        "Concat(head_1, …, head_H) : (B, H, T, d_k) —transpose→ (B, T, H, d_k) —view→ (B, T, d_model)",
        "Features h·d_k … (h+1)·d_k − 1 of each row are head h's context, unchanged.",
        "每一行的第 h·d_k 到 (h+1)·d_k − 1 维，就是第 h 个头的输出，数值不变。"),
    "out_proj": _e(
        "Multiplies the concatenated heads by W^O, which mixes what the heads found into one d_model "
        "vector per token.",
        "把拼接后的多头输出乘以 W^O，把各个头的发现融合成每个词的一个 d_model 维向量。",
        "MultiHead(Q, K, V) = Concat(head_1, …, head_H) · W^O",
        "The shape is back to (batch, tokens, d_model), ready to be added to the residual stream.",
        "形状回到 (batch, tokens, d_model)，可以加回残差流。"),
    "residual": _e(
        "Adds the sublayer's output to its input. The input travels past the sublayer unchanged, so a "
        "token keeps what it was and gains what the sublayer found, and gradients flow through the +.",
        "把子层的输出加到它的输入上。输入绕过子层原样到达，所以一个词既保留了原来的自己，"
        "又获得子层提取的新信息；梯度也能沿着这个加号直接回传。",
        "x + Sublayer(LayerNorm(x))",
        "This stage minus the block's input equals the sublayer's output exactly.",
        "本阶段减去本块的输入，恰好等于子层的输出。"),
    "ffn_gate": _e(
        "The gate of a gated feed-forward layer: one projection decides, feature by feature, how much of "
        "the other passes.",
        "门控前馈层的\u201c门\u201d：一个投影逐个特征决定另一个投影有多少可以通过。",
        "act(x · W_gate)",
        "Values near 0 close a feature for that token.",
        "接近 0 的值会对这个词关闭该特征。"),
    "ffn_hidden": _e(
        "The feed-forward layer widens each token to hidden_dim features and applies ReLU. It works on "
        "each token alone: attention exchanged information between tokens, this refines each one.",
        "前馈层把每个词扩展到 hidden_dim 维并做 ReLU。它只处理单个词：注意力让词与词交换信息，"
        "前馈层则加工每个词自身的特征。",
        "h = ReLU(x · W₁)",
        "No negative values (ReLU); many exact zeros.",
        "没有负数（ReLU）；有很多恰好为 0 的值。"),
    "ffn_out": _e(
        "Narrows the hidden features back to d_model with W₂, ready to be added to the residual stream.",
        "用 W₂ 把隐藏特征压回 d_model 维，准备加回残差流。",
        "FFN(x) = ReLU(x · W₁) · W₂",
        "Shape (batch, tokens, d_model) again.",
        "形状重新变为 (batch, tokens, d_model)。"),
    "logits": _e(
        "Scores every word of the vocabulary for the next position: the final hidden state times the "
        "output matrix. Softmax over this axis gives the next-token probabilities.",
        "对下一个位置给词表里每个词打分：最后的隐藏状态乘以输出矩阵。沿这一维做 softmax 就得到下一个词的概率。",
        "logits = h · W_lm",
        "At each position the largest logit is the word the model predicts next.",
        "在每个位置上，最大的 logit 就是模型预测的下一个词。"),
    "qk_norm": _e(
        "Normalises the queries (or keys) before the scores are taken, each head's features on their own "
        "(Qwen3, Gemma 3) or all heads at once (OLMo 2). It keeps Q·Kᵀ from growing without bound, so the "
        "softmax stays smooth. In latent attention (DeepSeek-V3) the same kind shows the compressed query "
        "or key/value after its norm.",
        "在计算分数之前先把查询（或键）归一化：每个头各自归一化（Qwen3、Gemma 3），或所有头一起（OLMo 2）。"
        "这样 Q·Kᵀ 不会无限增大，softmax 保持平滑。在潜在注意力（DeepSeek-V3）中，同一类阶段显示归一化后的"
        "压缩查询或压缩键值。",
        "q̂ = γ · q / √(mean(q²) + ε)   (per head)",
        "Every head's row has a similar size now (an RMS near the mean of γ), whatever the projection gave.",
        "无论投影结果多大，现在每个头的每一行大小都相近（均方根接近 γ 的均值）。"),
    "attn_sink": _e(
        "Attention sinks (GPT-OSS): each head has one learned logit, appended as an extra last column of the "
        "scores. The softmax runs over the keys and that column together, so a query can put weight on "
        "\u201cnothing\u201d instead of on some token; the column is then dropped.",
        "注意力汇（GPT-OSS）：每个头有一个可学习的 logit，作为额外的最后一列接在分数后面。softmax 同时作用于"
        "所有键和这一列，于是查询可以把权重放在\u201c什么也不看\u201d上，而不必分给某个词；之后这一列被丢掉。",
        "softmax([S | s_h]) over keys + 1",
        "Each row sums to 1 including the last column; that column is how much the head chose to ignore. "
        "The next stage, P, is this without the last column, so its rows sum to less than 1.",
        "包含最后一列时每一行之和为 1；最后一列就是这个头选择\u201c忽略\u201d的份额。下一个阶段 P 去掉了这一列，"
        "所以它的每一行之和小于 1。"),
    "router_logits": _e(
        "Mixture of experts: the router scores every expert for every token with one linear layer. The "
        "highest scores decide which few experts process the token.",
        "混合专家：路由器用一个线性层给每个词的每个专家打分。分数最高的几个专家会处理这个词。",
        "r = x · W_router   (tokens × experts)",
        "Look along a row for the experts this token prefers; a column that is high everywhere is an expert "
        "every token uses.",
        "沿着一行看这个词偏爱哪些专家；如果某一列处处都高，说明每个词都在用这个专家。"),
    "routing": _e(
        "The experts chosen for each token and the weight each gets: the top k of the router's "
        "probabilities (renormalised in many models), laid out over all experts with 0 where an expert "
        "was not chosen.",
        "每个词选中的专家以及各自的权重：路由概率中最大的 k 个（很多模型会重新归一化），摊开到所有专家上，"
        "未被选中的专家为 0。",
        "w = topk(softmax(r), k)",
        "Exactly k non-zero cells in each row; their sum is 1 where the model renormalises.",
        "每一行恰好有 k 个非零格；在重新归一化的模型里它们之和为 1。"),
    "expert_out": _e(
        "The experts' combined output for each token: each chosen expert's feed-forward output times its "
        "routing weight, summed. Experts that no token chose did not run at all.",
        "每个词的专家合并输出：每个被选中专家的前馈输出乘以它的路由权重，再求和。没有被任何词选中的专家根本没有运行。",
        "y = Σ_k w_k · FFN_k(x)",
        "Its rows are the tokens flattened over the batch; the shape is (tokens, d_model).",
        "它的行是展平到批次上的词；形状为 (tokens, d_model)。"),
    "embed_scale": _e(
        "Multiplies the embeddings by a constant before the first layer (Gemma: √d_model; Granite: its "
        "embedding multiplier), so they have the size the layers expect.",
        "在第一层之前把嵌入乘以一个常数（Gemma：√d_model；Granite：它的嵌入乘数），让数值具有各层期望的大小。",
        "X = c · E[token]",
        "This stage divided by the embedding is the same number c everywhere.",
        "本阶段除以嵌入，处处都是同一个数 c。"),
    "logit_scale": _e(
        "Scales the logits after the output layer by a constant (Granite divides by its logits scaling, "
        "Cohere multiplies by its logit scale). The ranking of the words does not change, the softmax's "
        "sharpness does.",
        "在输出层之后把 logits 乘以一个常数（Granite 除以它的 logits_scaling，Cohere 乘以 logit_scale）。"
        "词的排序不变，softmax 的尖锐程度会变。",
        "logits = c · h · W_vocab",
        "The same word wins as in the stage before; the values are c times as large.",
        "获胜的词与上一个阶段相同；数值变为 c 倍。"),
}

def explain(kind: str) -> Explanation | None:
    """The explanation of a stage kind, or None for a kind outside the vocabulary."""
    return EXPLANATIONS.get(kind)
