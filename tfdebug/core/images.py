"""The images a vision model saw, as data: their pixels, the patch grid and the tokens before the patches.

A Vision Transformer cuts its input into a grid of patches, one token each, after some tokens
of its own (`[CLS]`, DeiT's distillation token, DINOv2's registers). `InputImage` keeps the
picture exactly as the model read it (the processor's resized, cropped pixels, back in 0…255;
one per batch row when a folder of pictures was given) with that layout, so a view can draw a
patch's attention over the place it came from, and a snapshot can carry it (`to_manifest` /
`from_manifest`, bounded). Qt-free and torch-free.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass

import numpy as np

#: the largest picture a snapshot carries (pixels per side): a model's input is 224–518 px, a Whisper
#: spectrogram 3000 frames wide
MAX_SIDE = 4096
#: the longest audio a spectrogram picture spans (seconds)
MAX_SECONDS = 3600.0
MAX_PREFIX = 64
#: the pixels a snapshot carries at most (base64 of them fits a manifest's text limit); a batch of more
#: carries its first pictures
MAX_CARRIED_BYTES = 5_000_000


@dataclass(frozen=True)
class InputImage:
    """`pixels` (N, H, W, 3) uint8 as the model saw them, one picture per batch row; `grid` (rows, cols) of
    patches; `prefix` the labels of the tokens before the patches ("[CLS]" …); `stream` the token stream
    whose positions these are; `seconds` the time a spectrogram's width spans (its patches are encoder
    positions along time), None for a picture."""

    pixels: np.ndarray
    grid: tuple[int, int]
    prefix: tuple[str, ...] = ("[CLS]",)
    stream: str = "image"
    seconds: float | None = None

    @property
    def size(self) -> tuple[int, int]:
        """(height, width) of each picture in pixels."""
        return self.pixels.shape[1], self.pixels.shape[2]

    def picture(self, row: int) -> np.ndarray | None:
        """The (H, W, 3) picture of batch row `row`; None when there is none (a snapshot carries the first ones)."""
        return self.pixels[row] if 0 <= row < self.pixels.shape[0] else None

    @property
    def patch_size(self) -> tuple[float, float]:
        """(height, width) of one patch in pixels."""
        return self.size[0] / self.grid[0], self.size[1] / self.grid[1]

    def token_labels(self) -> list[str]:
        """The stream's token labels: the prefix, then each patch as '(row, col)' in reading order (a spectrogram's
        positions by their start time, '0.42 s')."""
        rows, cols = self.grid
        if self.seconds is not None:
            return [*self.prefix, *(f"{i * self.seconds / (rows * cols):.2f} s" for i in range(rows * cols))]
        return [*self.prefix, *(f"({r},{c})" for r in range(rows) for c in range(cols))]

    def patch_of(self, token: int) -> tuple[int, int] | None:
        """(row, col) of the patch at token position `token`; None for a prefix token or past the grid."""
        i = token - len(self.prefix)
        rows, cols = self.grid
        return divmod(i, cols) if 0 <= i < rows * cols else None

    def token_at(self, y: float, x: float) -> int | None:
        """The token position of the patch under pixel (y, x) of a picture; None outside the picture."""
        height, width = self.size
        if not (0 <= y < height and 0 <= x < width):
            return None
        ph, pw = self.patch_size
        return len(self.prefix) + int(y // ph) * self.grid[1] + int(x // pw)

    def patch_weights(self, row: np.ndarray) -> tuple[np.ndarray, dict[str, float]]:
        """A query's weights over the keys split into the (rows, cols) patch grid and the prefix tokens' own."""
        n = len(self.prefix)
        rows, cols = self.grid
        values = np.asarray(row, dtype=np.float32)
        grid = values[n: n + rows * cols].reshape(rows, cols)
        return grid, {label: float(values[i]) for i, label in enumerate(self.prefix) if i < values.size}

    def within(self, max_bytes: int) -> "InputImage | None":
        """This image in at most `max_bytes` of pixels, for a window on another machine: the first pictures of a
        batch that fit, each every k-th pixel down and across when one alone is larger (its patches keep their
        places, each at least a pixel); None when even that cannot fit."""
        height, width = self.size
        rows, cols = self.grid
        k = 1
        while -(-height // k) * -(-width // k) * 3 > max_bytes and height // (k + 1) >= rows and \
                width // (k + 1) >= cols:
            k += 1
        pixels = self.pixels[:, ::k, ::k]
        each = pixels.shape[1] * pixels.shape[2] * 3
        if each > max_bytes:
            return None
        pixels = np.ascontiguousarray(pixels[: max_bytes // each])
        return InputImage(pixels, self.grid, self.prefix, self.stream, self.seconds)

    def to_manifest(self) -> dict:
        """JSON-able form for a snapshot's manifest (the pixels as base64 of raw RGB bytes): as many of the
        pictures as fit MAX_CARRIED_BYTES, at least the first."""
        height, width = self.size
        count = max(1, min(self.pixels.shape[0], MAX_CARRIED_BYTES // (height * width * 3)))
        raw = np.ascontiguousarray(self.pixels[:count]).tobytes()
        doc = {"height": height, "width": width, "count": count, "grid": list(self.grid),
               "prefix": list(self.prefix), "stream": self.stream, "rgb": base64.b64encode(raw).decode()}
        return doc if self.seconds is None else {**doc, "seconds": self.seconds}

    @classmethod
    def from_manifest(cls, doc: object) -> "InputImage":
        """The image a manifest carries; ValueError naming what is wrong with it."""
        if not isinstance(doc, dict):
            raise ValueError("'image' is not a map")
        height, width, grid, prefix = doc.get("height"), doc.get("width"), doc.get("grid"), doc.get("prefix", [])
        if not (isinstance(height, int) and 0 < height <= MAX_SIDE
                and isinstance(width, int) and 0 < width <= MAX_SIDE):
            raise ValueError(f"the image's height and width must be whole numbers from 1 to {MAX_SIDE}")
        if not (isinstance(grid, list) and len(grid) == 2 and all(isinstance(v, int) and 0 < v <= h
                                                                   for v, h in zip(grid, (height, width)))):
            raise ValueError("the image's patch grid must be two whole numbers no larger than the image")
        if not (isinstance(prefix, list) and len(prefix) <= MAX_PREFIX
                and all(isinstance(p, str) and len(p) <= 32 for p in prefix)):
            raise ValueError("the image's prefix tokens must be a short list of short texts")
        stream, rgb, count = doc.get("stream", "image"), doc.get("rgb"), doc.get("count", 1)
        seconds = doc.get("seconds")
        if seconds is not None and not (isinstance(seconds, (int, float)) and not isinstance(seconds, bool)
                                        and 0 < seconds <= MAX_SECONDS):
            raise ValueError("the spectrogram's duration must be a number of seconds from 0 to 3600")
        if not isinstance(count, int) or not 0 < count <= max(1, MAX_CARRIED_BYTES // (height * width * 3)):
            raise ValueError("the image's count of pictures is not a whole number the snapshot can hold")
        if not isinstance(stream, str) or not isinstance(rgb, str) or len(rgb) > 4 * (count * height * width + 2):
            raise ValueError("the image's pixels are missing or too long")
        try:
            raw = base64.b64decode(rgb.encode("ascii"), validate=True)
        except (ValueError, UnicodeError):
            raise ValueError("the image's pixels are not base64") from None
        if len(raw) != count * height * width * 3:
            raise ValueError("the image's pixels do not fill its height × width")
        pixels = np.frombuffer(raw, dtype=np.uint8).reshape(count, height, width, 3)
        return cls(pixels, (grid[0], grid[1]), tuple(prefix), stream, None if seconds is None else float(seconds))
