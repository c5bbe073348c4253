"""Make the bundled tiny Vision Transformer, CLIP, SigLIP and LLaVA (resources/tiny-vit, tiny-clip, tiny-siglip,
tiny-llava) and the sample picture.

    python -m tfdebug.demo.make_tiny_vision [--out resources]

The model is a transformers `ViTForImageClassification` of 2 layers, 4 heads, width 64, reading
64 × 64 pixels as 8 × 8 patches of 8 (65 tokens with [CLS]), with random weights from a fixed seed,
saved with its `ViTImageProcessor` (resize to 64 × 64, normalise with mean 0.5 and std 0.5). The
weights are drawn wider than transformers' default (std 0.2, not 0.02) so that its attention is not
uniform: a picture's shapes then show in it. The CLIP has an image tower of the same sizes and a
text tower of 2 layers over a word-level tokenizer of the captions' words (`<|startoftext|>` and
`<|endoftext|>` around each text, as CLIP's own tokenizer puts them), random weights too. The SigLIP
has the same sizes (no [CLS]: 64 patch tokens) and the same words; its tokenizer returns only the ids
and its captions are padded to the text tower's 16 positions, as SigLIP's own are. The LLaVA joins a
vision tower of the tiny ViT's sizes (CLIP's) through a two-layer projector to a 2-layer Llama (4
query heads, 2 key/value heads, rotary positions) over a word-level vocabulary with `<image>`, which
its `LlavaProcessor` expands into one token per patch (64). Nothing is
downloaded: the picture is drawn here with
numpy (a sky, a sun, a house and a tree on grass, 128 × 128) and written as a PNG by Pillow.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

DEFAULT_OUT = Path(__file__).resolve().parents[2] / "resources"
SIDE = 128


def draw_sample(side: int = SIDE) -> np.ndarray:
    """(side, side, 3) uint8: a sky fading to the horizon, a sun, a house with a red roof, a tree, grass."""
    y, x = np.mgrid[0:side, 0:side] / side  # (side, side) each, 0…1
    sky = np.stack([0.45 + 0.4 * y, 0.65 + 0.3 * y, np.full_like(y, 0.95)], axis=-1)
    image = sky.copy()
    grass = y > 0.7
    image[grass] = (0.25, 0.6, 0.2)
    sun = (x - 0.8) ** 2 + (y - 0.18) ** 2 < 0.1 ** 2
    image[sun] = (1.0, 0.85, 0.2)
    wall = (x > 0.2) & (x < 0.5) & (y > 0.5) & (y < 0.8)
    image[wall] = (0.9, 0.85, 0.7)
    roof = (y > 0.32) & (y <= 0.5) & (np.abs(x - 0.35) < (y - 0.32) * 1.0)
    image[roof] = (0.75, 0.15, 0.1)
    door = (x > 0.3) & (x < 0.38) & (y > 0.65) & (y < 0.8)
    image[door] = (0.4, 0.25, 0.1)
    trunk = (x > 0.68) & (x < 0.73) & (y > 0.55) & (y < 0.82)
    image[trunk] = (0.45, 0.3, 0.15)
    crown = (x - 0.705) ** 2 + (y - 0.48) ** 2 < 0.12 ** 2
    image[crown] = (0.1, 0.45, 0.15)
    return (image * 255).round().clip(0, 255).astype(np.uint8)


def make_model(folder: Path) -> None:
    """A random tiny ViT and its image processor, saved with save_pretrained (safetensors)."""
    import torch
    from transformers import ViTConfig, ViTForImageClassification, ViTImageProcessor

    torch.manual_seed(0)
    config = ViTConfig(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
                       image_size=64, patch_size=8, num_channels=3, initializer_range=0.2, num_labels=4,
                       id2label={0: "sky", 1: "house", 2: "tree", 3: "grass"},
                       label2id={"sky": 0, "house": 1, "tree": 2, "grass": 3})
    model = ViTForImageClassification(config).eval()
    model.save_pretrained(folder, safe_serialization=True)
    ViTImageProcessor(size={"height": 64, "width": 64}, image_mean=[0.5] * 3, image_std=[0.5] * 3).save_pretrained(
        folder)


CAPTION_WORDS = "a an the photo picture of house tree sun sky grass red roof green blue cat dog car".split()
SPECIAL = ["[PAD]", "[UNK]", "<|startoftext|>", "<|endoftext|>"]


def caption_tokenizer(**options):
    """A word-level tokenizer of CAPTION_WORDS that puts <|startoftext|> and <|endoftext|> around a text
    (`options` go to `PreTrainedTokenizerFast`)."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    vocab = {word: i for i, word in enumerate(SPECIAL + CAPTION_WORDS)}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.post_processor = processors.TemplateProcessing(single="<|startoftext|> $A <|endoftext|>",
                                                       special_tokens=[("<|startoftext|>", 2), ("<|endoftext|>", 3)])
    return PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]",
                                   bos_token="<|startoftext|>", eos_token="<|endoftext|>", **options)


def _tower_configs() -> tuple[dict, dict]:
    """The text and vision towers' sizes the bundled CLIP and SigLIP share (the caption vocabulary's ids)."""
    text = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
                vocab_size=len(SPECIAL) + len(CAPTION_WORDS), max_position_embeddings=16, pad_token_id=0,
                bos_token_id=2, eos_token_id=3)
    vision = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128, image_size=64,
                  patch_size=8)
    return text, vision


def make_clip(folder: Path) -> None:
    """A random tiny CLIP, its tokenizer and image processor, saved with save_pretrained (safetensors)."""
    import torch
    from transformers import CLIPConfig, CLIPImageProcessor, CLIPModel

    torch.manual_seed(0)
    text, vision = _tower_configs()
    config = CLIPConfig(text_config=text, vision_config=vision, projection_dim=32, initializer_factor=1.0)
    model = CLIPModel(config).eval()
    model.save_pretrained(folder, safe_serialization=True)
    caption_tokenizer().save_pretrained(folder)
    CLIPImageProcessor(size={"shortest_edge": 64}, crop_size={"height": 64, "width": 64}).save_pretrained(folder)


def make_siglip(folder: Path) -> None:
    """A random tiny SigLIP, its tokenizer (ids only, as SigLIP's) and image processor, saved with save_pretrained."""
    import torch
    from transformers import SiglipConfig, SiglipImageProcessor, SiglipModel

    torch.manual_seed(0)
    text, vision = _tower_configs()
    model = SiglipModel(SiglipConfig(text_config=text, vision_config=vision, initializer_factor=1.0)).eval()
    model.save_pretrained(folder, safe_serialization=True)
    # SigLIP's text has no padding mask; padding="max_length" (how SigLIP is called) fills the text tower's length
    caption_tokenizer(model_input_names=["input_ids"], model_max_length=text["max_position_embeddings"]
                      ).save_pretrained(folder)
    SiglipImageProcessor(size={"height": 64, "width": 64}).save_pretrained(folder)


VLM_WORDS = "USER ASSISTANT : ? what is in the picture a an house tree sun sky grass red roof".split()


def make_llava(folder: Path) -> None:
    """A random tiny LLaVA (the tiny ViT's sizes as a CLIP vision tower, a 2-layer Llama with grouped-query
    attention), its processor (CLIP's image processor, a word-level tokenizer with <image>), saved."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import (CLIPImageProcessor, LlavaConfig, LlavaForConditionalGeneration, LlavaProcessor,
                              PreTrainedTokenizerFast)

    words = ["[PAD]", "[UNK]", "<s>", "</s>", "<image>"] + VLM_WORDS
    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]", bos_token="<s>",
                                        eos_token="</s>", extra_special_tokens={"image_token": "<image>"})
    torch.manual_seed(0)
    vision = dict(model_type="clip_vision_model", hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                  intermediate_size=128, image_size=64, patch_size=8)
    text = dict(model_type="llama", hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                num_key_value_heads=2, intermediate_size=128, vocab_size=len(words), max_position_embeddings=128,
                pad_token_id=0, bos_token_id=2, eos_token_id=3, initializer_range=0.1)
    config = LlavaConfig(vision_config=vision, text_config=text, image_token_index=words.index("<image>"),
                         projector_hidden_act="gelu", vision_feature_layer=-2,
                         vision_feature_select_strategy="default")
    LlavaForConditionalGeneration(config).eval().save_pretrained(folder, safe_serialization=True)
    image = CLIPImageProcessor(size={"shortest_edge": 64}, crop_size={"height": 64, "width": 64})
    LlavaProcessor(image_processor=image, tokenizer=tokenizer, patch_size=8, num_additional_image_tokens=1,
                   vision_feature_select_strategy="default").save_pretrained(folder)


def main(argv: list[str] | None = None) -> int:
    from PIL import Image

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the resources folder (default: resources)")
    args = parser.parse_args(argv)
    (args.out / "samples").mkdir(parents=True, exist_ok=True)
    Image.fromarray(draw_sample()).save(args.out / "samples" / "shapes.png", optimize=True)
    make_model(args.out / "tiny-vit")
    make_clip(args.out / "tiny-clip")
    make_siglip(args.out / "tiny-siglip")
    make_llava(args.out / "tiny-llava")
    for folder in ("tiny-vit", "tiny-clip", "tiny-siglip", "tiny-llava"):
        (args.out / folder / "model.safetensors").chmod(0o644)  # save_pretrained writes it owner-only
    print(f"wrote {args.out / 'tiny-vit'}, {args.out / 'tiny-clip'}, {args.out / 'tiny-siglip'}, "
          f"{args.out / 'tiny-llava'} and "
          f"{args.out / 'samples' / 'shapes.png'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
