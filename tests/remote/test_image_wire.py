"""The picture a served model read crosses to the window bounded: as a snapshot carries it, every k-th pixel when
one picture alone is larger than MAX_IMAGE (its patch grid kept), and checked on arrival like a snapshot's."""

from __future__ import annotations

import numpy as np
import pytest

from tfdebug.core.images import InputImage
from tfdebug.remote import wire
from tfdebug.remote.errors import FrameError
from tfdebug.remote.protocol import MAX_IMAGE


def _picture(side: int, grid: int, count: int = 1) -> InputImage:
    pixels = np.random.default_rng(0).integers(0, 256, (count, side, side, 3), dtype=np.uint8)
    return InputImage(pixels, (grid, grid))


def test_a_picture_that_fits_crosses_whole_and_a_larger_one_every_kth_pixel():
    small = _picture(224, 14)
    back = wire.image_of(wire.image_fields(small))
    assert np.array_equal(back.pixels, small.pixels) and back.grid == (14, 14) and back.prefix == ("[CLS]",)
    large = _picture(2048, 128)  # 12 MiB of pixels: every 2nd pixel is 3 MiB
    back = wire.image_of(wire.image_fields(large))
    assert back.pixels.nbytes <= MAX_IMAGE and np.array_equal(back.pixels, large.pixels[:, ::2, ::2])
    assert back.grid == (128, 128)
    # The patch under a point is the same patch in both (16-pixel patches are 8 pixels in the copy).
    assert back.token_at(100.0, 37.0) == large.token_at(200.0, 74.0)
    batch = _picture(512, 32, count=8)  # 6 MiB: the first five pictures fit
    assert wire.image_of(wire.image_fields(batch)).pixels.shape[0] == MAX_IMAGE // (512 * 512 * 3)
    assert wire.image_fields(None) is None and wire.image_of(None) is None
    # A spectrogram crosses with its duration: the window labels its time axis in seconds as a local one does.
    spectrogram = InputImage(small.pixels[:, :80, :200], (1, 100), (), "src", 2.0)
    back = wire.image_of(wire.image_fields(spectrogram))
    assert back.seconds == 2.0 and back.stream == "src" and back.token_labels() == spectrogram.token_labels()


def test_a_picture_that_cannot_be_read_is_a_frame_error():
    fields = wire.image_fields(_picture(64, 8))
    for bad in ({**fields, "grid": [128, 8]}, {**fields, "rgb": "!!"}, {**fields, "height": 10**6}, "a picture"):
        with pytest.raises(FrameError, match="The server's picture cannot be read"):
            wire.image_of(bad)
