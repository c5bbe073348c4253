"""Stage names parse in one place; the pass layout (map and navigator) is built from the plan."""

from tfdebug.core.errors import UnknownStageError
from tfdebug.core.layout import build_layout
from tfdebug.core.names import parse_name
from tfdebug.core.plan import Plan
from tfdebug.core.recorder import Capture
from tfdebug.core.stages import StageInfo, site_and_layer
from tfdebug.core.view import RunInputs, ViewSelection

import pytest
import torch


def test_parse_names_of_every_shape():
    p = parse_name("dec.1.cross_attn.probs")
    assert (p.stack, p.layer, p.block, p.stage, p.step) == ("dec", 1, "cross_attn", "probs", None)
    assert (p.site, p.block_id, p.layer_id) == ("dec.cross_attn", "dec.1.cross_attn", "dec.1")
    assert site_and_layer("src.pos") == ("src", None)
    assert site_and_layer("enc.norm") == ("enc", None)
    assert site_and_layer("logits") == ("head", None)
    g = parse_name("gen.2.dec.0.self_attn.cache_k")
    assert (g.step, g.stack, g.layer, g.block, g.stage) == (2, "dec", 0, "self_attn", "cache_k")
    assert g.block_id == "gen.2.dec.0.self_attn"
    m = parse_name("blocks.3.attn.probs")  # a module path
    assert (m.stack, m.layer, m.block) == ("blocks", 3, "attn")


def _plan(names):
    info = lambda n: StageInfo(n, "residual", *site_and_layer(n), ("batch",), "x")  # noqa: E731
    return Plan(Capture(info(n), (1,), torch.float32, torch.device("cpu")) for n in names)


def test_an_encoder_decoder_has_two_columns_and_cross_links():
    layout = build_layout(_plan(["src.embed", "src.pos", "enc.0.attn.q", "enc.0.ffn.out", "enc.norm", "tgt.embed",
                                 "dec.0.self_attn.q", "dec.0.cross_attn.k", "dec.0.ffn.out", "dec.norm", "logits"]),
                          layer_titles={"enc": "Encoder layer", "dec": "Decoder layer"})
    assert [c.title for c in layout.columns] == ["Encoder", "Decoder"]
    assert [b.id for b in layout.columns[0].blocks] == ["src", "enc.0.attn", "enc.0.ffn", "enc"]
    assert [b.id for b in layout.columns[1].blocks] == ["tgt", "dec.0.self_attn", "dec.0.cross_attn",
                                                        "dec.0.ffn", "dec", "head"]
    assert layout.links == [("enc", "dec.0.cross_attn")]
    assert layout.group_path("dec.0.cross_attn.k") == ["Decoder layer 0", "Cross-attention"]
    assert layout.group_path("src.pos") == ["Source embedding + PE"]
    assert layout.group_path("logits") == []  # a lone stage needs no group


def test_a_decoder_only_model_has_one_column_and_its_own_titles():
    layout = build_layout(_plan(["tok.embed", "dec.0.self_attn.q", "dec.0.ffn.out", "dec.1.self_attn.q",
                                 "dec.norm", "logits"]), layer_titles={"dec": "Block"})
    assert len(layout.columns) == 1 and not layout.links
    assert layout.group_path("dec.1.self_attn.q") == ["Block 1", "Masked self-attention"]
    assert layout.block_of("logits").column == 0


def test_generation_steps_group_first():
    layout = build_layout(_plan(["gen.0.dec.0.self_attn.q", "gen.1.dec.0.self_attn.q"]))
    assert layout.steps == [0, 1]
    assert layout.group_path("gen.1.dec.0.self_attn.q")[0] == "Step 1"


def test_plan_looks_names_up():
    plan = _plan(["a.x", "a.y"])
    assert plan.index_of("a.y") == 1 and "a.x" in plan and plan.find("nope") is None
    with pytest.raises(UnknownStageError):
        plan.index_of("nope")


def test_view_selection_opens_on_the_last_two_axes_unless_pinned():
    view = ViewSelection()
    view.fit(("batch", "head", "query", "key"), (1, 4, 3, 3))
    assert (view.row_axis, view.col_axis) == (2, 3)
    view.pin(("head", "key"))
    view.fit(("batch", "head", "query", "key"), (1, 4, 3, 3))
    assert (view.row_axis, view.col_axis) == (1, 3)
    view.fit(("batch", "token", "model"), (1, 3, 8))  # no head axis here: back to the last two
    assert (view.row_axis, view.col_axis) == (1, 2)
    view.pin(None)
    view.fit(("batch", "head", "query", "key"), (1, 4, 3, 3))
    view.set_index("head", 9)  # clamped to the last head
    assert view.indices(("batch", "head", "query", "key"), (1, 4, 3, 3)) == {0: 0, 1: 3}


def test_run_inputs_survive_settings_and_reject_damage():
    inputs = RunInputs("demo", "cpu", {"src": "I love you", "tgt": ""})
    assert RunInputs.from_list(inputs.to_list()) == inputs
    for bad in (None, "demo", ["demo", "cpu"], ["demo", "cpu", {"src": 3}], [1, "cpu", {}]):
        assert RunInputs.from_list(bad) is None
