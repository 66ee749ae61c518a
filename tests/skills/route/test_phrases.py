"""Words of a text: runs of [a-z0-9+#] after NFKC and case folding, multi-word names
folded into one term. The C-level version in `Tokenizer.words` must equal the regex and
token loop it replaced (the specification below), on any text."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from codebot.skills.route.index.text import _PHRASES, Tokenizer

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")


def _pairs(run: str) -> str:
    return run if len(run) == 1 else " ".join(run[i : i + 2] for i in range(len(run) - 1))


def _reference(text: str) -> list[str]:
    low = unicodedata.normalize("NFKC", text).lower()
    if not re.search(r"[\u00c0-\u07ff\u3000-\udfff]", low):
        toks = re.findall(r"[a-z0-9][a-z0-9+#]*", low)
    else:  # letters of other scripts: words of every script, accents dropped, CJK in pairs
        nfd = unicodedata.normalize("NFD", low)
        low = unicodedata.normalize("NFC", re.sub(r"[\u0300-\u036f]", "", nfd))
        low = _CJK.sub(lambda m: " " + _pairs(m.group(0)) + " ", low.replace("_", " "))
        toks = re.findall(r"[^\W_][\w+#]*", low)
    out: list[str] = []
    i, n = 0, len(toks)
    while i < n:
        t = toks[i]
        for seq, repl in _PHRASES.get(t, ()):
            if tuple(toks[i + 1 : i + 1 + len(seq)]) == seq:
                out.append(repl)
                i += 1 + len(seq)
                break
        else:
            out.append(t)
            i += 1
    return out


_VOCAB = sorted(
    {w for head, alts in _PHRASES.items() for seq, _ in alts for w in (head, *seq)}
    | {
        "x",
        "ends",
        "b2",
        "c++",
        "end-",
        "to",
        "a#",
        "+b",
        "#",
        "++",
        "Ｎｅｘｔ",
        "\u212a8s",
        "İx",
        "naïve",
        "日本",
        "C#",
        "e2e",
        "a+b",
        "A",
        "JS",
        "Next.js",
        "A/B",
    }
)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(_VOCAB), max_size=12),
    st.sampled_from([" ", "-", "/", ", ", "\n", "\u00a0", "—", "  "]),
)
def test_fast_words_equal_the_reference(words: list[str], sep: str) -> None:
    text = sep.join(words)
    assert Tokenizer("none").words(text) == _reference(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_fast_words_equal_the_reference_on_any_text(text: str) -> None:
    assert Tokenizer("none").words(text) == _reference(text)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(_VOCAB), max_size=14),
    st.sampled_from([" ", "-", "/", "\n", "  ", "## "]),
)
def test_word_counts_equal_counting_the_words(words: list[str], sep: str) -> None:
    text = sep.join(words)
    tok = Tokenizer("none")
    assert tok.word_counts(text) == Counter(_reference(text))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="abejnstlo +#/-\u00e9", max_size=50))
def test_word_counts_on_any_text(text: str) -> None:
    assert Tokenizer("none").word_counts(text) == Counter(_reference(text))


def test_examples() -> None:
    words = Tokenizer("none").words
    assert words("End-to-end tests for a pull request") == ["e2e", "tests", "for", "a", "pr"]
    assert words("large language models and A/B tests") == ["llm", "and", "ab", "tests"]
    assert words("a large language model, a b a b") == ["a", "llm", "ab", "ab"]
    assert words("the end to ending; C++ and C# in ++x") == [
        "the",
        "end",
        "to",
        "ending",
        "c++",
        "and",
        "c#",
        "in",
        "x",
    ]
    assert words("Ｎｅｘｔ.js") == ["nextjs"]
    assert words("####### deep +++++x #c# ++") == ["deep", "x", "c#"]
    counts = Tokenizer("none").word_counts
    assert counts("## end to end to end, #next js") == Counter(
        {"e2e": 1, "to": 1, "end": 1, "nextjs": 1}
    )
