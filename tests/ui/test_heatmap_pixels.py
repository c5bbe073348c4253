"""The heatmap's picture is painted from 32-bit pixels: Qt's raster painter converts an indexed image (LUT indices and
a colour table) at every paint, the whole slice each time, so the picture is converted once when it is made
(tfdebug.ui.widgets.scaled_image.PixelImage; issue 54, "the window in two frames")."""

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage

from tests.ui.conftest import wait_paused
from tests.ui.user_actions import press
from tfdebug.ui.render import colors

DRAWN = (QImage.Format.Format_RGB32, QImage.Format.Format_ARGB32_Premultiplied)


def test_an_f10_paints_the_heatmap_from_pixels_in_the_colours_of_its_indices(window, qtbot):
    window.ctl.steps.run_to("enc.0.attn.q_split")
    wait_paused(qtbot, window, "enc.0.attn.q_split")
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    heatmap = window.heatmap_panel
    for _ in range(3):  # onto the head split, the scores, the scaled scores
        before = window.ctl.stepper.cursor
        press(window, Qt.Key_F10)
        qtbot.waitUntil(lambda: window.ctl.stepper.cursor != before)
        wait_paused(qtbot, window)
        item = heatmap.image
        qtbot.waitUntil(lambda: item.qimage is not None and not item._renderRequired)  # painted
        picture, indices, lut = item.qimage, item.image, item.lut
        assert picture.format() in DRAWN
        assert (picture.width(), picture.height()) == (indices.shape[1], indices.shape[0])
        for row, col in ((0, 0), (indices.shape[0] - 1, indices.shape[1] // 2), (indices.shape[0] // 2, 0)):
            expected = lut[indices[row, col]]
            assert QColor(picture.pixel(col, row)).getRgb()[:3] == tuple(int(v) for v in expected[:3])
    assert len(lut) == colors.LUT_SIZE and np.asarray(lut).dtype == np.uint8
