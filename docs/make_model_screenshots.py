"""Make docs/models.md's pictures of real architectures, reached by stepping the window with keys.

    QT_QPA_PLATFORM=offscreen python docs/make_model_screenshots.py [OUT_DIR] [--only NAME ...]

Each model is a tiny random one built from its config as the architecture tests build it
(`tests/adapters/hf_archs.py`: seeded weights, no download), saved with `save_pretrained` and a
word-level tokenizer into a temporary folder, then typed into the Model box as `hf:FOLDER` with
the prompt below and Return; F10 is pressed until the stage:
- hf-qwen3-q-norm: qwen3 at `dec.0.self_attn.q_norm` (each head's query normalised);
- hf-mixtral-routing: mixtral at `dec.0.ffn.routing` (the two experts each token chose, and their weights);
- hf-gemma2-sliding-window: gemma2 at `dec.0.self_attn.masked` (the band of a 4-key window);
- hf-gpt-oss-sinks: gpt_oss at `dec.0.self_attn.sinks` (the sink logit as the last column);
- model-view-llama-16x32: a 16-layer, 32-head llama (64 wide), F5 to the end, Ctrl+Shift+M (View ▸
  Model View), then a click on layer 9's head 20, which the heatmap shows.
- deep-llama-30-1280x720 and deep-llama-30-1600x1000: a 30-layer tiny llama on a long prompt (the
  window's title and the status bar elide it), a capture budget of 1 MB (its long warning in the message
  bar), Run to Stage `dec.14.self_attn.probs`, then Ctrl+Shift+M (View ▸ Model View), on each screen size:
  nothing clipped.
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
from window_driver import Driver, command_line, wait  # noqa: E402

PROMPT = {"prompt": "the cat sat on the mat I love you"}
STEPPED = (("hf-qwen3-q-norm", "qwen3", "dec.0.self_attn.q_norm"),
           ("hf-mixtral-routing", "mixtral", "dec.0.ffn.routing"),
           ("hf-gemma2-sliding-window", "gemma2", "dec.0.self_attn.masked"),
           ("hf-gpt-oss-sinks", "gpt_oss", "dec.0.self_attn.sinks"))
MODEL_VIEW = "model-view-llama-16x32"
DEEP = ("deep-llama-30-1280x720", "deep-llama-30-1600x1000")
PICTURES = tuple(name for name, _, _ in STEPPED) + (MODEL_VIEW, *DEEP)
# The newcomer's deep model: the 30 layers of a 135M chat model at a tiny width, on a prompt far longer
# than the window's title.
DEEP_30 = dict(hidden_size=72, intermediate_size=144, num_hidden_layers=30, num_attention_heads=9,
               num_key_value_heads=3, head_dim=8, max_position_embeddings=256)
LONG_PROMPT = {"prompt": " ".join(["the cat sat on the mat and I love you"] * 12)}
# A Llama-3.2-1B-like depth and head count at a tiny width: 16 layers, 32 query heads on 8 K/V heads.
DEEP_LLAMA = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=16, num_attention_heads=32,
                  num_key_value_heads=8, head_dim=2)


def _folder(model_type: str, where: Path, **over) -> Path:
    from tests.adapters import hf_archs, hf_tiny

    arch = hf_archs.BY_TYPE[model_type]
    if over:
        arch = hf_archs.Arch(arch.model_type, arch.kind, {**arch.config, **over})
    return hf_tiny.save_folder(hf_archs.build(arch), where / model_type)


def stepped(out: Path, only: set[str] | None, where: Path) -> None:
    driver = Driver(out, only)
    try:
        for name, model_type, stage in STEPPED:
            if driver.wanted(name):
                driver.run(f"hf:{_folder(model_type, where)}", PROMPT)
                driver.step_to(stage)
                driver.shot(name, 1600, 1000)
    finally:
        driver.close()


def model_view(out: Path, only: set[str] | None, where: Path) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    driver = Driver(out, only)
    try:
        driver.run(f"hf:{_folder('llama', where, **DEEP_LLAMA)}", PROMPT)
        driver.key(Qt.Key_F5)
        wait(lambda: driver.ctl.stepper.state == "finished")
        driver.key(Qt.Key_M, Qt.ControlModifier | Qt.ShiftModifier)
        view = driver.window.model_view
        wait(lambda: view.isVisible() and len(view.thumbs) == len(view.rows) == 16)
        driver.window.resize(1920, 1400)
        # Opened as a tab beside the heatmap (the side columns leave the foot too little at the start size);
        # the picture shows both: the dock moved to the foot, as a person drags it there.
        driver.window.addDockWidget(Qt.BottomDockWidgetArea, driver.window.docks["model_view"])
        driver.window.resizeDocks([driver.window.docks["model_view"]], [540], Qt.Vertical)
        name = "dec.9.self_attn.probs"
        QTest.mouseClick(view.grid, Qt.LeftButton, Qt.NoModifier, view.grid.cell_rect(*view.cell_of(name, 20)).center())
        wait(lambda: driver.paused(name) and driver.ctl.view.indices_by_name.get("head") == 20
             and driver.window.heatmap_panel.caption.text().startswith(name))
        driver.shot(MODEL_VIEW, 1920, 1400)
    finally:
        driver.close()


def deep(out: Path, only: set[str] | None, where: Path) -> None:
    from PySide6.QtCore import Qt

    driver = Driver(out, only)
    try:
        driver.run(f"hf:{_folder('llama', where, **DEEP_30)}", LONG_PROMPT)
        driver.choose_capture_budget("1")
        driver.rerun()
        driver.run_to("dec.14.self_attn.probs")
        driver.key(Qt.Key_M, Qt.ControlModifier | Qt.ShiftModifier)
        view = driver.window.model_view
        wait(lambda: view.isVisible() and len(view.rows) == 30 and len(view.thumbs) == 15)  # layers 0-14 have run
        window = driver.window
        for name, (width, height) in zip(DEEP, ((1280, 720), (1600, 1000))):
            driver.shot(name, width, height, title=window.windowTitle(), message=window.message_bar.text())
    finally:
        driver.close()


def main(out: Path, only: set[str] | None = None) -> None:
    # One fixed folder (emptied first): the Model box and the status bar name it, and the texts
    # beside each picture must be the same on every run.
    where = Path(tempfile.gettempdir()) / "tfdebug-docs-models"
    shutil.rmtree(where, ignore_errors=True)
    try:
        if only is None or only & set(PICTURES[:-1]):
            stepped(out, only, where)
        if only is None or MODEL_VIEW in only:
            model_view(out, only, where)
        if only is None or only & set(DEEP):
            deep(out, only, where)
    finally:
        shutil.rmtree(where, ignore_errors=True)


if __name__ == "__main__":
    command_line(__doc__.splitlines()[0], PICTURES, main)
