"""PassLayout: the architecture of one pass, built once from its plan (Qt-free).

The architecture map and the stage navigator draw from this instead of parsing stage
names themselves. Columns are the layered stacks (an encoder, a decoder, a stack of
blocks); stages outside layers (embeddings, final norms, logits) join the column of
the stack they feed or follow. An encoder–decoder pass has two columns and a link
from the encoder's last block to every cross-attention; decoder-only and
encoder-only passes have one column.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping

from tfdebug.core.names import block_title, layer_title, parse_name, site_title, stack_title
from tfdebug.core.recorder import Capture


@dataclass
class Block:
    """One box of the schematic: a block of a layer, or the stages of one site outside layers."""

    id: str
    title: str
    column: int
    layer_id: str | None
    layer_title: str | None
    stages: list[str] = field(default_factory=list)
    step: int | None = None  # the generation step it belongs to (`gen.{t}.`), None outside generation


@dataclass
class Column:
    """One column of the architecture map: a layered stack (encoder, decoder, blocks) and its blocks."""

    title: str
    blocks: list[Block] = field(default_factory=list)


@dataclass
class PassLayout:
    """Columns of blocks in forward order, links between blocks, and a stage → block map."""

    columns: list[Column]
    blocks: dict[str, Block]
    links: list[tuple[str, str]]
    stage_block: dict[str, str]
    steps: list[int] = field(default_factory=list)

    def block_of(self, stage: str) -> Block | None:
        """The block holding `stage`, or None when the stage is in none."""
        block_id = self.stage_block.get(stage)
        return None if block_id is None else self.blocks[block_id]

    def columns_at(self, step: int | None) -> list[list[Block]]:
        """The blocks to draw while the pass is at generation step `step`, column by column.

        A generation runs the same blocks once per step: drawing them all would stack
        every step's boxes in one column. Each column shows its blocks of this step, and a
        stack this step does not run (the encoder, after step 0) its blocks of the last
        step that ran it. A pass that is not a generation draws every block.
        """
        if step is None or not self.steps:
            return [list(column.blocks) for column in self.columns]
        shown = []
        for column in self.columns:
            blocks = [b for b in column.blocks if b.step == step]
            if not blocks:
                last = max((b.step for b in column.blocks if b.step is not None and b.step < step), default=None)
                blocks = [b for b in column.blocks if b.step == last]
            shown.append(blocks)
        return shown

    def group_path(self, stage: str) -> list[str]:
        """Tree groups above a stage: ['Decoder layer 0', 'Cross-attention'], or ['Source embedding + PE'].

        A generation pass puts 'Step t' first.
        """
        block = self.block_of(stage)
        if block is None:
            return []
        path = [f"Step {parse_name(stage).step}"] if parse_name(stage).step is not None else []
        if block.layer_title is not None:
            return path + [block.layer_title, block.title]
        # A lone stage outside layers (enc.norm, logits) needs no group of its own.
        return path + [block.title] if len(block.stages) > 1 else path


def build_layout(plan: Iterable[Capture], layer_titles: Mapping[str, str] | None = None,
                 site_titles: Mapping[str, str] | None = None,
                 column_titles: Mapping[str, str] | None = None) -> PassLayout:
    """The layout of a pass from its planned stages and the adapter's titles."""
    layer_titles, site_titles = dict(layer_titles or {}), dict(site_titles or {})
    parsed = [parse_name(c.name) for c in plan]
    layered_stacks: list[str] = []
    for p in parsed:
        if p.layer is not None and p.stack not in layered_stacks:
            layered_stacks.append(p.stack)
    columns = [Column(stack_title(s, column_titles)) for s in layered_stacks] or [Column("Model")]

    # Which column a stage outside layers joins: its own stack's when that stack has
    # layers (enc.norm), else the next layered stack in forward order (src → enc), else
    # the last one seen (logits → dec).
    next_layered: list[int | None] = [None] * len(parsed)
    upcoming = None
    for i in range(len(parsed) - 1, -1, -1):
        if parsed[i].layer is not None:
            upcoming = layered_stacks.index(parsed[i].stack)
        next_layered[i] = upcoming
    blocks: dict[str, Block] = {}
    stage_block: dict[str, str] = {}
    steps: list[int] = []
    last_column = 0
    for i, p in enumerate(parsed):
        if p.step is not None and p.step not in steps:
            steps.append(p.step)
        if p.layer is not None:
            column = layered_stacks.index(p.stack)
        elif p.stack in layered_stacks:
            column = layered_stacks.index(p.stack)
        elif (nearest := next_layered[i]) is not None:
            column = nearest
        else:
            column = last_column
        last_column = column
        block_id = p.block_id
        if block_id not in blocks:
            if p.layer is not None and p.block is not None:  # a stage in a layer has both
                block = Block(block_id, block_title(p.block), column, p.layer_id,
                              layer_title(p.stack, p.layer, layer_titles), step=p.step)
            else:
                block = Block(block_id, site_title(p.site, site_titles), column, None, None, step=p.step)
            blocks[block_id] = block
            columns[column].blocks.append(block)
        blocks[block_id].stages.append(p.full)
        stage_block[p.full] = block_id

    links = []
    if len(columns) > 1 and columns[0].blocks:
        source = columns[0].blocks[-1].id
        links = [(source, b.id) for b in blocks.values() if b.id.endswith(".cross_attn")]
    return PassLayout(columns, blocks, links, stage_block, steps)
