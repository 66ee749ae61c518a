"""Words of a request in another language read as English words of the catalog, through
the multilingual encoder (`semantic: use-multilingual`, issue 36 §1).

The index is English, so the words of a Spanish or Chinese request that are not loanwords
("informe", "caída", "折线图", "ダッシュボード") match nothing and the lexical ranking and the
decision rules see no evidence for them. The encoder puts a word and its translation close
together, so each such word is looked up among the English words of the catalog's names,
descriptions and `when_to_use` (embedded once, cached by text like the skills' texts), and
its nearest one, when it is similar enough, joins the request's terms, weighed by the
similarity: "informe" -> report (0.95), "gráfica" -> graph (0.84), "面板" -> dashboard (0.70).

What is looked up: a word of a letter script whose English term no skill uses (function
words of the request's language left out), a run of katakana whole (loanwords: "ダッシュボード"),
and a run of Han characters: in a Chinese request, its words of two characters or more as
a Chinese segmenter cuts them (jieba's dictionary, `rjieba`, part of the `multilingual`
extra: "心率变异性指标" -> 心率, 变异性, 指标); else (Japanese, or without the segmenter)
its overlapping pairs, a single character alone (most Chinese and Japanese words are two
characters: "监控面板" -> 监控, 控面, 面板; a pair that is not a word seldom finds
anything similar enough). jieba's dictionary is Chinese: it cuts a Japanese kanji
compound ("検証環境") into single characters, so it never reads Japanese (below). Chinese
function words (什么, 我们, 每个 …) are left out as a letter script's are: their English
words are stop words, so the nearest word found for them is a false friend.

A Japanese request is read by MeCab with UniDic (`fugashi` and `unidic-lite`, part of the
`multilingual` extra), when installed: its nouns, verbs and adjectives are looked up whole
("検証環境" -> 検証, 環境; a verb as its dictionary form, "取り込ん" -> 取り込む), particles,
auxiliaries and pronouns never; and a loanword is embedded as the English word UniDic
gives as its origin ("テーブル" -> table, "ダッシュボード" -> dashboard), which the encoder
finds in the vocabulary as itself; it is shown as written. Without them, Japanese keeps
the pairs.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING

from codebot import regex_cache
from codebot.skills.route.lang import STOP_WORDS, unaccented

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from codebot.skills.route.index.index import Index
    from codebot.skills.route.index.text import Tokenizer

    Embed = Callable[[Sequence[str], bool], NDArray[np.float32]]

#: a nearest English word below this cosine is as often unrelated as a translation
#: (tuned on the multilingual dev set, docs/routing.md "Languages")
SIMILAR = 0.6
#: pieces looked up per request: bounds the encoder's work on a long request (a request's
#: own words come first, so a pasted log's tail is what is left out)
MAX_UNITS = 24

#: a skill's words taken into the vocabulary: a description of 250 KB of made-up words
#: (frontmatter may hold that much) would have the encoder embed 40,000 of them; the most
#: of any skill of the shared corpus is 201
WORDS_PER_SKILL = 256
#: the longest word of a Chinese request looked up whole: jieba's cut of the case files'
#: Chinese words is never longer, and characters its dictionary lacks come back as one
#: "word" however long the run (4,000 of them: one piece of 4,000 for the encoder)
LONGEST_HAN_WORD = 4
#: pieces whose nearest word is remembered (a bound, not a tuned number)
SEEN_PIECES = 50_000
#: Chinese function words (pronouns, demonstratives, question words, determiners,
#: connectives, modal verbs, negators), never looked up, as `STOP_WORDS` are not for letter scripts:
#: their English words are stop words, which the vocabulary lacks, so the nearest word
#: found is a false friend ("什么", what -> "apa", Malay's "what" and a citation style)
_HAN_FUNCTION_TEXT = (
    "什么 怎么 怎样 怎么样 为什么 如何 哪些 哪个 哪里 哪儿 多少 是否 这个 那个 这些 那些 "
    "这样 那样 这里 那里 这种 那种 我们 你们 他们 她们 它们 咱们 自己 大家 一下 一些 一个 "
    "一点 有点 每个 整个 所有 各个 可以 需要 应该 能够 可能 还是 或者 然后 因为 所以 但是 "
    "而且 如果 虽然 已经 现在 还有 就是 只是 帮我 给我 不能 不是 不要 不用 没有 不会"
)
HAN_FUNCTION_WORDS = frozenset(_HAN_FUNCTION_TEXT.split())
_HAN = regex_cache.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_KANA = regex_cache.compile(r"[\u30a0-\u30ff]{2,}")  # katakana, with the long-vowel mark
_WORD = regex_cache.compile(r"[^\W\d_]{3,}")  # letters only, three or more
_CJK_RUN = regex_cache.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_CJK = regex_cache.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


#: the parts of speech of a Japanese word looked up (UniDic's first level): nouns, verbs,
#: adjectives and adjectival nouns; and those of its second level left out: words that
#: lean on another ("して", "いる") and numerals
_JA_CONTENT = frozenset(["名詞", "動詞", "形容詞", "形状詞"])
_JA_NOT = frozenset(["非自立可能", "数詞"])
_ORIGIN = regex_cache.compile(r"-([A-Za-z]{2,})$")  # UniDic's lemma of a loanword: "テーブル-table"


@functools.cache
def _ja_tagger() -> Callable[[str], list[object]] | None:
    """MeCab with UniDic (`fugashi`, `unidic-lite`), or None without them; loaded on the
    first Japanese request (about 20 ms; nothing is read from the home folder)."""
    try:
        import fugashi  # pyright: ignore[reportMissingImports]  # optional extra

        return fugashi.Tagger()  # pyright: ignore[reportAttributeAccessIssue]  # no stubs
    except (ImportError, RuntimeError):  # no package, or no dictionary for it
        return None


def _ja_words(run: str) -> list[str] | None:
    """A run of Japanese as the words to look up (module docstring), or None without
    UniDic: nouns as written, verbs and adjectives in their dictionary form."""
    tagger = _ja_tagger()
    if tagger is None:
        return None
    out: list[str] = []
    for w in tagger(run):
        f = w.feature  # pyright: ignore[reportAttributeAccessIssue]  # fugashi's UnidicNode
        surface: str = w.surface  # pyright: ignore[reportAttributeAccessIssue]
        if f.pos1 not in _JA_CONTENT or f.pos2 in _JA_NOT or not _CJK.search(surface):
            continue
        out.append(surface if f.pos1 == "名詞" else (f.lemma or surface).split("-")[0])
    return out


def english_origin(piece: str) -> str | None:
    """The English word a Japanese loanword comes from, as UniDic gives it ("テーブル" ->
    table), or None: what the encoder is given for it, the piece itself being shown."""
    tagger = _ja_tagger()
    nodes = tagger(piece) if tagger is not None and _KANA.fullmatch(piece) else []
    if len(nodes) != 1:
        return None
    f = nodes[0].feature  # pyright: ignore[reportAttributeAccessIssue]
    origin = _ORIGIN.search(f.lemma or "") if f.goshu == "外" else None
    return origin.group(1).lower() if origin is not None else None


@functools.cache
def _segmenter() -> Callable[[str], list[str]] | None:
    """jieba's cut (`rjieba`), or None when the package is not installed; imported on the
    first Chinese request (about 65 ms: the dictionary is inside the package, nothing is
    read from disk or written to a cache folder, unlike Python jieba's)."""
    try:
        from rjieba import cut  # pyright: ignore[reportMissingImports]  # optional extra
    except ImportError:
        return None
    return cut


def _han_pieces(run: str, cut: Callable[[str], list[str]] | None) -> list[str]:
    """A run of Han characters as words (`cut`: its words of two to `LONGEST_HAN_WORD`
    characters, a longer one by pairs) or as overlapping pairs; a run of one character is
    itself."""
    if len(run) == 1:
        return [run]
    if cut is None:
        return _pairs(run)
    out: list[str] = []
    for word in cut(run):
        if len(word) > LONGEST_HAN_WORD:
            out += _pairs(word)
        elif len(word) > 1:
            out.append(word)
    return out


def _pairs(run: str) -> list[str]:
    return [run[i : i + 2] for i in range(len(run) - 1)]


def units(request: str, lang: str, known: Callable[[str], bool]) -> list[str]:
    """The pieces of `request` to look up, in order, each once: words of a letter script
    whose English term `known` rejects (and not a function word of `lang`); in Japanese
    with UniDic its content words (`english_origin` then gives a loanword's English word to
    the encoder); else katakana runs
    whole, Han runs as words in Chinese (with the segmenter) or else as overlapping pairs
    (a single character alone), never one of `HAN_FUNCTION_WORDS`."""
    text = unicodedata.normalize("NFKC", request[:4000]).lower()
    stops = STOP_WORDS.get(lang, frozenset())
    cut = _segmenter() if lang == "zh" and _HAN.search(text) else None
    out: dict[str, None] = {}
    for piece in re.findall(r"[^\W_]+", _CJK_RUN.sub(r" \g<0> ", text)):
        ja = _ja_words(piece) if lang == "ja" and _CJK.match(piece) else None
        if ja is not None:
            for w in ja:
                out.setdefault(w)
            continue
        if _CJK.match(piece):
            for k in _KANA.findall(piece):
                out.setdefault(k)
            for run in _HAN.findall(piece):
                for w in _han_pieces(run, cut):
                    if w not in HAN_FUNCTION_WORDS:
                        out.setdefault(w)
            continue
        if not _WORD.fullmatch(piece) or known(piece):
            continue
        if unaccented(piece) not in stops:
            out.setdefault(piece)
    return list(out)[:MAX_UNITS]


def vocabulary(idx: Index, tokenizer: Tokenizer) -> tuple[list[str], list[str]]:
    """The English words of the catalog's names, descriptions and `when_to_use` that some
    skill's postings hold a term for (letters only, three or more), and each one's term."""
    lex = idx.lexicon
    words: dict[str, str] = {}
    for spec in idx.specs:
        name = spec.name.replace("-", " ").replace("_", " ").replace(":", " ")
        mine: set[str] = set()  # this skill's words, up to WORDS_PER_SKILL
        for text in (name, spec.description, spec.when_to_use or ""):
            for w in tokenizer.words(text):
                if w in mine or len(w) < 3 or not w.isascii() or not w.isalpha():
                    continue
                if len(mine) >= WORDS_PER_SKILL:
                    break
                mine.add(w)
                if w in words:
                    continue
                t = tokenizer.term(w)
                i = lex.get(t) if t is not None else None
                if t is not None and i is not None and i < idx.n_terms:
                    words[w] = t
    return list(words), list(words.values())


def shown(english: str, piece: str) -> str:
    """How a translated word is written in explanations: "latency (延迟)"."""
    return f"{english} ({piece})"


class Translator:
    """Looks up a request's untranslated pieces among the catalog's English words; the
    vocabulary and its vectors are made once per index."""

    def __init__(self) -> None:
        self._for: tuple[Index, list[str], list[str], NDArray[np.float32]] | None = None
        #: piece -> (its nearest word's row in the vocabulary, similarity), for `_for`'s
        #: index: a piece seen before is neither embedded nor multiplied again
        self._seen: dict[str, tuple[int, float]] = {}

    def _vocab(
        self, idx: Index, tokenizer: Tokenizer, embed: Embed
    ) -> tuple[list[str], list[str], NDArray[np.float32]]:
        got = self._for
        if got is not None and got[0] is idx:
            return got[1], got[2], got[3]
        import numpy as np

        words, terms = vocabulary(idx, tokenizer)
        mat = (
            np.ascontiguousarray(embed(words, True), dtype=np.float32)
            if words
            else np.zeros((0, 0), np.float32)
        )
        self._for = (idx, words, terms, mat)
        self._seen = {}
        return words, terms, mat

    def terms(
        self,
        idx: Index,
        tokenizer: Tokenizer,
        embed: Embed,
        request: str,
        lang: str,
        in_index: Callable[[str], bool],
        have: Collection[str] = (),
    ) -> list[tuple[str, str, float]]:
        """(English term, how it is shown: `shown`, similarity) for each piece of the
        request whose nearest English word of the catalog is at least `SIMILAR` alike and
        whose term is not among `have` (the request's terms already); the best piece per
        term."""
        import numpy as np

        def known(word: str) -> bool:
            t = tokenizer.term(word)
            if t is None:
                return True  # an English stop word or too short: nothing to look up
            plain = tokenizer.words(word)
            return any(in_index(x) for x in (tokenizer.term(p) for p in plain) if x)

        pieces = units(request, lang, known)
        if not pieces:
            return []
        words, terms, mat = self._vocab(idx, tokenizer, embed)
        if not len(terms):
            return []
        seen = self._seen
        new = [p for p in pieces if p not in seen]
        if new:
            # a Japanese loanword is embedded as its English origin, and shown as written
            texts = [english_origin(p) or p for p in new] if lang == "ja" else new
            vecs = np.asarray(embed(texts, False), dtype=np.float32)
            if vecs.shape[1:] != mat.shape[1:]:  # the words' vectors came from a cache of
                self._for = None  # another width: embedded again, now that it is known
                words, terms, mat = self._vocab(idx, tokenizer, embed)
                seen = self._seen
            sims = vecs @ mat.T
            best = sims.argmax(axis=1)
            top = sims[np.arange(len(new)), best]
            if len(seen) > SEEN_PIECES:
                seen.clear()
            seen.update(zip(new, zip(best.tolist(), top.tolist(), strict=True), strict=True))
        out: dict[str, tuple[str, str, float]] = {}
        for piece in pieces:
            j, s = seen[piece]
            t = terms[j]
            if s >= SIMILAR and t not in have and (t not in out or out[t][2] < s):
                out[t] = (t, shown(words[j], piece), float(s))
        return list(out.values())
