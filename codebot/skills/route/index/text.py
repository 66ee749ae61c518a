"""Words to index terms: case folding, multi-word names, aliases, stop words, stemming
(the alias and stop-word lists themselves are in `words`).

Skills and requests go through the same `Tokenizer`, so a term matches only when both
sides reduce to it; identifiers such as `k8s`, `pytest` or `c++` are kept intact.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Mapping

from codebot import regex_cache
from codebot.skills.route.index.words import ALIASES, STOP_WORDS

#: Multi-word names folded into one term (matched on tokens, so "end-to-end" works too).
_PHRASES: Mapping[str, tuple[tuple[tuple[str, ...], str], ...]] = {
    "end": ((("to", "end"), "e2e"),),
    "machine": ((("learning",), "ml"),),
    "large": ((("language", "model"), "llm"), (("language", "models"), "llm")),
    "pull": ((("request",), "pr"), (("requests",), "pr")),
    "continuous": ((("integration",), "ci"),),
    "node": ((("js",), "nodejs"),),
    "next": ((("js",), "nextjs"),),
    "a": ((("b",), "ab"),),  # "A/B test": the split would drop both letters
}
_PHRASE_HEADS = frozenset(_PHRASES)
# Folding runs on the tokens joined by two spaces: tokens hold no space, so " next  js "
# can only be a run of whole tokens, and each match uses one of the two spaces on either
# side, so `str.replace` and `str.count` (left to right, in C) see repeats as the token loop
# did. No phrase's tail starts another phrase ("end to end to end" is one phrase, then
# "to end"), so the order among phrases does not matter.
_PHRASE_TEXT = tuple(
    (" " + "  ".join((head, *seq)) + " ", f" {repl} ")
    for head, alts in _PHRASES.items()
    for seq, repl in alts
)
#: head -> (joined phrase, folded term, the phrase's words) for `word_counts`
_PHRASE_PARTS = {
    head: tuple((" " + "  ".join((head, *seq)) + " ", repl, (head, *seq)) for seq, repl in alts)
    for head, alts in _PHRASES.items()
}
_KEEP = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789+#")
_NON_WORD = bytes(c if c in _KEEP else 32 for c in range(256))  # every other byte: a space
_LEADING_MARKS = regex_cache.compile(r"(?<= )[+#]+")
_MISS = object()


def _unmarked(flat: str) -> str:
    """`flat` (words between spaces, after a space) without the "+" and "#" that begin a
    word: a word starts at a letter or digit (markdown headings put "##" in most bodies)."""
    for _ in range(3):
        if " #" not in flat and " +" not in flat:
            return flat
        flat = flat.replace(" #", " ").replace(" +", " ")
    return _LEADING_MARKS.sub("", flat)


#: UTF-8 lead bytes of letters outside ASCII: Latin-1 and Latin Extended, Greek, Cyrillic
#: and the rest up to U+07FF (C3-DF), kana, CJK and Hangul (E3-ED); not E2 (punctuation,
#: arrows, symbols) nor F0 (emoji), which separate words like any other non-letter
_OTHER_LETTERS = re.compile(rb"[\xc3-\xdf\xe3-\xed]")
_UNICODE_NON_WORD = regex_cache.compile(r"[^\w+#]+|_+")
_COMBINING = regex_cache.compile(r"[\u0300-\u036f]")
#: Han, kana and Hangul: written without spaces, indexed as overlapping character pairs
_CJK_RUN = regex_cache.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+"
)


def _bigrams(m: re.Match[str]) -> str:
    run = m.group(0)
    if len(run) == 1:
        return f" {run} "
    return " " + " ".join(run[i : i + 2] for i in range(len(run) - 1)) + " "


def _flat_unicode(text: str) -> str:
    """`_flat` for a text with letters outside ASCII (NFKC already applied): case-folded,
    Latin accents dropped ("versión" -> "version": loanwords meet the English index), words
    of every script kept, and runs of Han, kana and Hangul split into overlapping pairs of
    characters (as Lucene's CJK analyzer does: "镜像构建" -> 镜像 像构 构建), so a Chinese
    or Japanese text has terms without a dictionary."""
    low = text.lower()
    if _COMBINING.search(unicodedata.normalize("NFD", low)):
        low = unicodedata.normalize("NFC", _COMBINING.sub("", unicodedata.normalize("NFD", low)))
    flat = _UNICODE_NON_WORD.sub(" ", low)
    if _CJK_RUN.search(flat):
        flat = _CJK_RUN.sub(_bigrams, flat)
    return " " + flat


_KEEP_SHORT = frozenset(
    {"c", "r", "go", "ai", "ui", "ux", "qa", "ml", "ci", "cd", "pr", "vm", "os"}
)


def _builtin_stem(w: str) -> str:
    """A small, predictable suffix stemmer: plurals, -ing, -ed, -ly, -able, -ment, -ation,
    -ion, final e. Crude next to Porter, but both sides of a match go through it."""
    if len(w) <= 3 or not w.isalpha():
        return w
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith(("sses", "xes", "ches", "shes", "zes")):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is", "ys")):
        w = w[:-1]
    if w.endswith("ied") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("ing") and len(w) - 3 >= 3:
        w = _undouble(w[:-3])
    elif w.endswith("ed") and not w.endswith("eed") and len(w) - 2 >= 3:
        w = _undouble(w[:-2])
    elif w.endswith("ly") and len(w) - 2 >= 4:
        w = w[:-2]
    for suffix, repl in (
        ("ization", "iz"),
        ("isation", "is"),
        ("ation", "at"),
        ("ator", "at"),
        ("ction", "ct"),
        ("ssion", "ss"),
        ("able", ""),
        ("ible", ""),
        ("ment", ""),
    ):
        if w.endswith(suffix) and len(w) - len(suffix) >= 4:
            w = w[: -len(suffix)] + repl
            break
    if w.endswith("e") and len(w) >= 4:
        w = w[:-1]
    return w


def _undouble(w: str) -> str:
    if len(w) >= 4 and w[-1] == w[-2] and w[-1] not in "lsz":
        return w[:-1]
    return w


@functools.cache
def _stemmer(kind: str) -> Callable[[str], str]:
    if kind == "none":
        return lambda w: w
    # "auto" is the built-in stemmer: the English terms do not change with what is
    # installed (PyStemmer comes with the `languages` extra, for requests in other
    # languages); Snowball's English measured no better on the case files (docs/routing.md)
    if kind == "snowball":
        try:
            import Stemmer  # pyright: ignore[reportMissingImports]  # PyStemmer, optional

            stem_word = Stemmer.Stemmer("english").stemWord
        except Exception:
            pass
        else:
            return lambda w: w if (not w.isalpha() or len(w) <= 3) else stem_word(w)
    return _builtin_stem


def stemmer_name(kind: str) -> str:
    """The stemmer `kind` resolves to here ("pystemmer 2.2.0", "builtin", "none"): part
    of what a persisted index was made with, since PyStemmer may come or go."""
    if kind == "none":
        return "none"
    if kind == "snowball":
        try:
            import Stemmer  # pyright: ignore[reportMissingImports]

            return f"pystemmer {getattr(Stemmer, '__version__', '?')}"
        except Exception:
            pass
    return "builtin"


class Tokenizer:
    """Text to stemmed terms. Per-word results are memoised (the vocabulary is small)."""

    def __init__(self, stemmer: str = "auto") -> None:
        self._stem = _stemmer(stemmer)
        self._memo: dict[str, str | None] = {}

    def term(self, word: str) -> str | None:
        got = self._memo.get(word, _MISS)
        if got is not _MISS:
            return got  # type: ignore[return-value]
        w = word.strip("+#") if not word.endswith(("++", "#")) else word
        w = ALIASES.get(w, w)
        if w in STOP_WORDS or (len(w) < 2 and w not in _KEEP_SHORT) or (w.isdigit() and len(w) < 3):
            out = None
        else:
            out = self._stem(w)
            if out in STOP_WORDS:
                out = None
        if len(self._memo) < 500_000:
            self._memo[word] = out
        return out

    @staticmethod
    def _flat(text: str) -> str:
        """`text` case-folded with every byte outside [a-z0-9+#] a space, after a space;
        a text with letters of other scripts goes through `_flat_unicode`."""
        if not text.isascii():
            text = unicodedata.normalize("NFKC", text)
            raw = text.lower().encode("utf-8", "replace")
            if _OTHER_LETTERS.search(raw):
                return _flat_unicode(text)
            return " " + raw.translate(_NON_WORD).decode("ascii")
        # bytes.translate runs in C; non-ASCII bytes become separators (punctuation, emoji)
        return " " + text.lower().encode("utf-8", "replace").translate(_NON_WORD).decode("ascii")

    def words(self, text: str) -> list[str]:
        """The words of `text`: runs of [a-z0-9+#] after NFKC and case folding, each
        starting at a letter or digit ("c++" and "c#" stay whole), phrases folded."""
        toks = _unmarked(self._flat(text)).split()
        if _PHRASE_HEADS.isdisjoint(toks):
            return toks
        joined = "  " + "  ".join(toks) + "  "
        folded = joined
        for phrase, repl in _PHRASE_TEXT:
            if phrase in folded:
                folded = folded.replace(phrase, repl)
        return toks if folded is joined else folded.split()

    def word_counts(self, text: str) -> Counter[str]:
        """`Counter(self.words(text))`, made the cheap way for long texts (index builds):
        counted in C first, then the leading marks and the phrases fixed up on the
        distinct words, so Python loops run per distinct word, not per word."""
        toks = self._flat(text).split()
        c = Counter(toks)
        marked = [k for k in c if k[0] in "+#"]  # markdown headings: "##" in most bodies
        for k in marked:
            n = c.pop(k)
            if k := k.lstrip("+#"):
                c[k] += n
        if _PHRASE_HEADS.isdisjoint(c):
            return c
        maybe = [
            part
            for head in _PHRASE_HEADS.intersection(c)
            for part in _PHRASE_PARTS[head]
            if all(w in c for w in part[2])
        ]
        if not maybe:
            return c
        if marked:
            toks = _unmarked(" " + " ".join(toks)).split()
        joined = "  " + "  ".join(toks) + "  "
        for phrase, repl, parts in maybe:
            if k := joined.count(phrase):
                c[repl] += k
                for w in parts:
                    c[w] -= k
        return +c  # drops the words that only occurred inside phrases

    def __call__(self, text: str) -> list[str]:
        memo, term = self._memo, self.term
        out = []
        for word in self.words(text):
            t = memo.get(word, _MISS)
            if t is _MISS:
                t = term(word)
            if t is not None:
                out.append(t)
        return out

    def with_surface(self, text: str) -> list[tuple[str, str]]:
        """(term, the word as written) for explanations."""
        out = []
        for word in self.words(text):
            t = self.term(word)
            if t is not None:
                out.append((t, word))
        return out
