<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>ArchitectureMap</name>
    <message>
        <source>Nothing loaded</source>
        <translation>尚未载入</translation>
    </message>
    <message>
        <source>{block}: {first} … {last} ({n} stages)</source>
        <translation>{block}：{first} … {last}（{n} 个阶段）</translation>
    </message>
    <message>
        <source>Run to Stage (start of block)</source>
        <translation>运行到阶段（模块开头）</translation>
    </message>
    <message>
        <source>Run to Stage (end of block)</source>
        <translation>运行到阶段（模块末尾）</translation>
    </message>
</context>
<context>
    <name>AttributionView</name>
    <message>
        <source>Target:</source>
        <translation>目标：</translation>
    </message>
    <message>
        <source>not:</source>
        <translation>而非：</translation>
    </message>
    <message>
        <source>at position:</source>
        <translation>位置：</translation>
    </message>
    <message>
        <source>the prediction</source>
        <translation>模型的预测</translation>
    </message>
    <message>
        <source>optional contrast token</source>
        <translation>可选的对比词元</translation>
    </message>
    <message>
        <source>Explain</source>
        <translation>解释</translation>
    </message>
    <message>
        <source>The residual stream the final norm reads is a sum: embeddings + every head&apos;s output + every feed-forward block + biases. With the norm&apos;s scale frozen, logit(target) − logit(contrast) = Σ (W_U[target] − W_U[contrast]) · norm(term). Red terms push towards the target, blue ones away from it.</source>
        <translation>最终归一化读入的残差流是一个和：嵌入 + 每个头的输出 + 每个前馈块 + 偏置。把归一化的缩放固定住之后，logit(目标) − logit(对比) = Σ (W_U[目标] − W_U[对比]) · norm(项)。红色的项把预测推向目标，蓝色的项把它推开。</translation>
    </message>
    <message>
        <source>{what} at position {position}: the pass&apos;s own value {own:.5g}; the terms sum to {total:.5g} (gap {gap:.1e}). Convention: {convention}.</source>
        <translation>{what}（位置 {position}）：本次前向的值 {own:.5g}；各项之和 {total:.5g}（差 {gap:.1e}）。约定：{convention}。</translation>
    </message>
    <message>
        <source>emb</source>
        <translation>嵌入</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>share of the logit difference</source>
        <translation>对 logit 差的贡献</translation>
    </message>
</context>
<context>
    <name>AxisControls</name>
    <message>
        <source>Axis shown as rows</source>
        <translation>作为行显示的轴</translation>
    </message>
    <message>
        <source>Axis shown as columns</source>
        <translation>作为列显示的轴</translation>
    </message>
    <message>
        <source>Rows</source>
        <translation>行</translation>
    </message>
    <message>
        <source>Columns</source>
        <translation>列</translation>
    </message>
    <message>
        <source>Choosing axes pins them: every stage that has both shows them. Unpinned, each stage opens on its last two axes</source>
        <translation>选择轴即固定它们：凡是同时具有这两个轴的阶段都按它们显示。不固定时，每个阶段显示其最后两个轴</translation>
    </message>
    <message>
        <source>Index along the {axis} axis (size {size})</source>
        <translation>沿 {axis} 轴的索引（大小 {size}）</translation>
    </message>
    <message>
        <source>Pinned: {row} × {col}</source>
        <translation>已固定：{row} × {col}</translation>
    </message>
    <message>
        <source>Pin axes</source>
        <translation>固定轴</translation>
    </message>
</context>
<context>
    <name>BackwardPanel</name>
    <message>
        <source>Saliency</source>
        <translation>显著性</translation>
    </message>
    <message>
        <source>Picture</source>
        <translation>图片</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>Each frame of the spectrogram the model heard, coloured by ‖gradient × activation‖₂ of its first convolution&apos;s output there: the stronger, the more the loss depends on that moment.</source>
        <translation>模型所听到的频谱图的每一帧，按其第一个卷积在该帧输出的 ‖梯度 × 激活‖₂ 着色：颜色越强，损失越依赖于那一时刻。</translation>
    </message>
    <message>
        <source>Each patch of the picture the model saw, coloured by its token&apos;s ‖gradient × embedding‖₂: the stronger, the more the loss depends on that patch.</source>
        <translation>模型看到的图片中的每个小块，按其词元的 ‖梯度 × 嵌入‖₂ 着色：颜色越深，损失越依赖这个小块。</translation>
    </message>
    <message>
        <source>‖g × e‖₂</source>
        <translation>‖g × e‖₂</translation>
    </message>
    <message>
        <source>Σ g × e</source>
        <translation>Σ g × e</translation>
    </message>
    <message>
        <source>Layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>Gradient norm</source>
        <translation>梯度范数</translation>
    </message>
    <message>
        <source>Largest parameter gradients</source>
        <translation>最大的参数梯度</translation>
    </message>
    <message>
        <source>Norm</source>
        <translation>范数</translation>
    </message>
    <message>
        <source>Debug ▸ Backward (Ctrl+Shift+B) on a finished pass fills this.</source>
        <translation>在已完成的前向上使用 调试 ▸ 反向传播（Ctrl+Shift+B）后在此显示。</translation>
    </message>
    <message>
        <source>No embedding stage has a gradient: no saliency per token.</source>
        <translation>没有嵌入阶段得到梯度：没有逐词元的显著性。</translation>
    </message>
    <message>
        <source>Each token&apos;s gradient × embedding (its first embedding stage, batch row 0): the darker, the more the loss depends on it.</source>
        <translation>每个词元的梯度 × 嵌入（第一个嵌入阶段，批次第 0 行）：颜色越深，损失越依赖它。</translation>
    </message>
    <message>
        <source>The pass on screen is not a backward: run Debug ▸ Backward again to step its gradients.</source>
        <translation>屏幕上的传递不是反向传递：请再次运行 调试 ▸ 反向传播 以逐步查看其梯度。</translation>
    </message>
    <message>
        <source>The backward on screen has no stage there.</source>
        <translation>屏幕上的反向传递在那里没有阶段。</translation>
    </message>
</context>
<context>
    <name>BatchDialog</name>
    <message>
        <source>Batch</source>
        <translation>批量输入</translation>
    </message>
    <message>
        <source>The text in the input bar is the first row; each line below is one more row of the batch. The tokenizer pads the rows to one length and masks the padding. Leave it empty for one text.</source>
        <translation>输入栏中的文本是第一行；下面每一行是批中的另一行。分词器把各行填充到同一长度并遮蔽填充部分。只有一条文本时请留空。</translation>
    </message>
</context>
<context>
    <name>BudgetDialog</name>
    <message>
        <source>Capture Budget</source>
        <translation>捕获预算</translation>
    </message>
    <message>
        <source>Half of the memory free on the device (default)</source>
        <translation>设备空闲内存的一半（默认）</translation>
    </message>
    <message>
        <source>No budget: keep every stage</source>
        <translation>不设预算：保留每个阶段</translation>
    </message>
    <message>
        <source>At most:</source>
        <translation>最多：</translation>
    </message>
    <message>
        <source>Stages beyond the budget are shown while the pass is paused at them, then dropped from the history. Applies from the next Run.</source>
        <translation>超出预算的阶段只在前向传播暂停于该处时显示，之后从历史中丢弃。从下一次运行起生效。</translation>
    </message>
</context>
<context>
    <name>CapturePanel</name>
    <message>
        <source>Capture budget: none, every stage is kept.</source>
        <translation>捕获预算：无，保留每个阶段。</translation>
    </message>
    <message>
        <source>Capture budget: {size} (half of the free memory when the pass was planned).</source>
        <translation>捕获预算：{size}（规划这次前向传播时空闲内存的一半）。</translation>
    </message>
    <message>
        <source>Capture budget: {size}.</source>
        <translation>捕获预算：{size}。</translation>
    </message>
    <message>
        <source>It keeps {what}.</source>
        <translation>它保留{what}。</translation>
    </message>
    <message>
        <source>{count} stages dropped: shown while the pass is paused at them, then gone from the history (Restart and run to one to see it again).</source>
        <translation>已丢弃 {count} 个阶段：仅在暂停于该处时显示，之后从历史中移除（重新开始并运行到该阶段可再次查看）。</translation>
    </message>
    <message>
        <source>No stage dropped.</source>
        <translation>没有丢弃任何阶段。</translation>
    </message>
    <message>
        <source>The capture budget ({size}) is full: the stages farthest from where you are and where the pass is leave the history, {stage} first. The Capture panel lists them.</source>
        <translation>捕获预算（{size}）已满：离你所在之处和前向传播所到之处最远的阶段会移出历史，最先是 {stage}。“捕获”面板列出了它们。</translation>
    </message>
    <message>
        <source>The capture budget ({size}) is full: from {stage} on, stages are kept only while the pass is paused at them. The Capture panel lists them.</source>
        <translation>捕获预算（{size}）已满：从 {stage} 起，阶段只在暂停于该处时保留。“捕获”面板列出了它们。</translation>
    </message>
    <message>
        <source>The pass will hold {total} in {stages} stages: all of them fit.</source>
        <translation>这次前向传播将在 {stages} 个阶段中保存 {total}：全部在预算之内。</translation>
    </message>
    <message>
        <source>The pass will hold {total} in {stages} stages: run straight through, the budget keeps {kept} ({kept_size}) and drops {dropped}, those farthest from where you are and where the pass is.</source>
        <translation>这次前向传播共有 {stages} 个阶段，占 {total}：若一次运行到底，预算保留 {kept} 个（{kept_size}），丢弃 {dropped} 个，即离你所在之处和前向传播所到之处最远的那些。</translation>
    </message>
    <message>
        <source>The pass will hold {total} in {stages} stages: the budget keeps {kept} ({kept_size}) and drops {dropped}, from {first} on.</source>
        <translation>这次前向传播将在 {stages} 个阶段中保存 {total}：预算保留 {kept} 个（{kept_size}），从 {first} 起丢弃 {dropped} 个。</translation>
    </message>
    <message>
        <source>Capture Budget…</source>
        <translation>捕获预算…</translation>
    </message>
    <message>
        <source>Capture budget: {setting}, keeping {what}; applies from the next Run.</source>
        <translation>捕获预算：{setting}，保留{what}；从下一次运行起生效。</translation>
    </message>
</context>
<context>
    <name>CheckMenu</name>
    <message>
        <source>When It Fits in Memory</source>
        <translation>内存够用时</translation>
    </message>
    <message>
        <source>Always</source>
        <translation>总是</translation>
    </message>
    <message>
        <source>Attention Only, in the Pass (Faster)</source>
        <translation>仅注意力，在前向中检查（更快）</translation>
    </message>
    <message>
        <source>Never</source>
        <translation>从不</translation>
    </message>
    <message>
        <source>The pass on screen runs on a server: the window checks only the passes it runs itself.</source>
        <translation>屏幕上的前向过程运行在服务器上：窗口只核对它自己运行的前向过程。</translation>
    </message>
</context>
<context>
    <name>ColourBar</name>
    <message>
        <source>Colour scale of every thumbnail: {lo} to {hi}, over all heads</source>
        <translation>所有缩略图共用的色标：{lo} 到 {hi}，覆盖全部注意力头</translation>
    </message>
</context>
<context>
    <name>CompareDialog</name>
    <message>
        <source>Compare With</source>
        <translation>对比</translation>
    </message>
    <message>
        <source>A (the reference)</source>
        <translation>A（参照）</translation>
    </message>
    <message>
        <source>B (compared with A)</source>
        <translation>B（与 A 对比）</translation>
    </message>
    <message>
        <source>atol</source>
        <translation>绝对容差</translation>
    </message>
    <message>
        <source>rtol</source>
        <translation>相对容差</translation>
    </message>
    <message>
        <source>A cell diverges when |A − B| &gt; atol + rtol·|A|.</source>
        <translation>当 |A − B| &gt; 绝对容差 + 相对容差·|A| 时，认为该单元格出现分歧。</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>对比</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>The atol value</source>
        <translation>绝对容差的值</translation>
    </message>
    <message>
        <source>The rtol value</source>
        <translation>相对容差的值</translation>
    </message>
    <message>
        <source>atol and rtol must be zero or positive numbers.</source>
        <translation>绝对容差和相对容差必须是零或正数。</translation>
    </message>
    <message>
        <source>this input in {placement}</source>
        <translation>此输入，{placement}</translation>
    </message>
    <message>
        <source>the pass on screen ({title})</source>
        <translation>屏幕上的前向过程（{title}）</translation>
    </message>
    <message>
        <source>the pass before the last edit ({stage}: {edit})</source>
        <translation>上一次编辑之前的前向过程（{stage}：{edit}）</translation>
    </message>
</context>
<context>
    <name>CompareTools</name>
    <message>
        <source>A comparison is already running.</source>
        <translation>已有一个对比正在运行。</translation>
    </message>
    <message>
        <source>A: {a}   B: {b}   atol {atol}, rtol {rtol}</source>
        <translation>A：{a}&#x3000;B：{b}&#x3000;绝对容差 {atol}，相对容差 {rtol}</translation>
    </message>
    <message>
        <source>The comparison failed; the details say why.</source>
        <translation>对比失败；原因见详情。</translation>
    </message>
    <message>
        <source>First divergent stage: {name}.</source>
        <translation>第一个分歧阶段：{name}。</translation>
    </message>
    <message>
        <source>No stage diverges.</source>
        <translation>没有阶段出现分歧。</translation>
    </message>
    <message>
        <source>{n} stages differ in shape and are not compared cell by cell; the first is {name}.</source>
        <translation>{n} 个阶段的形状不同，无法逐格比较；第一个是 {name}。</translation>
    </message>
</context>
<context>
    <name>CompareView</name>
    <message>
        <source>Stage</source>
        <translation>阶段</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>rel err</source>
        <translation>相对误差</translation>
    </message>
    <message>
        <source>over tol</source>
        <translation>超出容差</translation>
    </message>
    <message>
        <source>Compare two passes with File → Compare With….</source>
        <translation>用 文件 → 对比… 来对比两次前向过程。</translation>
    </message>
    <message>
        <source>Go to First Divergent Stage</source>
        <translation>转到第一个分歧阶段</translation>
    </message>
    <message>
        <source>max |Δ|</source>
        <translation>最大 |Δ|</translation>
    </message>
    <message>
        <source>mean |Δ|</source>
        <translation>平均 |Δ|</translation>
    </message>
    <message>
        <source>The pass on screen has no stage {name}.</source>
        <translation>屏幕上的前向过程没有阶段 {name}。</translation>
    </message>
    <message>
        <source>{name}: {verdict} — nothing to draw side by side.</source>
        <translation>{name}：{verdict} — 没有可并排绘制的内容。</translation>
    </message>
    <message>
        <source>Cannot draw {name}: {why}</source>
        <translation>无法绘制 {name}：{why}</translation>
    </message>
    <message>
        <source>values</source>
        <translation>数值</translation>
    </message>
    <message>
        <source> at {fixed}</source>
        <translation>，位于 {fixed}</translation>
    </message>
    <message>
        <source>{name}: {shown}{at} · A − B from {lo} to {hi}, masked in both in grey</source>
        <translation>{name}：{shown}{at} · A − B 从 {lo} 到 {hi}，两边都被掩码的单元格为灰色</translation>
    </message>
</context>
<context>
    <name>ConditionDialog</name>
    <message>
        <source>Condition Breakpoints</source>
        <translation>条件断点</translation>
    </message>
    <message>
        <source>Stop at a stage that contains NaN</source>
        <translation>在含有 NaN 的阶段停下</translation>
    </message>
    <message>
        <source>Stop at a stage that contains ±Inf (−∞ in mask stages is expected)</source>
        <translation>在含有 ±Inf 的阶段停下（掩码阶段中的 −∞ 属于正常）</translation>
    </message>
    <message>
        <source>Stop where max |x| is above</source>
        <translation>在 max |x| 超过此值处停下</translation>
    </message>
    <message>
        <source>Fast check: one GPU synchronisation per pass instead of one per stage</source>
        <translation>快速检查：每次前向过程只做一次 GPU 同步，而不是每个阶段一次</translation>
    </message>
    <message>
        <source>A fast check lets the pass run on and then shows the first stage that met a condition: the stages after it have already run. To see that stage before its successors run, Restart and Run to it.</source>
        <translation>快速检查会让前向过程继续运行，然后显示第一个满足条件的阶段：它之后的阶段已经运行过。若想在后续阶段运行之前看到该阶段，请重新开始并运行到它。</translation>
    </message>
    <message>
        <source>Conditions are checked where the tensor lives, at every stage.</source>
        <translation>条件在张量所在的设备上、于每个阶段检查。</translation>
    </message>
    <message>
        <source>Stop where the pass diverges from this input in</source>
        <translation>在前向过程与此输入的以下版本出现分歧处停下：</translation>
    </message>
    <message>
        <source>A cell diverges when |reference − x| &gt; atol + rtol·|reference|. The reference pass runs once per model, input and dtype, off the window&apos;s thread; its stages are kept on the host within the capture budget.</source>
        <translation>当 |参考值 − x| &gt; 绝对容差 + 相对容差·|参考值| 时，认为该单元格出现分歧。参考前向过程对每个模型、输入和数据类型只运行一次，且不在窗口线程中运行；它的各阶段保存在主机内存中，不超过捕获预算。</translation>
    </message>
    <message>
        <source>A cell diverges when |reference − x| &gt; atol + rtol·|reference|. The reference pass runs on the server once per input, in this dtype on the server&apos;s device, and the condition is checked there.</source>
        <translation>当 |参考值 − x| &gt; 绝对容差 + 相对容差·|参考值| 时，认为该单元格出现分歧。参考前向过程在服务器上运行，每个输入一次，使用这种数据类型、在服务器的设备上运行，条件也在那里检查。</translation>
    </message>
</context>
<context>
    <name>ConnectDialog</name>
    <message>
        <source>Connect to Server</source>
        <translation>连接到服务器</translation>
    </message>
    <message>
        <source>only for an encrypted server</source>
        <translation>仅用于加密的服务器</translation>
    </message>
    <message>
        <source>Address</source>
        <translation>地址</translation>
    </message>
    <message>
        <source>Token</source>
        <translation>令牌</translation>
    </message>
    <message>
        <source>Server key</source>
        <translation>服务器密钥</translation>
    </message>
    <message>
        <source>Paste the line tfdebug serve printed, or its address and token. From another machine, forward the port first: ssh -N -L PORT:127.0.0.1:PORT server.</source>
        <translation>粘贴 tfdebug serve 打印的那一行，或它的地址和令牌。从另一台机器连接时，先转发端口：ssh -N -L PORT:127.0.0.1:PORT server。</translation>
    </message>
</context>
<context>
    <name>DecodingDialog</name>
    <message>
        <source>Decoding Settings</source>
        <translation>解码设置</translation>
    </message>
    <message>
        <source>Greedy (the likeliest token)</source>
        <translation>贪心（概率最大的词元）</translation>
    </message>
    <message>
        <source>Sample</source>
        <translation>采样</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关</translation>
    </message>
    <message>
        <source>Stop at the end-of-sequence token</source>
        <translation>遇到序列结束词元时停止</translation>
    </message>
    <message>
        <source>Max new tokens</source>
        <translation>最多生成词元数</translation>
    </message>
    <message>
        <source>Next token</source>
        <translation>下一个词元</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>Top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <source>Top-p</source>
        <translation>Top-p</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>随机种子</translation>
    </message>
</context>
<context>
    <name>DeviceBox</name>
    <message>
        <source>{device} · {free} free</source>
        <translation>{device} · 空闲 {free}</translation>
    </message>
    <message>
        <source>{free} free of {total}</source>
        <translation>共 {total}，空闲 {free}</translation>
    </message>
</context>
<context>
    <name>EditDialog</name>
    <message>
        <source>Set to a value</source>
        <translation>设为某个值</translation>
    </message>
    <message>
        <source>Scale by a factor</source>
        <translation>乘以一个因子</translation>
    </message>
    <message>
        <source>Zero a head</source>
        <translation>将一个头置零</translation>
    </message>
    <message>
        <source>Keep only one head</source>
        <translation>只保留一个头</translation>
    </message>
    <message>
        <source>Fill the shown slice from a CSV file</source>
        <translation>用 CSV 文件填充显示的切片</translation>
    </message>
    <message>
        <source>One cell</source>
        <translation>一个单元格</translation>
    </message>
    <message>
        <source>One row</source>
        <translation>一行</translation>
    </message>
    <message>
        <source>One column</source>
        <translation>一列</translation>
    </message>
    <message>
        <source>The shown slice</source>
        <translation>显示的切片</translation>
    </message>
    <message>
        <source>The whole tensor</source>
        <translation>整个张量</translation>
    </message>
    <message>
        <source>Edit of {name} undone.</source>
        <translation>已撤销对 {name} 的编辑。</translation>
    </message>
    <message>
        <source>Edit undone.</source>
        <translation>已撤销编辑。</translation>
    </message>
    <message>
        <source>Edit Tensor</source>
        <translation>编辑张量</translation>
    </message>
    <message>
        <source>A number: 0, -1e-3, -inf …</source>
        <translation>一个数：0、-1e-3、-inf …</translation>
    </message>
    <message>
        <source>a CSV file of the shown slice&apos;s shape</source>
        <translation>与显示切片形状相同的 CSV 文件</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Edit</source>
        <translation>编辑</translation>
    </message>
    <message>
        <source>Where</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>Row</source>
        <translation>行</translation>
    </message>
    <message>
        <source>Column</source>
        <translation>列</translation>
    </message>
    <message>
        <source>Head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>CSV file</source>
        <translation>CSV 文件</translation>
    </message>
    <message>
        <source>Apply</source>
        <translation>应用</translation>
    </message>
    <message>
        <source>Undo Edit</source>
        <translation>撤销编辑</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>No stage is shown.</source>
        <translation>没有显示任何阶段。</translation>
    </message>
    <message>
        <source>; shown slice {row} × {col}</source>
        <translation>；显示的切片 {row} × {col}</translation>
    </message>
    <message>
        <source> at {fixed}</source>
        <translation>，位于 {fixed}</translation>
    </message>
    <message>
        <source> (edited)</source>
        <translation>（已编辑）</translation>
    </message>
    <message>
        <source> — not the stage the pass is paused at, so it cannot be edited</source>
        <translation> — 不是前向过程暂停所在的阶段，因此不能编辑</translation>
    </message>
    <message>
        <source>Factor</source>
        <translation>因子</translation>
    </message>
    <message>
        <source>CSV file of the shown slice</source>
        <translation>显示切片的 CSV 文件</translation>
    </message>
    <message>
        <source>CSV files (*.csv);;All files (*)</source>
        <translation>CSV 文件 (*.csv);;所有文件 (*)</translation>
    </message>
    <message>
        <source>The factor</source>
        <translation>因子</translation>
    </message>
    <message>
        <source>The value</source>
        <translation>数值</translation>
    </message>
    <message>
        <source>Nothing is shown yet: run a pass and pause at a stage first.</source>
        <translation>尚未显示任何内容：请先运行前向过程并在某个阶段暂停。</translation>
    </message>
    <message>
        <source>A recorded pass cannot be edited: there is no model to run the rest of it.</source>
        <translation>录制的前向过程不能编辑：没有模型来运行剩余部分。</translation>
    </message>
    <message>
        <source>{name}: {edit}. Continue runs the rest of the pass on it.</source>
        <translation>{name}：{edit}。“继续”会在此基础上运行剩余的前向过程。</translation>
    </message>
    <message>
        <source>Choose a CSV file to fill the shown slice from.</source>
        <translation>请选择用来填充显示切片的 CSV 文件。</translation>
    </message>
</context>
<context>
    <name>EditTools</name>
    <message>
        <source>Edit Cell ({r}, {c})…</source>
        <translation>编辑单元格 ({r}, {c})…</translation>
    </message>
    <message>
        <source>Edit Row {r}…</source>
        <translation>编辑第 {r} 行…</translation>
    </message>
    <message>
        <source>Edit Column {c}…</source>
        <translation>编辑第 {c} 列…</translation>
    </message>
</context>
<context>
    <name>ExplainPanel</name>
    <message>
        <source>No stage yet.</source>
        <translation>还没有阶段。</translation>
    </message>
    <message>
        <source>Checks on this tensor</source>
        <translation>对本张量的检查</translation>
    </message>
    <message>
        <source>What it does</source>
        <translation>作用</translation>
    </message>
    <message>
        <source>Formula</source>
        <translation>公式</translation>
    </message>
    <message>
        <source>In this pass</source>
        <translation>本次前向</translation>
    </message>
    <message>
        <source>What to look for</source>
        <translation>看点</translation>
    </message>
    <message>
        <source>This model: {formula}</source>
        <translation>本模型：{formula}</translation>
    </message>
    <message>
        <source>causal: the future is hidden</source>
        <translation>因果：遮住未来的词</translation>
    </message>
    <message>
        <source>padding: &lt;pad&gt; keys are hidden</source>
        <translation>填充：遮住 &lt;pad&gt; 键</translation>
    </message>
    <message>
        <source>causal and padding: the future and &lt;pad&gt; keys are hidden</source>
        <translation>因果和填充：遮住未来的词和 &lt;pad&gt; 键</translation>
    </message>
    <message>
        <source>This pass masks: {what}</source>
        <translation>本次前向的掩码：{what}</translation>
    </message>
    <message>
        <source>M {mask} broadcast over {scores}</source>
        <translation>M {mask} 广播到 {scores}</translation>
    </message>
    <message>
        <source>PE {table} broadcast over the batch {batch}</source>
        <translation>PE {table} 在批次上广播为 {batch}</translation>
    </message>
    <message>
        <source>computing…</source>
        <translation>计算中…</translation>
    </message>
    <message>
        <source>No check applies to this kind of stage.</source>
        <translation>这类阶段没有可做的检查。</translation>
    </message>
    <message>
        <source>The positional-encoding table has not been computed in this pass yet.</source>
        <translation>本次前向还没有算出位置编码表。</translation>
    </message>
    <message>
        <source>Positional Encoding Curves…</source>
        <translation>位置编码曲线…</translation>
    </message>
    <message>
        <source>sin and cos of every dimension of the PE table, over the positions</source>
        <translation>位置编码表每一维的正弦和余弦随位置的变化</translation>
    </message>
</context>
<context>
    <name>ExportActions</name>
    <message>
        <source>Export cancelled; nothing was written.</source>
        <translation>导出已取消；没有写入任何文件。</translation>
    </message>
    <message>
        <source>There is nothing to export yet: run a pass or open a snapshot first.</source>
        <translation>还没有可导出的内容：请先运行一次，或打开一个快照。</translation>
    </message>
    <message>
        <source>An export is already running; wait for it or cancel it.</source>
        <translation>已有一个导出正在进行；请等待它完成或取消它。</translation>
    </message>
    <message>
        <source>There is no recorded pass to export yet: run a pass or open a snapshot first.</source>
        <translation>还没有可导出的已记录前向过程：请先运行一次，或打开一个快照。</translation>
    </message>
    <message>
        <source>The export failed: {reason}.</source>
        <translation>导出失败：{reason}。</translation>
    </message>
    <message>
        <source>the writer stopped</source>
        <translation>写入已中止</translation>
    </message>
    <message>
        <source>Exporting {n} stages to {name}…</source>
        <translation>正在将 {n} 个阶段导出到 {name}…</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Exported {n} stages to {path}</source>
        <translation>已将 {n} 个阶段导出到 {path}</translation>
    </message>
    <message>
        <source>No heatmap is shown: step to a stage first.</source>
        <translation>当前没有显示热力图：请先单步到某个阶段。</translation>
    </message>
    <message>
        <source>Cannot export the heatmap to {path}: {reason}.</source>
        <translation>无法将热力图导出到 {path}：{reason}。</translation>
    </message>
    <message>
        <source>Exported the heatmap to {path}</source>
        <translation>已将热力图导出到 {path}</translation>
    </message>
</context>
<context>
    <name>ExportDialog</name>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Whole pass</source>
        <translation>整个前向过程</translation>
    </message>
    <message>
        <source>Selected stages</source>
        <translation>选中的阶段</translation>
    </message>
    <message>
        <source>Format</source>
        <translation>格式</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Export to</source>
        <translation>导出到</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>所有文件 (*)</translation>
    </message>
    <message>
        <source>{name} already exists. Replace it?</source>
        <translation>{name} 已存在。要替换它吗？</translation>
    </message>
</context>
<context>
    <name>GenerationPanel</name>
    <message>
        <source>The decoder layer whose cache and attention rows are shown</source>
        <translation>显示其缓存和注意力行的解码器层</translation>
    </message>
    <message>
        <source>Which attention&apos;s K/V cache is shown</source>
        <translation>显示哪一种注意力的 K/V 缓存</translation>
    </message>
    <message>
        <source>Layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>Cache</source>
        <translation>缓存</translation>
    </message>
    <message>
        <source>self-attention</source>
        <translation>自注意力</translation>
    </message>
    <message>
        <source>cross-attention</source>
        <translation>交叉注意力</translation>
    </message>
    <message>
        <source>Not a generation. Press Generate (Ctrl+G) beside Run to generate token by token; Debug ▸ Decoding Settings… chooses how. This dock then follows each token.</source>
        <translation>这不是生成过程。按“运行”旁的“生成”（Ctrl+G）逐个词元生成；“调试 ▸ 解码设置…”选择生成方式。之后本面板会跟随每个词元。</translation>
    </message>
    <message>
        <source>Step {0}</source>
        <translation>第 {0} 步</translation>
    </message>
    <message>
        <source>chooses {0}</source>
        <translation>选出 {0}</translation>
    </message>
    <message>
        <source>not computed yet at this step</source>
        <translation>这一步尚未计算</translation>
    </message>
    <message>
        <source>{0} · {1}.{2} · head {3} · query {4} at step {5}</source>
        <translation>{0} · {1}.{2} · 头 {3} · 第 {5} 步的查询 {4}</translation>
    </message>
    <message>
        <source>{0} cache · head {1} · step {2} · {3} keys</source>
        <translation>{0} 缓存 · 头 {1} · 第 {2} 步 · {3} 个键</translation>
    </message>
    <message>
        <source>The cache fills when this step&apos;s attention runs.</source>
        <translation>这一步的注意力运行时缓存才会填入。</translation>
    </message>
</context>
<context>
    <name>HeadsPanel</name>
    <message>
        <source>Drawing the heads of {stage}…</source>
        <translation>正在绘制 {stage} 的各个头…</translation>
    </message>
    <message>
        <source>{n} heads of {stage}, one colour scale · click a head to show it</source>
        <translation>{stage} 的 {n} 个注意力头，共用一个色标 · 点击某个头即可显示</translation>
    </message>
    <message>
        <source>Nothing to show yet.</source>
        <translation>暂无可显示的内容。</translation>
    </message>
    <message>
        <source>{stage} here is a gradient of the loss, not logits: it has no next-token reading.</source>
        <translation>此处的 {stage} 是损失的梯度，不是 logits：无法从中读出下一个词元。</translation>
    </message>
    <message>
        <source>{stage} has no heads; the most probable next tokens:</source>
        <translation>{stage} 没有注意力头；最可能的下一个词元：</translation>
    </message>
    <message>
        <source>The heatmap shows the head axis as its rows, so every head is there; choose other axes to see each head here.</source>
        <translation>热力图把头轴作为行显示，所有头都在其中；选择其他轴即可在这里逐个查看每个头。</translation>
    </message>
    <message>
        <source>The heatmap shows the head axis as its columns, so every head is there; choose other axes to see each head here.</source>
        <translation>热力图把头轴作为列显示，所有头都在其中；选择其他轴即可在这里逐个查看每个头。</translation>
    </message>
    <message>
        <source>This stage has no head axis.</source>
        <translation>这个阶段没有头轴。</translation>
    </message>
    <message>
        <source>head {h}</source>
        <translation>头 {h}</translation>
    </message>
</context>
<context>
    <name>HeatmapPanel</name>
    <message>
        <source>Hover over a cell to read its value.</source>
        <translation>将鼠标悬停在单元格上可读取其数值。</translation>
    </message>
    <message>
        <source>Heatmap</source>
        <translation>热力图</translation>
    </message>
    <message>
        <source>Scale</source>
        <translation>色标</translation>
    </message>
    <message>
        <source>How values map to colours: linear (default), log, per row</source>
        <translation>数值如何映射为颜色：线性（默认）、对数、逐行</translation>
    </message>
    <message>
        <source>Log scale</source>
        <translation>对数刻度</translation>
    </message>
    <message>
        <source>Colour by the logarithm of the values: small weights stay distinguishable beside a large one</source>
        <translation>按数值的对数着色：小权重在大权重旁仍可分辨</translation>
    </message>
    <message>
        <source>Per-row scale</source>
        <translation>逐行刻度</translation>
    </message>
    <message>
        <source>Scale each row to its own largest value over every column: each query&apos;s strongest key is the top colour</source>
        <translation>每行按其在所有列上的最大值缩放：每个查询最强的键取最高的颜色</translation>
    </message>
    <message>
        <source>Nothing to show yet.</source>
        <translation>暂无可显示的内容。</translation>
    </message>
    <message>
        <source>{name} was not kept: the capture budget dropped it. Restart and run to it to see it.</source>
        <translation>{name} 没有保留：捕获预算把它丢弃了。重新开始并运行到该阶段即可查看。</translation>
    </message>
    <message>
        <source>diverging colour map centred on 0</source>
        <translation>以 0 为中心的发散色图</translation>
    </message>
    <message>
        <source>sequential colour map</source>
        <translation>顺序色图</translation>
    </message>
    <message>
        <source> · rows {r0}–{r1} × columns {c0}–{c1}</source>
        <translation> · 第 {r0}–{r1} 行 × 第 {c0}–{c1} 列</translation>
    </message>
    <message>
        <source>, every cell</source>
        <translation>，逐个单元</translation>
    </message>
    <message>
        <source>, averaged to {rows}×{cols}</source>
        <translation>，平均为 {rows}×{cols}</translation>
    </message>
    <message>
        <source>, downsampled to {rows}×{cols}</source>
        <translation>，降采样到 {rows}×{cols}</translation>
    </message>
    <message>
        <source>, log scale from {low}</source>
        <translation>，对数刻度自 {low} 起</translation>
    </message>
    <message>
        <source>, linear: the log scale applies to non-negative stages only</source>
        <translation>，线性：对数刻度只用于非负的阶段</translation>
    </message>
    <message>
        <source>, each row scaled to its maximum</source>
        <translation>，每行按其最大值缩放</translation>
    </message>
    <message>
        <source> · {n} masked cells (−∞ or ≤ finfo.min/2) in grey</source>
        <translation> · {n} 个被掩码的单元格（−∞ 或 ≤ finfo.min/2）显示为灰色</translation>
    </message>
    <message>
        <source> · sliding window of {window} keys</source>
        <translation> · 滑动窗口：{window} 个键</translation>
    </message>
    <message>
        <source>row</source>
        <translation>行</translation>
    </message>
    <message>
        <source>0 (masked)</source>
        <translation>0（被遮住）</translation>
    </message>
    <message>
        <source>{value} (masked)</source>
        <translation>{value}（被遮住）</translation>
    </message>
    <message>
        <source> (block average)</source>
        <translation>（块平均值）</translation>
    </message>
    <message>
        <source>value {value}</source>
        <translation>值 {value}</translation>
    </message>
</context>
<context>
    <name>HubModels</name>
    <message>
        <source>The Hugging Face cache could not be read.</source>
        <translation>无法读取 Hugging Face 缓存。</translation>
    </message>
    <message>
        <source>{text} is not a Hugging Face model id (write it as org/name).</source>
        <translation>{text} 不是 Hugging Face 模型标识（请写成 org/name）。</translation>
    </message>
    <message>
        <source>A download is already running.</source>
        <translation>已有一个下载正在进行。</translation>
    </message>
    <message>
        <source>The download failed unexpectedly.</source>
        <translation>下载意外失败。</translation>
    </message>
</context>
<context>
    <name>ImagePanel</name>
    <message>
        <source>This pass has no image.</source>
        <translation>这次前向没有图像。</translation>
    </message>
    <message>
        <source>This snapshot does not carry picture {row} of its batch.</source>
        <translation>此快照没有携带其批次中的第 {row} 张图片。</translation>
    </message>
    <message>
        <source>Step to an attention stage (scores, probs) to see a query&apos;s attention over the image; click a patch to pick its row.</source>
        <translation>单步到注意力阶段（scores、probs）即可看到某个查询在图像上的注意力；点击一个图块可选中它所在的行。</translation>
    </message>
    <message>
        <source>Step to an attention stage over the audio (the encoder&apos;s, or the decoder&apos;s cross-attention) to see a query&apos;s attention over time; Left/Right pick another token.</source>
        <translation>步进到音频上的注意力阶段（编码器的，或解码器的交叉注意力），即可看到一个查询在时间上的注意力；左/右键选另一个词元。</translation>
    </message>
    <message>
        <source>{stage} · query {query} · strongest at {time} {value} · Left/Right pick another token</source>
        <translation>{stage} · 查询 {query} · 最强处 {time} {value} · 左/右键选另一个词元</translation>
    </message>
    <message>
        <source>{stage} · query {query} · strongest patch ({r},{c}) {value}; {prefix} · click a patch to pick its row</source>
        <translation>{stage} · 查询 {query} · 最强图块 ({r},{c}) {value}；{prefix} · 点击图块可选中它所在的行</translation>
    </message>
    <message>
        <source>{stage} · query {query} · strongest patch ({r},{c}) {value}; {prefix} · Left/Right pick another token</source>
        <translation>{stage} · 查询 {query} · 最强图块 ({r},{c}) {value}；{prefix} · 左/右键选另一个词元</translation>
    </message>
    <message>
        <source>{stage} · query {query} · strongest patch ({r},{c}) {value}; {prefix}</source>
        <translation>{stage} · 查询 {query} · 最强图块 ({r},{c}) {value}；{prefix}</translation>
    </message>
</context>
<context>
    <name>InputBar</name>
    <message>
        <source>A recorded pass is shown: its input cannot be edited. Use Debug ▸ New Live Pass to run live.</source>
        <translation>正在显示录制的前向过程：其输入不能编辑。请用 调试 ▸ 新的实时前向过程 来实时运行。</translation>
    </message>
    <message>
        <source>Preset</source>
        <translation>预设</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>精度</translation>
    </message>
    <message>
        <source>Device map</source>
        <translation>设备映射</translation>
    </message>
    <message>
        <source>Chat</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>Send the text as a user&apos;s chat turn: the tokenizer&apos;s chat template, ending where the assistant&apos;s answer starts (models whose tokenizer has one)</source>
        <translation>把文本作为用户的一轮对话发送：套用分词器的对话模板，结尾处正是助手回答开始的地方（分词器带有对话模板的模型）</translation>
    </message>
    <message>
        <source>demo, random, a model from the Hugging Face cache (hf:org/name), or the path of a model folder; Models… lists them and downloads</source>
        <translation>demo、random、Hugging Face 缓存中的模型（hf:org/name）或模型文件夹的路径；“模型…”列出它们并可下载</translation>
    </message>
    <message>
        <source>The precision the model&apos;s weights and stages are in (float32, bfloat16, float16)</source>
        <translation>模型权重和各阶段张量所用的精度（float32、bfloat16、float16）</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Let accelerate place a Hugging Face model (auto, balanced over GPUs, cpu, cuda:N) instead of Device; none: the whole model on Device</source>
        <translation>由 accelerate 放置 Hugging Face 模型（auto、在多块显卡间 balanced、cpu、cuda:N），而不是放在“设备”上；无：整个模型放在“设备”上</translation>
    </message>
    <message>
        <source>Device maps need accelerate: pip install &quot;tfdebug[hf]&quot;</source>
        <translation>设备映射需要 accelerate：pip install &quot;tfdebug[hf]&quot;</translation>
    </message>
    <message>
        <source>Choose an audio file (WAV), or drop one on the field</source>
        <translation>选择一个音频文件（WAV），或把文件拖到此框</translation>
    </message>
    <message>
        <source>Choose an image file (PNG, JPEG …), or drop one on the field</source>
        <translation>选择一个图像文件（PNG、JPEG …），或把文件拖放到此栏</translation>
    </message>
    <message>
        <source>Choose an audio file</source>
        <translation>选择音频文件</translation>
    </message>
    <message>
        <source>Audio (*.wav *.flac);;All files (*)</source>
        <translation>音频 (*.wav *.flac);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Choose an image</source>
        <translation>选择图像</translation>
    </message>
    <message>
        <source>Images (*.png *.jpg *.jpeg *.bmp *.gif *.webp);;All files (*)</source>
        <translation>图像 (*.png *.jpg *.jpeg *.bmp *.gif *.webp);;所有文件 (*)</translation>
    </message>
    <message>
        <source>tfdebug opens it</source>
        <translation>tfdebug 可以打开</translation>
    </message>
    <message>
        <source>Example inputs for this model, and your recent inputs</source>
        <translation>此模型的示例输入，以及你最近的输入</translation>
    </message>
    <message>
        <source>recent: {texts}</source>
        <translation>最近：{texts}</translation>
    </message>
    <message>
        <source>Choose an input…</source>
        <translation>选择一个输入…</translation>
    </message>
</context>
<context>
    <name>Job</name>
    <message>
        <source>The work failed unexpectedly.</source>
        <translation>任务意外失败。</translation>
    </message>
</context>
<context>
    <name>KeepBox</name>
    <message>
        <source>When not every stage fits, keep</source>
        <translation>当放不下所有阶段时，保留</translation>
    </message>
    <message>
        <source>The stages near the one you look at and the one the pass has reached (default)</source>
        <translation>靠近你正在查看的阶段和前向传播已到达的阶段的那些阶段（默认）</translation>
    </message>
    <message>
        <source>The stages that run first</source>
        <translation>最先运行的那些阶段</translation>
    </message>
    <message>
        <source>Always keep the stages of these kinds, in every layer, before any other (they take at most half of the budget):</source>
        <translation>总是优先保留每一层中以下类型的阶段（它们最多占用一半预算）：</translation>
    </message>
</context>
<context>
    <name>LearnMenu</name>
    <message>
        <source>&amp;Learn</source>
        <translation>学习(&amp;L)</translation>
    </message>
</context>
<context>
    <name>LensView</name>
    <message>
        <source>p(target)</source>
        <extracomment>positions shown when a pass opens: the last ones (zoom out or pan to compute more) positions computed per request (the rest follow as the view moves)</extracomment>
        <translation>p(目标)</translation>
    </message>
    <message>
        <source>rank of target (log)</source>
        <translation>目标的名次（对数）</translation>
    </message>
    <message>
        <source>entropy</source>
        <translation>熵</translation>
    </message>
    <message>
        <source>KL to final</source>
        <translation>与最终分布的 KL</translation>
    </message>
    <message>
        <source>Colour:</source>
        <translation>颜色：</translation>
    </message>
    <message>
        <source>Target token:</source>
        <translation>目标词元：</translation>
    </message>
    <message>
        <source>each position&apos;s final prediction</source>
        <translation>每个位置的最终预测</translation>
    </message>
    <message>
        <source>The logit lens asks what the model would predict if it stopped after this layer: logits = W_U · norm(h_layer), p = softmax(logits). Early rows are usually vague; the row where the target&apos;s rank falls to 1 is where the answer appears.</source>
        <translation>logit 透镜问的是：如果模型在这一层之后就停下，它会预测什么？logits = W_U · norm(h_层)，p = softmax(logits)。前面几行通常很模糊；目标的名次降到 1 的那一行，就是答案出现的地方。</translation>
    </message>
    <message>
        <source>Each row is a residual stage read with the model&apos;s own final norm and unembedding; the last row is the logits. Click a cell to go there.</source>
        <translation>每一行是一个残差阶段，用模型自己的最终归一化和反嵌入读出；最后一行就是 logits。点击单元格即可跳到那里。</translation>
    </message>
</context>
<context>
    <name>Loader</name>
    <message>
        <source>The model could not prepare this pass. Check the input and the model, then press Run again.</source>
        <translation>模型无法准备这次前向过程。请检查输入和模型，然后再按“运行”。</translation>
    </message>
    <message>
        <source>Generate runs one text at a time: empty the batch (Batch…) to generate.</source>
        <translation>生成一次只处理一条文本：请先清空批量输入（批量输入…）再生成。</translation>
    </message>
    <message>
        <source>This pass&apos;s stages differ from the plan grown from other lengths: the next Run of each length plans its own.</source>
        <translation>这次前向过程的阶段与由其他长度推得的计划不符：之后每个长度的首次运行都会重新规划。</translation>
    </message>
    <message>
        <source>not verified: the check against the unmodified model is off (Debug ▸ Check Against the Model)</source>
        <translation>未校验：与未修改模型的核对已关闭（调试 ▸ 与模型核对）</translation>
    </message>
    <message>
        <source>The check against the unmodified model could not run.</source>
        <translation>无法运行与原始模型的对照检查。</translation>
    </message>
    <message>
        <source>The tapped model&apos;s output differs from the unmodified model&apos;s: {what}</source>
        <translation>插桩后模型的输出与原始模型不同：{what}</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>loading…</source>
        <translation>加载中…</translation>
    </message>
    <message>
        <source>No pass loaded</source>
        <translation>尚未载入前向过程</translation>
    </message>
    <message>
        <source>Stage {i} of {n}</source>
        <translation>第 {i} / {n} 个阶段</translation>
    </message>
    <message>
        <source>verified</source>
        <translation>已验证</translation>
    </message>
    <message>
        <source>MISMATCH</source>
        <translation>不一致</translation>
    </message>
    <message>
        <source>attention, in the pass</source>
        <translation>注意力，前向中检查</translation>
    </message>
    <message>
        <source>not verified</source>
        <translation>未校验</translation>
    </message>
    <message>
        <source>recorded</source>
        <translation>录制</translation>
    </message>
    <message>
        <source>model {name}</source>
        <translation>模型 {name}</translation>
    </message>
    <message>
        <source>captures hold {size}</source>
        <translation>捕获占用 {size}</translation>
    </message>
    <message>
        <source>Input</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>Debug</source>
        <translation>调试</translation>
    </message>
    <message>
        <source>Stages</source>
        <translation>阶段</translation>
    </message>
    <message>
        <source>Architecture</source>
        <translation>结构图</translation>
    </message>
    <message>
        <source>Heatmap</source>
        <translation>热力图</translation>
    </message>
    <message>
        <source>Shape</source>
        <translation>形状</translation>
    </message>
    <message>
        <source>Heads</source>
        <translation>注意力头</translation>
    </message>
    <message>
        <source>Stats</source>
        <translation>统计</translation>
    </message>
    <message>
        <source>Values</source>
        <translation>数值</translation>
    </message>
    <message>
        <source>Generation</source>
        <translation>生成</translation>
    </message>
    <message>
        <source>loading torch…</source>
        <translation>正在加载 torch…</translation>
    </message>
    <message>
        <source>loading the model…</source>
        <translation>正在加载模型…</translation>
    </message>
    <message>
        <source>Precision and placement</source>
        <translation>精度与放置</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>Open Recent</source>
        <translation>最近打开</translation>
    </message>
    <message>
        <source>&amp;Debug</source>
        <translation>调试(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Breakpoints</source>
        <translation>断点(&amp;B)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>Check Against the Model</source>
        <translation>与模型核对</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>closing…</source>
        <translation>正在关闭…</translation>
    </message>
    <message>
        <source>idle</source>
        <translation>空闲</translation>
    </message>
    <message>
        <source>paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Compare</source>
        <extracomment>the last comparison&apos;s transplant (tfdebug.sessions.transplant.Transplant), when it had one</extracomment>
        <translation>对比</translation>
    </message>
    <message>
        <source>Overview</source>
        <translation>总览</translation>
    </message>
    <message>
        <source>Explain</source>
        <translation>讲解</translation>
    </message>
    <message>
        <source>Capture</source>
        <translation>捕获</translation>
    </message>
    <message>
        <source>Some saved window settings were damaged and have been reset: {keys}.</source>
        <translation>部分保存的窗口设置已损坏，已被重置：{keys}。</translation>
    </message>
    <message>
        <source>Model View</source>
        <translation>模型总览</translation>
    </message>
    <message>
        <source>Query Row</source>
        <translation>查询行</translation>
    </message>
    <message>
        <source>torch could not be imported; check the installation (pip install tfdebug).</source>
        <translation>无法导入 torch；请检查安装（pip install tfdebug）。</translation>
    </message>
    <message>
        <source>Restored your last session: {model} — File ▸ New Session for the demo</source>
        <translation>已恢复上次的会话：{model} —— 文件 ▸ 新会话 可回到演示</translation>
    </message>
    <message>
        <source>Your last session&apos;s model {model} could not be started, so the demo opened instead: {why}</source>
        <translation>上次会话的模型 {model} 无法启动，已改为打开演示：{why}</translation>
    </message>
    <message>
        <source>Image</source>
        <translation>图像</translation>
    </message>
    <message>
        <source>Why This Output</source>
        <translation>为何是这个输出</translation>
    </message>
    <message>
        <source>Backward</source>
        <translation>反向传播</translation>
    </message>
    <message>
        <source>stage {i} of {n}</source>
        <extracomment>seconds a pass must have run, and the share of its stages done, before the time left is guessed</extracomment>
        <translation>第 {i} 个阶段，共 {n} 个</translation>
    </message>
    <message>
        <source>{stack} layer {i} of {n}</source>
        <translation>{stack} 第 {i} 层，共 {n} 层</translation>
    </message>
    <message>
        <source>about {time} left</source>
        <translation>大约还需 {time}</translation>
    </message>
</context>
<context>
    <name>MessageBar</name>
    <message>
        <source>Details…</source>
        <translation>详情…</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>详情</translation>
    </message>
</context>
<context>
    <name>ModelViewPanel</name>
    <message>
        <source>The stage kind drawn: one row per stage of this kind</source>
        <translation>所绘的阶段类型：该类型的每个阶段占一行</translation>
    </message>
    <message>
        <source>No stage of this pass has a head axis to draw.</source>
        <translation>这次前向传播中没有带注意力头轴的阶段可以绘制。</translation>
    </message>
    <message>
        <source>Nothing to show yet.</source>
        <translation>暂无可显示的内容。</translation>
    </message>
    <message>
        <source>{stages} stages × {heads} heads; {drawn} of the stages drawn (empty: not run yet) · one colour scale · click a cell to show that stage and head</source>
        <translation>{stages} 个阶段 × {heads} 个头；已绘制其中 {drawn} 个阶段（空格：尚未运行）· 同一色标 · 点击格子即显示该阶段和该头</translation>
    </message>
</context>
<context>
    <name>ModelsDialog</name>
    <message>
        <source>Models</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Architecture</source>
        <translation>架构</translation>
    </message>
    <message>
        <source>Size on disk</source>
        <translation>磁盘占用</translation>
    </message>
    <message>
        <source>tfdebug</source>
        <translation>tfdebug</translation>
    </message>
    <message>
        <source>Use</source>
        <translation>使用</translation>
    </message>
    <message>
        <source>Rescan</source>
        <translation>重新扫描</translation>
    </message>
    <message>
        <source>org/name, e.g. Qwen/Qwen3-0.6B</source>
        <translation>org/name，例如 Qwen/Qwen3-0.6B</translation>
    </message>
    <message>
        <source>Download</source>
        <translation>下载</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Download from the Hugging Face hub:</source>
        <translation>从 Hugging Face Hub 下载：</translation>
    </message>
    <message>
        <source>The download was cancelled.</source>
        <translation>下载已取消。</translation>
    </message>
    <message>
        <source>bundled with tfdebug</source>
        <translation>随 tfdebug 附带</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no: {reason}</source>
        <translation>否：{reason}</translation>
    </message>
    <message>
        <source>Reading the Hugging Face cache {cache}…</source>
        <translation>正在读取 Hugging Face 缓存 {cache}…</translation>
    </message>
    <message>
        <source>{count} models in the Hugging Face cache {cache}.</source>
        <translation>Hugging Face 缓存 {cache} 中有 {count} 个模型。</translation>
    </message>
    <message>
        <source>Downloading {model}…</source>
        <translation>正在下载 {model}…</translation>
    </message>
    <message>
        <source>{model} is in the Hugging Face cache: select it and press Use.</source>
        <translation>{model} 已在 Hugging Face 缓存中：选中它并按“使用”。</translation>
    </message>
</context>
<context>
    <name>NavigatorPanel</name>
    <message>
        <source>Filter stages (name or kind)…</source>
        <translation>筛选阶段（名称或类型）…</translation>
    </message>
    <message>
        <source>Break on kind</source>
        <translation>按类型中断</translation>
    </message>
    <message>
        <source>Conditions…</source>
        <translation>条件…</translation>
    </message>
    <message>
        <source>Break on NaN, ±Inf or |x| above a threshold</source>
        <translation>在出现 NaN、±Inf 或 |x| 超过阈值时中断</translation>
    </message>
    <message>
        <source>Stage</source>
        <translation>阶段</translation>
    </message>
    <message>
        <source>Shape</source>
        <translation>形状</translation>
    </message>
    <message>
        <source>Click a stage&apos;s gutter to toggle a breakpoint</source>
        <translation>点击阶段左侧的标记栏以切换断点</translation>
    </message>
    <message>
        <source> · edited</source>
        <translation> · 已编辑</translation>
    </message>
    <message>
        <source> · not kept</source>
        <translation> · 未保留</translation>
    </message>
    <message>
        <source>Run to Stage</source>
        <translation>运行到阶段</translation>
    </message>
    <message>
        <source>Show Stage</source>
        <translation>显示阶段</translation>
    </message>
    <message>
        <source>Toggle Breakpoint</source>
        <translation>切换断点</translation>
    </message>
    <message>
        <source>Break on Every {kind}</source>
        <translation>在每个“{kind}”阶段中断</translation>
    </message>
    <message>
        <source>Always Keep Every {kind}</source>
        <translation>总是保留每个“{kind}”阶段</translation>
    </message>
    <message>
        <source>Every {kind} stage is kept first when the capture budget is full, from the next Run.</source>
        <translation>从下一次运行起，捕获预算已满时优先保留每个“{kind}”阶段。</translation>
    </message>
    <message>
        <source>{kind} stages are no longer kept first, from the next Run.</source>
        <translation>从下一次运行起，不再优先保留“{kind}”阶段。</translation>
    </message>
</context>
<context>
    <name>NormsPlot</name>
    <message>
        <source>attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <source>cross-attention</source>
        <translation>交叉注意力</translation>
    </message>
    <message>
        <source>MLP</source>
        <translation>MLP</translation>
    </message>
    <message>
        <source>norms</source>
        <translation>归一化</translation>
    </message>
    <message>
        <source>embeddings</source>
        <translation>嵌入</translation>
    </message>
    <message>
        <source>head</source>
        <translation>输出头</translation>
    </message>
    <message>
        <source>other</source>
        <translation>其他</translation>
    </message>
    <message>
        <source>all parameters</source>
        <translation>全部参数</translation>
    </message>
    <message>
        <source>{stack} layer {n}</source>
        <translation>{stack} 第 {n} 层</translation>
    </message>
    <message>
        <source>layer {n}</source>
        <translation>第 {n} 层</translation>
    </message>
    <message>
        <source>log scale</source>
        <translation>对数刻度</translation>
    </message>
    <message>
        <source>Click a point to go to that layer&apos;s first gradient.</source>
        <translation>点击一个点，跳到该层的第一个梯度。</translation>
    </message>
    <message>
        <source>‖∂L/∂θ‖₂</source>
        <translation>‖∂L/∂θ‖₂</translation>
    </message>
    <message>
        <source>layer (model order)</source>
        <translation>层（模型顺序）</translation>
    </message>
</context>
<context>
    <name>ObjectiveDialog</name>
    <message>
        <source>Backward</source>
        <translation>反向传播</translation>
    </message>
    <message>
        <source>Next-token loss over the prompt (the training loss)</source>
        <translation>整段提示的下一词元损失（训练损失）</translation>
    </message>
    <message>
        <source>Next-token loss at one position</source>
        <translation>某一位置的下一词元损失</translation>
    </message>
    <message>
        <source>logit(target) − logit(contrast) at a position</source>
        <translation>某一位置的 logit(目标) − logit(对照)</translation>
    </message>
    <message>
        <source>Sum of one stage&apos;s whole tensor</source>
        <translation>某一阶段整个张量之和</translation>
    </message>
    <message>
        <source>a word of the vocabulary, &apos; Paris&apos; or #123</source>
        <translation>词表中的一个词、&apos; Paris&apos; 或 #123</translation>
    </message>
    <message>
        <source>empty: the target&apos;s logit alone</source>
        <translation>留空：只取目标的 logit</translation>
    </message>
    <message>
        <source>Objective:</source>
        <translation>目标函数：</translation>
    </message>
    <message>
        <source>Position:</source>
        <translation>位置：</translation>
    </message>
    <message>
        <source>Target token:</source>
        <translation>目标词元：</translation>
    </message>
    <message>
        <source>Contrast token:</source>
        <translation>对照词元：</translation>
    </message>
    <message>
        <source>Stage summed:</source>
        <translation>求和的阶段：</translation>
    </message>
    <message>
        <source>A token is one the model reads as a single token (a vocabulary entry, a text such as &apos; Paris&apos;, or #ID); a position counts the {count} tokens from 0, and the loss at a position needs a token after it.</source>
        <translation>词元须是模型读作单个词元的内容（词表条目、&apos; Paris&apos; 这样的文本或 #ID）；位置从 0 起数这 {count} 个词元，某一位置的损失要求其后还有词元。</translation>
    </message>
    <message>
        <source>The pass has no stage to sum.</source>
        <translation>这次前向没有可求和的阶段。</translation>
    </message>
    <message>
        <source>Position {position} is the last token: nothing follows it to predict.</source>
        <translation>位置 {position} 是最后一个词元：其后没有可预测的词元。</translation>
    </message>
    <message>
        <source>A logit difference needs a target token.</source>
        <translation>logit 差需要一个目标词元。</translation>
    </message>
    <message>
        <source>Token id {token} is outside the logits&apos; {count} entries.</source>
        <translation>词元编号 {token} 超出了 logits 的 {count} 个条目。</translation>
    </message>
</context>
<context>
    <name>OverviewPanel</name>
    <message>
        <source>RMS</source>
        <translation>均方根</translation>
    </message>
    <message>
        <source>max |x|</source>
        <translation>最大 |x|</translation>
    </message>
    <message>
        <source>‖x‖₂</source>
        <translation>‖x‖₂</translation>
    </message>
    <message>
        <source>parameters&apos; ‖∂L/∂θ‖₂ per layer (backward)</source>
        <translation>每层参数的 ‖∂L/∂θ‖₂（反向传播）</translation>
    </message>
    <message>
        <source>max |Δ| of the last comparison</source>
        <translation>上一次对比的最大 |Δ|</translation>
    </message>
    <message>
        <source>relative error of the last comparison</source>
        <translation>上一次对比的相对误差</translation>
    </message>
    <message>
        <source>log scale</source>
        <translation>对数刻度</translation>
    </message>
    <message>
        <source>Click a point to go to its stage.</source>
        <translation>点击某个点可转到其阶段。</translation>
    </message>
    <message>
        <source>Per stage:</source>
        <translation>每个阶段：</translation>
    </message>
    <message>
        <source>Run Debug ▸ Backward (Ctrl+Shift+B) first: the parameters&apos; gradient norms are a backward&apos;s.</source>
        <translation>请先运行 调试 ▸ 反向传播（Ctrl+Shift+B）：参数的梯度范数来自反向传播。</translation>
    </message>
    <message>
        <source>stage (forward order)</source>
        <translation>阶段（前向顺序）</translation>
    </message>
    <message>
        <source>Cannot compute the overview: {why}</source>
        <translation>无法计算总览：{why}</translation>
    </message>
    <message>
        <source>Compare two passes first (File → Compare With…).</source>
        <translation>请先对比两次前向过程（文件 → 对比…）。</translation>
    </message>
    <message>
        <source>stage (backward order)</source>
        <translation>阶段（反向顺序）</translation>
    </message>
    <message>
        <source>The pass on screen has no stage {name}.</source>
        <translation>屏幕上的前向过程没有阶段 {name}。</translation>
    </message>
    <message>
        <source>not run</source>
        <translation>尚未运行</translation>
    </message>
    <message>
        <source>step {t}: {label}</source>
        <translation>第 {t} 步：{label}</translation>
    </message>
</context>
<context>
    <name>PairsBox</name>
    <message>
        <source>pairs: automatic</source>
        <translation>配对：自动</translation>
    </message>
    <message>
        <source>Which clean position goes into which corrupted one, as CLEAN:CORRUPTED pairs (e.g. 0:0,4:3; negative from the end). Empty: position by position, or for texts of different lengths the shared first tokens, then the rest from the end.</source>
        <translation>干净文本的哪个位置放入被破坏文本的哪个位置，写成 干净:被破坏 的配对（例如 0:0,4:3；负数从末尾数）。留空：逐位置对应；两段文本长度不同时，开头相同的词元按位置对应，其余从末尾对应。</translation>
    </message>
</context>
<context>
    <name>PassNotices</name>
    <message>
        <source>Not in the vocabulary (shown as &lt;unk&gt;): {words}.</source>
        <translation>不在词表中（显示为 &lt;unk&gt;）：{words}。</translation>
    </message>
    <message>
        <source>{word} (did you mean {close}?)</source>
        <translation>{word}（是不是{close}？）</translation>
    </message>
    <message>
        <source>Stopped at {stage}: breakpoint on {what}.</source>
        <translation>停在 {stage}：断点条件为 {what}。</translation>
    </message>
    <message>
        <source>The forward pass failed.</source>
        <translation>前向过程失败。</translation>
    </message>
    <message>
        <source>The pass finished; the first stage with a breakpoint hit is {stage} ({what}): the stages after it have already run.</source>
        <translation>前向过程已结束；第一个命中断点的阶段是 {stage}（{what}），其后的阶段已经运行过。</translation>
    </message>
    <message>
        <source>The forward pass finished.</source>
        <translation>前向过程已完成。</translation>
    </message>
</context>
<context>
    <name>PatchCanvas</name>
    <message>
        <source>{t} s</source>
        <translation>{t} 秒</translation>
    </message>
</context>
<context>
    <name>PatchOneView</name>
    <message>
        <source>Corrupted text:</source>
        <translation>被破坏的文本：</translation>
    </message>
    <message>
        <source>the clean text with one word changed</source>
        <translation>把干净文本改动一个词</translation>
    </message>
    <message>
        <source>The corrupted text&apos;s position (the clean one&apos;s where both texts have as many tokens)</source>
        <translation>被破坏文本中的位置（两段文本词元数相同时即干净文本中的位置）</translation>
    </message>
    <message>
        <source>Whole stage</source>
        <translation>整个阶段</translation>
    </message>
    <message>
        <source>One position</source>
        <translation>一个位置</translation>
    </message>
    <message>
        <source>One head</source>
        <translation>一个头</translation>
    </message>
    <message>
        <source>One head at one position</source>
        <translation>一个位置上的一个头</translation>
    </message>
    <message>
        <source>position</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>Patch and Continue</source>
        <translation>修补并继续</translation>
    </message>
    <message>
        <source>The stage on screen is taken from this (clean) pass into the corrupted text&apos;s pass, whole or in part, and the corrupted pass runs on from there. Recovered = (LD_patched − LD_corrupt) / (LD_clean − LD_corrupt), LD being logit(clean prediction) − logit(corrupted prediction) at the last position. The Compare dock then shows the corrupted pass (A) against the patched one (B): every stage the patch moved.</source>
        <translation>把屏幕上这个阶段的值从这次（干净的）前向传播中取出，整体或部分地放进被破坏文本的前向传播，然后被破坏的前向传播从那里继续运行。恢复比例 = (LD_patched − LD_corrupt) / (LD_clean − LD_corrupt)，其中 LD 是最后一个位置上 logit(干净预测) − logit(被破坏预测)。之后比较面板会把被破坏的前向传播（A）与修补后的（B）并排显示：修补改变了的每一个阶段。</translation>
    </message>
    <message>
        <source>Stage: {stage}</source>
        <translation>阶段：{stage}</translation>
    </message>
    <message>
        <source>Stage: none</source>
        <translation>阶段：无</translation>
    </message>
    <message>
        <source>This pass keeps no typed text, so there is nothing to patch into.</source>
        <translation>这次前向传播没有保存输入的文本，所以没有可以修补进去的前向传播。</translation>
    </message>
    <message>
        <source>Patching {stage} and running on…</source>
        <translation>正在修补 {stage} 并继续运行…</translation>
    </message>
    <message>
        <source>Patched {stage} ({scope}) into the corrupted pass and ran on. logit({target}) − logit({contrast}) at the last position: clean {clean:.4g}, corrupted {corrupt:.4g}, patched {patched:.4g}: {recovered:.2f} recovered. {moved} stages moved; the Compare dock shows them.</source>
        <translation>已把 {stage}（{scope}）修补进被破坏的前向传播并继续运行。最后一个位置上的 logit({target}) − logit({contrast})：干净 {clean:.4g}，被破坏 {corrupt:.4g}，修补后 {patched:.4g}：恢复了 {recovered:.2f}。有 {moved} 个阶段发生了变化，比较面板中可以看到它们。</translation>
    </message>
    <message>
        <source>the corrupted pass</source>
        <translation>被破坏的前向传播</translation>
    </message>
    <message>
        <source>the corrupted pass with {stage} patched ({scope})</source>
        <translation>修补了 {stage}（{scope}）的被破坏前向传播</translation>
    </message>
</context>
<context>
    <name>PatchingView</name>
    <message>
        <source>Corrupted text:</source>
        <extracomment>the choices of the `across` box, in its order (sessions.patching.ACROSS; torch is not imported with the window)</extracomment>
        <translation>被破坏的文本：</translation>
    </message>
    <message>
        <source>Residual cells</source>
        <translation>残差单元</translation>
    </message>
    <message>
        <source>Attention heads</source>
        <translation>注意力头</translation>
    </message>
    <message>
        <source>Heads × positions</source>
        <translation>头 × 位置</translation>
    </message>
    <message>
        <source>What each cell patches: a residual row at one position, one head&apos;s output (its P·V at every position) in one attention, or one head&apos;s output at one position</source>
        <translation>每个单元修补的内容：某一位置上的一行残差，某个注意力中一个头的输出（它在每个位置上的 P·V），或一个头在某一位置上的输出</translation>
    </message>
    <message>
        <source>Attention:</source>
        <translation>注意力：</translation>
    </message>
    <message>
        <source>The attention whose heads × positions are shown (first: the one with the cell that recovers most)</source>
        <translation>显示其头 × 位置的注意力（最初显示：含恢复最多的单元的那个）</translation>
    </message>
    <message>
        <source>Sweeping: {n} cells…</source>
        <translation>扫描中：共 {n} 个单元…</translation>
    </message>
    <message>
        <source>Sweeping: {done} of {total} cells…</source>
        <translation>扫描中：第 {done} / {total} 个单元…</translation>
    </message>
    <message>
        <source>logit({target}) − logit({contrast}) at the last position: clean {clean:.4g}, corrupted {corrupt:.4g}. Each cell: the fraction recovered, (LD_patched − LD_corrupt) / (LD_clean − LD_corrupt); {n} cells in {m} forwards of {b}.</source>
        <translation>最后一个位置的 logit({target}) − logit({contrast})：干净 {clean:.4g}，被破坏 {corrupt:.4g}。每个单元：恢复的比例 (LD_patched − LD_corrupt) / (LD_clean − LD_corrupt)；{n} 个单元，分 {m} 次前向运行，每次 {b} 个。</translation>
    </message>
    <message>
        <source>The clean text has {n} tokens and the corrupted one {m}: {k} positions pair up; the columns are the corrupted text&apos;s, blank where a position pairs with none.</source>
        <translation>干净文本有 {n} 个词元，被破坏文本有 {m} 个：{k} 个位置配对；各列是被破坏文本的位置，没有配对的位置留空。</translation>
    </message>
    <message>
        <source>Position {p} of the corrupted text pairs with no position of the clean one.</source>
        <translation>被破坏文本的位置 {p} 没有与干净文本的任何位置配对。</translation>
    </message>
    <message>
        <source>Sweep</source>
        <translation>扫描</translation>
    </message>
    <message>
        <source>the clean text with one word changed</source>
        <translation>把干净文本改动一个词</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Activation patching runs a clean and a corrupted text, puts one cell of the clean run into the corrupted one and measures how much of the answer comes back: (LD_patched − LD_corrupt) / (LD_clean − LD_corrupt). A cell near 1 carries the difference; near 0, it does not matter.</source>
        <translation>激活修补分别运行干净文本和被破坏的文本，把干净运行中的一个单元放进被破坏的运行，再看答案恢复了多少：(LD_patched − LD_corrupt) / (LD_clean − LD_corrupt)。接近 1 的单元承载了这个差别；接近 0 的则无关紧要。</translation>
    </message>
    <message>
        <source>The pass on screen is the clean one. Type a corrupted text and press Sweep: each residual cell of the clean pass is put into the corrupted one in turn.</source>
        <translation>屏幕上的前向是干净的那次。输入被破坏的文本并按“扫描”：干净前向的每个残差单元会依次放进被破坏的前向。</translation>
    </message>
    <message>
        <source>The sweep was cancelled.</source>
        <translation>扫描已取消。</translation>
    </message>
</context>
<context>
    <name>PlacementPicker</name>
    <message>
        <source>on</source>
        <translation>，设备</translation>
    </message>
    <message>
        <source>attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <source>weights from</source>
        <translation>权重来自</translation>
    </message>
    <message>
        <source>the model on screen, or another folder of its weights</source>
        <translation>屏幕上的模型，或其权重的另一个文件夹</translation>
    </message>
</context>
<context>
    <name>PlaygroundDialog</name>
    <message>
        <source>Attention Playground</source>
        <translation>注意力演练场</translation>
    </message>
    <message>
        <source>apple</source>
        <translation>苹果</translation>
    </message>
    <message>
        <source>banana</source>
        <translation>香蕉</translation>
    </message>
    <message>
        <source>chair</source>
        <translation>椅子</translation>
    </message>
    <message>
        <source>q (fruit)</source>
        <translation>q（水果）</translation>
    </message>
    <message>
        <source>dim {n}</source>
        <translation>第 {n} 维</translation>
    </message>
    <message>
        <source>Query q</source>
        <translation>查询 q</translation>
    </message>
    <message>
        <source>Keys K</source>
        <translation>键 K</translation>
    </message>
    <message>
        <source>Values V</source>
        <translation>值 V</translation>
    </message>
    <message>
        <source>Scores, weights and output</source>
        <translation>分数、权重和输出</translation>
    </message>
    <message>
        <source>Divide the scores by √d_k</source>
        <translation>分数除以 √d_k</translation>
    </message>
    <message>
        <source>Scaled dot-product attention: softmax(q·Kᵀ / √d_k)·V, with d_k the length of q and of every key</source>
        <translation>缩放点积注意力：softmax(q·Kᵀ / √d_k)·V，d_k 是 q 和每个键的长度</translation>
    </message>
    <message>
        <source>The Notes&apos; Example</source>
        <translation>笔记中的例子</translation>
    </message>
    <message>
        <source>Put back q, K and V as the notes give them</source>
        <translation>把 q、K、V 恢复成笔记中的数值</translation>
    </message>
    <message>
        <source>score q·k</source>
        <translation>分数 q·k</translation>
    </message>
    <message>
        <source>scaled</source>
        <translation>缩放后</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>About the notes: they round the unscaled weights to {rounded} and multiply those, which gives {printed}. The exact weights of their example are {weights} and the output {output}; with ÷√2 they are {scaled_weights} and {scaled_output}.</source>
        <translation>关于笔记：笔记把未缩放的权重四舍五入为 {rounded} 再相乘，于是得到 {printed}。这个例子的精确权重是 {weights}，输出是 {output}；除以 √2 后分别是 {scaled_weights} 和 {scaled_output}。</translation>
    </message>
    <message>
        <source>A cell is not a number (marked in red): the figures below are from the last table that was.</source>
        <translation>有一个格子不是数字（红色标出）：下面的数值来自上一次有效的表格。</translation>
    </message>
    <message>
        <source>scores ÷ √{d_k}</source>
        <translation>分数 ÷ √{d_k}</translation>
    </message>
    <message>
        <source>scores</source>
        <translation>分数</translation>
    </message>
    <message>
        <source>weights w = softmax({scores}) = {weights}   (sum {total})
output w·V = {output}</source>
        <translation>权重 w = softmax({scores}) = {weights}   （和 {total}）
输出 w·V = {output}</translation>
    </message>
</context>
<context>
    <name>PositionalEncodingView</name>
    <message>
        <source>sin</source>
        <translation>正弦</translation>
    </message>
    <message>
        <source>cos</source>
        <translation>余弦</translation>
    </message>
    <message>
        <source>dim {d} ({wave})</source>
        <translation>第 {d} 维（{wave}）</translation>
    </message>
    <message>
        <source>Positional Encoding Curves: {name}</source>
        <translation>位置编码曲线：{name}</translation>
    </message>
    <message>
        <source>First dimension</source>
        <translation>起始维度</translation>
    </message>
    <message>
        <source>position</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>PE[pos, dim]</source>
        <translation>PE[位置, 维度]</translation>
    </message>
</context>
<context>
    <name>PredictionView</name>
    <message>
        <source>The position whose prediction is listed (the last one predicts the next word)</source>
        <translation>列出其预测的位置（最后一个位置预测下一个词）</translation>
    </message>
    <message>
        <source>Next token</source>
        <translation>下一个词元</translation>
    </message>
    <message>
        <source>Probability</source>
        <translation>概率</translation>
    </message>
    <message>
        <source>Prediction</source>
        <translation>预测</translation>
    </message>
    <message>
        <source>after &apos;{token}&apos; (position {i})</source>
        <translation>“{token}”之后（位置 {i}）</translation>
    </message>
    <message>
        <source>after position {i}</source>
        <translation>在位置 {i} 之后</translation>
    </message>
</context>
<context>
    <name>QAbstractFileIconProvider</name>
    <message>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>Drive</source>
        <translation>驱动器</translation>
    </message>
</context>
<context>
    <name>QFileDialog</name>
    <message>
        <source>&amp;Look in:</source>
        <translation>查找范围(&amp;L)：</translation>
    </message>
    <message>
        <source>Files of &amp;type:</source>
        <translation>文件类型(&amp;T)：</translation>
    </message>
</context>
<context>
    <name>QueryRowPanel</name>
    <message>
        <source>Click a row of the heatmap to plot that query&apos;s weights over every key.</source>
        <translation>点击热力图的一行，绘制该查询在所有键上的权重。</translation>
    </message>
    <message>
        <source>This stage&apos;s values are not here to read.</source>
        <translation>此阶段的数值不在本地，无法读取。</translation>
    </message>
    <message>
        <source>{stage} · row {row}{token} over {n} columns · masked keys left out</source>
        <translation>{stage} · 第 {row} 行{token}，共 {n} 列 · 已略去被遮蔽的键</translation>
    </message>
    <message>
        <source>Strongest {k}:</source>
        <translation>最强的 {k} 个：</translation>
    </message>
</context>
<context>
    <name>ReferenceTools</name>
    <message>
        <source>{dtype} on {device}</source>
        <translation>{dtype}，设备 {device}</translation>
    </message>
    <message>
        <source>{placement}, {kernel} attention</source>
        <translation>{placement}，{kernel} 注意力</translation>
    </message>
    <message>
        <source>{placement}, weights from {model}</source>
        <translation>{placement}，权重来自 {model}</translation>
    </message>
    <message>
        <source>A reference pass needs one live pass of a model: run a pass first (a snapshot or a generation has none).</source>
        <extracomment>what the divergence condition compares with (set by the condition dialog)</extracomment>
        <translation>参考前向过程需要一个模型的实时前向过程：请先运行一次（快照或生成过程没有）。</translation>
    </message>
    <message>
        <source>The reference would run as the pass on screen does ({placement}): choose another dtype, device, attention kernel or folder of weights.</source>
        <translation>参考前向会与屏幕上的前向完全相同（{placement}）：请选择另一种数据类型、设备、注意力内核或权重文件夹。</translation>
    </message>
    <message>
        <source>The reference pass failed; the details say why.</source>
        <translation>参考前向过程失败；原因见详情。</translation>
    </message>
    <message>
        <source>Computing the reference pass ({placement}) off the window&apos;s thread…</source>
        <translation>正在窗口线程之外计算参考前向过程（{placement}）…</translation>
    </message>
    <message>
        <source>The reference pass ({placement}) keeps {kept} stages ({held}) within the {limit} capture budget; the {left} others, from {first} on, are not compared.</source>
        <translation>参考前向过程（{placement}）在 {limit} 的捕获预算内保留了 {kept} 个阶段（{held}）；从 {first} 起的其余 {left} 个阶段不参与对比。</translation>
    </message>
    <message>
        <source>The reference pass ({placement}) is ready: {kept} stages, {held} on the host.</source>
        <translation>参考前向过程（{placement}）已就绪：{kept} 个阶段，主机内存中 {held}。</translation>
    </message>
    <message>
        <source>the reference pass ({placement})</source>
        <translation>参考前向过程（{placement}）</translation>
    </message>
</context>
<context>
    <name>RemoteTools</name>
    <message>
        <source>connecting…</source>
        <translation>正在连接…</translation>
    </message>
    <message>
        <source>Could not connect to the server.</source>
        <translation>无法连接到服务器。</translation>
    </message>
    <message>
        <source>Connected to {host}: the model runs there.</source>
        <translation>已连接到 {host}：模型在那里运行。</translation>
    </message>
    <message>
        <source>The server could not start the pass.</source>
        <translation>服务器无法开始这一遍。</translation>
    </message>
    <message>
        <source>connection lost</source>
        <translation>连接已断开</translation>
    </message>
    <message>
        <source>Could not reconnect to the server.</source>
        <translation>无法重新连接到服务器。</translation>
    </message>
    <message>
        <source>The server could not write the snapshot.</source>
        <translation>服务器无法写入快照。</translation>
    </message>
    <message>
        <source>The server wrote {path} ({size}).</source>
        <translation>服务器已写入 {path}（{size}）。</translation>
    </message>
    <message>
        <source>Export Snapshot on Server</source>
        <translation>在服务器上导出快照</translation>
    </message>
    <message>
        <source>File name in the server&apos;s export folder:</source>
        <translation>服务器导出文件夹中的文件名：</translation>
    </message>
    <message>
        <source>Reconnected to {host}.</source>
        <translation>已重新连接到 {host}。</translation>
    </message>
</context>
<context>
    <name>ShapePanel</name>
    <message>
        <source> and </source>
        <translation> 和 </translation>
    </message>
    <message>
        <source>No stage yet.</source>
        <translation>还没有阶段。</translation>
    </message>
    <message>
        <source>Shape</source>
        <translation>形状</translation>
    </message>
    <message>
        <source>dtype</source>
        <translation>数据类型</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>Bytes</source>
        <translation>字节数</translation>
    </message>
    <message>
        <source>From</source>
        <translation>来自</translation>
    </message>
    <message>
        <source>the token ids (a lookup in the embedding table)</source>
        <translation>词元 id（在嵌入表中查找）</translation>
    </message>
    <message>
        <source>Formula</source>
        <translation>公式</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>源代码</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>Check</source>
        <translation>校验</translation>
    </message>
    <message>
        <source>kind {kind} · site {site}</source>
        <translation>类型 {kind} · 位置 {site}</translation>
    </message>
    <message>
        <source> · layer {layer}</source>
        <translation> · 第 {layer} 层</translation>
    </message>
    <message>
        <source>verified in the pass against the model&apos;s own attention function on the same inputs: exactly equal</source>
        <translation>已在前向中对照模型自身的注意力函数（相同输入）验证：完全相等</translation>
    </message>
    <message>
        <source>verified against the unmodified model: exactly equal</source>
        <translation>已与未修改的模型核对：完全相等</translation>
    </message>
    <message>
        <source>verified against the unmodified model: max |Δ| {diff} (the model&apos;s own noise {tol})</source>
        <translation>已与未修改的模型核对：最大 |Δ| {diff}（模型自身的噪声 {tol}）</translation>
    </message>
    <message>
        <source>differs from the model&apos;s own attention function on the same inputs: max |Δ| {diff}</source>
        <translation>与模型自身的注意力函数（相同输入）不同：最大 |Δ| {diff}</translation>
    </message>
    <message>
        <source>differs from the unmodified model: max |Δ| {diff} (tolerance {tol})</source>
        <translation>与未修改的模型不一致：最大 |Δ| {diff}（容差 {tol}）</translation>
    </message>
    <message>
        <source>unchecked: the check in the pass compares attention only (Debug ▸ Check Against the Model ▸ When It Fits compares this stage too)</source>
        <translation>未检查：前向中的检查只比较注意力（调试 ▸ 与模型核对 ▸ 内存够用时 也会比较此阶段）</translation>
    </message>
    <message>
        <source>unchecked: the unmodified model returns nothing to compare this stage with</source>
        <translation>未校验：未修改的模型没有返回可与此阶段比较的结果</translation>
    </message>
    <message>
        <source>the first stage of the pass that differs</source>
        <translation>这是本次前向传播中第一个不一致的阶段</translation>
    </message>
    <message>
        <source>the first stage that differs is {name}</source>
        <translation>第一个不一致的阶段是 {name}</translation>
    </message>
</context>
<context>
    <name>ShownStage</name>
    <message>
        <source>Cannot summarise {name}: {why}</source>
        <translation>无法汇总 {name}：{why}</translation>
    </message>
    <message>
        <source>Cannot show this slice of {name}: {why}</source>
        <translation>无法显示 {name} 的这个切片：{why}</translation>
    </message>
    <message>
        <source>Cannot draw the heads of {name}: {why}</source>
        <translation>无法绘制 {name} 的注意力头：{why}</translation>
    </message>
    <message>
        <source>Cannot read this part of {name}: {why}</source>
        <translation>无法读取 {name} 的这一部分：{why}</translation>
    </message>
</context>
<context>
    <name>SnapshotActions</name>
    <message>
        <source>Cannot open {path}: {reason}.</source>
        <translation>无法打开 {path}：{reason}。</translation>
    </message>
    <message>
        <source>the file could not be read</source>
        <translation>无法读取该文件</translation>
    </message>
    <message>
        <source>Open Snapshot</source>
        <translation>打开快照</translation>
    </message>
    <message>
        <source>Recorded passes ({patterns});;All files (*)</source>
        <translation>录制的前向过程 ({patterns});;所有文件 (*)</translation>
    </message>
    <message>
        <source>A model or snapshot is still loading: open {name} once it is on screen.</source>
        <translation>模型或快照仍在加载：等它显示出来后再打开 {name}。</translation>
    </message>
    <message>
        <source>A backward pass: each stage&apos;s gradient of {objective} (loss {loss:.5g}), logits first.</source>
        <translation>反向传播：每个阶段对 {objective} 的梯度（损失 {loss:.5g}），从 logits 开始。</translation>
    </message>
    <message>
        <source>Drop a recorded pass ({suffixes}) on the window to open it.</source>
        <translation>把录制的前向过程（{suffixes}）拖到窗口上即可打开。</translation>
    </message>
    <message>
        <source>No recent snapshots</source>
        <translation>没有最近打开的快照</translation>
    </message>
</context>
<context>
    <name>SourcePicker</name>
    <message>
        <source>The pass on screen</source>
        <translation>屏幕上的前向过程</translation>
    </message>
    <message>
        <source>The pass before the last edit</source>
        <translation>上一次编辑之前的前向过程</translation>
    </message>
    <message>
        <source>A snapshot or export file</source>
        <translation>快照或导出文件</translation>
    </message>
    <message>
        <source>Another input on the same model</source>
        <translation>同一模型上的另一个输入</translation>
    </message>
    <message>
        <source>This input in another dtype or on another device</source>
        <translation>此输入，换一种数据类型或设备</translation>
    </message>
    <message>
        <source>a .safetensors snapshot, or a .npz / .pt export</source>
        <translation>.safetensors 快照，或 .npz / .pt 导出文件</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>a snapshot&apos;s file name in the server&apos;s export folder</source>
        <translation>服务器导出文件夹中快照的文件名</translation>
    </message>
    <message>
        <source>A recorded pass</source>
        <translation>录制的前向过程</translation>
    </message>
</context>
<context>
    <name>StatsPanel</name>
    <message>
        <source>min</source>
        <translation>最小值</translation>
    </message>
    <message>
        <source>max</source>
        <translation>最大值</translation>
    </message>
    <message>
        <source>mean</source>
        <translation>均值</translation>
    </message>
    <message>
        <source>std</source>
        <translation>标准差</translation>
    </message>
    <message>
        <source>count</source>
        <translation>个数</translation>
    </message>
    <message>
        <source>NaN</source>
        <translation>非数</translation>
    </message>
    <message>
        <source>+Inf</source>
        <translation>正无穷</translation>
    </message>
    <message>
        <source>−Inf</source>
        <translation>负无穷</translation>
    </message>
    <message>
        <source>stage tensor</source>
        <translation>阶段张量</translation>
    </message>
    <message>
        <source>shown slice</source>
        <translation>显示的切片</translation>
    </message>
    <message>
        <source>value</source>
        <translation>数值</translation>
    </message>
    <message>
        <source>{name} holds {held}, above the {limit} read in full: only the heatmap&apos;s slice is read and summarised; the whole-tensor column stays empty.</source>
        <translation>{name} 占用 {held}，超过完整读取的上限 {limit}：只读取并统计热图的切片；整个张量一栏留空。</translation>
    </message>
    <message>
        <source>{dtype}: largest {max}, smallest normal {tiny}, eps {eps}</source>
        <translation>{dtype}：最大值 {max}，最小正规数 {tiny}，机器精度 {eps}</translation>
    </message>
</context>
<context>
    <name>Stepping</name>
    <message>
        <source>Nothing is loaded yet: press Run.</source>
        <translation>尚未载入任何内容：请按“运行”。</translation>
    </message>
    <message>
        <source>This generation has no step {0}.</source>
        <translation>这次生成没有第 {0} 步。</translation>
    </message>
</context>
<context>
    <name>TokenStrip</name>
    <message>
        <source>{0}: prompt, fed at step 0</source>
        <translation>{0}：提示词，在第 0 步输入</translation>
    </message>
    <message>
        <source>{0}: chosen at step {1}</source>
        <translation>{0}：在第 {1} 步选出</translation>
    </message>
    <message>
        <source>Probabilities are not recorded in a snapshot.</source>
        <translation>快照中不记录概率。</translation>
    </message>
    <message>
        <source>Top {0} alternatives:</source>
        <translation>前 {0} 个候选：</translation>
    </message>
</context>
<context>
    <name>ValuesPanel</name>
    <message>
        <source>Nothing to show yet.</source>
        <translation>暂无可显示的内容。</translation>
    </message>
    <message>
        <source>The shown slice has {cells} cells; the table lists slices of at most {most}. Pick smaller axes or read values by hovering over the heatmap.</source>
        <translation>显示的切片有 {cells} 个单元格；表格最多列出 {most} 个单元格的切片。请选择更小的轴，或把鼠标悬停在热力图上读取数值。</translation>
    </message>
    <message>
        <source>{rows} × {cols} values</source>
        <translation>{rows} × {cols} 个数值</translation>
    </message>
</context>
<context>
    <name>WhyPanel</name>
    <message>
        <source>Lens</source>
        <translation>透镜</translation>
    </message>
    <message>
        <source>Attribution</source>
        <translation>归因</translation>
    </message>
    <message>
        <source>Patching</source>
        <translation>修补</translation>
    </message>
    <message>
        <source>Patch Stage</source>
        <translation>修补阶段</translation>
    </message>
</context>
<context>
    <name>WhyReader</name>
    <message>
        <source>No pass is loaded.</source>
        <translation>尚未加载前向过程。</translation>
    </message>
    <message>
        <source>Reading the pass…</source>
        <translation>正在读取这次前向传播…</translation>
    </message>
</context>
<context>
    <name>actions</name>
    <message>
        <source>Not available for a recorded pass: there is no model to run. Open the model to run it live.</source>
        <translation>录制的前向过程不可用：没有可运行的模型。请打开模型以实时运行。</translation>
    </message>
    <message>
        <source>Continue</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Run to the next breakpoint, or to the end</source>
        <translation>运行到下一个断点或结束</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>单步</translation>
    </message>
    <message>
        <source>Next stage</source>
        <translation>下一个阶段</translation>
    </message>
    <message>
        <source>Step Into</source>
        <translation>步入</translation>
    </message>
    <message>
        <source>Into the next block (attention, FFN, layer): its first stage</source>
        <translation>进入下一个模块（注意力、FFN、层）的第一个阶段</translation>
    </message>
    <message>
        <source>Step Out</source>
        <translation>步出</translation>
    </message>
    <message>
        <source>Run to the first stage after the current block</source>
        <translation>运行到当前模块之后的第一个阶段</translation>
    </message>
    <message>
        <source>Step Back</source>
        <translation>后退</translation>
    </message>
    <message>
        <source>Previous captured stage (nothing runs again)</source>
        <translation>上一个已捕获的阶段（不会重新运行）</translation>
    </message>
    <message>
        <source>Run to Stage</source>
        <translation>运行到阶段</translation>
    </message>
    <message>
        <source>Run to the stage selected in the navigator</source>
        <translation>运行到导航栏中选中的阶段</translation>
    </message>
    <message>
        <source>Select a stage in the navigator first.</source>
        <translation>请先在导航栏中选择一个阶段。</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Pause a running pass at the next stage</source>
        <translation>在下一个阶段暂停正在运行的前向过程</translation>
    </message>
    <message>
        <source>Restart</source>
        <translation>重新开始</translation>
    </message>
    <message>
        <source>Run this pass again from the first stage</source>
        <translation>从第一个阶段重新运行这次前向过程</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>End the pass; captured stages stay viewable</source>
        <translation>结束前向过程；已捕获的阶段仍可查看</translation>
    </message>
    <message>
        <source>Next Token</source>
        <translation>下一个词元</translation>
    </message>
    <message>
        <source>Run to the end of this generation step: the next step reads the token it chose</source>
        <translation>运行到本生成步结束：下一步读取本步选出的词元</translation>
    </message>
    <message>
        <source>Run to Token…</source>
        <translation>运行到词元…</translation>
    </message>
    <message>
        <source>Run until generated token N has been chosen</source>
        <translation>运行到第 N 个生成的词元选出为止</translation>
    </message>
    <message>
        <source>Run to Token</source>
        <translation>运行到词元</translation>
    </message>
    <message>
        <source>Generated token number (1 = the first):</source>
        <translation>生成词元的序号（1 = 第一个）：</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Load the model and run the input bar&apos;s sentence pair</source>
        <translation>加载模型并运行输入栏中的句子</translation>
    </message>
    <message>
        <source>Generate</source>
        <translation>生成</translation>
    </message>
    <message>
        <source>Generate token by token from the input bar&apos;s texts (KV cache); Next Token (Ctrl+T) steps by token, Debug ▸ Decoding Settings… chooses how</source>
        <translation>从输入栏的文本逐个词元生成（KV 缓存）；“下一个词元”（Ctrl+T）按词元单步，“调试 ▸ 解码设置…”选择生成方式</translation>
    </message>
    <message>
        <source>New Live Pass</source>
        <translation>新的实时前向过程</translation>
    </message>
    <message>
        <source>Leave the recorded pass and run the input bar&apos;s sentence pair live</source>
        <translation>离开录制的前向过程，实时运行输入栏中的句子</translation>
    </message>
    <message>
        <source>New Session</source>
        <translation>新会话</translation>
    </message>
    <message>
        <source>Start again from the defaults: the demo&apos;s first example on this machine&apos;s default device and precision, as the first start shows it</source>
        <translation>从默认设置重新开始：演示模型的第一个示例，使用本机默认的设备和精度，与首次启动时相同</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <source>Close the window (a running pass is stopped)</source>
        <translation>关闭窗口（正在运行的前向过程会被停止）</translation>
    </message>
    <message>
        <source>Conditions…</source>
        <translation>条件断点…</translation>
    </message>
    <message>
        <source>Break on a NaN, an Inf outside masked cells, or a large value</source>
        <translation>遇到 NaN、掩码之外的 Inf 或过大的数值时暂停</translation>
    </message>
    <message>
        <source>Toggle Breakpoint</source>
        <translation>切换断点</translation>
    </message>
    <message>
        <source>Stop at the selected stage (or the one on screen), or stop stopping there</source>
        <translation>在选中的阶段（或当前显示的阶段）设置断点，或取消该断点</translation>
    </message>
    <message>
        <source>Clear All Breakpoints</source>
        <translation>清除所有断点</translation>
    </message>
    <message>
        <source>Remove every stage, kind and condition breakpoint</source>
        <translation>移除所有阶段断点、类型断点和条件断点</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Export the pass (snapshot, NumPy, PyTorch) or the heatmap (CSV, PNG, SVG)</source>
        <translation>导出前向过程（快照、NumPy、PyTorch）或热力图（CSV、PNG、SVG）</translation>
    </message>
    <message>
        <source>Open Snapshot…</source>
        <translation>打开快照…</translation>
    </message>
    <message>
        <source>Open a recorded pass (.safetensors) and replay it</source>
        <translation>打开一个已记录的前向过程（.safetensors）并回放</translation>
    </message>
    <message>
        <source>Clear Recent</source>
        <translation>清除最近记录</translation>
    </message>
    <message>
        <source>Forget the recently opened snapshots</source>
        <translation>清除最近打开的快照列表</translation>
    </message>
    <message>
        <source>Compare With…</source>
        <translation>对比…</translation>
    </message>
    <message>
        <source>Compare two passes stage by stage and find the first stage where they diverge</source>
        <translation>逐阶段对比两次前向过程，找出第一个出现分歧的阶段</translation>
    </message>
    <message>
        <source>Edit Tensor…</source>
        <translation>编辑张量…</translation>
    </message>
    <message>
        <source>Change the paused stage&apos;s tensor: a cell, row, column, head or slice; Continue runs on it</source>
        <translation>修改当前暂停阶段的张量：一个单元格、一行、一列、一个头或一个切片；“继续”会在其基础上运行</translation>
    </message>
    <message>
        <source>Undo Edit</source>
        <translation>撤销编辑</translation>
    </message>
    <message>
        <source>Take back the last edit of the paused stage</source>
        <translation>撤销对当前暂停阶段的上一次编辑</translation>
    </message>
    <message>
        <source>Explain</source>
        <translation>讲解</translation>
    </message>
    <message>
        <source>Show the Explain panel: what this stage does and what to look for</source>
        <translation>显示讲解面板：这个阶段做什么、该看什么</translation>
    </message>
    <message>
        <source>Attention Playground…</source>
        <translation>注意力演练场…</translation>
    </message>
    <message>
        <source>The notes&apos; toy attention example as tables you can edit</source>
        <translation>笔记中的玩具注意力示例，以可编辑的表格呈现</translation>
    </message>
    <message>
        <source>Decoding Settings…</source>
        <translation>解码设置…</translation>
    </message>
    <message>
        <source>How Generate chooses each token (greedy or sampled) and when it stops</source>
        <translation>“生成”如何选择每个词元（贪心或采样）以及何时停止</translation>
    </message>
    <message>
        <source>Connect to Server…</source>
        <translation>连接到服务器…</translation>
    </message>
    <message>
        <source>Step through a model that tfdebug serve runs on another machine</source>
        <translation>逐步调试另一台机器上由 tfdebug serve 运行的模型</translation>
    </message>
    <message>
        <source>Reconnect</source>
        <translation>重新连接</translation>
    </message>
    <message>
        <source>Attach again to the server whose connection was lost</source>
        <translation>重新连接到断开的服务器</translation>
    </message>
    <message>
        <source>Export Snapshot on Server…</source>
        <translation>在服务器上导出快照…</translation>
    </message>
    <message>
        <source>Write the pass as a snapshot into the server&apos;s export folder, where the model runs (File ▸ Export… writes it on this machine)</source>
        <translation>把这一遍作为快照写入服务器的导出文件夹，即模型运行之处（文件 ▸ 导出… 则写到本机）</translation>
    </message>
    <message>
        <source>Models…</source>
        <translation>模型…</translation>
    </message>
    <message>
        <source>The bundled models and those in the Hugging Face cache, with their architecture, size and support; download one</source>
        <translation>附带的模型和 Hugging Face 缓存中的模型，及其架构、大小和是否支持；可下载模型</translation>
    </message>
    <message>
        <source>Model View</source>
        <translation>模型总览</translation>
    </message>
    <message>
        <source>Show or hide every layer × head of one stage kind as thumbnails</source>
        <translation>以缩略图显示或隐藏某一阶段类型的所有层 × 头</translation>
    </message>
    <message>
        <source>Fit</source>
        <translation>适应窗口</translation>
    </message>
    <message>
        <source>Show the whole slice in the heatmap (zoom with the wheel or + and −, pan by dragging or with the arrow keys)</source>
        <translation>在热力图中显示整个切片（用滚轮或 + 和 − 缩放，拖动或用方向键平移）</translation>
    </message>
    <message>
        <source>Query Row</source>
        <translation>查询行</translation>
    </message>
    <message>
        <source>Show or hide one query&apos;s weights over every key (click a heatmap row to pick it; by default the last row in view)</source>
        <translation>显示或隐藏一个查询在所有键上的权重（点击热力图的一行选择它；默认为视图中的最后一行）</translation>
    </message>
    <message>
        <source>Batch…</source>
        <translation>批量输入…</translation>
    </message>
    <message>
        <source>More texts for the first input, one per line: Run pads them with the text in the input bar into one batch</source>
        <translation>第一个输入的更多文本，每行一条：运行时与输入栏中的文本一起填充成一个批</translation>
    </message>
    <message>
        <source>Image</source>
        <translation>图像</translation>
    </message>
    <message>
        <source>Show or hide the picture a vision model saw, with a query&apos;s attention over its patches (click a patch to pick its row)</source>
        <translation>显示或隐藏视觉模型看到的图片，以及某个查询在各图块上的注意力（点击图块可选中它所在的行）</translation>
    </message>
    <message>
        <source>Why This Output</source>
        <translation>为何是这个输出</translation>
    </message>
    <message>
        <source>Show or hide the logit lens and the attribution of the finished pass</source>
        <translation>显示或隐藏已完成前向的 logit 透镜与归因</translation>
    </message>
    <message>
        <source>Backward</source>
        <translation>反向传播</translation>
    </message>
    <message>
        <source>Backpropagate an objective of the finished pass (the next-token loss, the loss at a position, a logit difference or a stage&apos;s sum) and step through every stage&apos;s gradient in backward order</source>
        <translation>对已完成前向的一个目标函数（下一词元损失、某一位置的损失、logit 差或某一阶段之和）做反向传播，并按反向顺序逐个查看每个阶段的梯度</translation>
    </message>
</context>
<context>
    <name>axes</name>
    <message>
        <source>batch</source>
        <translation>批次</translation>
    </message>
    <message>
        <source>expert</source>
        <translation>专家</translation>
    </message>
    <message>
        <source>frame</source>
        <translation>帧</translation>
    </message>
    <message>
        <source>head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>head_dim</source>
        <translation>头维度</translation>
    </message>
    <message>
        <source>hidden</source>
        <translation>隐藏维度</translation>
    </message>
    <message>
        <source>image</source>
        <translation>图像</translation>
    </message>
    <message>
        <source>key</source>
        <translation>键</translation>
    </message>
    <message>
        <source>mel</source>
        <translation>梅尔频带</translation>
    </message>
    <message>
        <source>model</source>
        <translation>模型维度</translation>
    </message>
    <message>
        <source>query</source>
        <translation>查询</translation>
    </message>
    <message>
        <source>text</source>
        <translation>文本</translation>
    </message>
    <message>
        <source>token</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>vocab</source>
        <translation>词表</translation>
    </message>
</context>
<context>
    <name>backward</name>
    <message>
        <source>{why} The pass stays on screen as it was.</source>
        <translation>{why} 该次前向传播仍按原样显示在屏幕上。</translation>
    </message>
    <message>
        <source>The gradient first went non-finite at {stage} (loss {loss:.5g}).</source>
        <translation>梯度首次出现非有限值的阶段是 {stage}（损失 {loss:.5g}）。</translation>
    </message>
    <message>
        <source>Backward: loss {loss:.5g}, peak stated before it ran {peak}; every stage&apos;s gradient in backward order (F10 steps, F5 runs to a breakpoint).</source>
        <translation>反向传播：损失 {loss:.5g}，运行前声明的峰值 {peak}；按反向顺序查看每个阶段的梯度（F10 单步，F5 运行到断点）。</translation>
    </message>
    <message>
        <source>Backward: loss {loss:.5g}; every stage&apos;s gradient in backward order (F10 steps, F5 runs to a breakpoint).</source>
        <translation>反向传播：损失 {loss:.5g}；按反向顺序查看每个阶段的梯度（F10 单步，F5 运行到断点）。</translation>
    </message>
    <message>
        <source>{why} The pass&apos;s captures were let go to make room for the backward: Run (Ctrl+Return) runs the pass again.</source>
        <translation>{why} 为给反向传播腾出内存，已释放该次前向传播的捕获：运行（Ctrl+Return）会重新运行该次前向传播。</translation>
    </message>
    <message>
        <source>Running the backward pass…</source>
        <translation>正在运行反向传播…</translation>
    </message>
    <message>
        <source>Running the backward pass (peak stated before it runs: {peak}); the pass&apos;s captures were let go to make room for it…</source>
        <translation>正在运行反向传播（运行前声明的峰值：{peak}）；已释放该次前向传播的捕获，为其腾出内存…</translation>
    </message>
</context>
<context>
    <name>breakpoints</name>
    <message>
        <source>stage {name}</source>
        <translation>阶段 {name}</translation>
    </message>
    <message>
        <source>every {kind}</source>
        <translation>每个“{kind}”</translation>
    </message>
    <message>
        <source>contains NaN</source>
        <translation>含有 NaN</translation>
    </message>
    <message>
        <source>contains ±Inf outside masked cells</source>
        <translation>在掩码单元格之外含有 ±Inf</translation>
    </message>
    <message>
        <source>diverges from the reference pass (atol {atol}, rtol {rtol})</source>
        <translation>与参考前向过程出现分歧（绝对容差 {atol}，相对容差 {rtol}）</translation>
    </message>
    <message>
        <source>max |x| &gt; {threshold}</source>
        <translation>max |x| &gt; {threshold}</translation>
    </message>
</context>
<context>
    <name>capture_budget</name>
    <message>
        <source>half of the free memory</source>
        <translation>空闲内存的一半</translation>
    </message>
    <message>
        <source>no budget</source>
        <translation>无预算</translation>
    </message>
</context>
<context>
    <name>errors</name>
    <message>
        <source>&apos;{spec}&apos; is not torch:package.module:factory (e.g. torch:examples.gpt_block:factory).</source>
        <comment>sdpa.bad_spec</comment>
        <translation>“{spec}”不是 torch:package.module:factory 形式（例如 torch:examples.gpt_block:factory）。</translation>
    </message>
    <message>
        <source>A &lt;pad&gt; token cannot be fed while decoding with a cache.</source>
        <comment>input.pad_with_cache</comment>
        <translation>使用缓存解码时不能输入 &lt;pad&gt; 词元。</translation>
    </message>
    <message>
        <source>A breakpoint cannot be read: {why}</source>
        <comment>remote.breakpoint</comment>
        <translation>无法读取断点：{why}</translation>
    </message>
    <message>
        <source>A check from the server cannot be read: {why}</source>
        <comment>remote.check</comment>
        <translation>无法读取服务器发来的检查：{why}</translation>
    </message>
    <message>
        <source>A file on this machine cannot be compared with a remote pass: its tensors stay on the server. Put the snapshot in the server&apos;s export folder and give its file name alone.</source>
        <comment>compare.remote_local_file</comment>
        <translation>本机上的文件不能与远程前向过程对比：后者的张量留在服务器上。请把快照放进服务器的导出文件夹，只填写它的文件名。</translation>
    </message>
    <message>
        <source>A lens of {positions} positions × {rows} rows × {k} tokens is more than one reply carries ({limit} tokens): ask for fewer positions.</source>
        <comment>why.lens_size</comment>
        <translation>{positions} 个位置 × {rows} 行 × {k} 个词元的透镜超出了一次回复所能携带的量（{limit} 个词元）：请少要一些位置。</translation>
    </message>
    <message>
        <source>A message claims {got} bytes of arrays, more than the limit of {limit}.</source>
        <comment>remote.buffer_size</comment>
        <translation>一条消息声称带有 {got} 字节的数组，超过上限 {limit}。</translation>
    </message>
    <message>
        <source>A message describes {n} buffers but carries {got}.</source>
        <comment>remote.buffer_count</comment>
        <translation>一条消息描述了 {n} 个缓冲区，实际却带了 {got} 个。</translation>
    </message>
    <message>
        <source>A message header is not a JSON object.</source>
        <comment>remote.not_json</comment>
        <translation>消息头不是 JSON 对象。</translation>
    </message>
    <message>
        <source>A message header of {got} bytes is larger than the limit of {limit}.</source>
        <comment>remote.header_size</comment>
        <translation>{got} 字节的消息头超过上限 {limit}。</translation>
    </message>
    <message>
        <source>A message must have 1 to {n} frames, not {got}.</source>
        <comment>remote.frames</comment>
        <translation>一条消息须有 1 到 {n} 帧，而不是 {got} 帧。</translation>
    </message>
    <message>
        <source>A message of type {kind} is not expected here.</source>
        <comment>remote.type</comment>
        <translation>此处不接受类型为 {kind} 的消息。</translation>
    </message>
    <message>
        <source>A recorded pass cannot run again: open the model to run it live.</source>
        <comment>stepper.recorded</comment>
        <translation>录制的前向过程不能再次运行：请打开模型以实时运行。</translation>
    </message>
    <message>
        <source>A slice from the server cannot be read: {why}</source>
        <comment>remote.slice</comment>
        <translation>无法读取服务器发来的切片：{why}</translation>
    </message>
    <message>
        <source>A source sentence is empty: type at least one word.</source>
        <comment>input.empty_sentence</comment>
        <translation>有一个源句子是空的：请至少输入一个词。</translation>
    </message>
    <message>
        <source>A source token id is outside the vocabulary (0 to {last}).</source>
        <comment>input.out_of_range_source</comment>
        <translation>有一个源词元 id 超出了词表范围（0 到 {last}）。</translation>
    </message>
    <message>
        <source>A stage description from the server cannot be read: {why}</source>
        <comment>remote.entry</comment>
        <translation>无法读取服务器发来的阶段描述：{why}</translation>
    </message>
    <message>
        <source>A target token id is outside the vocabulary (0 to {last}).</source>
        <comment>input.out_of_range_target</comment>
        <translation>有一个目标词元 id 超出了词表范围（0 到 {last}）。</translation>
    </message>
    <message>
        <source>A tile from the server is damaged.</source>
        <comment>remote.tile_damaged</comment>
        <translation>服务器发来的图块已损坏。</translation>
    </message>
    <message>
        <source>A tile from the server is not a 2-D plane with its stats.</source>
        <comment>remote.tile_shape</comment>
        <translation>服务器发来的图块不是带统计信息的二维平面。</translation>
    </message>
    <message>
        <source>A tile names a first and a last row and column.</source>
        <comment>remote.tile_range</comment>
        <translation>图块需要给出起止的行和列。</translation>
    </message>
    <message>
        <source>A vocabulary lists the same token twice.</source>
        <comment>vocab.duplicate</comment>
        <translation>词表中同一个词元出现了两次。</translation>
    </message>
    <message>
        <source>A vocabulary must start with {specials}.</source>
        <comment>vocab.specials</comment>
        <translation>词表必须以 {specials} 开头。</translation>
    </message>
    <message>
        <source>A whole pass cannot be exported as {suffix}; choose {choices}.</source>
        <comment>export.pass_suffix</comment>
        <translation>整次前向传播不能导出为 {suffix}；请选择 {choices}。</translation>
    </message>
    <message>
        <source>A {kind} message has an unknown field &apos;{field}&apos;.</source>
        <comment>remote.unknown_field</comment>
        <translation>{kind} 消息含有未知字段“{field}”。</translation>
    </message>
    <message>
        <source>A {kind} request carries {got} arrays; it takes at most {n}.</source>
        <comment>remote.arrays_taken</comment>
        <translation>{kind} 请求带有 {got} 个数组；它最多接受 {n} 个。</translation>
    </message>
    <message>
        <source>A {kind} request needs the field &apos;{field}&apos;.</source>
        <comment>remote.missing_field</comment>
        <translation>{kind} 请求需要字段“{field}”。</translation>
    </message>
    <message>
        <source>A {suffix} picture of the heatmap can only be drawn from the window.</source>
        <comment>export.picture_needs_window</comment>
        <translation>热力图的 {suffix} 图片只能在窗口中绘制。</translation>
    </message>
    <message>
        <source>Already at the first stage.</source>
        <comment>stepper.at_first</comment>
        <translation>已经在第一个阶段。</translation>
    </message>
    <message>
        <source>Already at the last captured stage.</source>
        <comment>stepper.at_last</comment>
        <translation>已经在最后一个已捕获的阶段。</translation>
    </message>
    <message>
        <source>Another input is not compared over a remote pass: run it on the server, export it there (File ▸ Export Snapshot on Server…) and compare with that snapshot.</source>
        <comment>compare.remote_input</comment>
        <translation>远程前向过程不能与另一个输入对比：请在服务器上运行它，在那里导出（文件 ▸ 在服务器上导出快照…），再与该快照对比。</translation>
    </message>
    <message>
        <source>Another window is attached to this server. Close it (or disconnect it) first; a window that lost its connection is let go after {s:g} s.</source>
        <comment>remote.busy</comment>
        <translation>另一个窗口已连接到此服务器。请先关闭它（或断开它）；失去连接的窗口会在 {s:g} 秒后被释放。</translation>
    </message>
    <message>
        <source>Attach with the token first.</source>
        <comment>remote.not_attached</comment>
        <translation>请先用令牌连接。</translation>
    </message>
    <message>
        <source>Axis {axis} has no index {index}.</source>
        <comment>edit.no_index</comment>
        <translation>轴 {axis} 没有索引 {index}。</translation>
    </message>
    <message>
        <source>Backward needs a live pass of a model: a recorded pass or a backward&apos;s gradients cannot be backpropagated again; run the model first.</source>
        <comment>backward.not_live</comment>
        <translation>反向传播需要模型的实时前向：录制的前向或反向传播的梯度不能再次反向传播；请先运行模型。</translation>
    </message>
    <message>
        <source>Backward reads one pass; a generation&apos;s steps are not backpropagated.</source>
        <comment>backward.generation</comment>
        <translation>反向传播读取一次前向；生成的各步不做反向传播。</translation>
    </message>
    <message>
        <source>Buffer {i} declares {want} bytes but carries {got}.</source>
        <comment>remote.buffer_length</comment>
        <translation>缓冲区 {i} 声明 {want} 字节，实际带了 {got} 字节。</translation>
    </message>
    <message>
        <source>Buffer {i} is not described by its dtype and shape.</source>
        <comment>remote.buffer_spec</comment>
        <translation>缓冲区 {i} 没有用元素类型和形状描述。</translation>
    </message>
    <message>
        <source>Cannot export to {shown}: choose a {choices} file.</source>
        <comment>export.unknown_suffix</comment>
        <translation>无法导出为 {shown}：请选择 {choices} 文件。</translation>
    </message>
    <message>
        <source>Cannot import {module}: {reason}. Run tfdebug from the folder that holds it (e.g. the repository root for examples.gpt_block) or install it.</source>
        <comment>sdpa.cannot_import</comment>
        <translation>无法导入 {module}：{reason}。请在包含它的文件夹中运行 tfdebug（例如 examples.gpt_block 需在仓库根目录运行），或先安装它。</translation>
    </message>
    <message>
        <source>Cannot put the model on {device} as {dtype}: {reason}.</source>
        <comment>model.cannot_place</comment>
        <translation>无法把模型以 {dtype} 放到 {device} 上：{reason}。</translation>
    </message>
    <message>
        <source>Cannot read stage {name} from {path}.</source>
        <comment>snapshot.stage_unreadable</comment>
        <translation>无法从 {path} 读取阶段 {name}。</translation>
    </message>
    <message>
        <source>Cannot read stage {name} from {path}: {reason}.</source>
        <comment>snapshot.read_failed</comment>
        <translation>无法从 {path} 读取阶段 {name}：{reason}。</translation>
    </message>
    <message>
        <source>Cannot read the model config in {folder}: {reason}.</source>
        <comment>model.config_unreadable</comment>
        <translation>无法读取 {folder} 中的模型配置：{reason}。</translation>
    </message>
    <message>
        <source>Cannot read the weights in {folder}: {reason}.</source>
        <comment>model.weights_unreadable</comment>
        <translation>无法读取 {folder} 中的权重：{reason}。</translation>
    </message>
    <message>
        <source>Cannot read {path}: {reason}.</source>
        <comment>read.failed</comment>
        <translation>无法读取 {path}：{reason}。</translation>
    </message>
    <message>
        <source>Cannot read {path}: {reason}.</source>
        <comment>safetensors.cannot_read</comment>
        <translation>无法读取 {path}：{reason}。</translation>
    </message>
    <message>
        <source>Cannot read {path}: {why}.</source>
        <comment>config.unreadable</comment>
        <translation>无法读取 {path}：{why}。</translation>
    </message>
    <message>
        <source>Cannot write in {folder}: the folder is read-only or you lack permission.</source>
        <comment>write.read_only</comment>
        <translation>无法在 {folder} 中写入：该文件夹只读，或你没有权限。</translation>
    </message>
    <message>
        <source>Cannot write {path}: {reason}.</source>
        <comment>write.failed</comment>
        <translation>无法写入 {path}：{reason}。</translation>
    </message>
    <message>
        <source>Choose a CSV file to fill the shown slice from.</source>
        <comment>edit.no_csv</comment>
        <translation>请选择用来填充显示切片的 CSV 文件。</translation>
    </message>
    <message>
        <source>Choose the snapshot or export file to compare.</source>
        <comment>compare.no_file</comment>
        <translation>请选择要对比的快照或导出文件。</translation>
    </message>
    <message>
        <source>Connection lost: the server at {address} has not answered for {s:.1f} s (it ended, or the network went away).</source>
        <comment>remote.lost</comment>
        <translation>连接已断开：{address} 上的服务器已 {s:.1f} 秒没有应答（它已结束，或网络已断）。</translation>
    </message>
    <message>
        <source>Could not load the GGUF model {file}: {reason}</source>
        <comment>gguf.load_failed</comment>
        <translation>无法加载 GGUF 模型 {file}：{reason}</translation>
    </message>
    <message>
        <source>Could not load the weights in {folder}: {reason}</source>
        <comment>hf.weights_failed</comment>
        <translation>无法加载 {folder} 中的权重：{reason}</translation>
    </message>
    <message>
        <source>Device {device} is not available on this machine; available: {available}.</source>
        <comment>device.unavailable</comment>
        <translation>本机没有设备 {device}；可用的设备：{available}。</translation>
    </message>
    <message>
        <source>Head thumbnails from the server cannot be read: {why}</source>
        <comment>remote.heads</comment>
        <translation>无法读取服务器发来的头缩略图：{why}</translation>
    </message>
    <message>
        <source>Hugging Face models need the optional extra: pip install &quot;tfdebug[hf]&quot; (transformers and tokenizers).</source>
        <comment>hf.install_hint</comment>
        <translation>Hugging Face 模型需要安装可选扩展：pip install &quot;tfdebug[hf]&quot;（transformers 和 tokenizers）。</translation>
    </message>
    <message>
        <source>Importing {module} failed: {error}: {reason}</source>
        <comment>sdpa.import_failed</comment>
        <translation>导入 {module} 失败：{error}: {reason}</translation>
    </message>
    <message>
        <source>Listening on {host} needs encryption, and this pyzmq was built without CURVE. Listen on 127.0.0.1 and forward the port over SSH instead: ssh -N -L PORT:127.0.0.1:PORT this-server.</source>
        <comment>remote.no_curve</comment>
        <translation>在 {host} 上监听需要加密，而此 pyzmq 构建时未带 CURVE。请改为在 127.0.0.1 上监听，并通过 SSH 转发端口：ssh -N -L PORT:127.0.0.1:PORT this-server。</translation>
    </message>
    <message>
        <source>Max new tokens must be at least 1.</source>
        <comment>decoding.max_new_tokens</comment>
        <translation>最多新词元数至少为 1。</translation>
    </message>
    <message>
        <source>No captured stage at position {index}.</source>
        <comment>stepper.no_position</comment>
        <translation>位置 {index} 没有已捕获的阶段。</translation>
    </message>
    <message>
        <source>No model folder at {folder}.</source>
        <comment>hf.no_folder</comment>
        <translation>{folder} 处没有模型文件夹。</translation>
    </message>
    <message>
        <source>No model is loaded: run a pass live to compare another input on it.</source>
        <comment>compare.no_model</comment>
        <translation>尚未加载模型：请实时运行一次前向过程，才能用另一个输入对比。</translation>
    </message>
    <message>
        <source>No module of {model} calls transformers&apos; attention interface or computes a softmax of queries and keys in an attention module of its own, so tfdebug finds no attention to show.</source>
        <comment>hf.no_attention_interface</comment>
        <translation>{model} 没有任何模块调用 transformers 的注意力接口，也没有在自己的注意力模块里对查询和键做 softmax，所以 tfdebug 找不到可显示的注意力。</translation>
    </message>
    <message>
        <source>No stage matches &apos;{pattern}&apos;; stage names look like {example}.</source>
        <comment>stages.no_match</comment>
        <translation>没有阶段匹配 &apos;{pattern}&apos;；阶段名形如 {example}。</translation>
    </message>
    <message>
        <source>No stages are selected: choose at least one stage to export.</source>
        <comment>export.no_stages</comment>
        <translation>未选择任何阶段：请至少选择一个要导出的阶段。</translation>
    </message>
    <message>
        <source>No tensor has been edited yet: there is no pass before an edit.</source>
        <comment>compare.no_edit</comment>
        <translation>还没有编辑过任何张量：不存在编辑之前的前向过程。</translation>
    </message>
    <message>
        <source>Not connected to a tfdebug server.</source>
        <comment>remote.not_connected</comment>
        <translation>未连接到 tfdebug 服务器。</translation>
    </message>
    <message>
        <source>Nothing has run yet.</source>
        <comment>stepper.nothing_run</comment>
        <translation>还没有运行任何阶段。</translation>
    </message>
    <message>
        <source>Nothing is on screen to compare: run a pass or open a snapshot first.</source>
        <comment>compare.nothing_on_screen</comment>
        <translation>屏幕上没有可对比的内容：请先运行一次前向过程或打开快照。</translation>
    </message>
    <message>
        <source>Nothing recorded a stage named &apos;{name}&apos;.</source>
        <comment>recorder.unknown_stage</comment>
        <translation>没有任何记录包含名为“{name}”的阶段。</translation>
    </message>
    <message>
        <source>Only a 2-D slice can be exported as CSV; this one has {ndim} dimensions.</source>
        <comment>export.csv_not_2d</comment>
        <translation>只有二维切片可以导出为 CSV；此切片有 {ndim} 个维度。</translation>
    </message>
    <message>
        <source>Only the stage the forward is paused at can be replaced.</source>
        <comment>replace.not_paused</comment>
        <translation>只能替换前向过程当前暂停所在的阶段。</translation>
    </message>
    <message>
        <source>Over a remote pass, one side is the pass on screen and the other a pass the server makes: this input in another dtype, the pass before the last edit, or a snapshot in its export folder.</source>
        <comment>compare.remote_sides</comment>
        <translation>对远程前向过程，一侧是屏幕上的前向过程，另一侧是服务器生成的前向过程：此输入换一种数据类型、上一次编辑之前的前向过程，或服务器导出文件夹中的快照。</translation>
    </message>
    <message>
        <source>Snapshots can only be written on a little-endian machine.</source>
        <comment>safetensors.big_endian</comment>
        <translation>快照只能在小端字节序的机器上写入。</translation>
    </message>
    <message>
        <source>Stage &apos;{name}&apos; changed shape or dtype while being written.</source>
        <comment>safetensors.changed_while_writing</comment>
        <translation>阶段“{name}”在写入过程中改变了形状或数据类型。</translation>
    </message>
    <message>
        <source>Stage &apos;{name}&apos; has dtype {dtype}, which a snapshot cannot hold.</source>
        <comment>safetensors.dtype_unwritable</comment>
        <translation>阶段“{name}”的数据类型为 {dtype}，快照无法保存这种类型。</translation>
    </message>
    <message>
        <source>Stage {name} has already run: only the stage the forward is paused at ({live}) can be edited. Restart to edit an earlier one.</source>
        <comment>replace.already_run</comment>
        <translation>阶段 {name} 已经运行过：只能编辑前向过程当前暂停所在的阶段（{live}）。要编辑更早的阶段，请重新开始。</translation>
    </message>
    <message>
        <source>Stage {name} has no tensor in this recording.</source>
        <comment>recording.no_tensor</comment>
        <translation>阶段 {name} 在此记录中没有张量。</translation>
    </message>
    <message>
        <source>Stage {name} holds no values (its tensor is on the meta device), so it cannot be saved or exported.</source>
        <comment>recording.meta_tensor</comment>
        <translation>阶段 {name} 没有数值（它的张量在 meta 设备上），因此无法保存或导出。</translation>
    </message>
    <message>
        <source>Stage {name} is already being recorded by another pass of this model: stop that pass first.</source>
        <comment>recorder.busy</comment>
        <translation>阶段 {name} 正在被此模型的另一次前向传播记录：请先停止那次传播。</translation>
    </message>
    <message>
        <source>Stage {name} is not in both compared passes.</source>
        <comment>compare.not_in_both</comment>
        <translation>阶段 {name} 不在两个比较的前向传播中。</translation>
    </message>
    <message>
        <source>Stage {name} is not in the server&apos;s history.</source>
        <comment>remote.not_captured</comment>
        <translation>阶段 {name} 不在服务器的历史中。</translation>
    </message>
    <message>
        <source>Stage {name} was left out of the history by the capture budget: it has no tensor to show.</source>
        <comment>display.dropped</comment>
        <translation>阶段 {name} 因捕获预算未留在历史中：没有可显示的张量。</translation>
    </message>
    <message>
        <source>Stage {stage} is not in both passes with the same shape, so nothing can be transplanted there.</source>
        <comment>transplant.no_stage</comment>
        <translation>阶段 {stage} 不在两次前向中以相同形状出现，因此无法在那里移植。</translation>
    </message>
    <message>
        <source>Stats from the server cannot be read: {why}</source>
        <comment>remote.stats</comment>
        <translation>无法读取服务器发来的统计量：{why}</translation>
    </message>
    <message>
        <source>The .pt file {name} could not be written.</source>
        <comment>export.pt_write_failed</comment>
        <translation>无法写入 .pt 文件 {name}。</translation>
    </message>
    <message>
        <source>The CSV file cannot be read as CSV ({reason}).</source>
        <comment>edit.csv_unreadable</comment>
        <translation>该文件无法作为 CSV 读取（{reason}）。</translation>
    </message>
    <message>
        <source>The CSV file holds {rows} rows × {cols} columns; the shown slice is {want_rows} × {want_cols}.</source>
        <comment>edit.csv_shape</comment>
        <translation>CSV 文件有 {rows} 行 × {cols} 列；显示的切片是 {want_rows} × {want_cols}。</translation>
    </message>
    <message>
        <source>The CSV labels do not match the slice&apos;s size.</source>
        <comment>export.csv_labels</comment>
        <translation>CSV 标签与切片的大小不一致。</translation>
    </message>
    <message>
        <source>The CSV values are {rows} × {cols}; the shown slice is {want_rows} × {want_cols}.</source>
        <comment>edit.csv_values_shape</comment>
        <translation>CSV 数值是 {rows} × {cols}；显示的切片是 {want_rows} × {want_cols}。</translation>
    </message>
    <message>
        <source>The Chat toggle needs a model whose tokenizer has a chat template; {name} has none.</source>
        <comment>remote.no_chat_template</comment>
        <translation>“对话”开关需要分词器带有对话模板的模型；{name} 没有。</translation>
    </message>
    <message>
        <source>The Hugging Face cache&apos;s ref {ref} does not hold a commit hash (40 hexadecimal digits), so {model} was not read from it: download it again (--download).</source>
        <comment>hub.bad_ref</comment>
        <translation>Hugging Face 缓存中的引用 {ref} 没有保存提交哈希（40 位十六进制数字），因此没有从中读取 {model}：请重新下载（--download）。</translation>
    </message>
    <message>
        <source>The Hugging Face hub has no model {model} you can read (a typo, a private or a gated model: log in with `hf auth login`).</source>
        <comment>hub.no_repo</comment>
        <translation>Hugging Face Hub 上没有你能读取的模型 {model}（拼写错误、私有或需授权的模型：请用 `hf auth login` 登录）。</translation>
    </message>
    <message>
        <source>The attention kernel {kernel} is not available on this machine (it needs its package and a GPU it supports); the kernels here are {choices}.</source>
        <comment>hf.kernel_unavailable</comment>
        <translation>注意力内核 {kernel} 在本机不可用（它需要自己的软件包和受支持的 GPU）；本机可用的内核是 {choices}。</translation>
    </message>
    <message>
        <source>The batch has {n} rows; one pass takes at most {most}. Split the texts into batches of at most {most} rows.</source>
        <comment>batch.too_many_rows</comment>
        <translation>这个批次有 {n} 行；一次前向最多接受 {most} 行。请把文本分成每批最多 {most} 行。</translation>
    </message>
    <message>
        <source>The capture budget&apos;s focus {stage} is not a stage of this pass; see `tfdebug stages` for the names.</source>
        <comment>budget.unknown_focus</comment>
        <translation>捕获预算的焦点 {stage} 不是本次前向的阶段；阶段名见 `tfdebug stages`。</translation>
    </message>
    <message>
        <source>The chat template failed on this text: {reason}.</source>
        <comment>hf.chat_template_failed</comment>
        <translation>聊天模板在这段文本上出错：{reason}。</translation>
    </message>
    <message>
        <source>The chat template made a prompt of {n} characters from this text; a model of {context} tokens reads at most {most}.</source>
        <comment>hf.chat_template_long</comment>
        <translation>聊天模板从这段文本生成了 {n} 个字符的提示；{context} 个词元的模型最多读取 {most} 个字符。</translation>
    </message>
    <message>
        <source>The chat template ran longer than {seconds} s on this text; tfdebug stopped it (a template that loops for ever?).</source>
        <comment>hf.chat_template_slow</comment>
        <translation>聊天模板在这段文本上运行超过 {seconds} 秒；tfdebug 已将其停止（模板是否无限循环？）。</translation>
    </message>
    <message>
        <source>The comparison has {n} stages, more than the {limit} one reply may carry: compare a shorter pass.</source>
        <comment>remote.compare_size</comment>
        <translation>这次对比有 {n} 个阶段，超过一条回复能携带的 {limit} 个：请对比更短的前向过程。</translation>
    </message>
    <message>
        <source>The config names the architecture &apos;{name}&apos;, which in transformers is not a model class.</source>
        <comment>hf.config_not_model_class</comment>
        <translation>配置指定的架构 &apos;{name}&apos; 在 transformers 中不是模型类。</translation>
    </message>
    <message>
        <source>The connection was closed.</source>
        <comment>remote.closed</comment>
        <translation>连接已关闭。</translation>
    </message>
    <message>
        <source>The demo model is not bundled with this installation; use --model random.</source>
        <comment>model.no_demo</comment>
        <translation>此安装未附带演示模型；请使用 --model random。</translation>
    </message>
    <message>
        <source>The device name is empty; use cpu, cuda, cuda:N, mps or auto.</source>
        <comment>device.empty</comment>
        <translation>设备名为空；请使用 cpu、cuda、cuda:N、mps 或 auto。</translation>
    </message>
    <message>
        <source>The disk is full: {name} was not written and any earlier file there is unchanged.</source>
        <comment>write.disk_full</comment>
        <translation>磁盘已满：{name} 未写入，原有的同名文件保持不变。</translation>
    </message>
    <message>
        <source>The divergence condition needs one pass of a model: a generation has none.</source>
        <comment>remote.reference_generation</comment>
        <translation>分歧条件需要模型的一次前向过程：生成过程没有。</translation>
    </message>
    <message>
        <source>The download was cancelled.</source>
        <comment>hub.cancelled</comment>
        <translation>下载已取消。</translation>
    </message>
    <message>
        <source>The export was cancelled; nothing was written.</source>
        <comment>export.cancelled</comment>
        <translation>导出已取消；没有写入任何内容。</translation>
    </message>
    <message>
        <source>The feature extractor of {name} cannot prepare {path}: {reason}</source>
        <comment>audio.extractor_failed</comment>
        <translation>{name} 的特征提取器无法处理 {path}：{reason}</translation>
    </message>
    <message>
        <source>The field &apos;{field}&apos; must be {want}, not {value}.</source>
        <comment>remote.field</comment>
        <translation>字段“{field}”必须是{want}，而不是 {value}。</translation>
    </message>
    <message>
        <source>The file name {name} is too long for this file system.</source>
        <comment>write.name_too_long</comment>
        <translation>文件名 {name} 对此文件系统来说太长。</translation>
    </message>
    <message>
        <source>The file {path} cannot be read as a tfdebug export (it is not a zip archive).</source>
        <comment>export.not_zip</comment>
        <translation>文件 {path} 无法作为 tfdebug 导出文件读取（它不是 zip 压缩包）。</translation>
    </message>
    <message>
        <source>The file {path} cannot be read as a tfdebug export.</source>
        <comment>export.unreadable</comment>
        <translation>文件 {path} 无法作为 tfdebug 导出文件读取。</translation>
    </message>
    <message>
        <source>The file {path} does not exist.</source>
        <comment>pass.missing</comment>
        <translation>文件 {path} 不存在。</translation>
    </message>
    <message>
        <source>The file {path} holds something other than tensors.</source>
        <comment>export.not_tensors</comment>
        <translation>文件 {path} 中包含张量以外的内容。</translation>
    </message>
    <message>
        <source>The file {path} is a {label}, not a recorded pass.</source>
        <comment>export.not_a_pass</comment>
        <translation>文件 {path} 是{label}，而不是一次记录的前向传播。</translation>
    </message>
    <message>
        <source>The file {path} is not a tfdebug export: a member name is given twice.</source>
        <comment>export.member_twice</comment>
        <translation>文件 {path} 不是 tfdebug 导出文件：有成员名出现了两次。</translation>
    </message>
    <message>
        <source>The file {path} is not a tfdebug export: array {name} does not hold exactly its shape&apos;s bytes.</source>
        <comment>export.array_short</comment>
        <translation>文件 {path} 不是 tfdebug 导出文件：数组 {name} 的字节数与其形状不符。</translation>
    </message>
    <message>
        <source>The file {path} is not a tfdebug export: array {name} is not stored as its stage&apos;s {dtype} {shape}.</source>
        <comment>export.array_mismatch</comment>
        <translation>文件 {path} 不是 tfdebug 导出文件：数组 {name} 没有按其阶段的 {dtype} {shape} 存储。</translation>
    </message>
    <message>
        <source>The file {path} is not a tfdebug export: it holds {n} members (at most {most}).</source>
        <comment>export.too_many_members</comment>
        <translation>文件 {path} 不是 tfdebug 导出文件：它含有 {n} 个成员（最多 {most} 个）。</translation>
    </message>
    <message>
        <source>The file {path} is not a tfdebug export: its members declare {declared} bytes but the file holds {size}.</source>
        <comment>export.declares_more</comment>
        <translation>文件 {path} 不是 tfdebug 导出文件：其成员声明 {declared} 字节，但文件只有 {size} 字节。</translation>
    </message>
    <message>
        <source>The file {path} is not a tfdebug export: member {name} is compressed (tfdebug writes exports uncompressed; a compressed member may expand without bound).</source>
        <comment>export.compressed</comment>
        <translation>文件 {path} 不是 tfdebug 导出文件：成员 {name} 是压缩的（tfdebug 写出的导出文件不压缩；压缩成员可能无限膨胀）。</translation>
    </message>
    <message>
        <source>The file {path} is not a tfdebug export: member {name} is not a stage array.</source>
        <comment>export.not_stage_array</comment>
        <translation>文件 {path} 不是 tfdebug 导出文件：成员 {name} 不是阶段数组。</translation>
    </message>
    <message>
        <source>The file {path} is not a tfdebug export: tensor {name} is not stored as its own data (it views {held} bytes as {shape}).</source>
        <comment>export.not_own_storage</comment>
        <translation>文件 {path} 不是 tfdebug 导出文件：张量 {name} 不是以自己的数据存储的（它把 {held} 字节视为 {shape}）。</translation>
    </message>
    <message>
        <source>The file {path} is not a tfdebug export: {problem}.</source>
        <comment>export.bad_key</comment>
        <translation>文件 {path} 不是 tfdebug 导出文件：{problem}。</translation>
    </message>
    <message>
        <source>The folder {folder} does not exist.</source>
        <comment>write.no_folder</comment>
        <translation>文件夹 {folder} 不存在。</translation>
    </message>
    <message>
        <source>The folder {path} holds no picture (PNG, JPEG …).</source>
        <comment>image.empty_folder</comment>
        <translation>文件夹 {path} 中没有图片（PNG、JPEG …）。</translation>
    </message>
    <message>
        <source>The folder {path} holds {n} pictures; tfdebug takes at most {most} as one batch.</source>
        <comment>image.folder_too_many</comment>
        <translation>文件夹 {path} 中有 {n} 张图片；tfdebug 一个批次最多接受 {most} 张。</translation>
    </message>
    <message>
        <source>The forward pass failed after {where}: {reason}</source>
        <comment>stepper.forward_failed</comment>
        <translation>前向传播在 {where} 之后失败：{reason}</translation>
    </message>
    <message>
        <source>The forward pass has ended; restart it to run again.</source>
        <comment>stepper.ended</comment>
        <translation>前向过程已结束；要再次运行，请重新开始。</translation>
    </message>
    <message>
        <source>The forward pass has not started.</source>
        <comment>stepper.not_started</comment>
        <translation>前向过程尚未开始。</translation>
    </message>
    <message>
        <source>The forward pass is already running; stop or restart it.</source>
        <comment>stepper.already_running</comment>
        <translation>前向过程已在运行；请停止或重新开始。</translation>
    </message>
    <message>
        <source>The forward pass is running; wait for it to pause.</source>
        <comment>stepper.running</comment>
        <translation>前向过程正在运行；请等待它暂停。</translation>
    </message>
    <message>
        <source>The heatmap cannot be exported as {suffix}; choose {choices}.</source>
        <comment>export.view_suffix</comment>
        <translation>热力图不能导出为 {suffix}；请选择 {choices}。</translation>
    </message>
    <message>
        <source>The image processor of {name} cannot prepare {path}: {reason}</source>
        <comment>image.processor_failed</comment>
        <translation>{name} 的图像处理器无法处理 {path}：{reason}</translation>
    </message>
    <message>
        <source>The image {path} holds more pixels than tfdebug opens (8192 × 8192).</source>
        <comment>image.bomb</comment>
        <translation>图像 {path} 的像素超过 tfdebug 能打开的上限（8192 × 8192）。</translation>
    </message>
    <message>
        <source>The image {path} is {w} × {h} pixels; tfdebug opens images up to 8192 × 8192.</source>
        <comment>image.too_large</comment>
        <translation>图像 {path} 为 {w} × {h} 像素；tfdebug 最多打开 8192 × 8192 的图像。</translation>
    </message>
    <message>
        <source>The input is {n} tokens long; this model takes at most {most}.</source>
        <comment>hf.too_long</comment>
        <translation>输入有 {n} 个词元；此模型最多接受 {most} 个。</translation>
    </message>
    <message>
        <source>The model config must be a JSON object of field names and values.</source>
        <comment>config.not_object</comment>
        <translation>模型配置必须是由字段名和值组成的 JSON 对象。</translation>
    </message>
    <message>
        <source>The model folder {folder} cannot be read: permission denied.</source>
        <comment>hf.folder_permission</comment>
        <translation>无法读取模型文件夹 {folder}：权限不足。</translation>
    </message>
    <message>
        <source>The model folder {folder} cannot be read: {reason}.</source>
        <comment>model.folder_unreadable</comment>
        <translation>无法读取模型文件夹 {folder}：{reason}。</translation>
    </message>
    <message>
        <source>The model folder {folder} has no {name}.</source>
        <comment>model.missing_file</comment>
        <translation>模型文件夹 {folder} 中没有 {name}。</translation>
    </message>
    <message>
        <source>The model takes no input named {name}.</source>
        <comment>remote.unknown_input</comment>
        <translation>模型没有名为 {name} 的输入。</translation>
    </message>
    <message>
        <source>The module failed on the inputs make_inputs gave: {error}: {reason}</source>
        <comment>sdpa.module_failed</comment>
        <translation>模块在 make_inputs 给出的输入上运行失败：{error}: {reason}</translation>
    </message>
    <message>
        <source>The notes preset shows the notes&apos; shapes in one pass; generate with the demo model.</source>
        <comment>notes.no_generation</comment>
        <translation>notes 预设只用一次前向展示笔记中的形状；要逐词生成请用 demo 模型。</translation>
    </message>
    <message>
        <source>The pass has ended: Restart it and pause at a stage to edit it.</source>
        <comment>replace.ended</comment>
        <translation>前向过程已结束：请重新开始，并在要编辑的阶段暂停。</translation>
    </message>
    <message>
        <source>The pass has not reached its logits yet: run it to the end first (F5).</source>
        <comment>backward.not_finished</comment>
        <translation>前向尚未到达 logits：请先运行到结束（F5）。</translation>
    </message>
    <message>
        <source>The pass on screen is paused mid-forward and holds the model: Continue it to the end (or Stop it), then compare.</source>
        <comment>compare.paused</comment>
        <translation>屏幕上的前向过程暂停在中途并占用着模型：请继续运行到结束（或停止它），然后再对比。</translation>
    </message>
    <message>
        <source>The pictures in {path} hold {n} pixels together; tfdebug takes at most {most} (8192 × 8192) as one batch.</source>
        <comment>image.folder_too_large</comment>
        <translation>{path} 中的图片共有 {n} 个像素；tfdebug 一个批次最多接受 {most}（8192 × 8192）。</translation>
    </message>
    <message>
        <source>The processor of {name} cannot prepare {path}: {reason}</source>
        <comment>vlm.processor_failed</comment>
        <translation>{name} 的处理器无法处理 {path}：{reason}</translation>
    </message>
    <message>
        <source>The processor of {name} gives {n} picture tokens; its vision tower makes {m}.</source>
        <comment>vlm.token_count</comment>
        <translation>{name} 的处理器给出 {n} 个图像词元；它的视觉塔生成 {m} 个。</translation>
    </message>
    <message>
        <source>The prompt names {token} {n} times; {name} takes one picture.</source>
        <comment>vlm.images</comment>
        <translation>提示中出现了 {n} 次 {token}；{name} 只接受一张图片。</translation>
    </message>
    <message>
        <source>The read was stopped: another stage was asked for.</source>
        <comment>read.stopped</comment>
        <translation>读取已停止：已请求另一个阶段。</translation>
    </message>
    <message>
        <source>The recipe of stage &apos;{name}&apos; is damaged: {problem}.</source>
        <comment>recipe.damaged</comment>
        <translation>阶段 &apos;{name}&apos; 的配方已损坏：{problem}。</translation>
    </message>
    <message>
        <source>The reference pass could not run: {why}</source>
        <comment>compare.reference_failed</comment>
        <translation>参考前向过程无法运行：{why}</translation>
    </message>
    <message>
        <source>The reference pass could not run: {why}</source>
        <comment>remote.reference_failed</comment>
        <translation>参考前向过程无法运行：{why}</translation>
    </message>
    <message>
        <source>The reference pass did not keep stage {stage}, so nothing can be transplanted there.</source>
        <comment>transplant.not_kept</comment>
        <translation>参考前向没有保留阶段 {stage}，因此无法在那里移植。</translation>
    </message>
    <message>
        <source>The replacement has shape {got}; stage {name} needs {shape}.</source>
        <comment>replace.shape</comment>
        <translation>替换张量的形状是 {got}；阶段 {name} 需要 {shape}。</translation>
    </message>
    <message>
        <source>The seed must be a whole number from {least} to {most}.</source>
        <comment>decoding.seed</comment>
        <translation>随机种子必须是 {least} 到 {most} 之间的整数。</translation>
    </message>
    <message>
        <source>The served pass is not a generation: press Generate to generate token by token.</source>
        <comment>remote.not_generating</comment>
        <translation>服务器上的这次前向传播不是生成：请按“生成”逐个词元地生成。</translation>
    </message>
    <message>
        <source>The served pass is paused mid-forward and holds the model: Continue it to the end (or Stop it), then compare.</source>
        <comment>remote.compare_alive</comment>
        <translation>服务器上的前向过程暂停在中途并占用着模型：请继续运行到结束（或停止它），然后再对比。</translation>
    </message>
    <message>
        <source>The server cannot do that: {why}</source>
        <comment>remote.server_refused</comment>
        <translation>服务器无法执行此操作：{why}</translation>
    </message>
    <message>
        <source>The server could not compare: {why}</source>
        <comment>remote.compare_failed</comment>
        <translation>服务器无法对比：{why}</translation>
    </message>
    <message>
        <source>The server could not write the snapshot: {why}</source>
        <comment>remote.export_failed</comment>
        <translation>服务器无法写入快照：{why}</translation>
    </message>
    <message>
        <source>The server did not answer within {s:g} s.{hint}</source>
        <comment>remote.no_answer</comment>
        <translation>服务器在 {s:g} 秒内没有应答。{hint}</translation>
    </message>
    <message>
        <source>The server failed to answer this {what} ({why}); it goes on serving. Its log names this fault {n}.</source>
        <comment>remote.server_fault</comment>
        <translation>服务器未能回答这个{what}（{why}）；它继续提供服务。它的日志把这次故障记为第 {n} 号。</translation>
    </message>
    <message>
        <source>The server has no comparison to draw yet: compare first.</source>
        <comment>remote.no_comparison</comment>
        <translation>服务器还没有可绘制的比较：请先比较。</translation>
    </message>
    <message>
        <source>The server is already comparing: wait for that comparison first.</source>
        <comment>remote.compare_busy</comment>
        <translation>服务器正在进行一次对比：请先等它完成。</translation>
    </message>
    <message>
        <source>The server let the window in but sent no pass.</source>
        <comment>remote.no_pass</comment>
        <translation>服务器接受了窗口，却没有发来任何一遍。</translation>
    </message>
    <message>
        <source>The server ran the backward but served no pass of its gradients.</source>
        <comment>remote.no_backward</comment>
        <translation>服务器运行了反向传播，但没有提供其梯度的前向。</translation>
    </message>
    <message>
        <source>The server started no new pass.</source>
        <comment>remote.no_new_pass</comment>
        <translation>服务器没有开始新的一遍。</translation>
    </message>
    <message>
        <source>The server&apos;s comparison cannot be read: {why}</source>
        <comment>remote.comparison</comment>
        <translation>无法读取服务器的对比结果：{why}</translation>
    </message>
    <message>
        <source>The server&apos;s generation cannot be read: {why}</source>
        <comment>remote.generation</comment>
        <translation>无法读取服务器的生成过程：{why}</translation>
    </message>
    <message>
        <source>The server&apos;s history does not follow on from the window&apos;s.</source>
        <comment>remote.gap</comment>
        <translation>服务器的历史与窗口的历史接不上。</translation>
    </message>
    <message>
        <source>The server&apos;s pass cannot be read: {why}</source>
        <comment>remote.pass</comment>
        <translation>无法读取服务器的这一遍：{why}</translation>
    </message>
    <message>
        <source>The server&apos;s picture cannot be read: {why}</source>
        <comment>remote.image</comment>
        <translation>无法读取服务器发来的图片：{why}</translation>
    </message>
    <message>
        <source>The server&apos;s picture holds {got} bytes of pixels, larger than the protocol&apos;s {most}.</source>
        <comment>remote.image_size</comment>
        <translation>服务器发来的图片有 {got} 字节像素，超过协议上限 {most}。</translation>
    </message>
    <message>
        <source>The server&apos;s plan of {n} stages is more than the {limit} a window takes.</source>
        <comment>remote.plan_size</comment>
        <translation>服务器的计划有 {n} 个阶段，超过窗口能接收的 {limit} 个。</translation>
    </message>
    <message>
        <source>The server&apos;s snapshot chunks do not follow on.</source>
        <comment>remote.chunks</comment>
        <translation>服务器发来的快照分块接不上。</translation>
    </message>
    <message>
        <source>The server&apos;s state cannot be read: {why}</source>
        <comment>remote.state</comment>
        <translation>无法读取服务器的状态：{why}</translation>
    </message>
    <message>
        <source>The server&apos;s transplant cannot be read: {why}</source>
        <comment>remote.transplant</comment>
        <translation>无法读取服务器的移植结果：{why}</translation>
    </message>
    <message>
        <source>The server&apos;s {kind} message is malformed ({reason}); tfdebug closed the connection.</source>
        <comment>remote.bad_reply</comment>
        <translation>服务器的 {kind} 消息格式错误（{reason}）；tfdebug 已关闭连接。</translation>
    </message>
    <message>
        <source>The snapshot {path} changed on disk after it was opened; open it again.</source>
        <comment>snapshot.changed</comment>
        <translation>快照 {path} 打开后在磁盘上被修改；请重新打开。</translation>
    </message>
    <message>
        <source>The snapshot {path} changed on disk while being opened; open it again.</source>
        <comment>snapshot.changed_opening</comment>
        <translation>快照 {path} 在打开过程中被修改；请重新打开。</translation>
    </message>
    <message>
        <source>The snapshot {path} is closed.</source>
        <comment>snapshot.closed</comment>
        <translation>快照 {path} 已关闭。</translation>
    </message>
    <message>
        <source>The source must be a (batch, tokens) tensor of token ids.</source>
        <comment>input.not_2d_source</comment>
        <translation>源输入必须是由词元 id 组成的 (batch, tokens) 张量。</translation>
    </message>
    <message>
        <source>The source sentence is empty: type at least one word.</source>
        <comment>input.source_empty</comment>
        <translation>源句子为空：请至少输入一个词。</translation>
    </message>
    <message>
        <source>The source sequence has {n} tokens; this model takes at most {most}.</source>
        <comment>input.too_long_source</comment>
        <translation>源序列有 {n} 个词元；此模型最多接受 {most} 个。</translation>
    </message>
    <message>
        <source>The source sequence is empty: give at least one token.</source>
        <comment>input.empty_source</comment>
        <translation>源序列为空：请至少给出一个词元。</translation>
    </message>
    <message>
        <source>The source token ids must be integers, not {dtype}.</source>
        <comment>input.not_int_source</comment>
        <translation>源词元 id 必须是整数，而不是 {dtype}。</translation>
    </message>
    <message>
        <source>The target must be a (batch, tokens) tensor of token ids.</source>
        <comment>input.not_2d_target</comment>
        <translation>目标输入必须是由词元 id 组成的 (batch, tokens) 张量。</translation>
    </message>
    <message>
        <source>The target sequence has {n} tokens; this model takes at most {most}.</source>
        <comment>input.too_long_target</comment>
        <translation>目标序列有 {n} 个词元；此模型最多接受 {most} 个。</translation>
    </message>
    <message>
        <source>The target sequence is empty: give at least one token.</source>
        <comment>input.empty_target</comment>
        <translation>目标序列为空：请至少给出一个词元。</translation>
    </message>
    <message>
        <source>The target token ids must be integers, not {dtype}.</source>
        <comment>input.not_int_target</comment>
        <translation>目标词元 id 必须是整数，而不是 {dtype}。</translation>
    </message>
    <message>
        <source>The temperature must be a number from {least:g} to {most:g}.</source>
        <comment>decoding.temperature</comment>
        <translation>温度必须是 {least:g} 到 {most:g} 之间的数。</translation>
    </message>
    <message>
        <source>The token is wrong: copy the whole line tfdebug serve printed.</source>
        <comment>remote.token</comment>
        <translation>令牌不对：请复制 tfdebug serve 打印的整行。</translation>
    </message>
    <message>
        <source>The tokenizer failed on this text: {reason}. Try a shorter or simpler text.</source>
        <comment>hf.tokenize_failed</comment>
        <translation>分词器处理这段文本时失败：{reason}。请换一段更短或更简单的文本。</translation>
    </message>
    <message>
        <source>The tokenizer gives {token} the id {number}, but the model&apos;s embedding has only {rows} rows: the folder&apos;s tokenizer.json does not belong to this model.</source>
        <comment>hf.id_past_vocab</comment>
        <translation>分词器给 {token} 的编号是 {number}，但模型的嵌入表只有 {rows} 行：文件夹中的 tokenizer.json 不属于这个模型。</translation>
    </message>
    <message>
        <source>The tokenizer of {name} has no padding token, so several texts cannot be padded into one batch.</source>
        <comment>hf.no_pad_token</comment>
        <translation>{name} 的分词器没有填充词元，因此无法把多段文本填充成一个批次。</translation>
    </message>
    <message>
        <source>The vocabularies in {folder} do not match the model&apos;s vocabulary sizes.</source>
        <comment>model.vocab_size_mismatch</comment>
        <translation>{folder} 中的词表与模型的词表大小不一致。</translation>
    </message>
    <message>
        <source>The weights in {folder} do not fit the model config: {reason}.</source>
        <comment>model.weights_mismatch</comment>
        <translation>{folder} 中的权重与模型配置不符：{reason}。</translation>
    </message>
    <message>
        <source>The weights in {folder} need about {needed} in {dtype} but {device} has {free} free: load them with --device-map auto, in a smaller dtype, or on another device.</source>
        <comment>hf.no_room</comment>
        <translation>{folder} 中的权重以 {dtype} 加载约需 {needed}，但 {device} 只有 {free} 可用：请用 --device-map auto、更小的数据类型或其他设备加载。</translation>
    </message>
    <message>
        <source>The {field} gives no tokens: type at least one word.</source>
        <comment>hf.no_tokens</comment>
        <translation>{field} 没有产生任何词元：请至少输入一个词。</translation>
    </message>
    <message>
        <source>The {field} is empty: type at least one word.</source>
        <comment>input.empty</comment>
        <translation>{field}为空：请至少输入一个词。</translation>
    </message>
    <message>
        <source>The {label} has {count} tokens; the notes preset takes at most {most}.</source>
        <comment>notes.too_long</comment>
        <translation>{label}有 {count} 个词元；notes 预设最多接受 {most} 个。</translation>
    </message>
    <message>
        <source>There are no stages to compare yet: step into the pass first.</source>
        <comment>remote.compare_empty</comment>
        <translation>还没有可对比的阶段：请先单步进入前向过程。</translation>
    </message>
    <message>
        <source>There are no stages to export yet: step into the pass first.</source>
        <comment>remote.export_empty</comment>
        <translation>还没有可导出的阶段：请先单步进入这一遍。</translation>
    </message>
    <message>
        <source>There are no stages to save: capture a pass first.</source>
        <comment>snapshot.empty</comment>
        <translation>没有可保存的阶段：请先捕获一次前向过程。</translation>
    </message>
    <message>
        <source>There is no GGUF file {file}.</source>
        <comment>gguf.missing</comment>
        <translation>不存在 GGUF 文件 {file}。</translation>
    </message>
    <message>
        <source>There is no attention kernel named {kernel} here; the kernels are {choices}.</source>
        <comment>hf.unknown_kernel</comment>
        <translation>这里没有名为 {kernel} 的注意力内核；可用的内核有 {choices}。</translation>
    </message>
    <message>
        <source>There is no column {col}: the shown slice has columns 0 to {last}.</source>
        <comment>edit.no_column</comment>
        <translation>没有第 {col} 列：显示的切片列号为 0 到 {last}。</translation>
    </message>
    <message>
        <source>There is no edit called &apos;{op}&apos;.</source>
        <comment>edit.unknown_op</comment>
        <translation>没有名为“{op}”的编辑操作。</translation>
    </message>
    <message>
        <source>There is no edit of the paused stage to undo.</source>
        <comment>replace.nothing_to_undo</comment>
        <translation>当前暂停的阶段没有可撤销的编辑。</translation>
    </message>
    <message>
        <source>There is no file {path}.</source>
        <comment>read.no_file</comment>
        <translation>没有文件 {path}。</translation>
    </message>
    <message>
        <source>There is no file {path}.</source>
        <comment>sdpa.no_file</comment>
        <translation>不存在文件 {path}。</translation>
    </message>
    <message>
        <source>There is no head {head}: this stage has heads 0 to {last}.</source>
        <comment>edit.no_head</comment>
        <translation>没有头 {head}：这个阶段的头编号为 0 到 {last}。</translation>
    </message>
    <message>
        <source>There is no row {row}: the shown slice has rows 0 to {last}.</source>
        <comment>edit.no_row</comment>
        <translation>没有第 {row} 行：显示的切片行号为 0 到 {last}。</translation>
    </message>
    <message>
        <source>There is no stage named &apos;{name}&apos; in this model.</source>
        <comment>stage.unknown_in_model</comment>
        <translation>此模型中没有名为“{name}”的阶段。</translation>
    </message>
    <message>
        <source>There is no stage named &apos;{name}&apos; in this pass; did you mean {close}?</source>
        <comment>stage.unknown_close</comment>
        <translation>这次前向传播中没有名为“{name}”的阶段；你是不是想找 {close}？</translation>
    </message>
    <message>
        <source>There is no stage named &apos;{name}&apos; in this recording.</source>
        <comment>recording.unknown_stage</comment>
        <translation>此记录中没有名为“{name}”的阶段。</translation>
    </message>
    <message>
        <source>This batch of {rows} rows would reach about {peak} but {device} has {room}: about {fits} rows fit in one pass (or capture fewer stages, --stages).</source>
        <comment>peak.batch_too_large</comment>
        <translation>这个 {rows} 行的批次将达到约 {peak}，但 {device} 只有 {room}：一次前向约能容纳 {fits} 行（或用 --stages 捕获更少的阶段）。</translation>
    </message>
    <message>
        <source>This config asks for about {size} of parameters and buffers, mostly from {field} = {value}; tfdebug builds models up to {most} on this machine.</source>
        <comment>config.memory</comment>
        <translation>这个配置需要约 {size} 的参数和缓冲区，主要来自 {field} = {value}；tfdebug 在本机最多构建 {most} 的模型。</translation>
    </message>
    <message>
        <source>This export needs about {needed} but {folder} has {free} free.{hint} Export fewer stages (a stage filter) or choose another folder.</source>
        <comment>export.no_room</comment>
        <translation>此次导出约需 {needed}，但 {folder} 只剩 {free} 可用。{hint}请导出更少的阶段（使用阶段筛选），或选择其他文件夹。</translation>
    </message>
    <message>
        <source>This generation has no step {step}.</source>
        <comment>generation.no_step</comment>
        <translation>这次生成没有第 {step} 步。</translation>
    </message>
    <message>
        <source>This model takes no input called &apos;{key}&apos;; its inputs are: {keys}.</source>
        <comment>input.unknown_key</comment>
        <translation>此模型没有名为“{key}”的输入；它的输入是：{keys}。</translation>
    </message>
    <message>
        <source>This pass cannot be saved: {problem}.</source>
        <comment>manifest.unsavable</comment>
        <translation>无法保存此次前向传播：{problem}。</translation>
    </message>
    <message>
        <source>This pass would reach about {peak} but {device} has {room}: capture fewer stages (--stages), a smaller --max-capture-mb, or a shorter input.</source>
        <comment>peak.too_large</comment>
        <translation>这次前向传播约会用到 {peak}，但 {device} 只有 {room}：请捕获更少的阶段（--stages）、调小 --max-capture-mb，或缩短输入。</translation>
    </message>
    <message>
        <source>This stage has fewer than two axes: edit the whole tensor instead.</source>
        <comment>edit.one_axis</comment>
        <translation>这个阶段少于两个轴：请改为编辑整个张量。</translation>
    </message>
    <message>
        <source>This stage has no head axis: there is no head to zero or keep.</source>
        <comment>edit.no_head_axis</comment>
        <translation>这个阶段没有头轴：没有可置零或保留的头。</translation>
    </message>
    <message>
        <source>This stage holds {dtype} values; only floating-point stages can be edited.</source>
        <comment>edit.not_float</comment>
        <translation>这个阶段的值是 {dtype}；只有浮点阶段才能编辑。</translation>
    </message>
    <message>
        <source>Tokens are counted from 1: the first generated token is token 1.</source>
        <comment>generation.token_from_1</comment>
        <translation>词元从 1 开始计数：第一个生成的词元是第 1 个。</translation>
    </message>
    <message>
        <source>Top-k must be 0 (off) or a positive number of tokens.</source>
        <comment>decoding.top_k</comment>
        <translation>Top-k 必须为 0（关闭）或正的词元数。</translation>
    </message>
    <message>
        <source>Top-p must be greater than 0 and at most 1.</source>
        <comment>decoding.top_p</comment>
        <translation>Top-p 必须大于 0 且不超过 1。</translation>
    </message>
    <message>
        <source>Unknown dtype &apos;{dtype}&apos;: use float32, float16 or bfloat16.</source>
        <comment>sdpa.unknown_dtype</comment>
        <translation>未知的数据类型“{dtype}”：请使用 float32、float16 或 bfloat16。</translation>
    </message>
    <message>
        <source>Unknown element type {name}.</source>
        <comment>remote.dtype</comment>
        <translation>未知的元素类型 {name}。</translation>
    </message>
    <message>
        <source>Unknown model &apos;{name}&apos;: use demo, random or a model folder.</source>
        <comment>model.unknown</comment>
        <translation>未知模型“{name}”：请使用 demo、random 或模型文件夹。</translation>
    </message>
    <message>
        <source>Unknown model &apos;{name}&apos;: use {names} or a model folder.</source>
        <comment>model.unknown_spec</comment>
        <translation>未知模型“{name}”：请使用 {names} 或模型文件夹。</translation>
    </message>
    <message>
        <source>Unknown model config keys: {keys}.</source>
        <comment>config.unknown_keys</comment>
        <translation>未知的模型配置键：{keys}。</translation>
    </message>
    <message>
        <source>atol and rtol must be zero or positive numbers.</source>
        <comment>remote.compare_tolerance</comment>
        <translation>绝对容差和相对容差必须是零或正数。</translation>
    </message>
    <message>
        <source>config.json is nested too deeply to be a model config.</source>
        <comment>config.nested</comment>
        <translation>config.json 嵌套过深，不可能是模型配置。</translation>
    </message>
    <message>
        <source>config.json is not valid JSON ({why}).</source>
        <comment>config.json</comment>
        <translation>config.json 不是有效的 JSON（{why}）。</translation>
    </message>
    <message>
        <source>config.json is {n} characters long; a model config is at most {most}.</source>
        <comment>config.too_long</comment>
        <translation>config.json 有 {n} 个字符；模型配置最多 {most} 个字符。</translation>
    </message>
    <message>
        <source>dim ({dim}) must equal n_embd ({n_embd}): W^O writes back into the residual stream.</source>
        <comment>config.dim</comment>
        <translation>dim（{dim}）必须等于 n_embd（{n_embd}）：W^O 要写回残差流。</translation>
    </message>
    <message>
        <source>dropout must be a number in [0, 1), not {value}.</source>
        <comment>config.dropout_type</comment>
        <translation>dropout 必须是 [0, 1) 之内的数，而不是 {value}。</translation>
    </message>
    <message>
        <source>dropout must be in [0, 1), not {value}.</source>
        <comment>config.dropout_range</comment>
        <translation>dropout 必须在 [0, 1) 之内，而不是 {value}。</translation>
    </message>
    <message>
        <source>dtype must be one of {choices}, not &apos;{name}&apos;.</source>
        <comment>config.unknown_dtype</comment>
        <translation>dtype 必须是 {choices} 之一，而不是“{name}”。</translation>
    </message>
    <message>
        <source>hf:{name} is no model folder here, and a hub id is ORG/NAME (e.g. hf:openai-community/{name}): write the hub id with its ORG, or the path of a folder that exists.</source>
        <comment>hf.bare_name</comment>
        <translation>hf:{name} 在这里不是模型文件夹，而 Hugging Face 模型 ID 的写法是 ORG/NAME（例如 hf:openai-community/{name}）：请写出带 ORG 的模型 ID，或一个存在的文件夹路径。</translation>
    </message>
    <message>
        <source>make_inputs could not use this text: {error}: {reason}</source>
        <comment>sdpa.make_inputs_failed</comment>
        <translation>make_inputs 无法使用这段文本：{error}: {reason}</translation>
    </message>
    <message>
        <source>make_inputs(text) must return (args, tokens): the module&apos;s arguments and the token strings they stand for.</source>
        <comment>sdpa.make_inputs_result</comment>
        <translation>make_inputs(text) 必须返回 (args, tokens)：即模块的参数和它们所代表的词元字符串。</translation>
    </message>
    <message>
        <source>n_embd ({n_embd}) must be divisible by n_heads ({n_heads}): each head gets n_embd / n_heads features.</source>
        <comment>config.heads</comment>
        <translation>n_embd（{n_embd}）必须能被 n_heads（{n_heads}）整除：每个头分到 n_embd / n_heads 个特征。</translation>
    </message>
    <message>
        <source>pad_id ({pad_id}) must be a token id of both vocabularies (below {below}).</source>
        <comment>config.pad_id</comment>
        <translation>pad_id（{pad_id}）必须是两个词表中都有的词元 id（小于 {below}）。</translation>
    </message>
    <message>
        <source>scaled_dot_product_attention at {where} was called with dropout_p={dropout}: tfdebug steps through inference passes only, so call it with dropout_p=0.0 outside training (model.eval()).</source>
        <comment>sdpa.dropout</comment>
        <translation>{where} 处的 scaled_dot_product_attention 调用使用了 dropout_p={dropout}：tfdebug 只单步执行推理传播，请在训练之外（model.eval()）以 dropout_p=0.0 调用它。</translation>
    </message>
    <message>
        <source>scaled_dot_product_attention at {where} was given both attn_mask and is_causal=True, which the fused kernel refuses too: pass one of them.</source>
        <comment>sdpa.mask_and_causal</comment>
        <translation>{where} 处的 scaled_dot_product_attention 同时收到了 attn_mask 和 is_causal=True，融合内核同样会拒绝这种调用：请只传其中一个。</translation>
    </message>
    <message>
        <source>tfdebug cannot tap nested tensors: have make_inputs return a padded tensor and a key padding mask (src_key_padding_mask, True at padding) instead.</source>
        <comment>sdpa.nested</comment>
        <translation>tfdebug 无法为嵌套张量设置探针：请让 make_inputs 改为返回补齐后的张量和键填充掩码（src_key_padding_mask，在填充处为 True）。</translation>
    </message>
    <message>
        <source>transformers cannot read the feature extractor in {folder}: {reason}</source>
        <comment>hf.auto_feature_extractor</comment>
        <translation>transformers 无法读取 {folder} 中的特征提取器：{reason}</translation>
    </message>
    <message>
        <source>transformers cannot read the image processor in {folder}: {reason}</source>
        <comment>hf.auto_image_processor</comment>
        <translation>transformers 无法读取 {folder} 中的图像处理器：{reason}</translation>
    </message>
    <message>
        <source>transformers cannot read the processor in {folder}: {reason}</source>
        <comment>hf.auto_processor</comment>
        <translation>transformers 无法读取 {folder} 中的处理器：{reason}</translation>
    </message>
    <message>
        <source>transformers cannot read the tokenizer in {file}: {reason}</source>
        <comment>gguf.tokenizer</comment>
        <translation>transformers 无法读取 {file} 中的分词器：{reason}</translation>
    </message>
    <message>
        <source>transformers cannot read the tokenizer in {folder}: {reason}</source>
        <comment>hf.auto_tokenizer</comment>
        <translation>transformers 无法读取 {folder} 中的分词器：{reason}</translation>
    </message>
    <message>
        <source>wrap() needs make_inputs(text) -&gt; (args, tokens) as its second argument.</source>
        <comment>sdpa.no_make_inputs</comment>
        <translation>wrap() 的第二个参数必须是 make_inputs(text) -&gt; (args, tokens)。</translation>
    </message>
    <message>
        <source>wrap() takes an nn.Module, not {type}.</source>
        <comment>sdpa.not_a_module</comment>
        <translation>wrap() 需要一个 nn.Module，而不是 {type}。</translation>
    </message>
    <message>
        <source>{device} is not a device name; use cpu, cuda, cuda:N, mps or auto.</source>
        <comment>device.bad_name</comment>
        <translation>{device} 不是设备名；请使用 cpu、cuda、cuda:N、mps 或 auto。</translation>
    </message>
    <message>
        <source>{device} names a CPU that does not exist: there is one CPU device, &apos;cpu&apos;.</source>
        <comment>device.no_such_cpu</comment>
        <translation>{device} 指向的 CPU 不存在：只有一个 CPU 设备“cpu”。</translation>
    </message>
    <message>
        <source>{file} asks for {wanted} layers but the weights hold {held}; the config does not describe these weights.</source>
        <comment>hf.config_layers</comment>
        <translation>{file} 要求 {wanted} 层，但权重只有 {held} 层；该配置与这些权重不符。</translation>
    </message>
    <message>
        <source>{file} cannot be read (permission denied).</source>
        <comment>gguf.unreadable</comment>
        <translation>{file} 无法读取（没有权限）。</translation>
    </message>
    <message>
        <source>{file} describes a model of {params} parameters but the weights hold {held}; the config does not describe these weights.</source>
        <comment>hf.config_too_large</comment>
        <translation>{file} 描述的模型有 {params} 个参数，但权重只有 {held} 个；该配置与这些权重不符。</translation>
    </message>
    <message>
        <source>{file} describes a model transformers cannot build: {reason}.</source>
        <comment>hf.build_failed</comment>
        <translation>{file} 描述的模型 transformers 无法构建：{reason}。</translation>
    </message>
    <message>
        <source>{file} describes a model whose buffers hold {n} values; it would not fit in memory.</source>
        <comment>hf.config_buffers</comment>
        <translation>{file} 描述的模型缓冲区含 {n} 个值，内存装不下。</translation>
    </message>
    <message>
        <source>{file} describes quantized weights ({method}); tfdebug shows the numbers of unquantized float16, bfloat16 or float32 models only.</source>
        <comment>hf.config_quantized</comment>
        <translation>{file} 描述的是量化权重（{method}）；tfdebug 只显示未量化的 float16、bfloat16 或 float32 模型的数值。</translation>
    </message>
    <message>
        <source>{file} gives &apos;{key}&apos; as {value}, not a positive finite number.</source>
        <comment>hf.config_not_positive</comment>
        <translation>{file} 中 &apos;{key}&apos; 为 {value}，不是有限正数。</translation>
    </message>
    <message>
        <source>{file} gives &apos;{key}&apos; as {value}, not a whole number.</source>
        <comment>hf.config_not_int</comment>
        <translation>{file} 中 &apos;{key}&apos; 为 {value}，不是整数。</translation>
    </message>
    <message>
        <source>{file} gives &apos;{key}&apos; as {value}; it must be from {least} to {most}.</source>
        <comment>hf.config_out_of_range</comment>
        <translation>{file} 中 &apos;{key}&apos; 为 {value}；它必须在 {least} 到 {most} 之间。</translation>
    </message>
    <message>
        <source>{file} gives &apos;{key}&apos; as {value}; tfdebug loads float32, float16 or bfloat16.</source>
        <comment>hf.config_dtype</comment>
        <translation>{file} 中 &apos;{key}&apos; 为 {value}；tfdebug 只加载 float32、float16 或 bfloat16。</translation>
    </message>
    <message>
        <source>{file} gives a width of {width} for {heads} heads; without &apos;head_dim&apos; the width must be a multiple of the heads.</source>
        <comment>hf.config_head_split</comment>
        <translation>{file} 给 {heads} 个头的宽度为 {width}；没有 &apos;head_dim&apos; 时宽度必须是头数的倍数。</translation>
    </message>
    <message>
        <source>{file} gives {heads} attention heads and {kv} key/value heads; the heads must be a multiple of the key/value heads.</source>
        <comment>hf.config_kv_heads</comment>
        <translation>{file} 给出 {heads} 个注意力头和 {kv} 个键/值头；注意力头数必须是键/值头数的倍数。</translation>
    </message>
    <message>
        <source>{file} has no usable model_type (it is {value}, not a short name such as &apos;llama&apos;).</source>
        <comment>hf.config_model_type</comment>
        <translation>{file} 没有可用的 model_type（它是 {value}，不是像 &apos;llama&apos; 这样的短名称）。</translation>
    </message>
    <message>
        <source>{file} is damaged: tensor {name} has no valid shape.</source>
        <comment>hf.bad_tensor_shape</comment>
        <translation>{file} 已损坏：张量 {name} 没有有效的形状。</translation>
    </message>
    <message>
        <source>{file} is not a GGUF model transformers reads: {reason}</source>
        <comment>gguf.unread</comment>
        <translation>{file} 不是 transformers 能读取的 GGUF 模型：{reason}</translation>
    </message>
    <message>
        <source>{file} is not a config transformers accepts: {reason}.</source>
        <comment>hf.config_rejected</comment>
        <translation>{file} 不是 transformers 接受的配置：{reason}。</translation>
    </message>
    <message>
        <source>{file} is not a regular file, so it is not read as a GGUF model.</source>
        <comment>gguf.not_file</comment>
        <translation>{file} 不是普通文件，因此不会作为 GGUF 模型读取。</translation>
    </message>
    <message>
        <source>{file} is not a safetensors file (it does not start with a safetensors header); tfdebug loads safetensors only and never opens pickles.</source>
        <comment>hf.not_safetensors</comment>
        <translation>{file} 不是 safetensors 文件（它不以 safetensors 头开始）；tfdebug 只加载 safetensors，从不打开 pickle。</translation>
    </message>
    <message>
        <source>{file} is not a tokenizer the tokenizers library reads ({reason}).</source>
        <comment>hf.bad_tokenizer</comment>
        <translation>{file} 不是 tokenizers 库能读取的分词器（{reason}）。</translation>
    </message>
    <message>
        <source>{file} lists architectures {value}, which are not model class names.</source>
        <comment>hf.config_architectures</comment>
        <translation>{file} 列出的 architectures {value} 不是模型类名。</translation>
    </message>
    <message>
        <source>{file} names the activation {value} (&apos;{key}&apos;), which transformers does not have.</source>
        <comment>hf.config_activation</comment>
        <translation>{file} 指定的激活函数 {value}（&apos;{key}&apos;）在 transformers 中不存在。</translation>
    </message>
    <message>
        <source>{index} has no &apos;metadata&apos; object (an index saved by save_pretrained has one).</source>
        <comment>hf.index_metadata</comment>
        <translation>{index} 没有 &apos;metadata&apos; 对象（save_pretrained 保存的索引都有）。</translation>
    </message>
    <message>
        <source>{index} is not a readable shard index: its &apos;weight_map&apos; is not a map of tensor names to shard files.</source>
        <comment>hf.bad_index</comment>
        <translation>{index} 不是可读的分片索引：它的 &apos;weight_map&apos; 不是张量名到分片文件的映射。</translation>
    </message>
    <message>
        <source>{index} names the weight file {shard}, which is not a .safetensors file inside the folder; tfdebug reads only a folder&apos;s own safetensors files.</source>
        <comment>hf.shard_outside</comment>
        <translation>{index} 指定的权重文件 {shard} 不是该文件夹内的 .safetensors 文件；tfdebug 只读取文件夹自己的 safetensors 文件。</translation>
    </message>
    <message>
        <source>{index} names {n} shards (at most {most}).</source>
        <comment>hf.too_many_shards</comment>
        <translation>{index} 列出 {n} 个分片（最多 {most} 个）。</translation>
    </message>
    <message>
        <source>{name} computes its attention in its own code: it has no {kernel} kernel to compare with.</source>
        <comment>adapter.no_kernel</comment>
        <translation>{name} 在自己的代码中计算注意力：它没有可供比较的 {kernel} 内核。</translation>
    </message>
    <message>
        <source>{name} in {folder} is a symbolic link that leads to itself (a loop), so the model was not read.</source>
        <comment>hf.link_loop</comment>
        <translation>{folder} 中的 {name} 是指向自身的符号链接（循环），因此没有读取模型。</translation>
    </message>
    <message>
        <source>{name} takes one audio file at a time.</source>
        <comment>audio.no_batch</comment>
        <translation>{name} 一次只接受一个音频文件。</translation>
    </message>
    <message>
        <source>{name} takes one picture at a time.</source>
        <comment>vlm.one_image</comment>
        <translation>{name} 一次只接受一张图片。</translation>
    </message>
    <message>
        <source>{name} takes one set of texts at a time, not a batch.</source>
        <comment>adapter.no_batch</comment>
        <translation>{name} 一次只接受一组文本，不接受批次。</translation>
    </message>
    <message>
        <source>{name} takes one source sentence at a time.</source>
        <comment>hf.batch_encoder_decoder</comment>
        <translation>{name} 一次只接受一个源句子。</translation>
    </message>
    <message>
        <source>{path} does not hold a JSON object.</source>
        <comment>read.json_not_object</comment>
        <translation>{path} 不包含 JSON 对象。</translation>
    </message>
    <message>
        <source>{path} grew past {most} while being read, so it was not used.</source>
        <comment>read.grew</comment>
        <translation>{path} 在读取时增长超过 {most}，因此未被使用。</translation>
    </message>
    <message>
        <source>{path} is not a WAV file tfdebug reads: {problem}.</source>
        <comment>audio.bad_wav</comment>
        <translation>{path} 不是 tfdebug 能读取的 WAV 文件：{problem}。</translation>
    </message>
    <message>
        <source>{path} in the Hugging Face cache is a symbolic link that leads nowhere (a loop, or a folder that cannot be read), so {model} was not read from it.</source>
        <comment>hub.link_loop</comment>
        <translation>Hugging Face 缓存中的 {path} 是无处可达的符号链接（循环，或无法读取的文件夹），因此没有从中读取 {model}。</translation>
    </message>
    <message>
        <source>{path} in the Hugging Face cache leads outside it (to {target}), so {model} was not read from it; tfdebug reads only the cache&apos;s own files.</source>
        <comment>hub.outside_cache</comment>
        <translation>Hugging Face 缓存中的 {path} 指向缓存之外（{target}），因此没有从中读取 {model}；tfdebug 只读取缓存自己的文件。</translation>
    </message>
    <message>
        <source>{path} is a folder, not a file.</source>
        <comment>read.is_folder</comment>
        <translation>{path} 是文件夹，不是文件。</translation>
    </message>
    <message>
        <source>{folder} has no config.json, so it is not a Hugging Face model folder.</source>
        <comment>hf.no_config</comment>
        <translation>{folder} 中没有 config.json，因此不是 Hugging Face 模型文件夹。</translation>
    </message>
    <message>
        <source>&apos;{address}&apos; is not a server address: give HOST:PORT, as tfdebug serve printed it.</source>
        <comment>remote.address</comment>
        <translation>“{address}”不是服务器地址：请按 tfdebug serve 打印的样子给出 主机:端口。</translation>
    </message>
    <message>
        <source>&apos;{key}&apos; is not a server key: give the 40 characters after --server-key in the line tfdebug serve printed.</source>
        <comment>remote.server_key</comment>
        <translation>“{key}”不是服务器密钥：请给出 tfdebug serve 打印的那一行中 --server-key 后面的 40 个字符。</translation>
    </message>
    <message>
        <source>--device-map needs accelerate: pip install &quot;tfdebug[hf]&quot;.</source>
        <comment>device_map.no_accelerate</comment>
        <translation>--device-map 需要 accelerate：pip install &quot;tfdebug[hf]&quot;。</translation>
    </message>
    <message>
        <source>--device-map takes auto, balanced, cpu or cuda:N, not {name}.</source>
        <comment>device_map.bad_name</comment>
        <translation>--device-map 取 auto、balanced、cpu 或 cuda:N，而不是 {name}。</translation>
    </message>
    <message>
        <source>--device-map {name} spreads a Hugging Face model over devices; {spec} runs on one device: use --device.</source>
        <comment>device_map.single_device</comment>
        <translation>--device-map {name} 把 Hugging Face 模型分布到多个设备上；{spec} 只在一个设备上运行：请用 --device。</translation>
    </message>
    <message>
        <source>--host takes an interface address or name, such as 127.0.0.1 or 0.0.0.0, not &apos;{host}&apos;.</source>
        <comment>remote.bad_host</comment>
        <translation>--host 需要一个网络接口地址或名称，例如 127.0.0.1 或 0.0.0.0，而不是“{host}”。</translation>
    </message>
    <message>
        <source>A part of the server&apos;s plan does not follow on from the parts before it.</source>
        <comment>remote.plan_part</comment>
        <translation>服务器计划的某一部分接不上前面的部分。</translation>
    </message>
    <message>
        <source>A slice from the server is not a 2-D plane with its stats.</source>
        <comment>remote.slice_shape</comment>
        <translation>服务器发来的切片不是带统计量的二维平面。</translation>
    </message>
    <message>
        <source>A sweep of this pass runs {forwards} forwards ({rows} rows × {count} columns); a served sweep runs at most {limit}: sweep a shorter text.</source>
        <comment>why.sweep_size</comment>
        <translation>这次扫描要运行 {forwards} 次前向计算（{rows} 行 × {count} 列）；服务器上的扫描最多运行 {limit} 次：请扫描更短的文本。</translation>
    </message>
    <message>
        <source>A token of the server&apos;s generation cannot be read: {why}</source>
        <comment>remote.token_entry</comment>
        <translation>无法读取服务器生成过程中的一个词元：{why}</translation>
    </message>
    <message>
        <source>An edit&apos;s values come as one float64 array of rows × columns (at most {n} values), for fill_csv only; this one is {dtype} of shape {shape} for {op}.</source>
        <comment>remote.edit_values</comment>
        <translation>编辑的数值以一个“行 × 列”的 float64 数组传来（最多 {n} 个值），且只用于 fill_csv；这个是形状为 {shape} 的 {dtype}，用于 {op}。</translation>
    </message>
    <message>
        <source>Could not download {model}: the Hugging Face hub cannot be reached from here (no network, or HF_HUB_OFFLINE is set).</source>
        <comment>hub.offline</comment>
        <translation>无法下载 {model}：从这里连不上 Hugging Face Hub（没有网络，或设置了 HF_HUB_OFFLINE）。</translation>
    </message>
    <message>
        <source>Could not download {model}: {reason}</source>
        <comment>hub.download_failed</comment>
        <translation>无法下载 {model}：{reason}</translation>
    </message>
    <message>
        <source>Head thumbnails from the server do not fit together.</source>
        <comment>remote.heads_fit</comment>
        <translation>服务器发来的头缩略图彼此不相符。</translation>
    </message>
    <message>
        <source>Hub ids need the optional extra: pip install &quot;tfdebug[hf]&quot; (huggingface_hub).</source>
        <comment>hub.install_hint</comment>
        <translation>Hub 模型 id 需要可选依赖：pip install &quot;tfdebug[hf]&quot;（huggingface_hub）。</translation>
    </message>
    <message>
        <source>On the server, snapshots are written into and read from its export folder only: give a file name ending in {suffix}, without a folder.</source>
        <comment>remote.export_name</comment>
        <translation>在服务器上，快照只写入和读取它的导出文件夹：请给出以 {suffix} 结尾、不含文件夹的文件名。</translation>
    </message>
    <message>
        <source>Port {port} on {host} is in use (another tfdebug serve?): choose another with --port, or --port 0 for a free one.</source>
        <comment>remote.port_in_use</comment>
        <translation>{host} 上的端口 {port} 已被占用（另一个 tfdebug serve？）：用 --port 换一个，或用 --port 0 取一个空闲端口。</translation>
    </message>
    <message>
        <source>This model&apos;s tokenizer has no chat template, so the text cannot be sent as a chat turn.</source>
        <comment>hf.no_chat_template</comment>
        <translation>此模型的分词器没有对话模板，因此文本无法作为一轮对话发送。</translation>
    </message>
    <message>
        <source>Unknown model &apos;{name}&apos; (did you mean {close}?): use {names} or a model folder.</source>
        <comment>model.unknown_close</comment>
        <translation>未知模型“{name}”（你是不是想找 {close}？）：请用 {names} 或一个模型文件夹。</translation>
    </message>
    <message>
        <source>tfdebug could not run {model} once to find its stages: {reason}</source>
        <comment>hf.probe_failed</comment>
        <translation>tfdebug 无法运行一次 {model} 来找出它的阶段：{reason}</translation>
    </message>
    <message>
        <source>tfdebug serve cannot listen on {host} port {port}: {why}.</source>
        <comment>remote.bind</comment>
        <translation>tfdebug serve 无法在 {host} 的端口 {port} 上监听：{why}。</translation>
    </message>
    <message>
        <source>{folder} has no model.safetensors (or model.safetensors.index.json).</source>
        <comment>hf.no_weights</comment>
        <translation>{folder} 中没有 model.safetensors（或 model.safetensors.index.json）。</translation>
    </message>
    <message>
        <source>{folder} has no tokenizer.json (a tokenizer saved by the tokenizers library).</source>
        <comment>hf.no_tokenizer</comment>
        <translation>{folder} 中没有 tokenizer.json（由 tokenizers 库保存的分词器）。</translation>
    </message>
    <message>
        <source>{folder} holds only a pickle checkpoint ({pickle}); tfdebug loads safetensors only and does not open pickles: save the model with save_pretrained(..., safe_serialization=True).</source>
        <comment>hf.pickle_only</comment>
        <translation>{folder} 中只有 pickle 格式的检查点（{pickle}）；tfdebug 只加载 safetensors，不会打开 pickle：请用 save_pretrained(..., safe_serialization=True) 保存模型。</translation>
    </message>
    <message>
        <source>{folder} is missing the weight shard {shard} named in its index.</source>
        <comment>hf.missing_shard</comment>
        <translation>{folder} 缺少其索引中列出的权重分片 {shard}。</translation>
    </message>
    <message>
        <source>{host} is not an address or interface of this machine: listen on 127.0.0.1 (and forward the port over SSH), 0.0.0.0 (every interface) or one of this machine&apos;s addresses.</source>
        <comment>remote.not_local</comment>
        <translation>{host} 不是本机的地址或网络接口：请在 127.0.0.1 上监听（并通过 SSH 转发端口）、在 0.0.0.0 上监听（所有接口），或使用本机的某个地址。</translation>
    </message>
    <message>
        <source>{model} calls neither F.scaled_dot_product_attention nor nn.MultiheadAttention, and holds no Tap: tfdebug found no stage to show.</source>
        <comment>sdpa.no_stages</comment>
        <translation>{model} 既没有调用 F.scaled_dot_product_attention 也没有调用 nn.MultiheadAttention，也不含 Tap：tfdebug 找不到可显示的阶段。</translation>
    </message>
    <message>
        <source>{model} is not in the Hugging Face cache ({cache}); add --download to fetch it.</source>
        <comment>hub.not_cached</comment>
        <translation>{model} 不在 Hugging Face 缓存（{cache}）中；加上 --download 来下载。</translation>
    </message>
    <message>
        <source>{model}: the hub has no revision {revision}.</source>
        <comment>hub.no_revision</comment>
        <translation>{model}：Hub 上没有版本 {revision}。</translation>
    </message>
    <message>
        <source>{module} has no function called {factory}.</source>
        <comment>sdpa.no_factory</comment>
        <translation>{module} 中没有名为 {factory} 的函数。</translation>
    </message>
    <message>
        <source>{module} passes the attention keyword &apos;{key}&apos;, which tfdebug&apos;s tapped attention does not implement, so it cannot show this model&apos;s attention faithfully.</source>
        <comment>hf.unknown_attention_keyword</comment>
        <translation>{module} 传入了注意力关键字参数“{key}”，tfdebug 的探查注意力没有实现它，因此无法如实显示此模型的注意力。</translation>
    </message>
    <message>
        <source>{module}.{factory}() failed: {error}: {reason}</source>
        <comment>sdpa.factory_failed</comment>
        <translation>{module}.{factory}() 失败：{error}: {reason}</translation>
    </message>
    <message>
        <source>{module}.{factory}() must return (module, make_inputs).</source>
        <comment>sdpa.factory_result</comment>
        <translation>{module}.{factory}() 必须返回 (module, make_inputs)。</translation>
    </message>
    <message>
        <source>{name} cannot generate text: it has no decoder to feed tokens to.</source>
        <comment>adapter.no_decoder</comment>
        <translation>{name} 无法生成文本：它没有可输入词元的解码器。</translation>
    </message>
    <message>
        <source>{name} in {folder} leads outside the folder (to {target}); tfdebug reads only a folder&apos;s own files.</source>
        <comment>hf.file_outside</comment>
        <translation>{folder} 中的 {name} 指向文件夹之外（{target}）；tfdebug 只读取文件夹自己的文件。</translation>
    </message>
    <message>
        <source>{name} is an encoder only: it has no decoder to generate text with.</source>
        <comment>hf.encoder_only</comment>
        <translation>{name} 只有编码器：没有可用于生成文本的解码器。</translation>
    </message>
    <message>
        <source>{name} is an image encoder: it has no decoder to generate text with.</source>
        <comment>image.no_decoder</comment>
        <translation>{name} 是图像编码器：没有可用来生成文本的解码器。</translation>
    </message>
    <message>
        <source>{name} must be a whole number from {low} to {high}, not {value}.</source>
        <comment>config.range</comment>
        <translation>{name} 必须是 {low} 到 {high} 之间的整数，而不是 {value}。</translation>
    </message>
    <message>
        <source>{name} must be a whole number, not {value}.</source>
        <comment>config.not_int</comment>
        <translation>{name} 必须是整数，而不是 {value}。</translation>
    </message>
    <message>
        <source>{name} takes one picture, or one folder of pictures as a batch, at a time.</source>
        <comment>image.no_batch</comment>
        <translation>{name} 一次接受一张图片，或把一个文件夹的图片作为一个批次。</translation>
    </message>
    <message>
        <source>{path} is a folder; choose a file name to write.</source>
        <comment>write.is_folder</comment>
        <translation>{path} 是文件夹；请选择要写入的文件名。</translation>
    </message>
    <message>
        <source>{path} is a symbolic link; tfdebug does not replace links (write to the file it points to, or choose another name).</source>
        <comment>write.link</comment>
        <translation>{path} 是符号链接；tfdebug 不会替换链接（请写入它指向的文件，或另选一个名称）。</translation>
    </message>
    <message>
        <source>{path} is damaged: stage {name} was saved with only finite values but now holds NaN or infinity.</source>
        <comment>verify.not_finite</comment>
        <translation>{path} 已损坏：阶段 {name} 保存时全是有限值，现在却含有 NaN 或无穷大。</translation>
    </message>
    <message>
        <source>{path} is damaged: the true/false stage {name} holds bytes other than 0 and 1.</source>
        <comment>verify.bad_bool</comment>
        <translation>{path} 已损坏：布尔阶段 {name} 含有 0 和 1 以外的字节。</translation>
    </message>
    <message>
        <source>{path} is not UTF-8 text (byte {at} is not).</source>
        <comment>read.not_utf8</comment>
        <translation>{path} 不是 UTF-8 文本（第 {at} 个字节不是）。</translation>
    </message>
    <message>
        <source>{path} is not UTF-8 text.</source>
        <comment>config.not_utf8</comment>
        <translation>{path} 不是 UTF-8 文本。</translation>
    </message>
    <message>
        <source>{path} is not a WAV file; other audio files (FLAC …) need the soundfile package: pip install soundfile.</source>
        <comment>audio.needs_soundfile</comment>
        <translation>{path} 不是 WAV 文件；其他音频文件（FLAC 等）需要 soundfile 包：pip install soundfile。</translation>
    </message>
    <message>
        <source>{path} is not a picture tfdebug reads ({formats}).</source>
        <comment>image.unknown_format</comment>
        <translation>{path} 不是 tfdebug 能读取的图片（{formats}）。</translation>
    </message>
    <message>
        <source>{path} is not a recorded pass: choose a {choices} file.</source>
        <comment>pass.wrong_suffix</comment>
        <translation>{path} 不是记录的前向传播：请选择 {choices} 文件。</translation>
    </message>
    <message>
        <source>{path} is not a regular file (a device, pipe or socket); choose a file name to write.</source>
        <comment>write.not_regular</comment>
        <translation>{path} 不是普通文件（而是设备、管道或套接字）；请选择要写入的文件名。</translation>
    </message>
    <message>
        <source>{path} is not a regular file (a pipe, device or socket); tfdebug reads only files.</source>
        <comment>read.not_regular</comment>
        <translation>{path} 不是普通文件（而是管道、设备或套接字）；tfdebug 只读取文件。</translation>
    </message>
    <message>
        <source>{path} is not a regular file.</source>
        <comment>config.not_file</comment>
        <translation>{path} 不是普通文件。</translation>
    </message>
    <message>
        <source>{path} is not an audio file soundfile can read ({reason}).</source>
        <comment>audio.unreadable_sf</comment>
        <translation>{path} 不是 soundfile 能读取的音频文件（{reason}）。</translation>
    </message>
    <message>
        <source>{path} is not an audio file tfdebug reads: {problem}.</source>
        <comment>audio.refused</comment>
        <translation>{path} 不是 tfdebug 能读取的音频文件：{problem}。</translation>
    </message>
    <message>
        <source>{path} is not an image Pillow can read ({reason}).</source>
        <comment>image.unreadable</comment>
        <translation>{path} 不是 Pillow 能读取的图像（{reason}）。</translation>
    </message>
    <message>
        <source>{path} is not valid JSON ({reason}).</source>
        <comment>read.json_invalid</comment>
        <translation>{path} 不是有效的 JSON（{reason}）。</translation>
    </message>
    <message>
        <source>{path} is read-only; tfdebug does not replace a protected file (make it writable, or choose another name).</source>
        <comment>write.read_only_file</comment>
        <translation>{path} 是只读的；tfdebug 不会替换受保护的文件（请把它设为可写，或另选一个名字）。</translation>
    </message>
    <message>
        <source>{path} is the file being read; writing there would destroy it (choose another name).</source>
        <comment>write.over_input</comment>
        <translation>{path} 正是被读取的文件；写到那里会毁掉它（请换一个名字）。</translation>
    </message>
    <message>
        <source>{path} is {size}; a file of this kind is at most {most}, so it was not read.</source>
        <comment>read.too_large</comment>
        <translation>{path} 大小为 {size}；这类文件最多 {most}，因此未读取。</translation>
    </message>
    <message>
        <source>{path} nests more than {most} levels deep.</source>
        <comment>read.json_deep</comment>
        <translation>{path} 嵌套超过 {most} 层。</translation>
    </message>
    <message>
        <source>{problem} gives the same key twice.</source>
        <comment>json.duplicate_key</comment>
        <translation>{problem} 中同一个键出现了两次。</translation>
    </message>
    <message>
        <source>{problem} is not a JSON object.</source>
        <comment>json.not_object</comment>
        <translation>{problem} 不是 JSON 对象。</translation>
    </message>
    <message>
        <source>{problem} is not valid JSON.</source>
        <comment>json.invalid</comment>
        <translation>{problem} 不是有效的 JSON。</translation>
    </message>
    <message>
        <source>{what} &apos;{text}&apos; is not a number.</source>
        <comment>edit.not_a_number</comment>
        <translation>{what}“{text}”不是数字。</translation>
    </message>
    <message>
        <source>{where} does not match its manifest: stage &apos;{name}&apos; has no tensor in the file.</source>
        <comment>manifest.missing_tensor</comment>
        <translation>{where} 与其清单不一致：阶段“{name}”在文件中没有张量。</translation>
    </message>
    <message>
        <source>{where} does not match its manifest: stage &apos;{name}&apos; has shape {shape} in the file but {listed} in the manifest.</source>
        <comment>manifest.shape_mismatch</comment>
        <translation>{where} 与其清单不一致：阶段“{name}”在文件中的形状为 {shape}，而清单中为 {listed}。</translation>
    </message>
    <message>
        <source>{where} does not match its manifest: stage &apos;{name}&apos; is a recipe but has a tensor too.</source>
        <comment>manifest.recipe_with_tensor</comment>
        <translation>{where} 与其清单不符：阶段 &apos;{name}&apos; 是配方，却也存有张量。</translation>
    </message>
    <message>
        <source>{where} does not match its manifest: stage &apos;{name}&apos; is {dtype} in the file but {want} in the manifest.</source>
        <comment>manifest.dtype_mismatch</comment>
        <translation>{where} 与其清单不一致：阶段“{name}”在文件中是 {dtype}，而清单中是 {want}。</translation>
    </message>
    <message>
        <source>{where} does not match its manifest: tensor &apos;{name}&apos; is not a listed stage.</source>
        <comment>manifest.extra_tensor</comment>
        <translation>{where} 与其清单不一致：张量“{name}”不是清单中列出的阶段。</translation>
    </message>
    <message>
        <source>{where} has a damaged manifest: {problem}.</source>
        <comment>manifest.damaged</comment>
        <translation>{where} 的清单已损坏：{problem}。</translation>
    </message>
    <message>
        <source>{where} has no part {index} of tensor &apos;{name}&apos; (of shape {shape}).</source>
        <comment>safetensors.no_part</comment>
        <translation>{where} 中没有张量“{name}”（形状 {shape}）的部分 {index}。</translation>
    </message>
    <message>
        <source>{where} has no tfdebug manifest: it is a plain safetensors file, not a snapshot.</source>
        <comment>manifest.missing</comment>
        <translation>{where} 没有 tfdebug 清单：它是普通的 safetensors 文件，而不是快照。</translation>
    </message>
    <message>
        <source>{where} is damaged or extended: {extra} bytes after the last tensor belong to none.</source>
        <comment>safetensors.trailing</comment>
        <translation>{where} 已损坏或被追加了内容：最后一个张量之后有 {extra} 字节不属于任何张量。</translation>
    </message>
    <message>
        <source>{where} is damaged: it declares {gib} GiB of tensor data but only {mib} MiB is stored on disk (a sparse file).</source>
        <comment>safetensors.sparse</comment>
        <translation>{where} 已损坏：它声明有 {gib} GiB 的张量数据，但磁盘上只存储了 {mib} MiB（稀疏文件）。</translation>
    </message>
    <message>
        <source>{where} is damaged: it holds {count} tensors (at most {limit}).</source>
        <comment>safetensors.too_many</comment>
        <translation>{where} 已损坏：它包含 {count} 个张量（最多 {limit} 个）。</translation>
    </message>
    <message>
        <source>{where} is damaged: its metadata is not a map of strings.</source>
        <comment>safetensors.bad_metadata</comment>
        <translation>{where} 已损坏：其元数据不是字符串映射。</translation>
    </message>
    <message>
        <source>{where} is damaged: tensor &apos;{name}&apos; has a size that does not match its shape.</source>
        <comment>safetensors.size_mismatch</comment>
        <translation>{where} 已损坏：张量“{name}”的大小与其形状不符。</translation>
    </message>
    <message>
        <source>{where} is damaged: tensor &apos;{name}&apos; has an invalid shape.</source>
        <comment>safetensors.bad_shape</comment>
        <translation>{where} 已损坏：张量“{name}”的形状无效。</translation>
    </message>
    <message>
        <source>{where} is damaged: tensor &apos;{name}&apos; has invalid data offsets.</source>
        <comment>safetensors.bad_offsets</comment>
        <translation>{where} 已损坏：张量“{name}”的数据偏移无效。</translation>
    </message>
    <message>
        <source>{where} is damaged: tensor &apos;{name}&apos; has {problem}.</source>
        <comment>safetensors.shape_problem</comment>
        <translation>{where} 已损坏：张量“{name}”：{problem}。</translation>
    </message>
    <message>
        <source>{where} is damaged: the data of tensor &apos;{name}&apos; overlaps or leaves a gap.</source>
        <comment>safetensors.overlap</comment>
        <translation>{where} 已损坏：张量“{name}”的数据与其他数据重叠或留有空隙。</translation>
    </message>
    <message>
        <source>{where} is damaged: the entry for tensor &apos;{name}&apos; is not an object.</source>
        <comment>safetensors.entry_not_object</comment>
        <translation>{where} 已损坏：张量“{name}”的条目不是对象。</translation>
    </message>
    <message>
        <source>{where} is damaged: the true/false stage {name} holds bytes other than 0 and 1.</source>
        <comment>snapshot.bad_bool</comment>
        <translation>{where} 已损坏：布尔阶段 {name} 中含有 0 和 1 以外的字节。</translation>
    </message>
    <message>
        <source>{where} is damaged: {problem}.</source>
        <comment>safetensors.bad_name</comment>
        <translation>{where} 已损坏：{problem}。</translation>
    </message>
    <message>
        <source>{where} is not a snapshot: it does not start with a safetensors header (its first 8 bytes claim a header of {n} bytes).</source>
        <comment>safetensors.no_header</comment>
        <translation>{where} 不是快照：它不是以 safetensors 文件头开始的（其前 8 个字节声称文件头有 {n} 字节）。</translation>
    </message>
    <message>
        <source>{where} is not a snapshot: its header is not UTF-8 text.</source>
        <comment>safetensors.header_not_utf8</comment>
        <translation>{where} 不是快照：其文件头不是 UTF-8 文本。</translation>
    </message>
    <message>
        <source>{where} is too short to be a snapshot ({size} bytes).</source>
        <comment>safetensors.too_short</comment>
        <translation>{where} 太短，不可能是快照（{size} 字节）。</translation>
    </message>
    <message>
        <source>{where} is truncated or damaged: tensor &apos;{name}&apos; ends past the end of the file.</source>
        <comment>safetensors.past_end</comment>
        <translation>{where} 被截断或已损坏：张量“{name}”的结尾超出了文件末尾。</translation>
    </message>
    <message>
        <source>{where} is truncated: it changed while being read.</source>
        <comment>safetensors.changed</comment>
        <translation>{where} 被截断：读取过程中文件发生了变化。</translation>
    </message>
    <message>
        <source>{where} is truncated: its header needs {n} bytes but only {left} follow.</source>
        <comment>safetensors.header_truncated</comment>
        <translation>{where} 被截断：其文件头需要 {n} 字节，但后面只有 {left} 字节。</translation>
    </message>
    <message>
        <source>{where} stores tensor &apos;{name}&apos; in a dtype tfdebug cannot read.</source>
        <comment>safetensors.unknown_dtype</comment>
        <translation>{where} 以 tfdebug 无法读取的数据类型存储张量“{name}”。</translation>
    </message>
    <message>
        <source>{where} {problem}.</source>
        <comment>manifest.unsupported</comment>
        <translation>{where} {problem}。</translation>
    </message>
</context>
<context>
    <name>formulas</name>
    <message>
        <source>−∞ above the diagonal</source>
        <translation>对角线以上为 −∞</translation>
    </message>
    <message>
        <source>−∞ above the diagonal and at padded keys</source>
        <translation>对角线以上和填充的键处为 −∞</translation>
    </message>
    <message>
        <source>−∞ at padded keys</source>
        <translation>填充的键处为 −∞</translation>
    </message>
    <message>
        <source>a row with every key masked is 0</source>
        <translation>所有键都被屏蔽的行为 0</translation>
    </message>
    <message>
        <source>over keys</source>
        <translation>沿键</translation>
    </message>
    <message>
        <source>this step&apos;s</source>
        <translation>本步的</translation>
    </message>
    <message>
        <source>cached</source>
        <translation>已缓存的</translation>
    </message>
</context>
<context>
    <name>inputs</name>
    <message>
        <source>Audio</source>
        <translation>音频</translation>
    </message>
    <message>
        <source>Captions</source>
        <translation>说明文字</translation>
    </message>
    <message>
        <source>Chinese, words separated by spaces</source>
        <translation>中文，词与词之间用空格分隔</translation>
    </message>
    <message>
        <source>Decoder input</source>
        <translation>解码器输入</translation>
    </message>
    <message>
        <source>Encoder input</source>
        <translation>编码器输入</translation>
    </message>
    <message>
        <source>English, words separated by spaces</source>
        <translation>英文，词与词之间用空格分隔</translation>
    </message>
    <message>
        <source>Image</source>
        <translation>图像</translation>
    </message>
    <message>
        <source>Prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <source>Second text</source>
        <translation>第二段文本</translation>
    </message>
    <message>
        <source>Source sentence</source>
        <translation>源句子</translation>
    </message>
    <message>
        <source>Target prefix</source>
        <translation>目标前缀</translation>
    </message>
    <message>
        <source>Text</source>
        <translation>文本</translation>
    </message>
    <message>
        <source>a PNG or JPEG file</source>
        <translation>一个 PNG 或 JPEG 文件</translation>
    </message>
    <message>
        <source>a PNG or JPEG file, or a folder of them</source>
        <translation>一个 PNG 或 JPEG 文件，或一个装有这类文件的文件夹</translation>
    </message>
    <message>
        <source>a WAV file (FLAC with the soundfile package)</source>
        <translation>一个 WAV 文件（装有 soundfile 包时也可用 FLAC）</translation>
    </message>
    <message>
        <source>a second sentence, to read the two as a pair</source>
        <translation>第二个句子，两句作为一对读入</translation>
    </message>
    <message>
        <source>a sentence for the encoder</source>
        <translation>给编码器的句子</translation>
    </message>
    <message>
        <source>one or more captions, separated by |</source>
        <translation>一条或多条说明文字，用 | 分隔</translation>
    </message>
    <message>
        <source>text for the encoder</source>
        <translation>给编码器的文本</translation>
    </message>
    <message>
        <source>text the decoder has produced so far</source>
        <translation>解码器目前已生成的文本</translation>
    </message>
    <message>
        <source>text the model continues</source>
        <translation>模型要续写的文本</translation>
    </message>
    <message>
        <source>text with &lt;image&gt; where the picture goes</source>
        <translation>在图片所在处写 &lt;image&gt; 的文本</translation>
    </message>
    <message>
        <source>words your make_inputs turns into the module&apos;s arguments</source>
        <translation>由你的 make_inputs 转换为模块参数的词</translation>
    </message>
</context>
<context>
    <name>keeping</name>
    <message>
        <source>the stages nearest where you are and where the pass is</source>
        <translation>离你所在之处和前向传播所到之处最近的阶段</translation>
    </message>
    <message>
        <source>the stages that run first</source>
        <translation>最先运行的阶段</translation>
    </message>
    <message>
        <source>{where}; every layer&apos;s attention first</source>
        <translation>{where}；优先保留每一层的注意力</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
    <message>
        <source>{where}; every {kinds} first</source>
        <translation>{where}；优先保留每个“{kinds}”阶段</translation>
    </message>
</context>
<context>
    <name>kind_menu</name>
    <message>
        <source>Break on Every…</source>
        <translation>在每种类型处中断…</translation>
    </message>
    <message>
        <source>Stop at every stage of kind {kind}</source>
        <translation>在每个 {kind} 类型的阶段停下</translation>
    </message>
</context>
<context>
    <name>kinds</name>
    <message>
        <source>Add positional encoding</source>
        <translation>加上位置编码</translation>
    </message>
    <message>
        <source>Attention dropout</source>
        <translation>注意力 Dropout</translation>
    </message>
    <message>
        <source>Attention sink</source>
        <translation>注意力汇聚</translation>
    </message>
    <message>
        <source>Embedding</source>
        <translation>词嵌入</translation>
    </message>
    <message>
        <source>Embedding multiplier</source>
        <translation>嵌入乘数</translation>
    </message>
    <message>
        <source>Expert routing</source>
        <translation>专家路由</translation>
    </message>
    <message>
        <source>Experts&apos; output</source>
        <translation>专家输出</translation>
    </message>
    <message>
        <source>FFN gate</source>
        <translation>FFN 门控</translation>
    </message>
    <message>
        <source>FFN hidden layer</source>
        <translation>FFN 隐藏层</translation>
    </message>
    <message>
        <source>FFN output</source>
        <translation>FFN 输出</translation>
    </message>
    <message>
        <source>Head merge</source>
        <translation>多头合并</translation>
    </message>
    <message>
        <source>Head split</source>
        <translation>多头拆分</translation>
    </message>
    <message>
        <source>K projection</source>
        <translation>K 投影</translation>
    </message>
    <message>
        <source>K/V repeat</source>
        <translation>K/V 复制</translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation>KV 缓存</translation>
    </message>
    <message>
        <source>LayerNorm</source>
        <translation>层归一化 LayerNorm</translation>
    </message>
    <message>
        <source>Logit scaling</source>
        <translation>对数几率缩放</translation>
    </message>
    <message>
        <source>Logits</source>
        <translation>对数几率</translation>
    </message>
    <message>
        <source>Mask</source>
        <translation>掩码</translation>
    </message>
    <message>
        <source>Output projection W^O</source>
        <translation>输出投影 W^O</translation>
    </message>
    <message>
        <source>Position bias</source>
        <translation>位置偏置</translation>
    </message>
    <message>
        <source>Positional encoding</source>
        <translation>位置编码</translation>
    </message>
    <message>
        <source>Q projection</source>
        <translation>Q 投影</translation>
    </message>
    <message>
        <source>Q/K norm</source>
        <translation>Q/K 归一化</translation>
    </message>
    <message>
        <source>RMSNorm</source>
        <translation>均方根归一化 RMSNorm</translation>
    </message>
    <message>
        <source>Residual add</source>
        <translation>残差相加</translation>
    </message>
    <message>
        <source>Rotary embedding</source>
        <translation>旋转位置编码</translation>
    </message>
    <message>
        <source>Router logits</source>
        <translation>路由器对数几率</translation>
    </message>
    <message>
        <source>Scale ÷√d_k</source>
        <translation>缩放 ÷√d_k</translation>
    </message>
    <message>
        <source>Scores Q·Kᵀ</source>
        <translation>注意力分数 Q·Kᵀ</translation>
    </message>
    <message>
        <source>Soft cap</source>
        <translation>软截断</translation>
    </message>
    <message>
        <source>Softmax</source>
        <translation>Softmax 归一化</translation>
    </message>
    <message>
        <source>V projection</source>
        <translation>V 投影</translation>
    </message>
    <message>
        <source>Weighted sum P·V</source>
        <translation>加权求和 P·V</translation>
    </message>
</context>
<context>
    <name>phrases</name>
    <message>
        <source>&apos;inputs&apos; is not a map of field names to texts</source>
        <comment>manifest.inputs_not_map</comment>
        <translation>“inputs”不是从字段名到文本的映射</translation>
    </message>
    <message>
        <source>&apos;model_config&apos; holds more than {most} values (a model&apos;s config holds thousands)</source>
        <comment>manifest.config_too_big</comment>
        <translation>“model_config”含有超过 {most} 个值（模型的配置只有几千个）</translation>
    </message>
    <message>
        <source>&apos;model_config&apos; is not an object</source>
        <comment>manifest.config_not_object</comment>
        <translation>“model_config”不是对象</translation>
    </message>
    <message>
        <source>&apos;recipe_inputs&apos; is not a list of tensors</source>
        <comment>manifest.recipe_inputs</comment>
        <translation>&apos;recipe_inputs&apos; 不是张量列表</translation>
    </message>
    <message>
        <source>&apos;recipe_inputs&apos; lists a tensor with an invalid name</source>
        <comment>manifest.recipe_name</comment>
        <translation>&apos;recipe_inputs&apos; 列出的张量名称无效</translation>
    </message>
    <message>
        <source>&apos;tokens&apos; must hold at least one named list of tokens</source>
        <comment>manifest.no_tokens</comment>
        <translation>“tokens”必须至少包含一个有名称的词元列表</translation>
    </message>
    <message>
        <source>&apos;tokens&apos; must hold the src and tgt word lists</source>
        <comment>manifest.v1_tokens</comment>
        <translation>“tokens”必须包含 src 和 tgt 两个词列表</translation>
    </message>
    <message>
        <source>&apos;{name}&apos; (no suffix)</source>
        <comment>export.no_suffix</comment>
        <translation>“{name}”（没有后缀）</translation>
    </message>
    <message>
        <source>&apos;{stream}&apos; has {n} tokens (at most {most})</source>
        <comment>limits.too_many_tokens</comment>
        <translation>“{stream}”有 {n} 个词元（最多 {most} 个）</translation>
    </message>
    <message>
        <source>0 wherever the mask is −∞</source>
        <comment>check.zero_masked</comment>
        <translation>被遮住（−∞）的位置恰好为 0</translation>
    </message>
    <message>
        <source>0 wherever the mask is −∞ (strictly above the diagonal)</source>
        <comment>check.zero_above</comment>
        <translation>被遮住（−∞）的位置恰好为 0（对角线以上）</translation>
    </message>
    <message>
        <source>A query whose weights are one-hot copies that key&apos;s value. Shape (B, H, T_q, d_k): the key axis is summed away.</source>
        <comment>explain.attn_v.look_for</comment>
        <translation>权重是 one-hot 的查询，会原样复制那个键的值。形状为 (B, H, T_q, d_k)：键这一维被求和消去了。</translation>
    </message>
    <message>
        <source>Adds a bias that depends on the distance between query and key, in place of position embeddings: T5&apos;s learned relative positions, ALiBi&apos;s per-head slope times the distance (BLOOM), or DeBERTa&apos;s content-to-position and position-to-content scores.</source>
        <comment>explain.position_bias.what</comment>
        <translation>加上一个随查询与键之间距离变化的偏置，代替位置嵌入：T5 的可学习相对位置、ALiBi 的每头斜率乘以距离（BLOOM），或 DeBERTa 的内容到位置与位置到内容分数。</translation>
    </message>
    <message>
        <source>Adds a mask M of 0 and −∞. A causal mask hides the future: a token may not read the tokens after it. A padding mask hides &lt;pad&gt; keys, which are not words. After softmax, −∞ becomes weight 0.</source>
        <comment>explain.mask.what</comment>
        <translation>加上一个由 0 和 −∞ 组成的掩码 M。因果掩码遮住未来：一个词不能读它后面的词。填充掩码遮住 &lt;pad&gt; 键，因为它们不是真正的词。经过 softmax 后，−∞ 变成权重 0。</translation>
    </message>
    <message>
        <source>Adds the positional table to the token embeddings, so that each row now says both which word it is and where it is. The same table is broadcast over every sentence of the batch.</source>
        <comment>explain.positional_add.what</comment>
        <translation>把位置编码加到词嵌入上：每一行既包含“我是谁”，也包含“我在哪”。同一张位置表会广播到批次中的每个句子。</translation>
    </message>
    <message>
        <source>Adds the sublayer&apos;s output to its input. The input travels past the sublayer unchanged, so a token keeps what it was and gains what the sublayer found, and gradients flow through the +.</source>
        <comment>explain.residual.what</comment>
        <translation>把子层的输出加到它的输入上。输入绕过子层原样到达，所以一个词既保留了原来的自己，又获得子层提取的新信息；梯度也能沿着这个加号直接回传。</translation>
    </message>
    <message>
        <source>After it, no stage diverges.</source>
        <comment>transplant.none_after</comment>
        <translation>移植之后，没有阶段发散。</translation>
    </message>
    <message>
        <source>After it, the first divergent stage is {stage}.</source>
        <comment>transplant.first_after</comment>
        <translation>移植之后，第一个发散的阶段是 {stage}。</translation>
    </message>
    <message>
        <source>Along the model axis each row has a mean near mean(b₂) and a spread near that of a₂ (0 and 1 in an untrained model). Rows never mix: it works on each token alone.</source>
        <comment>explain.layer_norm.look_for</comment>
        <translation>沿 model 轴，每一行的均值接近 b₂ 的均值，离散程度接近 a₂（未训练的模型里分别是 0 和 1）。各行互不混合：它只处理单个词。</translation>
    </message>
    <message>
        <source>At each position the largest logit is the word the model predicts next.</source>
        <comment>explain.logits.look_for</comment>
        <translation>在每个位置上，最大的 logit 就是模型预测的下一个词。</translation>
    </message>
    <message>
        <source>Attention sinks (GPT-OSS): each head has one learned logit, appended as an extra last column of the scores. The softmax runs over the keys and that column together, so a query can put weight on “nothing” instead of on some token; the column is then dropped.</source>
        <comment>explain.attn_sink.what</comment>
        <translation>注意力汇（GPT-OSS）：每个头有一个可学习的 logit，作为额外的最后一列接在分数后面。softmax 同时作用于所有键和这一列，于是查询可以把权重放在“什么也不看”上，而不必分给某个词；之后这一列被丢掉。</translation>
    </message>
    <message>
        <source>Causal: −∞ strictly above the diagonal, the diagonal itself allowed. Padding: whole key columns at &lt;pad&gt;. M is one small tensor broadcast over every sentence and head. No row may be masked entirely. A sliding window (Mistral, Gemma 2, GPT-OSS, ModernBERT: the formula names its size) leaves a band: each query sees only the nearest w keys, older ones are −∞ too.</source>
        <comment>explain.mask.look_for</comment>
        <translation>因果掩码：对角线以上严格为 −∞，对角线本身允许。填充掩码：&lt;pad&gt; 所在的整列键被遮住。M 是一个小张量，广播到每个句子和每个头上。任何一行都不能被完全遮住。滑动窗口（Mistral、Gemma 2、GPT-OSS、ModernBERT，公式里写着窗口大小）只留下一条带：每个查询只能看到最近的 w 个键，更早的键也是 −∞。</translation>
    </message>
    <message>
        <source>Connection timed out</source>
        <comment>os.timed_out</comment>
        <translation>连接超时</translation>
    </message>
    <message>
        <source>Cross-attention keys are source tokens: this axis is labelled with the source sentence.</source>
        <comment>explain.k_proj.look_for</comment>
        <translation>交叉注意力的键是源句子的词：这条轴用源句子的词来标注。</translation>
    </message>
    <message>
        <source>DIVERGES</source>
        <comment>compare.diverges</comment>
        <translation>有分歧</translation>
    </message>
    <message>
        <source>Device or resource busy</source>
        <comment>os.busy</comment>
        <translation>设备或资源忙</translation>
    </message>
    <message>
        <source>Disk quota exceeded</source>
        <comment>os.quota</comment>
        <translation>超出磁盘配额</translation>
    </message>
    <message>
        <source>Divides each token&apos;s features by their root mean square and scales by a learned weight. Unlike LayerNorm it does not subtract the mean.</source>
        <comment>explain.rms_norm.what</comment>
        <translation>用每个词特征的均方根去除它们，再乘以可学习的权重。与 LayerNorm 不同，它不减去均值。</translation>
    </message>
    <message>
        <source>Divides the scores by √d_k. With d_k features summed, the scores&apos; spread grows like √d_k; without this the softmax would put almost all weight on one key.</source>
        <comment>explain.scale.what</comment>
        <translation>把分数除以 √d_k。d_k 个乘积相加后，分数的离散程度按 √d_k 增长；不缩放的话，softmax 会几乎把全部权重给一个键（赢家通吃）。</translation>
    </message>
    <message>
        <source>Each group of {group} heads holds {group} copies of one K/V head</source>
        <comment>check.kv_repeat</comment>
        <translation>每 {group} 个头一组，都是同一个 K/V 头的 {group} 份拷贝</translation>
    </message>
    <message>
        <source>Each query&apos;s weights mix the value vectors of all keys: the new representation of a token is a weighted sum of what the other tokens hand over.</source>
        <comment>explain.attn_v.what</comment>
        <translation>每个查询用自己的权重把所有键的值向量混合起来：一个词的新表示，是其他词交出的内容的加权和。</translation>
    </message>
    <message>
        <source>Each row sums to 1 including the last column; that column is how much the head chose to ignore. The next stage, P, is this without the last column, so its rows sum to less than 1.</source>
        <comment>explain.attn_sink.look_for</comment>
        <translation>包含最后一列时每一行之和为 1；最后一列就是这个头选择“忽略”的份额。下一个阶段 P 去掉了这一列，所以它的每一行之和小于 1。</translation>
    </message>
    <message>
        <source>Each row&apos;s root mean square is close to that of the weight w; the mean is not forced to 0.</source>
        <comment>explain.rms_norm.look_for</comment>
        <translation>每一行的均方根接近权重 w 的尺度；均值不会被强制为 0。</translation>
    </message>
    <message>
        <source>Elsewhere equal to {stage}: M adds 0 there</source>
        <comment>check.mask_adds_zero</comment>
        <translation>其余位置等于 {stage}：M 在那里加 0</translation>
    </message>
    <message>
        <source>Equal to P·V recomputed</source>
        <comment>check.attn_v</comment>
        <translation>等于重新计算的 P·V</translation>
    </message>
    <message>
        <source>Equal to Q·Kᵀ recomputed (d_k = {d_k} summed away)</source>
        <comment>check.scores</comment>
        <translation>等于重新计算的 Q·Kᵀ（d_k = {d_k} 被求和消去）</translation>
    </message>
    <message>
        <source>Every head&apos;s row has a similar size now (an RMS near the mean of γ), whatever the projection gave.</source>
        <comment>explain.qk_norm.look_for</comment>
        <translation>无论投影结果多大，现在每个头的每一行大小都相近（均方根接近 γ 的均值）。</translation>
    </message>
    <message>
        <source>Every row sums to 1</source>
        <comment>check.rows_sum</comment>
        <translation>每一行的和都是 1</translation>
    </message>
    <message>
        <source>Every row sums to 1. Masked cells (−∞) are exactly 0, so with a causal mask everything strictly above the diagonal is 0. A row with one value near 1 looks at a single token.</source>
        <comment>explain.softmax.look_for</comment>
        <translation>每一行的和都是 1。被遮住的格子（−∞）恰好为 0，所以有因果掩码时对角线以上严格全为 0。某一行若有一个值接近 1，说明它只看一个词。</translation>
    </message>
    <message>
        <source>Every value lies in [−1, 1]</source>
        <comment>check.pe_range</comment>
        <translation>所有数值都在 [−1, 1] 之间</translation>
    </message>
    <message>
        <source>Every weight is between 0 and 1</source>
        <comment>check.weights_range</comment>
        <translation>每个权重都在 0 到 1 之间</translation>
    </message>
    <message>
        <source>Exactly k non-zero cells in each row; their sum is 1 where the model renormalises.</source>
        <comment>explain.routing.look_for</comment>
        <translation>每一行恰好有 k 个非零格；在重新归一化的模型里它们之和为 1。</translation>
    </message>
    <message>
        <source>Exactly the block&apos;s input + the sublayer&apos;s output</source>
        <comment>check.residual</comment>
        <translation>恰好等于本块输入 + 子层输出</translation>
    </message>
    <message>
        <source>Exactly the embedding + the PE table (broadcast over the batch)</source>
        <comment>check.positional_add</comment>
        <translation>恰好等于词嵌入 + 位置编码表（在批次上广播）</translation>
    </message>
    <message>
        <source>Features h·d_k … (h+1)·d_k − 1 of each row are head h&apos;s context, unchanged.</source>
        <comment>explain.head_merge.look_for</comment>
        <translation>每一行的第 h·d_k 到 (h+1)·d_k − 1 维，就是第 h 个头的输出，数值不变。</translation>
    </message>
    <message>
        <source>File exists</source>
        <comment>os.exists</comment>
        <translation>文件已存在</translation>
    </message>
    <message>
        <source>File name too long</source>
        <comment>os.name_too_long</comment>
        <translation>文件名太长</translation>
    </message>
    <message>
        <source>Grouped-query attention: fewer key/value heads than query heads, so each K/V head is repeated to serve a group of query heads.</source>
        <comment>explain.kv_repeat.what</comment>
        <translation>分组查询注意力：K/V 头比查询头少，所以每个 K/V 头被复制，供一组查询头共用。</translation>
    </message>
    <message>
        <source>H × d_k equals d_model, and head h holds features h·d_k … (h+1)·d_k − 1 of the projection, unchanged.</source>
        <comment>explain.head_split.look_for</comment>
        <translation>H × d_k 等于 d_model；第 h 个头恰好是投影结果中第 h·d_k 到 (h+1)·d_k − 1 维，数值不变。</translation>
    </message>
    <message>
        <source>Heads within one group are identical copies.</source>
        <comment>explain.kv_repeat.look_for</comment>
        <translation>同一组里的头是完全相同的副本。</translation>
    </message>
    <message>
        <source>Heatmap image (.png)</source>
        <comment>format.png</comment>
        <translation>热力图图片 (.png)</translation>
    </message>
    <message>
        <source>Heatmap slice as CSV (.csv)</source>
        <comment>format.csv</comment>
        <translation>热力图切片，CSV 格式 (.csv)</translation>
    </message>
    <message>
        <source>Heatmap vector image (.svg)</source>
        <comment>format.svg</comment>
        <translation>热力图矢量图 (.svg)</translation>
    </message>
    <message>
        <source>In evaluation this stage equals the softmax stage exactly.</source>
        <comment>explain.attn_dropout.look_for</comment>
        <translation>推理时本阶段与 softmax 阶段完全相同。</translation>
    </message>
    <message>
        <source>Input/output error</source>
        <comment>os.io</comment>
        <translation>输入/输出错误</translation>
    </message>
    <message>
        <source>Is a directory</source>
        <comment>os.is_folder</comment>
        <translation>是一个文件夹</translation>
    </message>
    <message>
        <source>Its rows are the tokens flattened over the batch; the shape is (tokens, d_model).</source>
        <comment>explain.expert_out.look_for</comment>
        <translation>它的行是展平到批次上的词；形状为 (tokens, d_model)。</translation>
    </message>
    <message>
        <source>K = X · W^K   (cross-attention: K = H_enc · W^K)</source>
        <comment>explain.k_proj.formula</comment>
        <translation>K = X · W^K   （交叉注意力：K = H_enc · W^K）</translation>
    </message>
    <message>
        <source>Let go: its room in the {size} capture budget went to a later step of the kinds you keep (in every layer q and k after their rotation, which the attention planes are computed from, come before their splits).</source>
        <comment>budget.why_later_kind</comment>
        <translation>已释放：它在 {size} 捕获预算中的空间让给了你要保留的类型中更靠后的一步（每一层中，旋转后的 q 和 k——注意力平面由它们算出——优先于旋转前的拆分）。</translation>
    </message>
    <message>
        <source>Let go: kept at first, then its room in the {size} capture budget went to a stage nearer the one you look at.</source>
        <comment>budget.why_evicted</comment>
        <translation>已释放：起初保留，后来它在 {size} 捕获预算中的空间让给了离你所看阶段更近的阶段。</translation>
    </message>
    <message>
        <source>Look along a row for the experts this token prefers; a column that is high everywhere is an expert every token uses.</source>
        <comment>explain.router_logits.look_for</comment>
        <translation>沿着一行看这个词偏爱哪些专家；如果某一列处处都高，说明每个词都在用这个专家。</translation>
    </message>
    <message>
        <source>Looks up one learned vector per token id in the embedding table. The rows of this stage are the words of the sentence before the model knows their order or their neighbours.</source>
        <comment>explain.embedding.what</comment>
        <translation>按词元 id 在嵌入表里查出一行可学习的向量。此时每一行只代表这个词本身，模型还不知道它的位置和上下文。</translation>
    </message>
    <message>
        <source>Mixture of experts: the router scores every expert for every token with one linear layer. The highest scores decide which few experts process the token.</source>
        <comment>explain.router_logits.what</comment>
        <translation>混合专家：路由器用一个线性层给每个词的每个专家打分。分数最高的几个专家会处理这个词。</translation>
    </message>
    <message>
        <source>Multiplies the concatenated heads by W^O, which mixes what the heads found into one d_model vector per token.</source>
        <comment>explain.out_proj.what</comment>
        <translation>把拼接后的多头输出乘以 W^O，把各个头的发现融合成每个词的一个 d_model 维向量。</translation>
    </message>
    <message>
        <source>Multiplies the embeddings by a constant before the first layer (Gemma: √d_model; Granite: its embedding multiplier), so they have the size the layers expect.</source>
        <comment>explain.embed_scale.what</comment>
        <translation>在第一层之前把嵌入乘以一个常数（Gemma：√d_model；Granite：它的嵌入乘数），让数值具有各层期望的大小。</translation>
    </message>
    <message>
        <source>Multiplies the input by W^K: every token gets a key, the label the queries are matched against. In cross-attention the keys come from the encoder&apos;s output, that is from the source tokens.</source>
        <comment>explain.k_proj.what</comment>
        <translation>把输入乘以 W^K：每个词得到一个键向量 K，也就是供查询匹配的“标签”。在交叉注意力里，键来自编码器的输出，也就是源语言的词。</translation>
    </message>
    <message>
        <source>Multiplies the input by W^V: every token gets a value, the content it hands over when it is attended to. Keys decide how much is taken, values what is taken.</source>
        <comment>explain.v_proj.what</comment>
        <translation>把输入乘以 W^V：每个词得到一个值向量 V，即它被关注时交出的“内容”。键决定取多少，值决定取什么。</translation>
    </message>
    <message>
        <source>Multiplies the normalised input by W^Q: every token gets a query, the question it asks the other tokens. One wide matrix stands for the eight heads&apos; matrices side by side.</source>
        <comment>explain.q_proj.what</comment>
        <translation>把归一化后的输入乘以 W^Q：每个词得到一个查询向量 Q，也就是它向其他词提出的“问题”。一个大矩阵相当于 8 个头各自的小矩阵并排拼在一起。</translation>
    </message>
    <message>
        <source>Narrows the hidden features back to d_model with W₂, ready to be added to the residual stream.</source>
        <comment>explain.ffn_out.what</comment>
        <translation>用 W₂ 把隐藏特征压回 d_model 维，准备加回残差流。</translation>
    </message>
    <message>
        <source>No negative values (ReLU); many exact zeros.</source>
        <comment>explain.ffn_hidden.look_for</comment>
        <translation>没有负数（ReLU）；有很多恰好为 0 的值。</translation>
    </message>
    <message>
        <source>No query row is masked entirely (softmax would give NaN)</source>
        <comment>check.no_full_row</comment>
        <translation>没有哪一行被完全遮住（否则 softmax 会得到 NaN）</translation>
    </message>
    <message>
        <source>No space left on device</source>
        <comment>os.no_space</comment>
        <translation>设备上没有剩余空间</translation>
    </message>
    <message>
        <source>No such file or directory</source>
        <comment>os.not_found</comment>
        <translation>没有该文件或文件夹</translation>
    </message>
    <message>
        <source>No value exceeds the cap c in absolute size.</source>
        <comment>explain.softcap.look_for</comment>
        <translation>所有数值的绝对值都不超过上限 c。</translation>
    </message>
    <message>
        <source>Normalises each token&apos;s features to mean 0 and standard deviation 1, then scales by a₂ and shifts by b₂ (both learned). Pre-norm: it runs before each sublayer, so attention and the FFN read well-scaled numbers.</source>
        <comment>explain.layer_norm.what</comment>
        <translation>把每个词的特征归一化为均值 0、标准差 1，再乘以可学习的 a₂、加上 b₂。这里是 Pre-Norm：在每个子层之前做，让注意力和前馈网络读到尺度稳定的数。</translation>
    </message>
    <message>
        <source>Normalises the queries (or keys) before the scores are taken, each head&apos;s features on their own (Qwen3, Gemma 3) or all heads at once (OLMo 2). It keeps Q·Kᵀ from growing without bound, so the softmax stays smooth. In latent attention (DeepSeek-V3) the same kind shows the compressed query or key/value after its norm.</source>
        <comment>explain.qk_norm.what</comment>
        <translation>在计算分数之前先把查询（或键）归一化：每个头各自归一化（Qwen3、Gemma 3），或所有头一起（OLMo 2）。这样 Q·Kᵀ 不会无限增大，softmax 保持平滑。在潜在注意力（DeepSeek-V3）中，同一类阶段显示归一化后的压缩查询或压缩键值。</translation>
    </message>
    <message>
        <source>Not a directory</source>
        <comment>os.not_folder</comment>
        <translation>不是文件夹</translation>
    </message>
    <message>
        <source>Not kept: stages nearer the one you look at fill the {size} capture budget.</source>
        <comment>budget.why_farther</comment>
        <translation>未保留：离你所看阶段更近的阶段占满了 {size} 捕获预算。</translation>
    </message>
    <message>
        <source>Not kept: the pinned stages before it fill the {size} capture budget.</source>
        <comment>budget.why_pinned_full</comment>
        <translation>未保留：它之前的固定阶段占满了 {size} 捕获预算。</translation>
    </message>
    <message>
        <source>Not kept: the {size} capture budget was full when this stage ran.</source>
        <comment>budget.why_full</comment>
        <translation>未保留：这个阶段运行时 {size} 捕获预算已满。</translation>
    </message>
    <message>
        <source>Not kept: this stage alone is larger than the {size} capture budget (pause here to see it).</source>
        <comment>budget.why_too_large</comment>
        <translation>未保留：这个阶段单独就超过了 {size} 捕获预算（停在这里可以查看它）。</translation>
    </message>
    <message>
        <source>Not kept: {distance} stages behind {stage}, where the pass was, when the {size} capture budget needed room for a nearer stage.</source>
        <comment>budget.why_behind_pass</comment>
        <translation>未保留：当 {size} 的捕获预算需要为更近的阶段腾出空间时，它落后于前向传播所在的 {stage} {distance} 个阶段。</translation>
    </message>
    <message>
        <source>Not kept: {distance} stages from {stage}, where you were looking, when the {size} capture budget needed room for a nearer stage.</source>
        <comment>budget.why_far_from_you</comment>
        <translation>未保留：当 {size} 的捕获预算需要为更近的阶段腾出空间时，它离你正在查看的 {stage} 有 {distance} 个阶段。</translation>
    </message>
    <message>
        <source>Nothing on or below the diagonal is masked</source>
        <comment>check.open_below</comment>
        <translation>对角线及以下没有被遮住的格子</translation>
    </message>
    <message>
        <source>NumPy arrays (.npz; bfloat16 saved as float32)</source>
        <comment>format.npz</comment>
        <translation>NumPy 数组（.npz；bfloat16 存为 float32）</translation>
    </message>
    <message>
        <source>Only a view and a transpose of the projection: the same numbers</source>
        <comment>check.split_view</comment>
        <translation>只是对投影做 view 和 transpose：数值完全相同</translation>
    </message>
    <message>
        <source>Operation not permitted</source>
        <comment>os.not_permitted</comment>
        <translation>不允许的操作</translation>
    </message>
    <message>
        <source>Padding hides whole key columns (&lt;pad&gt; keys)</source>
        <comment>check.padding</comment>
        <translation>填充掩码遮住整列（&lt;pad&gt; 键）</translation>
    </message>
    <message>
        <source>Permission denied</source>
        <comment>os.permission</comment>
        <translation>权限不足</translation>
    </message>
    <message>
        <source>Puts the heads side by side again: transpose the head axis back, then view (H, d_k) as d_model. Nothing is computed; W^O mixes the heads next.</source>
        <comment>explain.head_merge.what</comment>
        <translation>把各个头重新并排拼接：先把头这一维转置回去，再把 (H, d_k) 看成 d_model。这里不做计算；接下来由 W^O 融合各头的信息。</translation>
    </message>
    <message>
        <source>PyTorch tensors (.pt)</source>
        <comment>format.pt</comment>
        <translation>PyTorch 张量 (.pt)</translation>
    </message>
    <message>
        <source>Randomly zeroes attention weights during training; in evaluation (as here) it passes them through unchanged.</source>
        <comment>explain.attn_dropout.what</comment>
        <translation>训练时随机把一些注意力权重置零；推理时（如此处）原样通过。</translation>
    </message>
    <message>
        <source>Read-only file system</source>
        <comment>os.read_only</comment>
        <translation>只读文件系统</translation>
    </message>
    <message>
        <source>Rotates pairs of query and key features by an angle that grows with the position, so that the dot product of a query and a key depends on how far apart they are.</source>
        <comment>explain.rotary.what</comment>
        <translation>按位置增大的角度旋转查询和键的成对特征，使查询与键的点积取决于它们相隔多远。</translation>
    </message>
    <message>
        <source>Row 0 is exactly [0, 1, 0, 1, …]</source>
        <comment>check.pe_row0</comment>
        <translation>第 0 行恰好是 [0, 1, 0, 1, …]</translation>
    </message>
    <message>
        <source>Row 0 is exactly [0, 1, 0, 1, …] (sin 0 = 0, cos 0 = 1). Every value lies in [−1, 1]. The first columns change quickly from row to row, the last ones hardly at all. Open the PE curves to see them.</source>
        <comment>explain.positional_encoding.look_for</comment>
        <translation>第 0 行恰好是 [0, 1, 0, 1, …]（sin 0 = 0，cos 0 = 1）。所有数值都在 [−1, 1] 之间。前几列随行快速变化，最后几列几乎不变。打开位置编码曲线可以看到它们。</translation>
    </message>
    <message>
        <source>Row 0 is position {position}: the sin and cos of the formula</source>
        <comment>check.pe_position</comment>
        <translation>第 0 行是位置 {position}：与公式的 sin、cos 一致</translation>
    </message>
    <message>
        <source>Row {n} of the CSV file holds</source>
        <comment>edit.csv_row</comment>
        <translation>CSV 文件第 {n} 行中的</translation>
    </message>
    <message>
        <source>Scales the logits after the output layer by a constant (Granite divides by its logits scaling, Cohere multiplies by its logit scale). The ranking of the words does not change, the softmax&apos;s sharpness does.</source>
        <comment>explain.logit_scale.what</comment>
        <translation>在输出层之后把 logits 乘以一个常数（Granite 除以它的 logits_scaling，Cohere 乘以 logit_scale）。词的排序不变，softmax 的尖锐程度会变。</translation>
    </message>
    <message>
        <source>Scores every word of the vocabulary for the next position: the final hidden state times the output matrix. Softmax over this axis gives the next-token probabilities.</source>
        <comment>explain.logits.what</comment>
        <translation>对下一个位置给词表里每个词打分：最后的隐藏状态乘以输出矩阵。沿这一维做 softmax 就得到下一个词的概率。</translation>
    </message>
    <message>
        <source>Shape (batch, tokens, d_model) again.</source>
        <comment>explain.ffn_out.look_for</comment>
        <translation>形状重新变为 (batch, tokens, d_model)。</translation>
    </message>
    <message>
        <source>Snapshot (.safetensors)</source>
        <comment>format.safetensors</comment>
        <translation>快照 (.safetensors)</translation>
    </message>
    <message>
        <source>Splits d_model into H heads of d_k features without computing anything: a view makes the last axis (H, d_k), a transpose moves the head axis forward so that every head attends on its own.</source>
        <comment>explain.head_split.what</comment>
        <translation>把 d_model 切成 H 个头、每个头 d_k 维，不做任何计算：view 把最后一维变成 (H, d_k)，transpose 把头这一维移到前面，让每个头各自独立地做注意力。</translation>
    </message>
    <message>
        <source>Squashes very large scores smoothly into a fixed range with tanh, so that no single score can dominate the softmax. Gemma 2 caps its final logits the same way, after the output layer.</source>
        <comment>explain.softcap.what</comment>
        <translation>用 tanh 把过大的分数平滑地压进固定范围，使任何一个分数都无法独占 softmax。Gemma 2 也用同样的方法在输出层之后给最终的 logits 封顶。</translation>
    </message>
    <message>
        <source>The audio has {rate} samples per second; it was resampled to the {target} the model&apos;s feature extractor takes.</source>
        <comment>audio.resampled</comment>
        <translation>音频每秒 {rate} 个采样；已重采样为模型特征提取器接受的 {target}。</translation>
    </message>
    <message>
        <source>The audio is {seconds} s long; the model reads its first {window} s.</source>
        <comment>audio.cut</comment>
        <translation>音频长 {seconds} 秒；模型只读取前 {window} 秒。</translation>
    </message>
    <message>
        <source>The decoder reads the padded encoder rows (src_key_padding_mask without memory_key_padding_mask): torch&apos;s fast path makes them 0, the regular path tfdebug taps computes them, so the outputs differ. Pass memory_key_padding_mask too.</source>
        <comment>sdpa.unmasked_memory</comment>
        <translation>解码器读取了编码器中被填充的行（给了 src_key_padding_mask 却没有给 memory_key_padding_mask）：torch 的快速路径把它们置为 0，而 tfdebug 设探针的常规路径会计算它们，所以两者的输出不同。请同时传入 memory_key_padding_mask。</translation>
    </message>
    <message>
        <source>The dot product of every query with every key: how well each token&apos;s question matches each token&apos;s label. Each head computes its own score matrix.</source>
        <comment>explain.scores.what</comment>
        <translation>每个查询与每个键的点积：每个词的“问题”与每个词的“标签”有多匹配。每个头各算一张分数表。</translation>
    </message>
    <message>
        <source>The experts chosen for each token and the weight each gets: the top k of the router&apos;s probabilities (renormalised in many models), laid out over all experts with 0 where an expert was not chosen.</source>
        <comment>explain.routing.what</comment>
        <translation>每个词选中的专家以及各自的权重：路由概率中最大的 k 个（很多模型会重新归一化），摊开到所有专家上，未被选中的专家为 0。</translation>
    </message>
    <message>
        <source>The experts&apos; combined output for each token: each chosen expert&apos;s feed-forward output times its routing weight, summed. Experts that no token chose did not run at all.</source>
        <comment>explain.expert_out.what</comment>
        <translation>每个词的专家合并输出：每个被选中专家的前馈输出乘以它的路由权重，再求和。没有被任何词选中的专家根本没有运行。</translation>
    </message>
    <message>
        <source>The feed-forward layer widens each token to hidden_dim features and applies ReLU. It works on each token alone: attention exchanged information between tokens, this refines each one.</source>
        <comment>explain.ffn_hidden.what</comment>
        <translation>前馈层把每个词扩展到 hidden_dim 维并做 ReLU。它只处理单个词：注意力让词与词交换信息，前馈层则加工每个词自身的特征。</translation>
    </message>
    <message>
        <source>The file {path}</source>
        <comment>where.file</comment>
        <translation>文件 {path}</translation>
    </message>
    <message>
        <source>The fixed sinusoidal table that tells the model where each token sits. Even features are sines, odd features cosines, with wavelengths that grow from the first feature to the last, like the fast and slow hands of a clock.</source>
        <comment>explain.positional_encoding.what</comment>
        <translation>固定的正弦/余弦位置编码表，告诉模型每个词在句子中的位置。偶数维是正弦、奇数维是余弦，波长从第一维到最后一维越来越长，就像钟表上转得快和转得慢的指针。</translation>
    </message>
    <message>
        <source>The folder&apos;s {n} pictures are one batch, in the order of their names.</source>
        <comment>image.folder_batch</comment>
        <translation>文件夹中的 {n} 张图片按文件名顺序组成一个批次。</translation>
    </message>
    <message>
        <source>The gate of a gated feed-forward layer: one projection decides, feature by feature, how much of the other passes.</source>
        <comment>explain.ffn_gate.what</comment>
        <translation>门控前馈层的“门”：一个投影逐个特征决定另一个投影有多少可以通过。</translation>
    </message>
    <message>
        <source>The head_dim axis is gone: (B, H, T, d_k) · (B, H, d_k, T) gives (B, H, T, T). Scores grow with d_k, which is why the next stage divides by √d_k.</source>
        <comment>explain.scores.look_for</comment>
        <translation>head_dim 这一维被消耗掉了：(B, H, T, d_k) · (B, H, d_k, T) 得到 (B, H, T, T)。分数会随 d_k 变大，所以下一步要除以 √d_k。</translation>
    </message>
    <message>
        <source>The heads side by side, numbers unchanged</source>
        <comment>check.head_merge</comment>
        <translation>各头并排拼接，数值不变</translation>
    </message>
    <message>
        <source>The image is {w} × {h} pixels; the model&apos;s processor made it {mw} × {mh}, {rows} × {cols} patches of {p} pixels.</source>
        <comment>image.resized</comment>
        <translation>图像为 {w} × {h} 像素；模型的处理器把它变为 {mw} × {mh}，即 {rows} × {cols} 个 {p} 像素的图块。</translation>
    </message>
    <message>
        <source>The key axis grows by one token per step; the old rows are unchanged from the step before.</source>
        <comment>explain.kv_cache.look_for</comment>
        <translation>键这一维每一步增加一个词；旧的行与上一步完全相同。</translation>
    </message>
    <message>
        <source>The keys or values kept from earlier generation steps plus this step&apos;s: the new token&apos;s query attends over all of them, and nothing earlier is computed again.</source>
        <comment>explain.kv_cache.what</comment>
        <translation>生成时保存下来的前几步的键或值，加上这一步新算的：新词的查询对它们全部做注意力，之前的部分不再重算。</translation>
    </message>
    <message>
        <source>The length of each feature pair is unchanged; position 0 is not rotated at all.</source>
        <comment>explain.rotary.look_for</comment>
        <translation>每对特征的长度不变；位置 0 完全不旋转。</translation>
    </message>
    <message>
        <source>The model was given no {name}, but {what} makes one (first position that needs it: {position}).</source>
        <comment>hf.input_missing</comment>
        <translation>模型没有收到 {name}，但 {what} 会生成它（第一个需要它的位置：{position}）。</translation>
    </message>
    <message>
        <source>The model was given other features than {what} makes from {path}.</source>
        <comment>audio.input_differs</comment>
        <translation>模型得到的特征与 {what} 从 {path} 生成的不同。</translation>
    </message>
    <message>
        <source>The model was given other pixels than {what} makes from {path}.</source>
        <comment>image.input_differs</comment>
        <translation>模型得到的像素与 {what} 从 {path} 生成的不同。</translation>
    </message>
    <message>
        <source>The model was given {name} of shape {shape}, but {what} makes shape {expected}; the first position that differs is {position}.</source>
        <comment>hf.input_shape</comment>
        <translation>模型收到的 {name} 形状为 {shape}，但 {what} 生成的形状为 {expected}；第一个不同的位置是 {position}。</translation>
    </message>
    <message>
        <source>The model was given {name} {value} at {position}, but {what} makes {expected}.</source>
        <comment>hf.input_differs</comment>
        <translation>模型在 {position} 收到的 {name} 为 {value}，但 {what} 生成的是 {expected}。</translation>
    </message>
    <message>
        <source>The pass has run {n} of {total} stages; only those are exported. Continue to the end to export them all.</source>
        <comment>export.partial</comment>
        <translation>这次前向传播已运行 {total} 个阶段中的 {n} 个；只导出这些。继续运行到结束即可全部导出。</translation>
    </message>
    <message>
        <source>The prompt has no {token}; the picture goes before it.</source>
        <comment>vlm.image_first</comment>
        <translation>提示中没有 {token}；图片放在提示之前。</translation>
    </message>
    <message>
        <source>The same word always gives the same row. Values are small (initialised near 0, std 0.02) and no row depends on any other token.</source>
        <comment>explain.embedding.look_for</comment>
        <translation>同一个词永远得到同一行。数值通常很小（初始化标准差 0.02），而且每一行都与其他词无关。</translation>
    </message>
    <message>
        <source>The same word wins as in the stage before; the values are c times as large.</source>
        <comment>explain.logit_scale.look_for</comment>
        <translation>获胜的词与上一个阶段相同；数值变为 c 倍。</translation>
    </message>
    <message>
        <source>The sentence pair fills all {rows} rows of the batch, each padded to {tokens} tokens.</source>
        <comment>notes.fills_batch</comment>
        <translation>这对句子填满批次的全部 {rows} 行，每行都用 &lt;pad&gt; 补齐到 {tokens} 个词元。</translation>
    </message>
    <message>
        <source>The shape is back to (batch, tokens, d_model), ready to be added to the residual stream.</source>
        <comment>explain.out_proj.look_for</comment>
        <translation>形状回到 (batch, tokens, d_model)，可以加回残差流。</translation>
    </message>
    <message>
        <source>The shape keeps (batch, tokens, d_model); the head split comes next and only regroups these numbers.</source>
        <comment>explain.q_proj.look_for</comment>
        <translation>形状仍是 (batch, tokens, d_model)；接下来的多头切分只是重新分组这些数。</translation>
    </message>
    <message>
        <source>The snapshot {path}</source>
        <comment>where.snapshot</comment>
        <translation>快照 {path}</translation>
    </message>
    <message>
        <source>The text is {n} tokens long; the tokenizer keeps its first {most} (its maximum length, truncation=True), so the model does not read the rest.</source>
        <comment>hf.truncated</comment>
        <translation>文本长 {n} 个词元；分词器只保留前 {most} 个（它的最大长度，truncation=True），其余部分模型不会读到。</translation>
    </message>
    <message>
        <source>The value</source>
        <comment>edit.the_value</comment>
        <translation>数值</translation>
    </message>
    <message>
        <source>This pass</source>
        <comment>where.pass</comment>
        <translation>此次前向传播</translation>
    </message>
    <message>
        <source>This stage divided by the embedding is the same number c everywhere.</source>
        <comment>explain.embed_scale.look_for</comment>
        <translation>本阶段除以嵌入，处处都是同一个数 c。</translation>
    </message>
    <message>
        <source>This stage minus the block&apos;s input equals the sublayer&apos;s output exactly.</source>
        <comment>explain.residual.look_for</comment>
        <translation>本阶段减去本块的输入，恰好等于子层的输出。</translation>
    </message>
    <message>
        <source>This stage minus the embedding is exactly the PE table. Two copies of one word at different positions now have different rows.</source>
        <comment>explain.positional_add.look_for</comment>
        <translation>本阶段减去词嵌入，恰好等于位置编码表。同一个词出现在不同位置时，现在得到不同的行。</translation>
    </message>
    <message>
        <source>Too many open files</source>
        <comment>os.too_many_files</comment>
        <translation>打开的文件过多</translation>
    </message>
    <message>
        <source>Transplanting {stage} (the reference&apos;s tensor put in, the rest run again) brings the max |Δ| of {output} from {before} to {after}.</source>
        <comment>transplant.effect</comment>
        <translation>移植 {stage}（放入参考前向的张量，其余部分重新运行）使 {output} 的最大 |Δ| 从 {before} 变为 {after}。</translation>
    </message>
    <message>
        <source>Turns each query&apos;s row of scores into weights that are positive and sum to 1: e^x over the sum of e^x across the keys. Computed in float32 even for half-precision models.</source>
        <comment>explain.softmax.what</comment>
        <translation>把每个查询那一行分数变成正的、和为 1 的权重：e^x 除以所有键的 e^x 之和。即使模型是半精度，这一步也用 float32 计算。</translation>
    </message>
    <message>
        <source>Values have the same shape as keys; in cross-attention they also come from the source tokens.</source>
        <comment>explain.v_proj.look_for</comment>
        <translation>值与键的形状相同；在交叉注意力里它们同样来自源句子的词。</translation>
    </message>
    <message>
        <source>Values near 0 close a feature for that token.</source>
        <comment>explain.ffn_gate.look_for</comment>
        <translation>接近 0 的值会对这个词关闭该特征。</translation>
    </message>
    <message>
        <source>With T5 and ALiBi, cells on one diagonal (the same distance) get the same bias; DeBERTa&apos;s also depends on the tokens.</source>
        <comment>explain.position_bias.look_for</comment>
        <translation>在 T5 和 ALiBi 中，同一条对角线上（相同距离）的格子得到相同的偏置；DeBERTa 的偏置还取决于词元本身。</translation>
    </message>
    <message>
        <source>a chunk ({kind}) claims {size} bytes but only {left} follow</source>
        <comment>audio.chunk_size</comment>
        <translation>一个数据块（{kind}）声明有 {size} 字节，但其后只有 {left} 字节</translation>
    </message>
    <message>
        <source>a stage of kind {kind} is never a recipe</source>
        <comment>recipe.wrong_kind</comment>
        <translation>类型为 {kind} 的阶段不可能是配方</translation>
    </message>
    <message>
        <source>a stage of kind {kind} is never that recipe</source>
        <comment>recipe.wrong_recipe</comment>
        <translation>类型为 {kind} 的阶段不可能是这种配方</translation>
    </message>
    <message>
        <source>a step&apos;s tensor does not fit the plane</source>
        <comment>recipe.tensor_shape</comment>
        <translation>某一步的张量与注意力平面不匹配</translation>
    </message>
    <message>
        <source>a text</source>
        <comment>what.text</comment>
        <translation>一段文本</translation>
    </message>
    <message>
        <source>a {what} is missing or not text</source>
        <comment>limits.name_missing</comment>
        <translation>{what}缺失或不是文本</translation>
    </message>
    <message>
        <source>a {what} is {n} characters long (at most {most})</source>
        <comment>limits.name_long</comment>
        <translation>{what}长 {n} 个字符（最多 {most} 个）</translation>
    </message>
    <message>
        <source>cache = concat(cached, this step&apos;s K or V)</source>
        <comment>explain.kv_cache.formula</comment>
        <translation>cache = concat(已缓存的, 这一步的 K 或 V)</translation>
    </message>
    <message>
        <source>cell ({row}, {col})</source>
        <comment>edit.cell</comment>
        <translation>单元格 ({row}, {col})</translation>
    </message>
    <message>
        <source>column {col}</source>
        <comment>edit.column</comment>
        <translation>第 {col} 列</translation>
    </message>
    <message>
        <source>exact (the same model&apos;s eager pass in {dtype}, same kernels: equal bit for bit)</source>
        <comment>hf.tolerance_exact</comment>
        <translation>精确（同一模型在 {dtype} 下的 eager 前向，同样的内核：逐位相等）</translation>
    </message>
    <message>
        <source>has an unknown snapshot format version ({version})</source>
        <comment>manifest.unknown_version</comment>
        <translation>的快照格式版本未知（{version}）</translation>
    </message>
    <message>
        <source>head {head} zeroed</source>
        <comment>edit.zero_head</comment>
        <translation>头 {head} 置零</translation>
    </message>
    <message>
        <source>it does not start with a RIFF WAVE header</source>
        <comment>audio.no_riff</comment>
        <translation>它不以 RIFF WAVE 头开始</translation>
    </message>
    <message>
        <source>it has no data chunk</source>
        <comment>audio.no_data</comment>
        <translation>它没有数据块</translation>
    </message>
    <message>
        <source>it has no format chunk</source>
        <comment>audio.no_fmt</comment>
        <translation>它没有格式块</translation>
    </message>
    <message>
        <source>it has no list of at most {most} steps</source>
        <comment>recipe.no_steps</comment>
        <translation>它没有一个至多 {most} 步的步骤列表</translation>
    </message>
    <message>
        <source>it has recipe stages, which snapshot format {version} cannot hold</source>
        <comment>manifest.recipes_too_old</comment>
        <translation>它含有配方阶段，而快照格式 {version} 无法容纳</translation>
    </message>
    <message>
        <source>it has {n} channels (tfdebug reads 1–{most})</source>
        <comment>audio.channels</comment>
        <translation>它有 {n} 个声道（tfdebug 读取 1–{most} 个）</translation>
    </message>
    <message>
        <source>it has {n} token streams (at most {most})</source>
        <comment>manifest.too_many_streams</comment>
        <translation>它有 {n} 个词元流（最多 {most} 个）</translation>
    </message>
    <message>
        <source>it holds more than {most} values</source>
        <comment>limits.too_many_values</comment>
        <translation>它包含超过 {most} 个值</translation>
    </message>
    <message>
        <source>it holds no samples</source>
        <comment>audio.empty</comment>
        <translation>它不含任何采样</translation>
    </message>
    <message>
        <source>it lasts {seconds} s (tfdebug reads at most {most} s; cut it to the part to look at)</source>
        <comment>audio.too_long</comment>
        <translation>它长 {seconds} 秒（tfdebug 最多读取 {most} 秒；请截取要查看的部分）</translation>
    </message>
    <message>
        <source>it lists no stages</source>
        <comment>manifest.no_stages</comment>
        <translation>它没有列出任何阶段</translation>
    </message>
    <message>
        <source>it lists {n} stages (at most {most})</source>
        <comment>manifest.too_many_stages</comment>
        <translation>它列出了 {n} 个阶段（最多 {most} 个）</translation>
    </message>
    <message>
        <source>it nests more than {most} levels deep</source>
        <comment>limits.too_deep</comment>
        <translation>它的嵌套超过 {most} 层</translation>
    </message>
    <message>
        <source>its backward pass&apos;s objective or loss is damaged</source>
        <comment>manifest.bad_backward</comment>
        <translation>其中反向传播的目标或损失已损坏</translation>
    </message>
    <message>
        <source>its block size {align} is not {n} channels × {width} bytes</source>
        <comment>audio.block</comment>
        <translation>它的块大小 {align} 不等于 {n} 个声道 × {width} 字节</translation>
    </message>
    <message>
        <source>its float samples hold NaN or infinity</source>
        <comment>audio.not_finite</comment>
        <translation>它的浮点采样含有 NaN 或无穷大</translation>
    </message>
    <message>
        <source>its gradient is not an object of {fields}</source>
        <comment>recipe.gradient_fields</comment>
        <translation>它的梯度不是由 {fields} 组成的对象</translation>
    </message>
    <message>
        <source>its gradient is not of a step of a chain that ends at the probabilities</source>
        <comment>recipe.gradient_step</comment>
        <translation>它的梯度不属于一条以概率结尾的步骤链中的某一步</translation>
    </message>
    <message>
        <source>its gradient reads a tensor the file does not hold</source>
        <comment>recipe.gradient_missing</comment>
        <translation>它的梯度读取的张量不在文件中</translation>
    </message>
    <message>
        <source>its gradient&apos;s dO and V do not fit the plane</source>
        <comment>recipe.gradient_inputs</comment>
        <translation>它的梯度的 dO 和 V 与该平面不相符</translation>
    </message>
    <message>
        <source>its inputs make a plane of shape {made}, not the stage&apos;s {shape}</source>
        <comment>recipe.shape</comment>
        <translation>它的输入生成形状为 {made} 的平面，而不是该阶段的 {shape}</translation>
    </message>
    <message>
        <source>its query and key do not fit together</source>
        <comment>recipe.qk_shapes</comment>
        <translation>它的 query 和 key 对不上</translation>
    </message>
    <message>
        <source>its repeat count is not a whole number from 1 to {most}</source>
        <comment>recipe.bad_groups</comment>
        <translation>它的重复次数不是 1 到 {most} 之间的整数</translation>
    </message>
    <message>
        <source>its samples are format {tag} with {bits} bits (tfdebug reads 8, 16 and 32-bit PCM and 32-bit float)</source>
        <comment>audio.sample_format</comment>
        <translation>它的采样是格式 {tag}、{bits} 位（tfdebug 读取 8、16、32 位 PCM 和 32 位浮点）</translation>
    </message>
    <message>
        <source>its sampling rate is {rate} Hz (tfdebug reads {low}–{high} Hz)</source>
        <comment>audio.rate</comment>
        <translation>它的采样率是 {rate} Hz（tfdebug 读取 {low}–{high} Hz）</translation>
    </message>
    <message>
        <source>its steps make {made}, not the stage&apos;s {dtype}</source>
        <comment>recipe.dtype</comment>
        <translation>它的步骤生成 {made}，而不是该阶段的 {dtype}</translation>
    </message>
    <message>
        <source>not verified: the check against the unmodified model needs about {need} and {free} is free</source>
        <comment>peak.check_left_out</comment>
        <translation>未校验：与未修改模型的核对约需 {need}，而空闲只有 {free}</translation>
    </message>
    <message>
        <source>only head {head} kept</source>
        <comment>edit.keep_head</comment>
        <translation>只保留头 {head}</translation>
    </message>
    <message>
        <source>only in A</source>
        <comment>compare.only_a</comment>
        <translation>仅在 A 中</translation>
    </message>
    <message>
        <source>only in B</source>
        <comment>compare.only_b</comment>
        <translation>仅在 B 中</translation>
    </message>
    <message>
        <source>peak about {total}: the model and the process {model}, kept stages {kept}, stages in flight {working}, the check against the model {check}</source>
        <comment>peak.describe</comment>
        <translation>峰值约 {total}：模型与进程 {model}，保留的阶段 {kept}，计算中的阶段 {working}，与模型的核对 {check}</translation>
    </message>
    <message>
        <source>position {i}</source>
        <comment>hf.position</comment>
        <translation>位置 {i}</translation>
    </message>
    <message>
        <source>recipe input &apos;{name}&apos; has an invalid shape or dtype</source>
        <comment>manifest.recipe_shape</comment>
        <translation>配方输入 &apos;{name}&apos; 的形状或数据类型无效</translation>
    </message>
    <message>
        <source>row {row}</source>
        <comment>edit.row</comment>
        <translation>第 {row} 行</translation>
    </message>
    <message>
        <source>row {row}, position {i}</source>
        <comment>hf.row_position</comment>
        <translation>第 {row} 行，位置 {i}</translation>
    </message>
    <message>
        <source>same</source>
        <comment>compare.same</comment>
        <translation>相同</translation>
    </message>
    <message>
        <source>scaled = scores × {factor} (not ÷ √{d_k}: this model&apos;s own scale)</source>
        <comment>check.own_scale</comment>
        <translation>scaled = scores × {factor}（不是 ÷ √{d_k}：本模型自己的缩放）</translation>
    </message>
    <message>
        <source>scaled × √d_k equals scores exactly (the check above uses this pass&apos;s d_k). In the notes&apos; model d_k = 512 / 8 heads = 64, so every score there is divided by 8.</source>
        <comment>explain.scale.look_for</comment>
        <translation>scaled × √d_k 恰好等于 scores（上面的检查用的是本次前向的 d_k）。笔记中的模型 d_k = 512 / 8 个头 = 64，所以那里每个分数都除以 8。</translation>
    </message>
    <message>
        <source>scaled × √{d_k} equals scores (÷ {root})</source>
        <comment>check.scaled</comment>
        <translation>scaled × √{d_k} 等于 scores（除以 {root}）</translation>
    </message>
    <message>
        <source>scores + M,  M = 0 where allowed, −∞ where masked</source>
        <comment>explain.mask.formula</comment>
        <translation>scores + M，M 在允许处为 0，在遮住处为 −∞</translation>
    </message>
    <message>
        <source>shape {a} vs {b}</source>
        <comment>compare.shapes</comment>
        <translation>形状 {a} 对 {b}</translation>
    </message>
    <message>
        <source>shape {shape} holds no values</source>
        <comment>limits.shape_empty</comment>
        <translation>形状 {shape} 不含任何值</translation>
    </message>
    <message>
        <source>shape {shape} is too large to be real</source>
        <comment>limits.shape_huge</comment>
        <translation>形状 {shape} 大得不可能是真实数据</translation>
    </message>
    <message>
        <source>softmax(x_i) = e^(x_i) / Σ_j e^(x_j)   (over the key axis)</source>
        <comment>explain.softmax.formula</comment>
        <translation>softmax(x_i) = e^(x_i) / Σ_j e^(x_j)   （沿键这一维）</translation>
    </message>
    <message>
        <source>source</source>
        <comment>notes.source</comment>
        <translation>源句</translation>
    </message>
    <message>
        <source>stage &apos;{name}&apos; has &apos;{key}&apos; that is not a list of names</source>
        <comment>manifest.not_names</comment>
        <translation>阶段“{name}”的“{key}”不是名称列表</translation>
    </message>
    <message>
        <source>stage &apos;{name}&apos; has a &apos;finite&apos; mark that is not true or false</source>
        <comment>manifest.bad_finite</comment>
        <translation>阶段 &apos;{name}&apos; 的 &apos;finite&apos; 标记不是 true 或 false</translation>
    </message>
    <message>
        <source>stage &apos;{name}&apos; has a layer that is not a whole number</source>
        <comment>manifest.bad_layer</comment>
        <translation>阶段“{name}”的层号不是整数</translation>
    </message>
    <message>
        <source>stage &apos;{name}&apos; has an &apos;edited&apos; mark that is not true or false</source>
        <comment>manifest.bad_edited</comment>
        <translation>阶段“{name}”的“edited”标记不是 true 或 false</translation>
    </message>
    <message>
        <source>stage &apos;{name}&apos; has an invalid shape</source>
        <comment>manifest.bad_shape</comment>
        <translation>阶段“{name}”的形状无效</translation>
    </message>
    <message>
        <source>stage &apos;{name}&apos; has an unknown dtype</source>
        <comment>manifest.unknown_dtype</comment>
        <translation>阶段“{name}”的数据类型未知</translation>
    </message>
    <message>
        <source>stage &apos;{name}&apos; has an unknown kind</source>
        <comment>manifest.unknown_kind</comment>
        <translation>阶段“{name}”的种类未知</translation>
    </message>
    <message>
        <source>stage &apos;{name}&apos; has an unknown stored dtype</source>
        <comment>manifest.unknown_stored_dtype</comment>
        <translation>阶段“{name}”的存储数据类型未知</translation>
    </message>
    <message>
        <source>stage &apos;{name}&apos; has token labels that are not a map of axis to stream</source>
        <comment>manifest.bad_token_labels</comment>
        <translation>阶段“{name}”的词元标签不是从轴到词元流的映射</translation>
    </message>
    <message>
        <source>stage &apos;{name}&apos; has {length} positions on its {axis} axis but &apos;{ref}&apos; lists {held} tokens</source>
        <comment>manifest.token_count</comment>
        <translation>阶段“{name}”的 {axis} 轴有 {length} 个位置，但“{ref}”列出了 {held} 个词元</translation>
    </message>
    <message>
        <source>stage &apos;{name}&apos; has {problem}</source>
        <comment>manifest.stage_shape</comment>
        <translation>阶段“{name}”：{problem}</translation>
    </message>
    <message>
        <source>stage &apos;{name}&apos; is listed twice</source>
        <comment>manifest.stage_twice</comment>
        <translation>阶段“{name}”被列出了两次</translation>
    </message>
    <message>
        <source>stage &apos;{name}&apos; labels axis &apos;{axis}&apos;, which it does not have as a token axis</source>
        <comment>manifest.not_token_axis</comment>
        <translation>阶段“{name}”为轴“{axis}”加了标签，但它没有这个词元轴</translation>
    </message>
    <message>
        <source>stage &apos;{name}&apos; labels its {axis} axis with tokens &apos;{stream}&apos;, which the file does not hold</source>
        <comment>manifest.missing_stream</comment>
        <translation>阶段“{name}”用词元流“{stream}”标注其 {axis} 轴，但文件中没有这个词元流</translation>
    </message>
    <message>
        <source>stage &apos;{name}&apos; labels its {axis} axis with {ref}, not a token stream</source>
        <comment>manifest.bad_token_ref</comment>
        <translation>阶段“{name}”用 {ref} 标注其 {axis} 轴，这不是词元流</translation>
    </message>
    <message>
        <source>stage &apos;{name}&apos; names an axis twice</source>
        <comment>manifest.axis_twice</comment>
        <translation>阶段“{name}”把同一个轴列了两次</translation>
    </message>
    <message>
        <source>stage &apos;{name}&apos; names an unknown axis</source>
        <comment>manifest.unknown_axis</comment>
        <translation>阶段“{name}”列出了未知的轴</translation>
    </message>
    <message>
        <source>stage &apos;{name}&apos; names {n} axes for {dims} dimensions</source>
        <comment>manifest.axes_count</comment>
        <translation>阶段“{name}”为 {dims} 个维度列出了 {n} 个轴名</translation>
    </message>
    <message>
        <source>stage input name</source>
        <comment>what.stage_input_name</comment>
        <translation>阶段输入名</translation>
    </message>
    <message>
        <source>stage name</source>
        <comment>what.stage_name</comment>
        <translation>阶段名</translation>
    </message>
    <message>
        <source>stage {i} is not an object</source>
        <comment>manifest.stage_not_object</comment>
        <translation>第 {i} 个阶段不是对象</translation>
    </message>
    <message>
        <source>step {i} is not a step tfdebug writes</source>
        <comment>recipe.bad_step</comment>
        <translation>第 {i} 步不是 tfdebug 会写入的步骤</translation>
    </message>
    <message>
        <source>step {i} reads a tensor that is not a 4-axis floating-point tensor</source>
        <comment>recipe.input_kind</comment>
        <translation>第 {i} 步读取的张量不是 4 轴浮点张量</translation>
    </message>
    <message>
        <source>step {i} reads a tensor the file does not hold</source>
        <comment>recipe.missing_input</comment>
        <translation>第 {i} 步读取的张量不在文件中</translation>
    </message>
    <message>
        <source>target</source>
        <comment>notes.target</comment>
        <translation>目标句</translation>
    </message>
    <message>
        <source>tensor name</source>
        <comment>what.tensor_name</comment>
        <translation>张量名</translation>
    </message>
    <message>
        <source>the image it carries does not match the tokens of stream &apos;{stream}&apos;</source>
        <comment>manifest.image_tokens</comment>
        <translation>它携带的图像与流 &apos;{stream}&apos; 的词元不符</translation>
    </message>
    <message>
        <source>the image it carries is damaged ({reason})</source>
        <comment>manifest.bad_image</comment>
        <translation>它携带的图像已损坏（{reason}）</translation>
    </message>
    <message>
        <source>the input &apos;{field}&apos;</source>
        <comment>what.input</comment>
        <translation>输入“{field}”</translation>
    </message>
    <message>
        <source>the label of input &apos;{field}&apos;</source>
        <comment>what.input_label</comment>
        <translation>输入“{field}”的标签</translation>
    </message>
    <message>
        <source>the model&apos;s own run-to-run noise in {dtype} (two eager passes differ by up to {noise})</source>
        <comment>hf.tolerance_noise</comment>
        <translation>模型自身在 {dtype} 下两次运行之间的噪声（两次 eager 前向最多相差 {noise}）</translation>
    </message>
    <message>
        <source>the shown slice</source>
        <comment>edit.slice</comment>
        <translation>显示的切片</translation>
    </message>
    <message>
        <source>the shown slice filled from a CSV file</source>
        <comment>edit.fill_csv</comment>
        <translation>显示的切片已用 CSV 文件填充</translation>
    </message>
    <message>
        <source>the start</source>
        <comment>stepper.start</comment>
        <translation>开始处</translation>
    </message>
    <message>
        <source>the token stream name {name} is not a short name of letters, digits, _ and -</source>
        <comment>limits.stream_name</comment>
        <translation>词元流名 {name} 不是由字母、数字、_ 和 - 组成的短名称</translation>
    </message>
    <message>
        <source>the tokens of &apos;{stream}&apos; are not a list</source>
        <comment>limits.tokens_not_list</comment>
        <translation>“{stream}”的词元不是列表</translation>
    </message>
    <message>
        <source>the whole tensor</source>
        <comment>edit.tensor</comment>
        <translation>整个张量</translation>
    </message>
    <message>
        <source>the {key} of stage &apos;{name}&apos;</source>
        <comment>what.stage_field</comment>
        <translation>阶段“{name}”的 {key}</translation>
    </message>
    <message>
        <source>the {what} {name} holds characters other than letters, digits and . _ - : [ ] (or starts with a dot)</source>
        <comment>limits.name_characters</comment>
        <translation>{what} {name} 含有字母、数字和 . _ - : [ ] 以外的字符（或以点开头）</translation>
    </message>
    <message>
        <source>token {i} of &apos;{stream}&apos;</source>
        <comment>what.token</comment>
        <translation>“{stream}”的第 {i} 个词元</translation>
    </message>
    <message>
        <source>x = Q · Kᵀ   (per head: (T_q, d_k) · (d_k, T_k) → (T_q, T_k))</source>
        <comment>explain.scores.formula</comment>
        <translation>x = Q · Kᵀ   （每个头：(T_q, d_k) · (d_k, T_k) → (T_q, T_k)）</translation>
    </message>
    <message>
        <source>{h} heads × d_k {d_k} = d_model {d_model}</source>
        <comment>check.head_split</comment>
        <translation>{h} 个头 × d_k {d_k} = d_model {d_model}</translation>
    </message>
    <message>
        <source>{n} fully masked rows</source>
        <comment>check.full_rows</comment>
        <translation>{n} 行被完全遮住</translation>
    </message>
    <message>
        <source>{n} masked cells on or below the diagonal</source>
        <comment>check.below_cells</comment>
        <translation>对角线及以下有 {n} 个被遮住的格子</translation>
    </message>
    <message>
        <source>{n} masked cells, largest weight there {top}</source>
        <comment>check.masked_weight</comment>
        <translation>{n} 个被遮住的格子，其中最大权重 {top}</translation>
    </message>
    <message>
        <source>{n} masked key columns over all sentences and heads</source>
        <comment>check.padding_columns</comment>
        <translation>所有句子和头中共 {n} 列键被遮住</translation>
    </message>
    <message>
        <source>{n} of {total} cells above the diagonal masked</source>
        <comment>check.causal_cells</comment>
        <translation>对角线以上 {total} 个格子中 {n} 个被遮住</translation>
    </message>
    <message>
        <source>{stage} is not in this pass&apos;s history</source>
        <comment>check.missing</comment>
        <translation>本次前向的历史中没有 {stage}</translation>
    </message>
    <message>
        <source>{what} {text} holds control characters or broken Unicode</source>
        <comment>limits.control</comment>
        <translation>{what} {text} 含有控制字符或损坏的 Unicode</translation>
    </message>
    <message>
        <source>|x| reaches {value}, beyond float16&apos;s largest value {limit}: this stage would hold ±Inf if the pass ran in float16.</source>
        <comment>precision.half_overflow</comment>
        <translation>|x| 达到 {value}，超过 float16 的最大值 {limit}：若这次前向传播以 float16 运行，此阶段会出现 ±Inf。</translation>
    </message>
    <message>
        <source>|x| reaches {value}, over half of {dtype}&apos;s largest value {limit}: one doubling more and it becomes ±Inf.</source>
        <comment>precision.near_overflow</comment>
        <translation>|x| 达到 {value}，超过 {dtype} 最大值 {limit} 的一半：再翻一倍就变成 ±Inf。</translation>
    </message>
    <message>
        <source>−∞ everywhere strictly above the diagonal</source>
        <comment>check.causal</comment>
        <translation>对角线以上严格全为 −∞</translation>
    </message>
    <message>
        <source>uses snapshot format {version}, newer than this tfdebug reads ({ours}); update tfdebug to open it</source>
        <comment>manifest.newer</comment>
        <translation>使用快照格式 {version}，比此 tfdebug 能读取的格式（{ours}）更新；请更新 tfdebug 后再打开</translation>
    </message>
    <message>
        <source> A snapshot (.safetensors) stores the attention planes as recipes and needs {size}.</source>
        <comment>export.hint_snapshot</comment>
        <translation> 快照（.safetensors）把注意力平面存为配方，只需 {size}。</translation>
    </message>
    <message>
        <source> If tfdebug serve printed a --server-key, give it too.</source>
        <comment>remote.hint_key</comment>
        <translation>如果 tfdebug serve 打印了 --server-key，也请给出它。</translation>
    </message>
    <message>
        <source>&apos;input_labels&apos; is not a map of field names to labels</source>
        <comment>manifest.labels_not_map</comment>
        <translation>“input_labels”不是字段名到标签的映射</translation>
    </message>
    <message>
        <source>Not kept: the kinds you keep may take only part of the {size} capture budget, and the stages of those kinds before it hold that part.</source>
        <comment>budget.why_pinned_share</comment>
        <translation>未保留：你要保留的类型只能占用 {size} 捕获预算的一部分，而它之前的同类阶段已占满这一部分。</translation>
    </message>
    <message>
        <source>step {i} gives {given} where its inputs make {made}</source>
        <comment>recipe.step_dtype</comment>
        <translation>第 {i} 步给出 {given}，而它的输入生成 {made}</translation>
    </message>
    <message>
        <source>step {i} has no finite constant within ±{most}</source>
        <comment>recipe.bad_value</comment>
        <translation>第 {i} 步没有 ±{most} 以内的有限常数</translation>
    </message>
    <message>
        <source>{start}… ({n} characters)</source>
        <comment>write.long_name</comment>
        <translation>{start}…（{n} 个字符）</translation>
    </message>
    <message>
        <source>{token} is a special token, not text: the model reads it as that one token.</source>
        <comment>hf.special_token</comment>
        <translation>{token} 是特殊词元，不是文本：模型把它当作这一个词元读取。</translation>
    </message>
    <message>
        <source>{what} is not text</source>
        <comment>limits.not_text</comment>
        <translation>{what}不是文本</translation>
    </message>
    <message>
        <source>{what} is {n} characters long (at most {most})</source>
        <comment>limits.text_long</comment>
        <translation>{what}长 {n} 个字符（最多 {most} 个）</translation>
    </message>
    <message>
        <source>{where} has a damaged manifest: it</source>
        <comment>json.manifest</comment>
        <translation>{where} 的清单已损坏：其内容</translation>
    </message>
    <message>
        <source>{where} is not a snapshot: its header</source>
        <comment>json.header</comment>
        <translation>{where} 不是快照：其文件头</translation>
    </message>
    <message>
        <source>{where} scaled by {value}</source>
        <comment>edit.scale</comment>
        <translation>{where}乘以 {value}</translation>
    </message>
    <message>
        <source>{where} set to {value}</source>
        <comment>edit.set</comment>
        <translation>{where}设为 {value}</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
    <message>
        <source> or </source>
        <translation> 或 </translation>
    </message>
</context>
<context>
    <name>titles</name>
    <message>
        <source>Attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <source>Audio front end</source>
        <translation>音频前端</translation>
    </message>
    <message>
        <source>Block</source>
        <translation>块</translation>
    </message>
    <message>
        <source>Classifier</source>
        <translation>分类器</translation>
    </message>
    <message>
        <source>Cross-attention</source>
        <translation>交叉注意力</translation>
    </message>
    <message>
        <source>Decoder</source>
        <translation>解码器</translation>
    </message>
    <message>
        <source>Decoder embedding</source>
        <translation>解码器嵌入</translation>
    </message>
    <message>
        <source>Decoder layer</source>
        <translation>解码器层</translation>
    </message>
    <message>
        <source>Decoder norm</source>
        <translation>解码器归一化</translation>
    </message>
    <message>
        <source>Embeddings</source>
        <translation>嵌入</translation>
    </message>
    <message>
        <source>Encoder</source>
        <translation>编码器</translation>
    </message>
    <message>
        <source>Encoder embedding</source>
        <translation>编码器嵌入</translation>
    </message>
    <message>
        <source>Encoder layer</source>
        <translation>编码器层</translation>
    </message>
    <message>
        <source>Encoder norm</source>
        <translation>编码器归一化</translation>
    </message>
    <message>
        <source>Feed-forward (FFN)</source>
        <translation>前馈网络（FFN）</translation>
    </message>
    <message>
        <source>Feed-forward (MLP)</source>
        <translation>前馈网络（MLP）</translation>
    </message>
    <message>
        <source>Final norm</source>
        <translation>最终归一化</translation>
    </message>
    <message>
        <source>Image embeddings</source>
        <translation>图像嵌入</translation>
    </message>
    <message>
        <source>Image encoder</source>
        <translation>图像编码器</translation>
    </message>
    <message>
        <source>Image layer</source>
        <translation>图像层</translation>
    </message>
    <message>
        <source>Image norm</source>
        <translation>图像归一化</translation>
    </message>
    <message>
        <source>Layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>MLM head → logits</source>
        <translation>MLM 输出头 → 对数几率</translation>
    </message>
    <message>
        <source>Masked self-attention</source>
        <translation>掩码自注意力</translation>
    </message>
    <message>
        <source>Output head → logits</source>
        <translation>输出头 → 对数几率</translation>
    </message>
    <message>
        <source>Self-attention</source>
        <translation>自注意力</translation>
    </message>
    <message>
        <source>Similarity</source>
        <translation>相似度</translation>
    </message>
    <message>
        <source>Source embedding + PE</source>
        <translation>源端嵌入 + 位置编码</translation>
    </message>
    <message>
        <source>Target embedding + PE</source>
        <translation>目标端嵌入 + 位置编码</translation>
    </message>
    <message>
        <source>Text embeddings</source>
        <translation>文本嵌入</translation>
    </message>
    <message>
        <source>Text encoder</source>
        <translation>文本编码器</translation>
    </message>
    <message>
        <source>Text layer</source>
        <translation>文本层</translation>
    </message>
    <message>
        <source>Text norm</source>
        <translation>文本归一化</translation>
    </message>
    <message>
        <source>Token embedding</source>
        <translation>词元嵌入</translation>
    </message>
    <message>
        <source>lm_head → logits</source>
        <translation>lm_head → 对数几率</translation>
    </message>
    <message>
        <source>{title} {n}</source>
        <translation>{title} {n}</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>生成步</translation>
    </message>
</context>
<context>
    <name>verification</name>
    <message>
        <source>MISMATCH: the input is not what {against} makes. {problem}</source>
        <translation>不一致：输入不是 {against} 生成的输入。{problem}</translation>
    </message>
    <message>
        <source>verified in the pass: every layer&apos;s attention equals the model&apos;s own eager function on the same query, key and value, bit for bit ({count} stages); the logits and layer inputs were not compared</source>
        <translation>已在前向中验证：每一层的注意力与模型自身的 eager 函数在相同的 query、key、value 上逐位相等（{count} 个阶段）；logits 与各层输入未作比较</translation>
    </message>
    <message>
        <source>MISMATCH in the pass: {stage} differs from the model&apos;s own eager function on the same inputs (|Δ| = {diff})</source>
        <translation>前向中不一致：{stage} 与模型自身的 eager 函数在相同输入上的结果不同（|Δ| = {diff}）</translation>
    </message>
    <message>
        <source>verified: max |Δ| = {diff} vs unmodified model (tolerance: {tol})</source>
        <translation>已核对：与未修改的模型相比最大 |Δ| = {diff}（容差：{tol}）</translation>
    </message>
    <message>
        <source>MISMATCH: max |Δ| = {diff} vs unmodified model (tolerance: {tol})</source>
        <translation>不一致：与未修改的模型相比最大 |Δ| = {diff}（容差：{tol}）</translation>
    </message>
    <message>
        <source>verified: max |Δ| = {diff} vs unmodified model (tolerance {tol})</source>
        <translation>已验证：与原始模型相比 max |Δ| = {diff}（容差 {tol}）</translation>
    </message>
    <message>
        <source>MISMATCH: max |Δ| = {diff} vs unmodified model (tolerance {tol})</source>
        <translation>不一致：与原始模型相比 max |Δ| = {diff}（容差 {tol}）</translation>
    </message>
    <message>
        <source>{line}. {cause}</source>
        <translation>{line}。{cause}</translation>
    </message>
</context>
</TS>
