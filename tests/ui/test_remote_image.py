"""The window attached to a real `tfdebug serve --model tiny-vit`: the picture the served model read crosses the
connection (bounded) and the Image dock draws [CLS]'s row and a clicked patch's row over it, as for a local pass;
each row equals the model's own output_attentions on what its own image processor makes of the picture."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from PySide6.QtCore import QPoint, Qt

pytest.importorskip("zmq")
transformers = pytest.importorskip("transformers")
pytest.importorskip("PIL")

from PIL import Image  # noqa: E402

from tests.remote.served import start_server, stop_server  # noqa: E402
from tests.ui.test_remote_window import connect_through_the_menu  # noqa: E402
from tests.ui.user_actions import run_to_stage  # noqa: E402
from tfdebug.adapters.hf.load import bundled_folder  # noqa: E402
from tfdebug.adapters.hf.vision import sample_image  # noqa: E402


def test_a_served_vision_model_draws_its_picture_and_overlay_as_a_local_one(make_window, qtbot, tmp_path):
    served = start_server(tmp_path, model="tiny-vit")
    try:
        folder = str(bundled_folder("tiny-vit"))
        processor = transformers.AutoImageProcessor.from_pretrained(folder)
        pixels = processor(images=Image.open(sample_image()).convert("RGB"), return_tensors="pt")["pixel_values"]
        model = transformers.ViTForImageClassification.from_pretrained(folder, attn_implementation="eager").eval()
        with torch.no_grad():
            own = model(pixel_values=pixels, output_attentions=True).attentions
        window = make_window()
        window.ctl.close()
        connect_through_the_menu(window, qtbot, served)
        panel = window.image_panel
        qtbot.waitUntil(window.docks["image"].isVisible)
        # The picture as the model saw it: the processor's 64 × 64 resize, back in 0…255.
        seen = ((pixels * 0.5 + 0.5) * 255).round().clamp(0, 255).to(torch.uint8).permute(0, 2, 3, 1).numpy()
        assert window.ctl.source.capabilities.tensors_here is False and np.array_equal(window.ctl.input_image.pixels, seen)
        run_to_stage(window, qtbot, "enc.1.attn.probs")
        head = window.ctl.view.indices_by_name.get("head", 0)
        qtbot.waitUntil(lambda: panel.row is not None and panel.canvas.query == 0, timeout=20000)
        np.testing.assert_allclose(panel.row, own[1][0, head, 0].numpy(), rtol=0, atol=1e-6)
        assert panel.title.text().startswith("enc.1.attn.probs · query [CLS] · strongest patch")
        rect = panel.canvas.patch_rect(3, 2)  # a click on a patch: its row, read on the server
        qtbot.mouseClick(panel.canvas, Qt.LeftButton, pos=QPoint(int(rect.center().x()), int(rect.center().y())))
        token = 1 + 3 * 8 + 2
        qtbot.waitUntil(lambda: panel.canvas.query == token and panel.row is not None, timeout=20000)
        np.testing.assert_allclose(panel.row, own[1][0, head, token].numpy(), rtol=0, atol=1e-6)
        window.ctl.close()
    finally:
        stop_server(served)
