"""Skills to bags of term ids: the lexicon every index of one router shares, a word memo,
and per-text caches that make one build tokenize each distinct text once.

`TokenCache.row(spec)` is the only way a skill is tokenized, so `stats["rows_tokenized"]`
and `stats["bodies_read"]` count exactly the work an index build or update did.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterable, Sequence
from typing import Any

from codebot.skills.files import Spec
from codebot.skills.route.config import RouterConfig
from codebot.skills.route.rows import Bag, RowBags, fingerprint
from codebot.skills.route.shape import split_negative
from codebot.skills.route.text import Tokenizer

_EMPTY = Bag(array("i"), array("H"), 0)


class TokenCache:
    """The lexicon (term -> id, and id -> term), the tokenizer, and bag caches.

    The lexicon only grows: ids handed out stay valid for every index built from it.
    `adopt(terms)` replaces it by a persisted one (a new dict, so an index still in use
    keeps its own).
    """

    def __init__(self) -> None:
        self._tok: Tokenizer | None = None
        self._tok_kind: str | None = None
        self.lexicon: dict[str, int] = {}
        self.terms: list[str] = []
        self._word_ids: dict[str, int] = {}  # word as written -> term id (-1: stop word)
        self._name_bags: dict[str, Bag] = {}
        self._text_bags: dict[str, Bag] = {}
        self._body_bags: dict[tuple[Any, ...], Bag] = {}
        self.stats = {"rows_tokenized": 0, "bodies_read": 0}

    def tokenizer(self, cfg: RouterConfig) -> Tokenizer:
        if self._tok is None or self._tok_kind != cfg.stemmer:
            self._tok = Tokenizer(cfg.stemmer)
            self._tok_kind = cfg.stemmer
            self._word_ids.clear()  # made with the other stemmer
            self.clear()
        return self._tok

    def adopt(self, terms: Sequence[str]) -> None:
        """Use a persisted lexicon from now on (the ids in its rows refer to it)."""
        self.terms = list(terms)
        self.lexicon = {t: i for i, t in enumerate(self.terms)}
        self._word_ids = {}
        self.clear()

    def clear(self) -> None:
        """Drop the bag caches: once a build is done, its rows hold what they held."""
        self._name_bags.clear()
        self._text_bags.clear()
        self._body_bags.clear()

    # -- one skill ----------------------------------------------------------------------

    def row(self, spec: Spec, cfg: RouterConfig, fp: bytes | None = None) -> RowBags:
        """The row of `spec`: a bag per field and the words only its negative clauses use."""
        self.stats["rows_tokenized"] += 1
        w = cfg.weights
        nb = self._name_bag(spec, cfg)
        desc = self._text_bag(spec.description or "", nb, cfg)
        when = (
            self._text_bag(spec.when_to_use, nb, cfg)
            if (w.get("when_to_use", 0) > 0 and spec.when_to_use)
            else _EMPTY
        )
        body = self._body_bag(spec, cfg) if w.get("body", 0) > 0 else _EMPTY
        neg = tuple(sorted(set(desc.neg) | set(when.neg)))
        return RowBags(fp if fp is not None else fingerprint(spec), (nb, desc, when, body), neg)

    def _ids(self, terms: Iterable[str]) -> list[int]:
        lex = self.lexicon
        out = []
        for t in terms:
            i = lex.get(t)
            if i is None:
                i = lex[t] = len(self.terms)
                self.terms.append(t)
            out.append(i)
        return out

    def _counts(self, text: str, cfg: RouterConfig) -> tuple[dict[int, int], int]:
        """Term id -> occurrences in a text, and the number of terms (the hot path of index
        builds: words are counted in C first, so the Python loop runs once per distinct
        word, not once per word of a 5,000-character body)."""
        tok = self.tokenizer(cfg)
        memo = self._word_ids
        c: dict[int, int] = {}
        length = 0
        for word, n in tok.word_counts(text).items():
            i = memo.get(word, -2)
            if i == -2:
                t = tok.term(word)
                i = -1 if t is None else self._ids((t,))[0]
                if len(memo) < 1_000_000:
                    memo[word] = i
            if i >= 0:
                c[i] = c.get(i, 0) + n
                length += n
        return c, length

    def _bag(self, text: str, cfg: RouterConfig, neg_text: str | None = None) -> Bag:
        c, length = self._counts(text, cfg)
        ids = sorted(c)
        neg: tuple[int, ...] = ()
        if neg_text:
            neg = tuple(sorted(set(self._counts(neg_text, cfg)[0]).difference(c)))
        return Bag(array("i", ids), array("H", [min(c[i], 65535) for i in ids]), length, neg)

    def _name_bag(self, spec: Spec, cfg: RouterConfig) -> Bag:
        got = self._name_bags.get(spec.name)
        if got is None:
            text = re.sub(r"[-_:./]+", " ", spec.name)
            got = self._name_bags[spec.name] = self._bag(text, cfg)
        return got

    def _text_bag(self, text: str, exclude: Bag, cfg: RouterConfig) -> Bag:
        """Description / when_to_use: positive part indexed, negative-only words remembered
        (minus the words of the skill's own name)."""
        got = self._text_bags.get(text)
        if got is None:
            pos, neg = split_negative(text)
            got = self._text_bags[text] = self._bag(pos, cfg, neg or None)
        if got.neg and len(exclude.ids):
            name_ids = set(exclude.ids)
            keep = tuple(t for t in got.neg if t not in name_ids)
            if len(keep) != len(got.neg):
                return Bag(got.ids, got.counts, got.length, keep)
        return got

    def _body_bag(self, spec: Spec, cfg: RouterConfig) -> Bag:
        n = cfg.body_chars
        key = (str(spec.real_path), spec.body_offset, spec.stamp, n)
        got = self._body_bags.get(key)
        if got is None:
            try:
                body = spec.read_body()[:n]
            except OSError:
                body = ""
            self.stats["bodies_read"] += 1
            got = self._body_bags[key] = self._bag(body, cfg)
        return got
