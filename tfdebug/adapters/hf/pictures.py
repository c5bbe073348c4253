"""Pictures as data: the files `--image` and the window's Image field name, read bounded and decoded by Pillow
as raster images only.

Pillow opens any format it recognises unless told which: an EPS or PostScript body (under any name, `cat.png`
too) is handed to Ghostscript, an external program that runs it. Here every file is opened with an allow-list
of raster formats (`FORMATS`), so anything else is refused in one sentence before a plugin sees it, and no
external program is ever started. Sizes are checked from the header before a pixel is decoded: each picture at
most `MAX_IMAGE_PIXELS`, a folder's pictures together at most `MAX_FOLDER_PIXELS` (Pillow's own
decompression-bomb warning is an error here, whatever its process-wide limit).
"""

from __future__ import annotations

import io
import os
import warnings
from pathlib import Path

from tfdebug.core.errors import InputError
from tfdebug.core.files import open_regular, read_bounded

#: Pillow format names tfdebug decodes: raster formats whose plugins are Pillow's own code (no external program)
FORMATS = ("PNG", "JPEG", "WEBP", "BMP", "GIF", "TIFF")
FORMAT_NAMES = "PNG, JPEG, WebP, BMP, GIF or TIFF"
MAX_IMAGE_BYTES = 64 * 2**20
MAX_IMAGE_PIXELS = 8192 * 8192
#: every picture of a folder together (one batch): about 200 MB of RGB before the processor resizes them
MAX_FOLDER_PIXELS = 8192 * 8192
MAX_FOLDER_IMAGES = 32
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".gif", ".webp", ".tif", ".tiff"})


def _opened(source, path: str | os.PathLike):
    """`Image.open(source)` restricted to `FORMATS`, its size checked; Pillow's failures as one InputError."""
    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a damaged header's notes (corrupt EXIF …): the file is checked here
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(source, formats=FORMATS)
    except UnidentifiedImageError:
        raise InputError("{path} is not a picture tfdebug reads ({formats}).", id="image.unknown_format",
                         path=str(path), formats=FORMAT_NAMES) from None
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise InputError("The image {path} holds more pixels than tfdebug opens (8192 × 8192).",
                         id="image.bomb", path=str(path)) from None
    except (OSError, ValueError, SyntaxError, EOFError) as exc:  # a damaged header
        raise InputError("{path} is not an image Pillow can read ({reason}).", id="image.unreadable",
                         path=str(path), reason=str(exc)[:200]) from None
    if image.format not in FORMATS:  # never: the allow-list is Pillow's own filter; kept as the promise
        image.close()
        raise InputError("{path} is not a picture tfdebug reads ({formats}).", id="image.unknown_format",
                         path=str(path), formats=FORMAT_NAMES)
    if image.width * image.height > MAX_IMAGE_PIXELS:
        image.close()
        raise InputError("The image {path} is {w} × {h} pixels; tfdebug opens images up to 8192 × 8192.",
                         id="image.too_large", path=str(path), w=image.width, h=image.height)
    return image


def image_pixels(path: str | os.PathLike) -> int:
    """The pixel count the header of the picture file `path` states (nothing decoded, checked as `read_image`)."""
    with open_regular(path, InputError) as f:
        image = _opened(f, path)
        try:
            return image.width * image.height
        finally:
            image.close()


def read_image(path: str | os.PathLike):
    """The RGB picture in the file `path` (PNG, JPEG, WebP, BMP, GIF or TIFF; the first frame): read bounded,
    its format and size checked from its header before it is decoded."""
    data = read_bounded(path, MAX_IMAGE_BYTES, InputError)
    image = _opened(io.BytesIO(data), path)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return image.convert("RGB")
    except (OSError, ValueError, SyntaxError, EOFError, MemoryError) as exc:  # a truncated or damaged body
        raise InputError("{path} is not an image Pillow can read ({reason}).", id="image.unreadable",
                         path=str(path), reason=str(exc)[:200] or type(exc).__name__) from None
    finally:
        image.close()


def read_images(path: Path) -> list:
    """The picture in the file `path`, or every picture in the folder `path` (by suffix, in the order of their
    names, at most MAX_FOLDER_IMAGES holding at most MAX_FOLDER_PIXELS together, counted before any is decoded)."""
    if not path.is_dir():
        return [read_image(path)]
    files = sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file())
    if not files:
        raise InputError("The folder {path} holds no picture (PNG, JPEG …).", id="image.empty_folder",
                         path=str(path))
    if len(files) > MAX_FOLDER_IMAGES:
        raise InputError("The folder {path} holds {n} pictures; tfdebug takes at most {most} as one batch.",
                         id="image.folder_too_many", path=str(path), n=len(files), most=MAX_FOLDER_IMAGES)
    total = sum(image_pixels(p) for p in files)
    if total > MAX_FOLDER_PIXELS:
        raise InputError("The pictures in {path} hold {n} pixels together; tfdebug takes at most {most} "
                         "(8192 × 8192) as one batch.", id="image.folder_too_large", path=str(path),
                         n=f"{total:,}", most=f"{MAX_FOLDER_PIXELS:,}")
    return [read_image(p) for p in files]
