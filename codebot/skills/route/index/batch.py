"""Many bodies tokenized at once: the cold build's hot loop with its per-word work in C and
numpy instead of a Python loop per distinct word of each body.

`count_many` gives, for each text, exactly what `TokenCache._counts` gives one text (the
term ids, their counts and the number of terms), so an index made either way has the same
terms, postings and scores (tests/skills/route/test_route_batch.py checks it on the real
corpus and on synthetic skills). How:

- each text is flattened by the `Tokenizer`'s own `_flat` (case folding, NFKC, accents,
  CJK bigrams: the multilingual analysis is the same code);
- the flattened texts of a chunk are joined around a separator `_flat` can never leave in
  a text and split once; every word is looked up in a memo (word as written -> term id,
  -1 for a stop word, -2 for the separator) through `map`, in C; a word not seen before is
  resolved once, the way `word_counts` and `Tokenizer.term` resolve it (leading "+"/"#"
  dropped, aliases, stop words, stemming);
- the (text, term) pairs are counted with one `np.unique`, which also sorts each text's
  term ids (the order a `Bag` keeps).

A text in which a multi-word name may occur ("end to end", "node.js", "pull request",
...) is left to the caller's one-text path, which folds phrases; the test for that is a
regular expression that matches every phrase `word_counts` would fold (and a few it
would not, which only costs the slower path).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import repeat
from typing import TYPE_CHECKING

from codebot.skills.route.index.text import _PHRASES, Tokenizer

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

#: between two flattened texts: `_flat` turns every control character into a space, so a
#: word of a text is never this
SEP = "\x01"
# A word's code: (its phrase word number << 32) | (term id + 1); 0 in the low half: no term
_SEP_CODE, _MARKS_CODE, _MISS = -2, -4, -3  # the separator; a word of marks only ("##")
_LOW = (1 << 32) - 1
#: the words phrases are made of, numbered from 1
_PHRASE_WORDS = {
    w: k + 1
    for k, w in enumerate(
        sorted({w for head, alts in _PHRASES.items() for seq, _ in alts for w in (head, *seq)})
    )
}
#: each phrase as its words' numbers, and the term it folds into
_FOLDS = tuple(
    (tuple(_PHRASE_WORDS[w] for w in (head, *seq)), repl)
    for head, alts in _PHRASES.items()
    for seq, repl in alts
)

#: per text: its sorted term ids (the bytes of int32s), their counts capped at 65,535 (the
#: bytes of uint16s), the number of terms; bytes, which `array` takes as they are (slicing
#: numpy views for each of 20,000 short texts cost more than counting them)
Counts = tuple[bytes, bytes, int]


def count_many(
    flats: Sequence[str],
    tok: Tokenizer,
    memo: dict[str, int],
    term_id: Callable[[str], int],
) -> list[Counts]:
    """The term counts of each flattened text in `flats` (`Tokenizer._flat` of the text).
    `memo`: word as written -> its code, shared between calls; `term_id(term)` gives a
    term's id (adding it to the lexicon)."""
    import numpy as np

    n = len(flats)
    if n == 0:
        return []
    memo.setdefault(SEP, _SEP_CODE)
    toks = (" " + SEP + " ").join(flats).split()
    codes = np.fromiter(map(memo.get, toks, repeat(_MISS)), dtype=np.int64, count=len(toks))
    for p in np.flatnonzero(codes == _MISS).tolist():
        word = toks[p]
        got = memo.get(word)
        if got is None:
            got = _code(word, tok, term_id)
            if len(memo) < 2_000_000:
                memo[word] = got
        codes[p] = got
    del toks
    doc = np.cumsum(codes == _SEP_CODE)
    if bool((codes > _LOW).any()):
        _fold(codes, tok, term_id)
    low = codes & _LOW
    keep = (codes > 0) & (low > 0)
    docs, ids = doc[keep], low[keep] - 1
    width = int(ids.max()) + 1 if len(ids) else 1
    wide = n * width >= 1 << 31
    keys = np.sort(docs * width + ids if wide else (docs * width + ids).astype(np.int32))
    first = np.flatnonzero(np.diff(keys, prepend=-1))  # where each distinct key starts
    counts = np.minimum(np.diff(first, append=len(keys)), 65535).astype(np.uint16)  # a Bag's
    kdoc, kid = np.divmod(keys[first].astype(np.int64), width)
    cut = np.searchsorted(kdoc, np.arange(n + 1))
    lengths = np.bincount(docs, minlength=n).tolist()
    ids, cnts = kid.astype(np.int32).tobytes(), counts.tobytes()
    c4, c2 = (cut * 4).tolist(), (cut * 2).tolist()
    return [
        (ids[a:b], cnts[c:d], length)
        for a, b, c, d, length in zip(c4, c4[1:], c2, c2[1:], lengths, strict=False)
    ]


def _code(word: str, tok: Tokenizer, term_id: Callable[[str], int]) -> int:
    """A word's code: its term id as `TokenCache._counts` finds it after `word_counts`
    (leading marks dropped), and which phrase word it is."""
    bare = word.lstrip("+#")
    if not bare:
        return _MARKS_CODE
    t = tok.term(bare)
    return (_PHRASE_WORDS.get(bare, 0) << 32) | (0 if t is None else term_id(t) + 1)


def _fold(codes: NDArray[np.int64], tok: Tokenizer, term_id: Callable[[str], int]) -> None:
    """Multi-word names folded in place, as `word_counts` folds them: each run of a
    phrase's words (words of marks only between them do not count: `_unmarked` drops
    them) becomes the phrase's term on its first word and no term on the others; runs
    are taken left to right, never overlapping."""
    import numpy as np

    at = np.flatnonzero(codes != _MARKS_CODE)
    seq = codes[at] >> 32  # phrase word numbers (0: none; the separator's is -1)
    pos = np.flatnonzero(seq > 0)  # only phrase words can start or continue a run
    word = seq[pos]
    m = len(pos)
    for words, repl in _FOLDS:
        k = len(words)
        if m < k:
            continue
        hit = word[: m - k + 1] == words[0]
        for j in range(1, k):  # the next phrase word, right after the one before
            hit &= (word[j : m - k + 1 + j] == words[j]) & (
                pos[j : m - k + 1 + j] == pos[: m - k + 1] + j
            )
        starts = pos[np.flatnonzero(hit)].tolist()
        if not starts:
            continue
        t = tok.term(repl)
        code = 0 if t is None else term_id(t) + 1
        end = -1
        for st in starts:
            if st < end:
                continue  # overlaps the run before ("end to end to end": one)
            codes[at[st]] = code
            codes[at[st + 1 : st + k]] = 0
            end = st + k
