"""A Vision Transformer in the window: the bundled tiny ViT on the sample picture, run with Ctrl+Return, stepped
to an attention stage by keys, its [CLS] row drawn over the image's patches; a click on a patch picks that
patch's query row, the arrow keys move it, and a snapshot replays the picture with the overlay."""

import numpy as np
import pytest
import torch
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QSpinBox

from tests.ui.conftest import wait_paused
from tests.ui.user_actions import open_snapshot, run_model, run_to_stage

pytest.importorskip("transformers")
pytest.importorskip("PIL")


def _expected_row(stage_tensor: torch.Tensor, head: int, query: int) -> np.ndarray:
    return stage_tensor[0, head, query].float().numpy()


def test_cls_attention_over_the_image_and_a_clicked_patch(make_window, qtbot, tmp_path):
    from tfdebug.adapters.hf.vision import sample_image

    window = make_window()
    listed = [window.input_bar.model.itemText(i) for i in range(window.input_bar.model.count())]
    assert {"tiny-vit", "tiny-clip"} <= set(listed)  # the Model box lists the bundled image models
    run_model(qtbot, window, "tiny-vit", {"image": str(sample_image())}, first="img.patch_embed")
    dock, panel = window.docks["image"], window.image_panel
    assert dock.isVisible()  # a pass with a picture shows it
    assert [window.input_bar.field("image").text()] == [str(sample_image())]
    run_to_stage(window, qtbot, "enc.1.attn.probs")
    capture = window.ctl.current
    head = window.ctl.view.indices_by_name.get("head", 0)
    # [CLS]'s row by default: the overlay is that row's patch weights, scaled from its smallest to its largest.
    qtbot.waitUntil(lambda: panel.row is not None and panel.canvas.query == 0)
    expected = _expected_row(capture.tensor, head, 0)
    assert np.array_equal(panel.row, expected)
    grid = expected[1:].reshape(8, 8)
    shown = (grid - grid.min()) / (grid.max() - grid.min())
    assert np.allclose(panel.canvas.weights, shown, atol=1e-6)
    assert panel.title.text().startswith("enc.1.attn.probs · query [CLS] · strongest patch")
    # A click on the patch in row 2, column 5 picks that patch's query row (token 1 + 2·8 + 5 = 22).
    rect = panel.canvas.patch_rect(2, 5)
    qtbot.mouseClick(panel.canvas, Qt.LeftButton, pos=QPoint(int(rect.center().x()), int(rect.center().y())))
    qtbot.waitUntil(lambda: window.ctl.tiles.picked_row == 22 and panel.canvas.query == 22)
    qtbot.waitUntil(lambda: panel.row is not None and np.array_equal(panel.row, _expected_row(capture.tensor, head, 22)))
    assert "query (2,5)" in panel.title.text()
    # The arrow keys move the query patch; Home goes back to [CLS].
    QTest.keyClick(panel.canvas, Qt.Key_Down)
    qtbot.waitUntil(lambda: window.ctl.tiles.picked_row == 30 and panel.canvas.query == 30)
    QTest.keyClick(panel.canvas, Qt.Key_Home)
    qtbot.waitUntil(lambda: window.ctl.tiles.picked_row == 0 and panel.canvas.query == 0)
    # The pass saved as a snapshot replays with its picture, and the overlay shows again.
    shown_pixels = window.ctl.input_image.pixels.copy()
    path = tmp_path / "vit.safetensors"
    from tfdebug.io.exports import export_pass

    recording, _ = window.ctl.recording()
    export_pass(recording, str(path), fmt=".safetensors")
    window.ctl.close()
    assert open_snapshot(qtbot, window, path)
    wait_paused(qtbot, window)
    assert window.ctl.input_image is not None and np.array_equal(window.ctl.input_image.pixels, shown_pixels)
    assert dock.isVisible()
    run_to_stage(window, qtbot, "enc.0.attn.probs")
    qtbot.waitUntil(lambda: panel.row is not None and panel.canvas.weights is not None)
    window.ctl.close()


def test_the_file_picker_beside_the_image_field_runs_another_picture(make_window, qtbot, tmp_path):
    from PIL import Image
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QToolButton

    from tests.ui.user_actions import answer_file_dialog, press
    from tfdebug.adapters.hf.vision import sample_image

    flipped = tmp_path / "flipped.png"
    Image.open(sample_image()).transpose(Image.Transpose.FLIP_LEFT_RIGHT).save(flipped)
    window = make_window()
    run_model(qtbot, window, "tiny-vit", {"image": str(sample_image())})
    first = window.ctl.input_image.pixels.copy()
    browse = window.input_bar.findChild(QToolButton, "input-image-browse")
    seen: dict = {}
    QTimer.singleShot(20, lambda: answer_file_dialog(flipped, seen))
    qtbot.mouseClick(browse, Qt.LeftButton)  # the dialog is modal: answered by the timer
    assert "error" not in seen, seen
    assert window.input_bar.field("image").text() == str(flipped)
    press(window, Qt.Key_Return, Qt.ControlModifier)
    qtbot.waitUntil(lambda: window.ctl.session is not None and window.ctl.session.texts["image"] == str(flipped)
                    and window.ctl.current is not None, timeout=60000)
    assert np.array_equal(window.ctl.input_image.pixels, first[:, :, ::-1])  # the model saw the mirrored picture
    window.ctl.close()


def test_a_folder_batch_draws_the_picture_of_the_batch_row_shown(make_window, qtbot, tmp_path):
    from PIL import Image

    from tfdebug.adapters.hf.vision import sample_image

    Image.open(sample_image()).save(tmp_path / "a.png")
    Image.open(sample_image()).transpose(Image.Transpose.FLIP_TOP_BOTTOM).save(tmp_path / "b.png")
    window = make_window()
    run_model(qtbot, window, "tiny-vit", {"image": str(tmp_path)})
    panel = window.image_panel
    run_to_stage(window, qtbot, "enc.0.attn.probs")
    qtbot.waitUntil(lambda: panel.row is not None)
    assert panel.canvas.row == 0
    spin = next(box for box in window.heatmap_panel.findChildren(QSpinBox)
                if box.isVisible() and box.prefix().startswith("batch"))
    spin.setFocus()
    QTest.keyClick(spin, Qt.Key_Up)  # the heatmap's batch box: the second picture
    qtbot.waitUntil(lambda: panel.canvas.row == 1 and panel.row is not None)
    head = window.ctl.view.indices_by_name.get("head", 0)
    assert np.array_equal(panel.row, window.ctl.current.tensor[1, head, 0].float().numpy())
    window.ctl.close()


def test_a_text_pass_hides_the_image_dock(make_window, qtbot):
    window = make_window()
    run_model(qtbot, window, "demo", {"src": "I love you", "tgt": ""})
    assert not window.docks["image"].isVisible()
    assert window.image_panel.title.text() == "This pass has no image."
    window.ctl.close()


def test_clip_shows_its_image_tower_over_the_picture_and_its_similarities(make_window, qtbot):
    from tfdebug.adapters.hf.vision import sample_image

    window = make_window()
    run_model(qtbot, window, "tiny-clip", {"image": str(sample_image()), "text": "a house | a tree | the sun"},
              first="img.patch_embed")
    panel = window.image_panel
    assert window.docks["image"].isVisible()
    assert set(window.input_bar.fields) == {"image", "text"}
    run_to_stage(window, qtbot, "enc.0.attn.probs")
    qtbot.waitUntil(lambda: panel.row is not None and panel.canvas.query == 0)
    head = window.ctl.view.indices_by_name.get("head", 0)
    assert np.array_equal(panel.row, _expected_row(window.ctl.current.tensor, head, 0))
    run_to_stage(window, qtbot, "txt.0.self_attn.probs")  # the text tower's keys are words, not patches
    qtbot.waitUntil(lambda: panel.row is None and panel.canvas.weights is None)
    assert panel.title.text().startswith("Step to an attention stage")
    run_to_stage(window, qtbot, "logits")
    assert tuple(window.ctl.current.shape) == (1, 3)  # one picture × three captions
    window.ctl.close()


def test_whisper_draws_its_spectrogram_and_a_tokens_cross_attention_over_time(make_window, qtbot):
    from tfdebug.adapters.hf.speech import sample_audio

    window = make_window()
    listed = [window.input_bar.model.itemText(i) for i in range(window.input_bar.model.count())]
    assert {"tiny-siglip", "tiny-whisper"} <= set(listed)  # the Model box lists the bundled models
    run_model(qtbot, window, "tiny-whisper", {"audio": str(sample_audio()), "tgt": "a low tone"}, first="src.mel")
    panel = window.image_panel
    assert window.docks["image"].isVisible()  # the spectrogram is the pass's picture
    image = window.ctl.input_image
    assert image.seconds == 2.0 and image.grid == (1, 100) and image.size == (80, 200)
    # The encoder's self-attention over audio frames: a frame's row, as for a picture's patch.
    run_to_stage(window, qtbot, "enc.1.attn.probs")
    qtbot.waitUntil(lambda: panel.row is not None and panel.canvas.query == 0)
    head = window.ctl.view.indices_by_name.get("head", 0)
    assert np.array_equal(panel.row, _expected_row(window.ctl.current.tensor, head, 0))
    assert panel.title.text().startswith("enc.1.attn.probs · query 0.00 s · strongest at ")
    # The decoder's cross-attention: a token's row over the audio's time; Right picks the next token.
    run_to_stage(window, qtbot, "dec.1.cross_attn.probs")
    qtbot.waitUntil(lambda: panel.row is not None and panel.canvas.rows == 4)
    capture = window.ctl.current
    assert np.array_equal(panel.row, _expected_row(capture.tensor, head, 0))
    panel.canvas.setFocus()
    QTest.keyClick(panel.canvas, Qt.Key_Right)
    QTest.keyClick(panel.canvas, Qt.Key_Right)
    qtbot.waitUntil(lambda: window.ctl.tiles.picked_row == 2 and panel.row is not None and panel.canvas.query == 2)
    assert np.array_equal(panel.row, _expected_row(capture.tensor, head, 2))
    row = panel.row
    best = int(np.argmax(row))
    assert panel.title.text().startswith(f"dec.1.cross_attn.probs · query low · strongest at {best * 0.02:.2f} s")
    window.ctl.close()


def test_llava_draws_a_prompt_tokens_attention_over_the_picture(make_window, qtbot):
    from tfdebug.adapters.hf.vision import sample_image
    from tfdebug.adapters.hf.vlm import PROMPT

    window = make_window()
    assert "tiny-llava" in [window.input_bar.model.itemText(i) for i in range(window.input_bar.model.count())]
    run_model(qtbot, window, "tiny-llava", {"image": str(sample_image()), "prompt": PROMPT})
    panel = window.image_panel
    assert window.docks["image"].isVisible()
    run_to_stage(window, qtbot, "dec.1.self_attn.probs")
    qtbot.waitUntil(lambda: panel.row is not None and panel.canvas.keys > 0)
    # End picks the prompt's last token; its row's weights over the 64 patch tokens are the overlay.
    panel.canvas.setFocus()
    QTest.keyClick(panel.canvas, Qt.Key_End)
    last = window.ctl.current.shape[-1] - 1
    qtbot.waitUntil(lambda: window.ctl.tiles.picked_row == last and panel.row is not None and panel.canvas.query == last)
    head = window.ctl.view.indices_by_name.get("head", 0)
    expected = _expected_row(window.ctl.current.tensor, head, last)
    assert np.array_equal(panel.row, expected)
    grid = expected[2:66].reshape(8, 8)  # after "USER", ":"
    assert np.allclose(panel.canvas.weights, (grid - grid.min()) / (grid.max() - grid.min()), atol=1e-6)
    assert panel.title.text().startswith("dec.1.self_attn.probs · query : · strongest patch")
    # A click on a patch picks that patch token's own row in the language model.
    rect = panel.canvas.patch_rect(1, 2)
    qtbot.mouseClick(panel.canvas, Qt.LeftButton, pos=QPoint(int(rect.center().x()), int(rect.center().y())))
    qtbot.waitUntil(lambda: window.ctl.tiles.picked_row == 2 + 8 + 2 and panel.canvas.query == 12)
    window.ctl.close()


def test_llava_generates_by_keys_and_a_generated_tokens_row_is_drawn_over_the_picture(make_window, qtbot):
    """Generate (Ctrl+G) and Next Token (Ctrl+T) on tiny-llava: the tokens are the ones the model's own generate()
    chooses from the picture and prompt; at the step that feeds the generated token, its one row of the language
    model's attention (keys: the prompt so far, the 64 patch tokens among them) is drawn over the picture."""
    from tests.ui.conftest import wait_paused
    from tests.ui.user_actions import press
    from tfdebug.adapters.hf.vision import sample_image
    from tfdebug.adapters.hf.vlm import PROMPT

    window = make_window()
    run_model(qtbot, window, "tiny-llava", {"image": str(sample_image()), "prompt": PROMPT})
    press(window, Qt.Key_G, Qt.ControlModifier)
    wait_paused(qtbot, window, "gen.0.tok.embed", timeout=60000)
    session = window.ctl.session
    prompt = len(session.tokens["prompt"])
    next_token = window.actions_by_id["tfdebug.gen.next_token"]
    qtbot.waitUntil(next_token.isEnabled)
    press(window, Qt.Key_T, Qt.ControlModifier)
    qtbot.waitUntil(lambda: len(session.tokens["prompt"]) > prompt and window.ctl.current is not None
                    and window.ctl.current.name.startswith("gen.1."), timeout=60000)
    import transformers
    from PIL import Image

    from tfdebug.adapters.hf.load import bundled_folder

    folder = str(bundled_folder("tiny-llava"))  # the model's own generate(), on its own processor's inputs
    model = transformers.LlavaForConditionalGeneration.from_pretrained(folder).eval()
    inputs = transformers.AutoProcessor.from_pretrained(folder)(images=Image.open(sample_image()).convert("RGB"),
                                                                 text=PROMPT, return_tensors="pt")
    with torch.no_grad():
        own = model.generate(**inputs, max_new_tokens=1, do_sample=False)
    assert session.choices[0].id == int(own[0, -1])
    word = session.tokens["prompt"][prompt]
    run_to_stage(window, qtbot, "gen.1.dec.1.self_attn.probs")
    panel = window.image_panel
    capture = window.ctl.current
    assert capture.info.tokens == {"query": f"prompt[{prompt}:{prompt + 1}]", "key": f"prompt[0:{prompt + 1}]"}
    qtbot.waitUntil(lambda: panel.row is not None and panel.canvas.rows == 1)
    head = window.ctl.view.indices_by_name.get("head", 0)
    expected = _expected_row(capture.tensor, head, 0)
    assert np.array_equal(panel.row, expected) and expected.size == prompt + 1
    grid = expected[2:66].reshape(8, 8)  # the patch tokens, after "USER", ":"
    assert np.allclose(panel.canvas.weights, (grid - grid.min()) / (grid.max() - grid.min()), atol=1e-6)
    best = divmod(int(np.argmax(grid)), 8)
    assert panel.title.text().startswith(f"gen.1.dec.1.self_attn.probs · query {word} · strongest patch "
                                         f"({best[0]},{best[1]})")
    window.ctl.close()
