"""Make the docs' window pictures the way a person gets there: typed inputs, Return, F10, clicks, Ctrl+F10.

    QT_QPA_PLATFORM=offscreen python docs/make_screenshots.py [OUT_DIR] [--only NAME ...]

On the demo model, "I love you" / "我 爱 你" typed into the input bar and Return:
- gui-stepped-dec.0.self_attn.masked (1600×1000): F10 pressed until the masked self-attention;
- gui-1280x720: the same stage on a small screen;
- gui-dec.1.cross_attn.probs (1600×1000) and gui-1920x1080 (`logits`): the stage clicked in the
  Stages tree, then Ctrl+F10 (Run to Stage);
- gui-1280x720-no-head-axis: enc.0.attn.q (no head axis) on a small screen: the empty Heads dock
  lends its height to the heatmap;
- gui-enc.0.attn.scores: the signed scores, diverging in the heatmap and the Heads thumbnails;
- gui-zh-dec.0.self_attn.masked: a window started in Chinese (as `--lang zh`), the same way;
- gui-zh-file-open: then File ▸ Open (Ctrl+O), the folder of a saved snapshot pasted and Return: Qt's
  own dialog, in Chinese;
- gui-zh-damaged-snapshot: that snapshot cut to half its length (a copy that stopped), then File ▸ Open,
  its folder pasted, its row clicked and Open: the message bar says what is wrong with it, in Chinese;
- gui-hf-tiny-gpt2-masked and gui-hf-tiny-gpt2-probs: the bundled tiny GPT-2 (needs the hf
  extra) on the prompt "I love you = 我 爱 你", block 0; gui-generation-tiny-gpt2: then Generate
  (Ctrl+G) and Next Token (Ctrl+T) three times, from the preset "I love you =".
- gui-generate-cache_k and gui-generation-dock: "I love you" with an empty target prefix, Generate
  (Ctrl+G), Next Token (Ctrl+T) twice, then gen.2.dec.1.self_attn.cache_k and gen.2.dec.1.cross_attn.out
  clicked in the Stages tree and Ctrl+F10;
- learn-notes-head-split: the `notes` model typed into the Model box (Return opens its first
  preset), at dec.0.self_attn.q_split;
- sdpa-encoder-layer: `torch:examples.encoder_layer:factory` typed into the Model box, at
  enc.0.attn.probs (a bare nn.TransformerEncoderLayer).
- gui-1366x768-docks and gui-1920x1080-docks: the demo at dec.1.self_attn.probs (Ctrl+F10), then View ▸ Model View
  (Ctrl+Shift+M) and View ▸ Query Row (Ctrl+Shift+R), at each size;
- gui-capture-budget: Debug ▸ Capture Budget… set to at most 0.03 MB (keeping, by default, the
  stages near you and every Softmax), Ctrl+Return, dec.1.self_attn.probs clicked in the Stages
  tree and Ctrl+F10, a click on the Capture tab.
- gui-remote-*: `tfdebug serve --model tiny-gpt2` started in a process of its own, the window
  attached through File ▸ Connect to Server… (the printed line pasted), F10 to
  dec.0.self_attn.probs (gui-remote-tiny-gpt2-probs); Breakpoints ▸ Conditions… "contains NaN",
  Edit Tensor… one cell set to nan (gui-remote-edited); F5, stopped by the NaN breakpoint on the
  server (gui-remote-continued); File ▸ Export… streamed from the server (gui-remote-exported);
  Stop (Shift+F5), then Compare With… (Ctrl+Shift+D) against the pass before the edit, computed on the server: the Compare
  dock's table and A, B and A − B (gui-remote-compare).
Each NAME.png comes with NAME.json, the texts the window showed (see window_driver.py); OUT_DIR
defaults to docs/.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from PySide6.QtCore import Qt

# The tfdebug of this checkout (not whichever one is installed), and window_driver beside this file.
sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]
from window_driver import Driver, wait  # noqa: E402

DEMO = {"src": "I love you", "tgt": "我 爱 你"}
TINY_GPT2 = {"prompt": "I love you = 我 爱 你"}
ENGLISH = ("gui-stepped-dec.0.self_attn.masked", "gui-1280x720", "gui-dec.1.cross_attn.probs", "gui-1920x1080",
           "gui-1280x720-no-head-axis", "gui-enc.0.attn.scores")
CHINESE = ("gui-zh-dec.0.self_attn.masked", "gui-zh-file-open", "gui-zh-damaged-snapshot")
GENERATION = ("gui-generate-cache_k", "gui-generation-dock")
HF = ("gui-hf-tiny-gpt2-masked", "gui-hf-tiny-gpt2-probs", "gui-generation-tiny-gpt2")
OTHERS = ("learn-notes-head-split", "sdpa-encoder-layer")
BUDGET = ("gui-capture-budget",)
DOCKS = ("gui-1366x768-docks", "gui-1920x1080-docks")
REMOTE = ("gui-remote-tiny-gpt2-probs", "gui-remote-edited", "gui-remote-continued", "gui-remote-exported",
          "gui-remote-compare")
PICTURES = ENGLISH + CHINESE + GENERATION + HF + OTHERS + BUDGET + REMOTE + DOCKS


def english(out: Path, only: set[str] | None) -> None:
    driver = Driver(out, only)
    try:
        driver.window.docks["heads"].show()
        driver.run("demo", DEMO)
        driver.step_to("dec.0.self_attn.masked")
        driver.shot("gui-stepped-dec.0.self_attn.masked", 1600, 1000)
        driver.shot("gui-1280x720", 1280, 720)
        if driver.wanted("gui-dec.1.cross_attn.probs"):
            driver.window.resize(1600, 1000)
            driver.run_to("dec.1.cross_attn.probs")
            driver.shot("gui-dec.1.cross_attn.probs", 1600, 1000)
        if driver.wanted("gui-1920x1080"):
            driver.run_to("logits")
            driver.shot("gui-1920x1080", 1920, 1080)
        if driver.wanted("gui-1280x720-no-head-axis"):
            driver.window.resize(1280, 720)
            driver.run_to("enc.0.attn.q")
            driver.shot("gui-1280x720-no-head-axis", 1280, 720)
        if driver.wanted("gui-enc.0.attn.scores"):
            driver.window.resize(1600, 1000)
            driver.run_to("enc.0.attn.scores")
            driver.shot("gui-enc.0.attn.scores", 1600, 1000)
    finally:
        driver.close()


def docks(out: Path, only: set[str] | None) -> None:
    """The window at 1366×768 and 1920×1080 with the Model View and the Query Row opened by their keys."""
    driver = Driver(out, only)
    try:
        driver.run("demo", DEMO)
        driver.run_to("dec.1.self_attn.probs")
        for name, (width, height) in zip(DOCKS, ((1366, 768), (1920, 1080))):
            if not driver.wanted(name):
                continue
            driver.window.resize(width, height)
            for key in (Qt.Key_M, Qt.Key_R):  # shown if hidden (the second picture's were left shown)
                dock = driver.window.docks["model_view" if key == Qt.Key_M else "query_row"]
                if not dock.isVisible():
                    driver.key(key, Qt.ControlModifier | Qt.ShiftModifier)
                    wait(dock.isVisible)
            view, stepper = driver.window.model_view, driver.ctl.stepper
            wait(lambda: all(n in view.thumbs for n in view.rows if stepper.position_of(n) is not None))
            driver.shot(name, width, height)
    finally:
        driver.close()


def chinese(out: Path, only: set[str] | None) -> None:
    driver = Driver(out, only, language="zh")
    try:
        driver.run("demo", DEMO)
        driver.run_to("dec.0.self_attn.masked")
        driver.shot("gui-zh-dec.0.self_attn.masked", 1600, 1000)
        if not driver.wanted(CHINESE[1]) and not driver.wanted(CHINESE[2]):
            return
        import shutil
        import tempfile

        from tfdebug.io.snapshot import save_snapshot

        # A snapshot of this pass and a folder beside it, in one fixed folder: the message names the path.
        folder = Path(tempfile.gettempdir()).resolve() / "tfdebug-docs-snapshots"
        shutil.rmtree(folder, ignore_errors=True)
        (folder / "older passes").mkdir(parents=True)
        try:
            snapshot = folder / "pass.safetensors"
            save_snapshot(driver.ctl.recording()[0], snapshot)
            driver.file_open(folder, picture=CHINESE[1])
            if driver.wanted(CHINESE[2]):  # the copy cut short: its tensors end past the end of the file
                with snapshot.open("r+b") as f:
                    f.truncate(snapshot.stat().st_size // 2)
                driver.open_file(snapshot)
                wait(lambda: not driver.ctl.loader.busy and driver.window.message_bar.text() != "")
                driver.shot(CHINESE[2], 1600, 1000, message=driver.window.message_bar.text())
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    finally:
        driver.close()


def generation(out: Path, only: set[str] | None) -> None:
    driver = Driver(out, only)
    try:
        driver.run("demo", {"src": "I love you", "tgt": ""})
        driver.generate(2)  # Ctrl+G, then Ctrl+T twice: step 2 feeds 爱
        for stage, name in (("gen.2.dec.1.self_attn.cache_k", GENERATION[0]), ("gen.2.dec.1.cross_attn.out", GENERATION[1])):
            if driver.wanted(name):
                driver.run_to(stage)
                driver.shot(name, 1600, 1000)
    finally:
        driver.close()


def tiny_gpt2(out: Path, only: set[str] | None) -> None:
    from tfdebug.adapters import available_models

    if "tiny-gpt2" not in available_models():
        print("tiny-gpt2 is not available here (pip install -e '.[hf]'): its pictures are left as they are")
        return
    driver = Driver(out, only)
    try:
        driver.run("tiny-gpt2", TINY_GPT2)
        for stage, name in (("dec.0.self_attn.masked", HF[0]), ("dec.0.self_attn.probs", HF[1])):
            if driver.wanted(name):
                driver.run_to(stage)
                driver.shot(name, 1600, 1000)
        if driver.wanted(HF[2]):  # no flag: Generate beside Run, then Next Token three times
            driver.generate(3)
            driver.shot(HF[2], 1600, 1000)
    finally:
        driver.close()


def other_models(out: Path, only: set[str] | None) -> None:
    driver = Driver(out, only)
    try:
        from tfdebug.adapters.notes import NotesAdapter

        notes_preset = NotesAdapter.presets[0]  # the pair of exactly 10 tokens: only the causal mask applies
        for model, texts, stage, name in (("notes", notes_preset, "dec.0.self_attn.q_split", OTHERS[0]),
                                          ("torch:examples.encoder_layer:factory", None, "enc.0.attn.probs", OTHERS[1])):
            if driver.wanted(name):
                driver.run(model, texts)
                driver.run_to(stage)
                driver.shot(name, 1600, 1000)
    finally:
        driver.close()


def capture_budget(out: Path, only: set[str] | None) -> None:
    driver = Driver(out, only)
    try:
        driver.run("demo", DEMO)
        driver.choose_capture_budget("0.03")
        driver.rerun()
        driver.run_to("dec.1.self_attn.probs")
        driver.click_tab("Capture")
        driver.shot(BUDGET[0], 1600, 1000)
    finally:
        driver.close()


def served_tiny_gpt2(folder: str):
    """`tfdebug serve --model tiny-gpt2` in a process of its own; (process, the line it printed to paste)."""
    import os
    import subprocess

    root = Path(__file__).resolve().parents[1]
    process = subprocess.Popen([sys.executable, "-m", "tfdebug", "serve", "--model", "tiny-gpt2", "--port", "0",
                                "--export-dir", folder], stdout=subprocess.PIPE, text=True, cwd=root,
                               env={**os.environ, "PYTHONPATH": str(root)})
    for line in process.stdout:
        if "--connect" in line:
            return process, line.strip()
    process.kill()
    raise RuntimeError("tfdebug serve printed no line to paste")


def remote(out: Path, only: set[str] | None) -> None:
    import tempfile

    from PySide6.QtCore import Qt

    from tfdebug.adapters import available_models

    if "tiny-gpt2" not in available_models():
        print("tiny-gpt2 is not available here (pip install -e '.[hf]'): its pictures are left as they are")
        return
    with tempfile.TemporaryDirectory() as folder:
        process, line = served_tiny_gpt2(folder)
        driver = Driver(out, only)
        try:
            driver.connect(line)
            driver.step_to("dec.0.self_attn.probs")
            driver.shot(REMOTE[0], 1600, 1000)
            driver.break_on_nan()
            driver.edit_cell("nan")
            driver.window.edit_tools.dialog.close()
            driver.shot(REMOTE[1], 1600, 1000)
            stopped = driver.ctl.current.name
            driver.key(Qt.Key_F5)
            wait(lambda: driver.paused() and driver.ctl.current.name != stopped)
            driver.shot(REMOTE[2], 1600, 1000)
            driver.export(Path(folder) / "remote-pass.safetensors")
            driver.shot(REMOTE[3], 1600, 1000)
            if driver.wanted(REMOTE[4]):
                from make_compare_screenshots import compare_texts, compare_with_the_pass_before

                driver.key(Qt.Key_F5, Qt.ShiftModifier)  # Stop: a served pass is compared once it has ended
                wait(lambda: driver.ctl.stepper.state in ("finished", "stopped") and driver.paused())
                result = compare_with_the_pass_before(driver)  # Ctrl+Shift+D: computed on the server
                dock = driver.window.docks["compare"]
                dock.raise_()
                wait(dock.isVisible)
                driver.save(REMOTE[4], dock, compare_texts(driver, result))
        finally:
            driver.close()
            process.terminate()
            process.wait(30)


def main(out: Path, only: set[str] | None = None) -> None:
    for names, make in ((ENGLISH, english), (CHINESE, chinese), (GENERATION, generation), (HF, tiny_gpt2),
                        (OTHERS, other_models), (BUDGET, capture_budget), (REMOTE, remote), (DOCKS, docks)):
        if only is None or only & set(names):
            make(out, only)


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", type=Path, default=Path(__file__).resolve().parent)
    parser.add_argument("--only", nargs="+", choices=PICTURES, help="make only these pictures")
    return parser.parse_args(argv)


if __name__ == "__main__":
    args = parse(sys.argv[1:])
    main(args.out, set(args.only) if args.only else None)
