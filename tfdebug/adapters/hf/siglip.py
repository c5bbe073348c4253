"""SigLIP: CLIP's two towers with a sigmoid's similarity (`--image FILE` with `--input text=…`).

The towers are planned as CLIP's (`clip.TwoTowerPlanner`): the image tower has no [CLS] token, so
its stages are `img.patch_embed`, `img.pos`, `enc.{i}.attn.*` and `enc.norm` (the post-layernorm
over every patch); the text tower is not causal (`tok.embed`, `tok.pos`, `txt.{i}.self_attn.*`,
`txt.norm`). Each tower's own head makes its vector in the shared space: `img.proj` is the
attention-pooling head's output (a learned probe attends to every patch, then an MLP), `txt.proj`
the last token's row through a linear layer. The last stage is the model's own `logits_per_image`:
exp(t)·cos + b, whose sigmoid is the probability that picture and caption match. The captions are
padded to the text tower's full length, as SigLIP was trained (`padding="max_length"`).
"""

from __future__ import annotations

from tfdebug.adapters.hf.clip import CLIPAdapter, TwoTowerPlanner
from tfdebug.adapters.hf.hooks import ModelLogits
from tfdebug.adapters.hf.match import refuse as _refuse


class SigLIPPlanner(TwoTowerPlanner):
    """Both towers as CLIP's, then each tower's head and the sigmoid-loss similarity."""

    def project(self, pooled: dict[str, str]) -> None:
        b = self.b
        for path, name, source, formula in (
                ("vision_model.head", "img.proj", pooled["enc"],
                 "MAP(h): a learned probe attends to every patch, then an MLP  (the image in the shared space)"),
                ("text_model.head", "txt.proj", pooled["txt"], "h[last]·W_head + b  (the text in the shared space)")):
            if self.record.first(path) is None:
                raise _refuse("cannot find {model}'s {path}.", "no_tower_head", model=type(self.model).__name__,
                              path=path)
            b.output(path, name, "embedding", ("batch", "model"), formula, {}, inputs=(source,))
        b.tap("logits", "logits", ("image", "text"), "exp(t) · cos(img.proj, txt.proj) + b  (logits_per_image; "
              "its sigmoid is the match probability)", {}, inputs=("img.proj", "txt.proj"))
        b.plan.hooks.append(ModelLogits("logits", field="logits_per_image"))
        b.plan.logits_key = "logits_per_image"


class SigLIPAdapter(CLIPAdapter):
    """A SigLIP model: a picture and one or more captions in, every stage of both towers tapped."""

    kind = "hf-siglip"
    planner_class = SigLIPPlanner

    def padding(self) -> dict:
        """SigLIP pads every caption to the text tower's full length, as it was trained."""
        return {"padding": "max_length", "max_length": self.model.config.text_config.max_position_embeddings}



