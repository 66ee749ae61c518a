"""Skills to bags of term ids: the lexicon every index of one router shares, a word memo,
and per-text caches that make one build tokenize each distinct text once.

`TokenCache.row(spec)` is the only way a skill is tokenized, so `stats["rows_tokenized"]`
and `stats["bodies_read"]` count exactly the work an index build or update did.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

from codebot.skills.files import Spec
from codebot.skills.route.config import RouterConfig
from codebot.skills.route.index.rows import Bag, RowBags, fingerprint
from codebot.skills.route.index.text import Tokenizer
from codebot.skills.route.shape import split_negative

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from codebot.skills.files import Stamp

_EMPTY = Bag(array("i"), array("H"), 0)
_NAME_MARKS = re.compile(r"[-_:./]+")  # what separates the words of a skill's name
#: bodies tokenized together by `bodies` (a few MB of text: the arrays stay small)
BATCH = 256
#: bodies this process tokenizes between two looks at the helper's frames (`absorb`)
MEET = 64
#: the longest body a helper's frame may claim (the rows hold lengths as int32)
_MAX_LENGTH = 2**31 - 1

#: what a body's bag is cached under (see `TokenCache._body_key`)
BodyKey = tuple[str, int, "Stamp", int]


class Helper(Protocol):
    """What the cache needs of `prefetch.BodyPrefetch` (named here: prefetch's helper
    process imports this module)."""

    config: RouterConfig
    order: dict[str, int]

    def ready(self) -> list[dict[str, object]]: ...

    def close(self) -> None: ...


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
        self._raw_ids: dict[str, int] = {}  # the same for `batch` (words with their marks)
        self._name_bags: dict[str, Bag] = {}
        self._text_bags: dict[str, Bag] = {}
        self._body_bags: dict[BodyKey, Bag] = {}
        self.stats = {"rows_tokenized": 0, "bodies_read": 0, "bodies_prefetched": 0}
        #: a `prefetch.BodyPrefetch` whose bodies the next build takes (see `absorb`)
        self.prefetch: Helper | None = None

    def tokenizer(self, cfg: RouterConfig) -> Tokenizer:
        if self._tok is None or self._tok_kind != cfg.stemmer:
            self._tok = Tokenizer(cfg.stemmer)
            self._tok_kind = cfg.stemmer
            self._word_ids.clear()  # made with the other stemmer
            self._raw_ids.clear()
            self.clear()
        return self._tok

    def adopt(self, terms: Sequence[str]) -> None:
        """Use a persisted lexicon from now on (the ids in its rows refer to it)."""
        self.terms = list(terms)
        self.lexicon = {t: i for i, t in enumerate(self.terms)}
        self._word_ids = {}
        self._raw_ids = {}
        self.clear()
        if self.prefetch is not None:  # a saved index has the rows: the helper's work is moot
            self.prefetch.close()
            self.prefetch = None

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
            text = _NAME_MARKS.sub(" ", spec.name)
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

    @staticmethod
    def _body_key(spec: Spec, n: int) -> BodyKey:
        """What a body's bag is cached under: its file, where the body starts, the file's
        stamp and how much of it is read (a prefetched bag carries the same four)."""
        return (str(spec.real_path), spec.body_offset, spec.stamp, n)

    def _body_bag(self, spec: Spec, cfg: RouterConfig) -> Bag:
        if self.prefetch is not None:
            self.absorb(cfg, (spec,))
        key = self._body_key(spec, cfg.bm25.body_chars)
        got = self._body_bags.get(key)
        if got is None:
            got = self._body_bags[key] = self._read_body(spec, cfg, cfg.bm25.body_chars)
        return got

    def _read_body(self, spec: Spec, cfg: RouterConfig, n: int) -> Bag:
        try:
            body = spec.read_body()[:n]
        except OSError:
            body = ""
        self.stats["bodies_read"] += 1
        return self._bag(body, cfg)

    def bodies(self, specs: Sequence[Spec], cfg: RouterConfig) -> int:
        """The bodies of `specs` not cached yet into the body cache, `BATCH` at a time
        through `batch.count_many` (what `_body_bag` then finds); how many were read."""
        n = cfg.bm25.body_chars
        todo = [s for s in specs if self._body_key(s, n) not in self._body_bags]
        for a in range(0, len(todo), BATCH):
            chunk = todo[a : a + BATCH]
            texts = []
            for spec in chunk:
                try:
                    texts.append(spec.read_body()[:n])
                except OSError:
                    texts.append("")
            for spec, bag in zip(chunk, self.bags_many(texts, cfg), strict=True):
                self._body_bags[self._body_key(spec, n)] = bag
            self.stats["bodies_read"] += len(chunk)
        return len(todo)

    def bags_many(self, texts: Sequence[str], cfg: RouterConfig) -> list[Bag]:
        """`[self._bag(t, cfg) for t in texts]`, the same bags, made the batch way (see
        `batch`)."""
        import os

        from codebot.skills.route.index.batch import count_many

        if os.environ.get("CODEBOT_ROUTE_BATCH") == "0":  # the one-text way (bench/agent_scale)
            return [self._bag(t, cfg) for t in texts]
        tok = self.tokenizer(cfg)
        counted = count_many([tok._flat(t) for t in texts], tok, self._raw_ids, self._id)
        return [Bag(array("i", ids), array("H", counts), length) for ids, counts, length in counted]

    def _id(self, term: str) -> int:
        return self._ids((term,))[0]

    # -- bodies another process tokenized --------------------------------------------------

    def absorb(self, cfg: RouterConfig, specs: Sequence[Spec]) -> int:
        """The bodies of `specs`, with the `prefetch` helper's help: its frames go into the
        body cache (mapped onto this lexicon, under the key `_body_bag` looks them up by,
        so a file changed since, or one not loaded, is never served from them) while this
        process tokenizes from the other end of the helper's order (the order it was given
        the files in) until it reaches a body the helper sent. Never waits for the helper;
        stops it. How many bodies came from it."""
        pf, self.prefetch = self.prefetch, None
        if pf is None:
            return 0
        try:
            same = (
                pf.config.bm25.body_chars == cfg.bm25.body_chars
                and pf.config.stemmer == cfg.stemmer
            )
            if not same or cfg.weights.get("body", 0) <= 0:
                return 0
            import numpy as np

            self.tokenizer(cfg)  # may clear the caches: before they are filled
            local = np.zeros(0, dtype=np.int32)  # the helper's term index -> the id here
            got = 0
            n = cfg.bm25.body_chars
            # the other fields first, while the helper works on: the bodies this process
            # does not get to are what it saves
            for a in range(0, len(specs), BATCH):
                for frame in pf.ready():
                    local, took = self._take(frame, local)
                    got += took
                self.prime(specs[a : a + BATCH], cfg)
            # backwards through the helper's order; what it was not given comes first
            last = len(pf.order)
            ordered = sorted(
                specs, key=lambda s: pf.order.get(str(s.real_path), last), reverse=True
            )
            for a in range(0, len(ordered), MEET):
                for frame in pf.ready():
                    local, took = self._take(frame, local)
                    got += took
                chunk: list[Spec] = []
                for spec in ordered[a : a + MEET]:
                    if self._body_key(spec, n) in self._body_bags:
                        break  # the helper has done this one, and every one before it
                    chunk.append(spec)
                self.bodies(chunk, cfg)
                if len(chunk) < len(ordered[a : a + MEET]):
                    break
            for frame in pf.ready():  # what came in meanwhile
                local, took = self._take(frame, local)
                got += took
        finally:
            pf.close()
        self.stats["bodies_prefetched"] += got
        return got

    def ahead(self, specs: Sequence[Spec], cfg: RouterConfig) -> None:
        """What `row` will need for `specs`, made the fast way before it asks: the bodies
        the `prefetch` helper made (`absorb`), then the name, text and body bags left, a
        batch at a time (`prime`, `bodies`)."""
        if not specs:
            return
        if self.prefetch is not None:
            self.absorb(cfg, specs)
        self.prime(specs, cfg)
        if cfg.weights.get("body", 0) > 0:
            self.bodies(specs, cfg)

    def prime(self, specs: Sequence[Spec], cfg: RouterConfig) -> None:
        """The name, description and when_to_use bags of `specs` into their caches (what
        `row` then finds there), made the batch way: the bags `_name_bag` and
        `_text_bag` would make one by one."""
        # in the specs' order (never a set's): term ids are handed out in the same order
        # in every process, so the same catalog always gets the same arrays
        names = list(dict.fromkeys(s.name for s in specs if s.name not in self._name_bags))
        spaced = [_NAME_MARKS.sub(" ", name) for name in names]
        self._name_bags.update(zip(names, self.bags_many(spaced, cfg), strict=True))
        when = cfg.weights.get("when_to_use", 0) > 0
        texts = dict.fromkeys(
            t
            for s in specs
            for t in (s.description or "", s.when_to_use if when and s.when_to_use else "")
        )
        todo = [t for t in texts if t not in self._text_bags]
        parts = [split_negative(t) for t in todo]
        pos = self.bags_many([p for p, _ in parts], cfg)
        has_neg = [i for i, (_, n) in enumerate(parts) if n]
        negs = self.bags_many([parts[i][1] for i in has_neg], cfg)
        for i, nb in zip(has_neg, negs, strict=True):
            b = pos[i]
            keep = tuple(sorted(set(nb.ids).difference(b.ids)))
            pos[i] = Bag(b.ids, b.counts, b.length, keep)
        self._text_bags.update(zip(todo, pos, strict=True))

    def _take(
        self, frame: Mapping[str, object], local: NDArray[np.int32]
    ) -> tuple[NDArray[np.int32], int]:
        """One frame of the helper's into the body cache. `local` maps the helper's term
        numbers to ids here; returns it with the frame's new terms added, and how many
        bodies the frame held."""
        import numpy as np

        terms = frame.get("terms", ())
        bodies = frame.get("bodies", ())
        if (
            not isinstance(terms, list)
            or not all(type(t) is str for t in terms)
            or not isinstance(bodies, list)
        ):
            return local, 0
        if terms:  # appended, not rebuilt from a list: it grows to 100,000 terms and more
            local = np.concatenate((local, np.asarray(self._ids(terms), dtype=np.int32)))
        remap = local
        keys, lengths, lens, parts, cparts = [], [], [], [], []
        for item in bodies:
            got_item = _frame_body(item)
            if got_item is None:
                continue
            key, length, ids_b, counts_b = got_item
            keys.append(key)
            lengths.append(length)
            lens.append(len(counts_b) // 2)
            parts.append(ids_b)
            cparts.append(counts_b)
        if not keys:
            return local, 0
        lids = np.frombuffer(b"".join(parts), dtype=np.int32)
        if len(lids) and not 0 <= lids.min() <= lids.max() < len(remap):
            return local, 0  # ids past the helper's own lexicon: the frame is not trusted
        ids = remap[lids]
        counts = np.frombuffer(b"".join(cparts), dtype=np.uint16)
        # each body's ids ascending (Bag's order), all bodies of the frame in one stable
        # sort of (body, id) keys: lexsort's order, a third of its time
        doc = np.repeat(np.arange(len(keys), dtype=np.int64), lens)
        pair = (doc << 32) | ids.astype(np.int64)
        order = np.argsort(pair, kind="stable")
        pair = pair[order]  # the ids in order are its low half: no second gather
        if len(counts) and (counts.min() == 0 or bool((pair[1:] == pair[:-1]).any())):
            return local, 0  # a term counted 0 times, or twice in a body: not a bag
        ids, counts = (pair & 0xFFFFFFFF).astype(np.int32).tobytes(), counts[order].tobytes()
        got = 0
        at = 0
        for key, length, k in zip(keys, lengths, lens, strict=True):
            if key not in self._body_bags:
                self._body_bags[key] = Bag(
                    array("i", ids[4 * at : 4 * (at + k)]),
                    array("H", counts[2 * at : 2 * (at + k)]),
                    length,
                )
                got += 1
            at += k
        return local, got


def _frame_body(item: object) -> tuple[BodyKey, int, bytes, bytes] | None:
    """One body of a helper's frame: its key, length, ids and counts (as bytes), or None
    when it is not one (a malformed tuple, numbers no stamp or body has)."""
    from codebot.skills.files import Stamp

    if not isinstance(item, tuple) or len(item) != 9:
        return None
    try:
        real, offset, mtime, size, inode, n, ids_b, counts_b, length = item
        if type(ids_b) is not bytes or type(counts_b) is not bytes:
            return None
        if len(ids_b) != 2 * len(counts_b) or len(ids_b) % 4:
            return None
        key = (str(real), int(offset), Stamp(int(mtime), int(size), int(inode)), int(n))
        if not (key[1] >= 0 and 0 <= int(length) <= _MAX_LENGTH):
            return None  # no body starts before its file or has such a length
        return key, int(length), ids_b, counts_b
    except (TypeError, ValueError, OverflowError):  # int(inf): not a stamp
        return None
