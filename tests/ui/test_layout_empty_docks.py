"""Layouts that hold on a small screen and with any font: an empty Heads dock (a stage with no head axis)
gives its height to the heatmap, and takes its share back at a stage with heads. Proportions, not pixels."""

from tests.ui.user_actions import run_to_stage


def heads_share(window) -> float:
    heat, heads = window.docks["heatmap"].height(), window.docks["heads"].height()
    return heads / (heat + heads)


def test_an_empty_heads_dock_gives_its_height_to_the_heatmap(window, qtbot):
    window.resize(1280, 720)
    qtbot.waitUntil(lambda: window.width() == 1280 and window.height() == 720)
    run_to_stage(window, qtbot, "enc.0.attn.scores")
    qtbot.waitUntil(lambda: len(window.heads_panel.views) == 4)
    with_heads = heads_share(window)
    assert with_heads > 0.2  # the thumbnails have room
    run_to_stage(window, qtbot, "enc.0.attn.q")  # (batch, token, model): no head axis
    note = window.heads_panel.note
    qtbot.waitUntil(lambda: note.text() == "This stage has no head axis.")
    qtbot.waitUntil(lambda: heads_share(window) < 0.2)
    assert note.isVisible() and note.visibleRegion().boundingRect().height() >= note.fontMetrics().height()  # still read
    assert window.docks["heatmap"].height() >= 4 * window.docks["heads"].height()
    run_to_stage(window, qtbot, "enc.0.attn.probs")
    qtbot.waitUntil(lambda: heads_share(window) > 0.2)
    assert abs(heads_share(window) - with_heads) < 0.05  # the share it had, not a height of another size
