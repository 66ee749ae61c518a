"""Small talk, in every language the router reads (English, Chinese, Japanese, Spanish,
German, French): `is_chat` says whether the whole message is greetings, thanks,
acknowledgements and compliments ("thanks, that worked!", "谢谢，搞定了！", "vale,
entendido"). Small talk never routes.

Also what a person does not read as part of a message (other languages' function words,
invisible characters), which neither small talk nor a small edit (`edits`) may hide behind.

Small functions over data; the phrases themselves are `chat_phrases`.
`shape.request_shape` decides with them.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from codebot import regex_cache
from codebot.skills.route.chat_phrases import CHAT_PHRASES
from codebot.skills.route.index.words import STOP_WORDS as _ENGLISH
from codebot.skills.route.lang import STOP_WORDS, unaccented

# -- greetings, thanks, acknowledgements: a message made of `chat_phrases` ---------------

#: separators between phrases: spaces, punctuation of every script, emoji and symbols, and
#: what makes a symbol an emoji ("☀️", "🌧️": U+FE0F after the symbol) or a keycap
_SEP = regex_cache.compile(
    r"(?:[\s,.;:!?~…'\"()\-–—、，。！？；：～〜ー・「」『』¡¿]|[\U0001F300-\U0001FAFF\u2600-\u27BF]"
    r"|[\ufe0e\ufe0f\u20e3])*"
)
_CJK_CHAR = r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]"
CJK = regex_cache.compile(_CJK_CHAR)


def _alternatives(pattern: str) -> list[str]:
    """The top-level alternatives of a pattern ("a|b(c|d)" -> ["a", "b(c|d)"])."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(pattern):
        if ch == "(" and (i == 0 or pattern[i - 1] != "\\"):
            depth += 1
        elif ch == ")" and pattern[i - 1] != "\\":
            depth -= 1
        elif ch == "|" and depth == 0:
            out.append(pattern[start:i])
            start = i + 1
    out.append(pattern[start:])
    return out


#: one compiled pattern per phrase: a message may split into phrases in several ways
#: ("了解" + "です" or "了解です"), which `is_chat` tries position by position
_PHRASE_RES = tuple(
    regex_cache.compile(alt, re.IGNORECASE)
    for group in CHAT_PHRASES.values()
    for pattern in group
    for alt in _alternatives(pattern)
)
#: all the phrases at once: a position no phrase starts at (a task's first word, nearly
#: always) is ruled out in one match instead of one per phrase (0.2 ms -> 0.02 ms)
_ANY_PHRASE = regex_cache.compile("|".join(f"(?:{r.pattern})" for r in _PHRASE_RES), re.IGNORECASE)
MAX_CHAT_CHARS = 200

# -- what a person does not read as part of the message ---------------------------------
# Other languages' function words (`lang.STOP_WORDS`; not English ones) and invisible
# characters carry no task, but they turn the language identifier's verdict and the
# counts below: "thanks, that worked! de la el los" or a zero-width space after "thanks"
# was no small talk, and ten of them made "rename x to y" too long for a small edit.

#: zero-width characters, direction marks, embeddings, overrides and isolates, the BOM
INVISIBLE = regex_cache.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")
#: typographic apostrophes (a phone, a word processor or a chat app writes "that’s",
#: "c’est"), read as the plain one every phrase is written with
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})


def plain(text: str) -> str:
    """`text` as the phrase lists read it: invisible characters dropped, a typographic
    apostrophe read as "'", the ends stripped."""
    return INVISIBLE.sub("", text).translate(_APOSTROPHES).strip()


_FUNCTION_WORDS = frozenset().union(*STOP_WORDS.values()) - _ENGLISH
#: the longest word whose verdict is cached (a function word is at most 11 letters, more
#: with its accents written apart)
_CACHED_WORD = 64
WORD = regex_cache.compile(r"[^\W\d_]+")
#: Chinese particles: a message of thanks may end on one ("谢谢啦"), never a task
_PARTICLE = regex_cache.compile("[的了吧啊呢嘛哦呀啦]")
#: the most of a message read for small talk, padding included (bounds the work)
_MAX_PADDED = 20 * MAX_CHAT_CHARS


def is_padding(word: str) -> bool:
    """A function word of another language than English: no part of a task."""
    if len(word) > _CACHED_WORD:  # read each time: the cache holds short words only
        return unaccented(word.lower()) in _FUNCTION_WORDS
    return _is_function_word(word)


@functools.lru_cache(maxsize=8192)  # a word's verdict, as requests repeat their words
def _is_function_word(word: str) -> bool:
    return unaccented(word.lower()) in _FUNCTION_WORDS


def _padding_end(text: str, pos: int) -> int | None:
    """The end of a function word of another language, or a particle, at `pos`."""
    m = _PARTICLE.match(text, pos) or WORD.match(text, pos)
    return m.end() if m is not None and (m.re is _PARTICLE or is_padding(m.group())) else None


def _skip(text: str, pos: int) -> int:
    """The position after the separators at `pos` (`pos` itself when there are none)."""
    m = _SEP.match(text, pos)
    return m.end() if m else pos


def _phrase_ends(text: str, pos: int) -> set[int]:
    """Where a phrase starting at `pos` can end: at a separator, a CJK character or the end."""
    ends: set[int] = set()
    if _ANY_PHRASE.match(text, pos) is None:
        return ends
    for r in _PHRASE_RES:
        m = r.match(text, pos)
        if m is None or m.end() == pos:
            continue
        e = m.end()
        if e == len(text) or _skip(text, e) > e or CJK.match(text, e):
            ends.add(e)
    return ends


def is_chat(text: str) -> bool:
    """Is the whole message greetings, thanks and acknowledgements (in any language), with
    at least one of them, around other languages' function words and invisible characters?
    Linear in the message (at most `MAX_CHAT_CHARS` besides those): each position is tried
    once, having seen a phrase or not."""
    t = plain(text)
    if not t or len(t) > _MAX_PADDED:
        return False
    padding = sum(len(w) for w in WORD.findall(t) if is_padding(w))
    if len(t) - padding > MAX_CHAT_CHARS:
        return False
    start = _skip(t, 0)
    todo, seen = [(start, False)], {(start, False)}
    while todo:
        pos, had = todo.pop()
        if pos == len(t) and had:
            return True
        steps = [(e, True) for e in _phrase_ends(t, pos)]
        pad = _padding_end(t, pos)
        if pad is not None and (pad == len(t) or _skip(t, pad) > pad or CJK.match(t, pad)):
            steps.append((pad, had))
        for e, now in steps:
            q = (_skip(t, e), now)
            if q not in seen:
                seen.add(q)
                todo.append(q)
    return False


# -- a request for work, in so many words ------------------------------------------------
#: "please", "can you", "help me" and their like in the six languages: a short message that
#: asks for something in these words is a task even when it reads like small talk by its
#: meaning ("早上好，帮我看看这个 bug", good morning, help me look at this bug); small talk
#: by meaning (`chat_meaning`) is not judged on it. Narrower than an apology's `_ASKS`
#: below, which also counts a question mark and any verb of work: small talk asks
#: questions ("¿qué tal el finde?") and names things done ("me voy a comer")
PLEA = regex_cache.compile(
    r"帮我|帮忙|能不能|ください|してほしい|教えて"
    r"|\b(?:please|can\s+you|could\s+you|help\s+me|por\s+favor|puedes|podr[ií]as|ay[uú]dame"
    r"|bitte|kannst\s+du|k[öo]nntest\s+du|hilf\s+mir|peux[- ]tu|pourrais[- ]tu"
    r"|s'il\s+te\s+pla[iî]t|aide[- ]moi)\b",
    re.IGNORECASE,
)


# -- an apology that tells what went wrong ----------------------------------------------
# "sorry, I pasted the wrong file earlier", "Désolé, j'ai mal lu ta réponse, tout va bien",
# "不好意思刚才说错了，没事了": an apology, then the person's own slip, and nothing asked.
# More than phrases (what went wrong is told in the person's words), so three patterns
# instead of `is_chat`'s list: how it opens, the slip, and what would make it a request.
# A fault that asks for work says so ("sorry, I pushed the wrong branch, revert it",
# "…, bitte nochmal") or names no slip of the person's ("sorry, the CI is broken again").

#: an apology first, after at most an interjection ("oh sorry", "あ、すみません")
_SORRY = regex_cache.compile(
    r"^\W*(?:(?:oh|ah|ach|ay|uy|huch|oups|whoops|あっ?|おっと|啊|哎呀)[\W\s]*)?(?:sorry|my\s+bad|apologies|oops"
    r"|d[ée]sol[ée]e?|pardon|perd[oó]n(?:a|ame)?|lo\s+siento|disculpa(?:me)?|entschuldigung"
    r"|tut\s+mir\s+leid|不好意思|抱歉|对不起|すみません|ごめん|申し訳)",
    re.IGNORECASE,
)
#: nothing was wrong after all: "false alarm", "forget it"; it takes back even a "sorry to
#: bother you" ("désolé pour le dérangement, fausse alerte")
_NOTHING_TO_DO = (
    r"\bfalse\s+alarm|\bfausse\s+alerte|\bfalsa\s+alarma|\bfehlalarm|\bblinder\s+alarm"
    r"|\blaisse\s+tomber\b|\bvergiss\s+es\b|\bnever\s*mind\b|虚惊一场|误报|誤報"
)
#: the person's own slip, or "never mind"
_SLIP = (
    r"\bwrong\b|\bmistak\w*|\bmy\s+(?:bad|fault)\b|\bmixed\s+(?:it\s+|them\s+)?up\b|\bmisread"
    r"|\bmisunderst\w*|\bignore\s+(?:that|this|it|me|my)\b|\bnever\s*mind\b|\bdisregard\b"
    r"|\bfalsch\w*|\bfehler\b|\bvertan\b|\bverwechselt\b|\bverlesen\b|\bvergiss\b"
    r"|\bmal\s+(?:lu|compris|vu|copi\w*|coll\w*)\b|\btromp\w*|\berreur\b|\bma\s+faute\b"
    r"|\bequivo[cq]\w*|\bno\s+era\b|\bmauvais\w*|\bculpa\s+m[ií]a\b|\bconfund\w*|\bolv[ií]d(?:a|alo|ate)\b"
    r"|错|搞混|没事|别管|算了|間違|違う|勘違い|ミス|気にしないで|大丈夫|" + _NOTHING_TO_DO
)
#: what makes it a request after all: a question, a plea, or a verb of work
_ASKS = (
    r"[?？]|\b(?:please|pls|can\s+you|could\s+you|would\s+you|let'?s|instead|go\s+ahead"
    r"|fix|revert|undo|redo|re-?run|use|try|run|check|look|delete|remove|change|update|make"
    r"|write|add|create|build|generate|set|deploy|push|merge|open|show|explain|tell|give|send"
    r"|list|find|review|test|roll\s+back|restore|reset|switch|move|rename|go|do|need|want"
    r"|bitte|kannst|k[öo]nntest|mach\w*|[äa]nder\w*|l[öo]sch\w*|nimm|pr[üu]f\w*|schau\w*"
    r"|versuch\w*|korrigier\w*|setz\w*|stattdessen|nochmal|peux|pourrais|stp|svp|plut[ôo]t"
    r"|corrige\w*|annule\w*|supprime\w*|refai\w*|regarde\w*|v[ée]rifie\w*|utilise\w*"
    r"|essaie\w*|relance\w*|reprend\w*|puedes|podr[ií]as|favor|mejor|deshaz\w*|borra\w*"
    r"|cambia\w*|usa|mira|revisa|prueba|vuelve|rehaz\w*)\b|s'il\s+te|s'il\s+vous"
    r"|请|帮|麻烦|能不能|改|删|撤|回滚|重新|看看|试试|换成|ください|てほしい|てもらえ"
    r"|お願い|直して|戻して|消して|見て|使って|やり直"
)
#: "sorry to bother you": an opener for a request, not an apology for a slip
_BOTHER = (
    r"\b(?:bother|interrupt|disturb)|d[ée]rang|molest|\bst[öo]r|打扰|お忙しい|恐れ入り|ちょっと"
)
#: a file, a call, a path or a URL: there is something to work on
_CODE = r"`|\w\(\)|\w\.\w{1,5}\b|/|https?:"
MAX_APOLOGY_WORDS = 20


def is_apology(text: str) -> bool:
    """Is the whole message an apology for the person's own slip, asking for nothing?"""
    # NFKC: a verb of work in fullwidth letters ("ｒｅｖｅｒｔ") is still one
    t = unicodedata.normalize("NFKC", plain(text[: 2 * MAX_CHAT_CHARS]))
    if not t or len(t) > MAX_CHAT_CHARS or len(t.split()) > MAX_APOLOGY_WORDS:
        return False
    if len(CJK.findall(t)) > MAX_CHAT_CHARS // 4:
        return False
    if _SORRY.match(t) is None:
        return False
    # the other patterns only for a message that opens with an apology: compiled then (re
    # keeps them), not in every routing process's start-up (about 1.3 ms)
    return (
        re.search(_SLIP, t, re.IGNORECASE) is not None
        and re.search(_ASKS, t, re.IGNORECASE) is None
        and (
            re.search(_BOTHER, t, re.IGNORECASE) is None
            or re.search(_NOTHING_TO_DO, t, re.IGNORECASE) is not None
        )
        and re.search(_CODE, t) is None
    )
