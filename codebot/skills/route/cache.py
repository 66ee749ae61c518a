"""Which index serves which catalog snapshot, and the caches that keep rebuilds cheap.

The index is built once per snapshot (or list of specs) and reused; on a reload, the
tokens of unchanged names and descriptions, and of unchanged body excerpts (keyed by path,
offset and stamp), are reused, so only edited skills are read and tokenized again.
"""

from __future__ import annotations

import re
import threading
import time
from array import array
from collections.abc import Iterable, Mapping
from typing import Any

from codebot.skills.files import Spec
from codebot.skills.route.config import FIELDS, RouterConfig
from codebot.skills.route.index import Bag, Index
from codebot.skills.route.shape import split_negative
from codebot.skills.route.text import Tokenizer


class IndexCache:
    """The current index, what it was built for, and the token caches that make rebuilds incremental."""

    def __init__(self, config: RouterConfig) -> None:
        self.config = config
        self._lock = threading.RLock()
        self._tok: Tokenizer | None = None
        self._tok_kind: str | None = None
        self._lexicon: dict[str, int] = {}  # term -> id, shared by every index built here
        self._word_ids: dict[str, int] = {}  # word as written -> term id (-1: stop word)
        self._index: Index | None = None
        self._index_owner: Any = None  # the snapshot (or spec tuple) the index was built for
        self._index_key: tuple[Any, ...] | None = None
        # token caches: reused across rebuilds, pruned to what the current index uses
        self._name_bags: dict[str, Bag] = {}
        self._text_bags: dict[str, Bag] = {}
        self._body_bags: dict[tuple[Any, ...], Bag] = {}
        # for tests, benchmarks and `skills route`
        self.stats = {"builds": 0, "bodies_read": 0, "last_build_ms": 0.0}

    # -- tokens ---------------------------------------------------------------------

    @property
    def tokenizer(self) -> Tokenizer:
        if self._tok is None or self._tok_kind != self.config.stemmer:
            self._tok = Tokenizer(self.config.stemmer)
            self._tok_kind = self.config.stemmer
            # cached bags were made with the other stemmer
            self._word_ids.clear()
            self._name_bags.clear()
            self._text_bags.clear()
            self._body_bags.clear()
        return self._tok

    def _ids(self, terms: Iterable[str]) -> list[int]:
        lex = self._lexicon
        out = []
        for t in terms:
            i = lex.get(t)
            if i is None:
                i = lex[t] = len(lex)
            out.append(i)
        return out

    def _text_ids(self, text: str) -> list[int]:
        """Term ids of a text, through a word -> id memo (the hot path of index builds)."""
        memo = self._word_ids
        out = []
        for w in self.tokenizer.words(text):
            i = memo.get(w, -2)
            if i == -2:
                t = self.tokenizer.term(w)
                i = -1 if t is None else self._ids((t,))[0]
                if len(memo) < 1_000_000:
                    memo[w] = i
            if i >= 0:
                out.append(i)
        return out

    def _bag(self, text: str, neg_text: str | None = None) -> Bag:
        ids_all = self._text_ids(text)
        c: dict[int, int] = {}
        for i in ids_all:
            c[i] = c.get(i, 0) + 1
        ids = sorted(c)
        neg: tuple[int, ...] = ()
        if neg_text:
            neg = tuple(sorted(set(self._text_ids(neg_text)).difference(c)))
        return Bag(array("i", ids), array("H", [min(c[i], 65535) for i in ids]), len(ids_all), neg)

    def _name_bag(self, spec: Spec) -> Bag:
        got = self._name_bags.get(spec.name)
        if got is None:
            text = re.sub(r"[-_:./]+", " ", spec.name)
            got = self._name_bags[spec.name] = self._bag(text)
        return got

    def _text_bag(self, text: str, exclude: Bag | None = None) -> Bag:
        """Description / when_to_use: positive part indexed, negative-only words remembered."""
        got = self._text_bags.get(text)
        if got is None:
            pos, neg = split_negative(text)
            got = self._text_bags[text] = self._bag(pos, neg or None)
        if exclude is not None and got.neg and len(exclude.ids):
            keep = tuple(t for t in got.neg if t not in set(exclude.ids))
            if len(keep) != len(got.neg):
                return Bag(got.ids, got.counts, got.length, keep)
        return got

    def _body_bag(self, spec: Spec) -> Bag:
        n = self.config.body_chars
        key = (str(spec.real_path), spec.body_offset, spec.stamp, n)
        got = self._body_bags.get(key)
        if got is None:
            try:
                body = spec.read_body()[:n]
            except OSError:
                body = ""
            self.stats["bodies_read"] += 1
            got = self._body_bags[key] = self._bag(body)
        return got

    # -- index ----------------------------------------------------------------------

    def index(self, specs: Any) -> tuple[Index, Any]:
        """The index for `specs` (a Snapshot or a sequence of Spec) and a row mask or None.

        A sequence whose specs are all in the current index reuses it with a mask, so the
        SkillSearch tool's pre-filtered lists do not cause rebuilds.
        """
        import numpy as np

        with self._lock:
            cfg_key = self.config.index_key
            idx = self._index
            fresh = idx is not None and self._index_key == cfg_key
            if hasattr(specs, "skills") and isinstance(getattr(specs, "skills", None), Mapping):
                if fresh and self._index_owner is specs:
                    return idx, None
                seq = list(specs)
                if fresh and len(seq) == idx.n and all(a is b for a, b in zip(seq, idx.specs, strict=True)):
                    self._index_owner = specs  # a reload that changed nothing
                    return idx, None
                return self._rebuild(seq, specs), None
            seq = specs if isinstance(specs, tuple | list) else list(specs)
            if fresh:
                if len(seq) == idx.n and all(a is b for a, b in zip(seq, idx.specs, strict=True)):
                    return idx, None
                rows = [idx.pos.get(id(s), -1) for s in seq]
                if rows and min(rows) >= 0 and all(idx.specs[r] is s for r, s in zip(rows, seq, strict=True)):
                    mask = np.zeros(idx.n, dtype=bool)
                    mask[rows] = True
                    return idx, mask
            return self._rebuild(list(seq), tuple(seq)), None

    def _rebuild(self, specs: list[Spec], owner: Any) -> Index:
        t0 = time.perf_counter()
        bags: dict[str, list[Bag]] = {f: [] for f in FIELDS}
        w = self.config.weights
        use_when = w.get("when_to_use", 0) > 0
        use_body = w.get("body", 0) > 0
        empty = self._bag("")
        for s in specs:
            nb = self._name_bag(s)
            bags["name"].append(nb)
            bags["description"].append(self._text_bag(s.description or "", nb))
            bags["when_to_use"].append(self._text_bag(s.when_to_use, nb) if (use_when and s.when_to_use) else empty)
            bags["body"].append(self._body_bag(s) if use_body else empty)
        idx = Index(specs, bags, len(self._lexicon), self.config, self._lexicon)
        # prune caches to what this index uses
        names = {s.name for s in specs}
        texts = {s.description or "" for s in specs} | {s.when_to_use for s in specs if s.when_to_use}
        self._name_bags = {k: v for k, v in self._name_bags.items() if k in names}
        self._text_bags = {k: v for k, v in self._text_bags.items() if k in texts}
        if use_body:
            live = {(str(s.real_path), s.body_offset, s.stamp, self.config.body_chars) for s in specs}
            self._body_bags = {k: v for k, v in self._body_bags.items() if k in live}
        self._index, self._index_owner, self._index_key = idx, owner, self.config.index_key
        self.stats["builds"] += 1
        self.stats["last_build_ms"] = (time.perf_counter() - t0) * 1000
        return idx
