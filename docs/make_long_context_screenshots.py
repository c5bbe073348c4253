"""Make the user guide's pictures of long context: an 8,192-token prompt, zoomed, a query's row, the log scale.

    QT_QPA_PLATFORM=offscreen python docs/make_long_context_screenshots.py [OUT_DIR] [--only NAME ...]

The model is a tiny 2-layer Llama-style one (4 query heads on 2 K/V heads, 32 wide, seeded random
weights; `tests/ui/long_context.py`) with a byte-level tokenizer, saved into a temporary folder;
its prompt, 8,192 tokens of short lines with a special token in each, goes into the input bar and
Ctrl+Return runs it. Then, by keys and clicks:
- long-context-zoom-64: the last layer's probabilities (Stages tree, Ctrl+F10), View ▸ Heads and
  Generation hidden, the heatmap focused and + pressed seven times: 64×64 of the 8,192² cells, read
  as they are, every token labelled on both axes (newlines as ⏎, leading spaces as ␣), under
  Scale ▸ Per-row scale;
- long-context-query-row: Fit (Ctrl+0), then View ▸ Query Row (Ctrl+Shift+R): the last query's
  weights over all 8,192 keys, and its ten strongest keys;
- long-context-log-scale: Scale ▸ Per-row scale again (off), Scale ▸ Log scale: the small weights seen.
Each NAME.png comes with NAME.json, the texts the window showed (see window_driver.py);
OUT_DIR defaults to docs/.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]
from window_driver import Driver, command_line, visible_labels, wait  # noqa: E402

TOKENS = 8192
STAGE = "dec.1.self_attn.probs"
ZOOM, QUERY_ROW, LOG_SCALE = "long-context-zoom-64", "long-context-query-row", "long-context-log-scale"
PICTURES = (ZOOM, QUERY_ROW, LOG_SCALE)
SIZE = (2000, 1500)  # room for 64 labelled cells a side


def main(out: Path, only: set[str] | None = None) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from tests.ui.long_context import long_llama
    from tests.ui.user_actions import choose_in_menu_button

    # One fixed folder (emptied first): the status bar names it, and the texts beside each picture must
    # be the same on every run.
    where = Path(tempfile.gettempdir()) / "tfdebug-docs-long-context"
    shutil.rmtree(where, ignore_errors=True)
    driver = Driver(out, only)
    try:
        folder, prompt = long_llama(where / "llama", TOKENS)
        window, ctl = driver.window, driver.ctl
        window.resize(*SIZE)
        for dock in ("heads", "generation"):  # View ▸ Heads, View ▸ Generation: the heatmap takes the height
            window.docks[dock].hide()
        window.input_bar.set_values(f"hf:{folder}", "cpu", {"prompt": prompt})
        driver.key(Qt.Key_Return, Qt.ControlModifier)  # Run
        wait(lambda: ctl.session is not None and driver.paused(), timeout_s=600)
        driver.run_to(STAGE)
        heatmap = window.heatmap_panel
        wait(lambda: heatmap.slice is not None and heatmap.slice is ctl.shown.current_slice
             and heatmap.slice.source_shape == (TOKENS, TOKENS), timeout_s=600)
        wait(lambda: (window.width(), window.height()) == SIZE)
        QTest.qWait(500)  # docks and plots laid out at their final size before the heatmap is clicked
        heatmap.graphics.setFocus(Qt.TabFocusReason)  # the keys go to the heatmap (a click would also pick a row)
        for _ in range(7):
            QTest.keyClick(heatmap.graphics, Qt.Key_Plus)
        (r0, r1), (c0, c1) = heatmap.zoom.visible()
        choose_in_menu_button(heatmap.scale_button, heatmap.per_row_action)  # each query's keys, its own scale
        wait(lambda: heatmap.tile is not None and (heatmap.tile.rows, heatmap.tile.cols) == ((r0, r1), (c0, c1))
             and heatmap.tile.row_max is not None)
        labelled = [len(heatmap.plot.getAxis(side).shown_ticks()) for side in ("left", "bottom")]
        driver.shot(ZOOM, *SIZE, cells=[r1 - r0, c1 - c0], labelled=labelled, exact=heatmap.tile.exact)

        driver.key(Qt.Key_0, Qt.ControlModifier)  # Fit
        wait(lambda: heatmap.zoom.is_fit() and heatmap.tile is None)
        driver.key(Qt.Key_R, Qt.ControlModifier | Qt.ShiftModifier)  # View ▸ Query Row
        panel = window.query_row
        wait(lambda: panel.row == TOKENS - 1 and panel.isVisible())
        window.resizeDocks([window.docks["query_row"]], [420], Qt.Vertical)
        driver.shot(QUERY_ROW, *SIZE, query_row=visible_labels(window.docks["query_row"]))

        choose_in_menu_button(heatmap.scale_button, heatmap.per_row_action)  # per-row off,
        choose_in_menu_button(heatmap.scale_button, heatmap.log_action)      # the log scale on
        wait(lambda: heatmap.scale.log and not heatmap.scale.per_row)
        driver.shot(LOG_SCALE, *SIZE)
    finally:
        driver.close()
        shutil.rmtree(where, ignore_errors=True)


if __name__ == "__main__":
    command_line(__doc__.splitlines()[0], PICTURES, main)
