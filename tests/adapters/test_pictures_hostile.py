"""Pictures are data (issue 53, item 1): only raster formats are decoded, no external program ever starts,
sizes are checked from the header before any pixel is decoded, and each refusal is one sentence."""

from __future__ import annotations

import subprocess

import pytest

pytest.importorskip("PIL")
from PIL import Image  # noqa: E402

from tfdebug.adapters.hf import pictures  # noqa: E402
from tfdebug.adapters.hf.pictures import read_image, read_images  # noqa: E402
from tfdebug.core.errors import InputError  # noqa: E402

POSTSCRIPT = b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 64 64\n/loop { loop } def { } loop\nshowpage\n"


@pytest.fixture
def no_programs(monkeypatch):
    """Fail the test when anything would start a program (Ghostscript above all)."""
    started = []

    def refuse(*args, **kwargs):
        started.append(args)
        raise AssertionError(f"a program was started: {args!r}")

    for name in ("Popen", "check_call", "call", "run", "check_output"):
        monkeypatch.setattr(subprocess, name, refuse)
    from PIL import EpsImagePlugin

    monkeypatch.setattr(EpsImagePlugin, "Ghostscript", refuse)
    monkeypatch.setattr(EpsImagePlugin, "has_ghostscript", lambda: True)  # as on a machine with gs installed
    return started


def test_a_postscript_body_named_png_is_refused_and_ghostscript_never_runs(tmp_path, no_programs):
    cat = tmp_path / "cat.png"
    cat.write_bytes(POSTSCRIPT)
    with pytest.raises(InputError) as caught:
        read_image(cat)
    message = str(caught.value)
    assert "is not a picture tfdebug reads (PNG, JPEG, WebP, BMP, GIF or TIFF)" in message
    assert "\n" not in message
    assert no_programs == []


def test_a_binary_eps_in_a_folder_is_refused_before_any_picture_is_decoded(tmp_path, no_programs):
    Image.new("RGB", (8, 8), "red").save(tmp_path / "a.png")
    (tmp_path / "b.jpg").write_bytes(b"\xc5\xd0\xd3\xc6" + bytes(28) + POSTSCRIPT)
    with pytest.raises(InputError, match="is not a picture tfdebug reads"):
        read_images(tmp_path)
    assert no_programs == []


@pytest.mark.parametrize("fmt,suffix", [("PNG", "png"), ("JPEG", "jpg"), ("WEBP", "webp"), ("BMP", "bmp"),
                                        ("GIF", "gif"), ("TIFF", "tif")])
def test_every_allowed_raster_format_opens(tmp_path, fmt, suffix):
    path = tmp_path / f"p.{suffix}"
    Image.new("RGB", (12, 10), (10, 200, 30)).save(path, format=fmt)
    image = read_image(path)
    assert image.size == (12, 10) and image.mode == "RGB"


@pytest.mark.parametrize("fmt", ["PPM", "ICO", "TGA", "PCX"])
def test_other_formats_pillow_knows_are_refused_in_one_sentence(tmp_path, fmt):
    path = tmp_path / "p.png"
    Image.new("RGB", (16, 16)).save(path, format=fmt)
    with pytest.raises(InputError, match="is not a picture tfdebug reads"):
        read_image(path)


def test_a_header_claiming_more_pixels_than_allowed_is_refused_before_decoding(tmp_path):
    # A PNG header of 60,000 × 60,000 (3.6 gigapixels) with no body: Pillow's bomb check or ours, one sentence.
    import struct
    import zlib

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", 60_000, 60_000, 8, 2, 0, 0, 0)
    (tmp_path / "bomb.png").write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IEND", b""))
    with pytest.raises(InputError, match="pixels"):
        read_image(tmp_path / "bomb.png")
    header = struct.pack(">IIBBBBB", 9000, 8000, 8, 2, 0, 0, 0)  # below Pillow's own warning, above ours
    (tmp_path / "big.png").write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IEND", b""))
    with pytest.raises(InputError, match="9000 × 8000 pixels; tfdebug opens images up to 8192 × 8192"):
        read_image(tmp_path / "big.png")


def test_a_folder_of_large_pictures_is_refused_from_their_headers(tmp_path, monkeypatch):
    # The issue's 32 pictures of 8192 × 8192: counted from their headers, none decoded (here 4 small ones under a
    # lowered cap).
    monkeypatch.setattr(pictures, "MAX_FOLDER_PIXELS", 3 * 64 * 64)
    for i in range(4):
        Image.new("L", (64, 64)).save(tmp_path / f"{i}.png")
    decoded = []
    monkeypatch.setattr(pictures, "read_image", lambda p: decoded.append(p))
    with pytest.raises(InputError, match="hold 16,384 pixels together; tfdebug takes at most 12,288"):
        read_images(tmp_path)
    assert decoded == []


def test_the_folder_limit_holds_the_issues_case():
    assert 32 * 8192 * 8192 > pictures.MAX_FOLDER_PIXELS


hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

HEADS = [b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF89a", b"BM", b"RIFF\0\0\0\0WEBP", b"II*\0", b"%!PS-Adobe-3.0",
         b"\xc5\xd0\xd3\xc6", b"P6\n", b""]


@settings(max_examples=150, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(head=st.sampled_from(HEADS), body=st.binary(max_size=512))
def test_any_bytes_are_a_picture_or_one_sentence_and_nothing_runs(tmp_path_factory, head, body):
    path = tmp_path_factory.mktemp("fuzz") / "x.png"
    path.write_bytes(head + body)
    import subprocess as sp

    real = sp.Popen
    sp.Popen = None  # anything that starts a program fails loudly (not an InputError)
    try:
        image = read_image(path)
    except InputError as exc:
        assert "\n" not in str(exc)
    else:
        assert image.mode == "RGB" and image.width * image.height <= pictures.MAX_IMAGE_PIXELS
    finally:
        sp.Popen = real


def test_tfdebug_image_with_a_postscript_body_is_one_sentence_and_starts_no_program(tmp_path, capsys, monkeypatch):
    """The issue's `tfdebug --image evil.png`: the CLI's own start-up may run a helper (ldconfig, to find libc), so
    here only Ghostscript is watched for, through Pillow's entry to it and any command naming gs."""
    pytest.importorskip("transformers")
    from PIL import EpsImagePlugin

    from tfdebug import cli

    no_programs, real = [], subprocess.Popen

    def watched(args, *rest, **kwargs):
        words = [str(a) for a in (args if isinstance(args, (list, tuple)) else [args])]
        if any(w.rsplit("/", 1)[-1].startswith("gs") for w in words):
            no_programs.append(words)
            raise AssertionError("Ghostscript was started")
        return real(args, *rest, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", watched)
    monkeypatch.setattr(EpsImagePlugin, "Ghostscript", lambda *a, **k: no_programs.append(a))
    monkeypatch.setattr(EpsImagePlugin, "has_ghostscript", lambda: True)

    cat = tmp_path / "evil.png"
    cat.write_bytes(POSTSCRIPT)
    code = cli.main(["capture", "--model", "tiny-vit", "--image", str(cat), "--out", str(tmp_path / "x.npz")])
    out, err = capsys.readouterr()
    assert code == 2 and err.count("\n") == 1 and "is not a picture tfdebug reads" in err, err
    assert no_programs == [] and not (tmp_path / "x.npz").exists()
