"""Word-level vocabularies: English split on words and punctuation, Chinese on spaces."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tfdebug.core.errors import ModelLoadError

SPECIALS = ("<pad>", "<bos>", "<eos>", "<unk>")
PAD, BOS, EOS, UNK = range(4)

_EN_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?|[^\sa-z0-9]")


def tokenize(text: str, lang: str) -> list[str]:
    """Words of `text`: lower-cased words and punctuation for English ('en'), space-separated for Chinese ('zh')."""
    if lang == "en":
        return _EN_WORD.findall(text.lower())
    return text.split()


@dataclass(frozen=True)
class Encoded:
    """Token ids of one sentence, the words they came from, and the words not in the vocabulary."""

    ids: list[int]
    tokens: list[str]
    unknown: list[str]


class Vocab:
    """An ordered token list; ids 0–3 are <pad> <bos> <eos> <unk>."""

    def __init__(self, tokens: list[str], lang: str):
        if tuple(tokens[:4]) != SPECIALS:
            raise ModelLoadError(f"A vocabulary must start with {' '.join(SPECIALS)}.")
        if len(set(tokens)) != len(tokens):
            raise ModelLoadError("A vocabulary lists the same token twice.")
        self.tokens = list(tokens)
        self.lang = lang
        self._index = {t: i for i, t in enumerate(self.tokens)}

    def __len__(self) -> int:
        return len(self.tokens)

    def __contains__(self, token: str) -> bool:
        return token in self._index

    def id(self, token: str) -> int:
        return self._index.get(token, UNK)

    def encode(self, text: str) -> Encoded:
        """Ids of the words of `text`; words outside the vocabulary become <unk> and are listed."""
        words = tokenize(text, self.lang)
        ids = [self.id(w) for w in words]
        unknown = [w for w, i in zip(words, ids) if i == UNK and w != "<unk>"]
        return Encoded(ids=ids, tokens=[self.tokens[i] if i != UNK else w for w, i in zip(words, ids)],
                       unknown=unknown)

    def decode(self, ids, stop_at_eos: bool = True) -> list[str]:
        out = []
        for i in ids:
            i = int(i)
            if stop_at_eos and i == EOS:
                break
            if i in (PAD, BOS):
                continue
            out.append(self.tokens[i] if 0 <= i < len(self.tokens) else "<unk>")
        return out

    @classmethod
    def build(cls, sentences, lang: str) -> "Vocab":
        """A vocabulary of every word in `sentences`, in order of first appearance."""
        tokens = list(SPECIALS)
        seen = set(tokens)
        for sentence in sentences:
            for word in tokenize(sentence, lang):
                if word not in seen:
                    seen.add(word)
                    tokens.append(word)
        return cls(tokens, lang)

    def save(self, path: Path) -> None:
        Path(path).write_text("\n".join(self.tokens) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: Path, lang: str) -> "Vocab":
        try:
            lines = Path(path).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise ModelLoadError(f"Cannot read the vocabulary {path}: {exc}.") from exc
        return cls([line for line in lines if line], lang)


# The notes' sentences, for the random model's built-in vocabulary.
BUILTIN_PAIRS = (
    ("I love you", "我 爱 你"),
    ("Apple is delicious", "苹果 很 好吃"),
    ("I ate an apple yesterday", "我 昨天 吃 了 一个 苹果"),
    ("I bought a share of Apple yesterday", "我 昨天 买 了 一股 苹果"),
    ("Xiaoming smiled and bit into a sweet apple", "小明 笑着 咬了 一口 甜甜的 苹果"),
    ("The animal didn't cross the street because it was too tired",
     "这只 动物 没有 穿过 那条 街道 ， 因为 它 太 累 了"),
    ("The animal didn't cross the street because it was too wide",
     "这只 动物 没有 穿过 那条 街道 ， 因为 它 太 宽 了"),
)


def builtin_vocabs() -> tuple[Vocab, Vocab]:
    """Small English and Chinese vocabularies covering the notes' sentences."""
    return (Vocab.build((en for en, _ in BUILTIN_PAIRS), "en"),
            Vocab.build((zh for _, zh in BUILTIN_PAIRS), "zh"))
