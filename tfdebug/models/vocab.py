"""Word-level vocabularies: English split on words and punctuation, Chinese on spaces.

Words outside a vocabulary become <unk> and are listed; `suggest` finds the known word a
learner probably meant ("mum" -> "mom"), and `unknown_sentences` says so in one sentence
per word, for the CLI and the window to show.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tfdebug.core.errors import ModelLoadError
from tfdebug.core.files import read_text

MAX_VOCAB_BYTES = 64 * 2**20  # a million 60-byte words; the demo's are a few kB

SPECIALS = ("<pad>", "<bos>", "<eos>", "<unk>")
PAD, BOS, EOS, UNK = range(4)

# A special token typed in the text stays one word, so that it can be named and refused.
_EN_WORD = re.compile(r"<(?:pad|bos|eos|unk)>|[a-z0-9]+(?:'[a-z]+)?|[^\sa-z0-9]")


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
            raise ModelLoadError("A vocabulary must start with {specials}.", id="vocab.specials",
                                 specials=" ".join(SPECIALS))
        if len(set(tokens)) != len(tokens):
            raise ModelLoadError("A vocabulary lists the same token twice.", id="vocab.duplicate")
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
        """Ids of the words of `text`; words outside the vocabulary become <unk> and are listed.

        A special token typed as text ("<eos>", "<pad>", "<bos>", "<unk>") is not a word:
        it is read as <unk> and listed too, never silently turned into that token's id.
        """
        words = tokenize(text, self.lang)
        ids = [UNK if w in SPECIALS else self.id(w) for w in words]
        unknown = [w for w, i in zip(words, ids) if i == UNK]
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
        # Bounded and regular files only: a FIFO, /dev/zero or a sparse 8 GB file is refused unread.
        lines = read_text(path, MAX_VOCAB_BYTES, ModelLoadError).splitlines()
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


# Words a learner types for which the corpus uses another word: checked against the
# vocabulary at lookup, so an entry whose target is unknown suggests nothing.
SYNONYMS = {
    "mum": "mom", "mummy": "mom", "mommy": "mom", "mama": "mom", "daddy": "dad", "papa": "dad",
    "granny": "grandma", "grandad": "grandpa", "auntie": "aunt", "kid": "child", "kids": "children",
    "pupil": "student", "pupils": "students", "lady": "woman", "guy": "man", "kitten": "cat", "kitty": "cat",
    "puppy": "dog", "doggy": "dog", "automobile": "car", "bicycle": "bike", "film": "movie", "films": "movies",
    "cellphone": "phone", "mobile": "phone", "store": "shop", "cafe": "restaurant", "tasty": "delicious",
    "yummy": "delicious", "large": "big", "huge": "big", "little": "small", "tiny": "small",
    "pretty": "beautiful", "lovely": "beautiful", "glad": "happy", "unhappy": "sad", "mad": "angry",
    "quick": "fast", "sleepy": "tired", "clever": "smart", "intelligent": "smart", "simple": "easy",
    "hard": "difficult", "buddy": "friend", "pal": "friend", "sofa": "chair", "cab": "car", "taxi": "car",
}


def edit_distance(a: str, b: str) -> int:
    """Insertions, deletions, substitutions and swaps of neighbours that turn `a` into `b`."""
    prev2, prev = None, list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        row = [i]
        for j, cb in enumerate(b, 1):
            cost = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (ca != cb))
            if prev2 is not None and i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cost = min(cost, prev2[j - 2] + 1)
            row.append(cost)
        prev2, prev = prev, row
    return prev[-1]


def _word_forms(word: str) -> list[str]:
    """Other inflections of an English word: "apple" for "apples", "play" for "playing"."""
    forms = []
    for suffix, repl in (("ies", "y"), ("es", ""), ("s", ""), ("ing", ""), ("ing", "e"), ("ed", ""),
                         ("ed", "e"), ("", "s"), ("", "es")):
        if word.endswith(suffix) and len(word) > len(suffix) + 1:
            forms.append(word[: len(word) - len(suffix)] + repl)
    return forms


def suggest(word: str, vocab: Vocab) -> str | None:
    """The known word closest to an unknown `word`, or None when nothing is close.

    Tries, in order: another inflection of the word ("apple" for "apples"), a word the
    corpus uses instead ("mom" for "mum"), and a spelling a typing slip away ("banana"
    for "banan"; one edit for words up to four letters, two up to eight, else three).
    """
    word = word.lower() if vocab.lang == "en" else word
    if word in SPECIALS:
        return None
    known = [t for t in vocab.tokens[len(SPECIALS):] if t.isalpha() or "'" in t]
    if vocab.lang == "en":
        for form in [*_word_forms(word), SYNONYMS.get(word)]:
            if form and form != word and form in vocab and form not in SPECIALS:
                return form
    limit = 1 if len(word) <= 4 else 2 if len(word) <= 8 else 3
    if vocab.lang != "en":
        limit = 1 if len(word) > 1 else 0  # one character of a Chinese word
    # Lengths that differ by more than `limit` are more than `limit` edits apart: only the others are measured,
    # so a 100,000-character word costs a length test per known word, not a quadratic distance each.
    known = [t for t in known if abs(len(t) - len(word)) <= limit]
    best = min(known, key=lambda t: (edit_distance(word, t), -len(t)), default=None)
    if best is None or not 0 < edit_distance(word, best) <= limit or len(best) < 2:
        return None
    return best


def unknown_sentences(words, vocabs) -> list[str]:
    """One sentence per unknown word (each distinct word once, at most MAX_NAMED_WORDS, then how many more),
    naming it and the closest known word when there is one.

    `vocabs` are the model's vocabularies; each word is looked up in the one of its
    language (Chinese when it has a CJK character, else English).
    """
    named, more = named_words(words)
    out = []
    for word in named:
        if word in SPECIALS:
            out.append(f"{word} is a special token, not a word; it is read as <unk>.")
            continue
        hint = closest_known(word, vocabs)
        out.append(f"{shown_word(word)} is not in the vocabulary; did you mean {hint}?" if hint
                   else f"{shown_word(word)} is not in the vocabulary; it is read as <unk>.")
    if more:
        out.append(f"{more} more words are not in the vocabulary either.")
    return out


MAX_NAMED_WORDS = 20  # distinct unknown words named (each is looked up for a suggestion); the rest are counted


def named_words(words) -> tuple[list[str], int]:
    """The distinct words of `words` a message names, in order (at most MAX_NAMED_WORDS), and how many distinct
    ones it leaves out: a pasted text of 43,000 unknown characters names 20, not 43,000."""
    distinct = list(dict.fromkeys(words))
    return distinct[:MAX_NAMED_WORDS], max(0, len(distinct) - MAX_NAMED_WORDS)


MAX_SHOWN_WORD = 40  # characters of a typed word a sentence names (a pasted 100 kB "word" is named by its start)


def shown_word(word: str) -> str:
    """`word` as a sentence names it: cut to MAX_SHOWN_WORD characters with '…'."""
    return word if len(word) <= MAX_SHOWN_WORD else word[:MAX_SHOWN_WORD] + "…"


def closest_known(word: str, vocabs) -> str | None:
    """`suggest` in the vocabulary of the word's language (Chinese when it has a CJK character, else
    English) among `vocabs`, or None."""
    lang = "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in word) else "en"
    vocab = next((v for v in vocabs if v.lang == lang), None)
    return suggest(word, vocab) if vocab is not None else None


def vocabularies_of(loaded) -> list[Vocab]:
    """The source and target vocabularies of a loaded reference model (none for any other model)."""
    return [v for v in (getattr(loaded, "src_vocab", None), getattr(loaded, "tgt_vocab", None)) if v is not None]
