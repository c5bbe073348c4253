"""Panels tell the truth (issue 16): where data comes from, heads, axes, logits, navigator."""

from tests.ui.user_actions import run_to_stage


def from_line(window):
    text = window.shape_panel.plain_text()
    return text.split("From", 1)[1].split("Formula", 1)[0]


def test_from_names_the_stages_a_tensor_is_computed_from(window, qtbot):
    run_to_stage(window, qtbot, "enc.0.attn.v")
    assert "enc.0.attn.norm" in from_line(window)  # V reads the norm output, not K
    run_to_stage(window, qtbot, "enc.0.attn.scores")
    line = from_line(window)
    assert "enc.0.attn.q_split (1,4,3,16) and enc.0.attn.k_split (1,4,3,16)" in line
    assert "→ (1,4,3,3)" in line
    run_to_stage(window, qtbot, "dec.0.cross_attn.k")
    line = from_line(window)
    assert "enc.norm" in line and "dec.0.cross_attn.q" not in line
    assert "(1,3,64) → (1,3,64)" in line
    run_to_stage(window, qtbot, "dec.0.cross_attn.probs")  # no mask ran here: the scaled scores
    assert "dec.0.cross_attn.scaled" in from_line(window)
    run_to_stage(window, qtbot, "tgt.embed")
    assert "token ids" in from_line(window)
