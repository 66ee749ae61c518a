"""`frontmatter.simple_load`, the fast path for simple frontmatter, returns exactly what
PyYAML (`yaml.load(text, Loader=frontmatter._Loader)`) returns, types included, for every
text it accepts; everything else it leaves to PyYAML (returns None)."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from codebot.skills.files import frontmatter, simple_load

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from gen_skills import generate


def typed(v: Any) -> Any:
    """A value with the exact type (and key order) of every part, for strict comparison."""
    if isinstance(v, dict):
        return ("dict", [(typed(k), typed(x)) for k, x in v.items()])
    if isinstance(v, list):
        return ("list", [typed(x) for x in v])
    return (type(v), v, getattr(v, "parsed", None))


def pyyaml(text: str) -> Any:
    value = yaml.load(text, Loader=frontmatter._Loader)
    return {} if value is None else value


def check(text: str) -> bool:
    """True when the fast path took the text; it must then agree with PyYAML."""
    fast = simple_load(text)
    if fast is None:
        return False
    try:
        slow = pyyaml(text)
    except yaml.YAMLError as exc:  # pragma: no cover - a failure message
        pytest.fail(f"fast path accepted invalid YAML {text!r}: {exc}")
    assert typed(fast) == typed(slow), text
    # The pure-Python loader too (codebot uses it where libyaml is missing): the fast
    # path yields only strings, nulls and booleans, which it makes the same way.
    pure = yaml.load(text, Loader=yaml.SafeLoader)
    assert typed(fast) == typed({} if pure is None else pure), text
    return True


def yaml_texts(folder: Path) -> list[str]:
    texts = []
    for path in sorted(folder.rglob("*.md")):
        try:
            sp = frontmatter.split(path.read_bytes())
        except (OSError, UnicodeDecodeError, frontmatter.FrontmatterError):
            continue
        if sp is not None:
            texts.append(sp.yaml_text)
    return texts


@pytest.mark.corpus
def test_fast_path_agrees_with_pyyaml_on_the_corpus(corpus_dir: Path) -> None:
    texts = yaml_texts(corpus_dir)
    taken = sum(check(t) for t in texts)
    assert taken > len(texts) // 2  # most real frontmatter is simple


def test_fast_path_agrees_with_pyyaml_on_generated_skills(tmp_path: Path) -> None:
    generate(tmp_path, 400, seed=3)
    texts = yaml_texts(tmp_path)
    assert len(texts) == 400
    assert all(check(t) for t in texts)  # the generator writes only simple frontmatter


ACCEPTED = [
    "",
    "\n\n",
    "# just a comment\n",
    "name: x\ndescription: y\n",
    "name:   spaced out   \n",
    "description: Use for C# and F#, [brackets], {braces}, a,b,c and 100% of it\n",
    'description: it\'s "quoted" inside\n',
    "description: a:b and a :b and http://x.y/z?q=1\n",
    "description: ends with a dot.\n",
    "description: non-ASCII — “smart” quotes, café, 日本語, emoji 🎉\n",
    "description: \u00a0starts with a no-break space\n",
    'name: "double quoted: with colon # and hash"\n',
    "name: 'single quoted \"x\" \\ backslash'\n",
    "name: ''\n",
    'name: ""\n',
    "flag: true\nother: False\nthird: yes\nfourth: OFF\nfifth: on\n",
    "nothing:\nnull_word: null\ntilde: ~\nNULL_ish: x\n",
    "y: n\nn: y\n",
    'metadata:\n  author: me\n  version: "1.0"\n  tags: a, b\nlicense: MIT\n',
    "metadata:\n\n    deep: x\n    # note\n    other:\nname: z\n",
    "allowed-tools:\n  - Read\n  - Bash(git:*)\n  -\n  - 'quoted'\n",
    "allowed-tools:\n- Read\n- Write\nname: x\n",
    "a: 1.0.0\nb: v2\nc: 1a\nd: .5x\ne: <not-merge>\n",
    "a: x\na: y\n",  # a duplicate key: the last value wins, in the first one's place
    "a:\n  x: 1x\na: plain\n",
]


@pytest.mark.parametrize("text", ACCEPTED)
def test_simple_shapes_take_the_fast_path(text: str) -> None:
    assert check(text)


REFUSED = [
    "name: x: y\n",  # invalid YAML as written (the repair happens elsewhere)
    "name: x #comment\n",
    "name: ends with colon:\n",
    "name:x\n",
    "  name: indented top level\n",
    "name: one\n  continued\n",
    "description: >\n  folded\n",
    "description: |\n  literal\n",
    "tags: [a, b]\n",
    "meta: {a: b}\n",
    "a: &anchor x\nb: *anchor\n",
    "a: !tag x\n",
    "a: @at\n",
    "a: `tick\n",
    "a: %pct\n",
    "a: -dash\n",
    "a: ?q\n",
    "a: 'it''s'\n",
    'a: "esc\\n"\n',
    'a: "x" trailing\n',
    "a: 1\n",
    "a: 1.5\n",
    "a: 2024-01-02\n",
    "a: 0x1F\n",
    "a: .inf\n",
    "a: =\n",
    "true: x\n",
    "null: x\n",
    "on: x\n",
    "a:\tb\n",
    "a: b\r\n",
    "a: b\u2028c\n",
    "a: \ufeffb\n",
    "a: b\x85c\n",
    "a: b\x7f\n",
    "meta:\n  a: b\n    c: d\n",
    "meta:\n  a: b\n c: d\n",
    "meta:\n  a:\n    b: c\n",
    "list:\n  - a\n - b\n",
    "list:\n  - a\n  b: c\n",
    "meta:\n  a: b\n- c\n",
    "- top level list\n",
    "a: x\n  - b\n",
    "a:\n  - - nested\n",
    "a:\n  - k: v\n",
    "? complex\n",
    '"quoted key": x\n',
    "key with space: x\n",
    "<<: x\n",
    "k" * 200 + ": x\n",
    "%YAML 1.1\n",
    "... \n",
]


@pytest.mark.parametrize("text", REFUSED)
def test_other_shapes_are_left_to_pyyaml(text: str) -> None:
    assert simple_load(text) is None


# Pieces that make YAML interesting: indicators, quotes, spaces, comments, resolvable
# words and numbers, non-ASCII and line-break characters.
_KEYS = ["name", "description", "a", "b_c", "x-y", "on", "Yes", "null", "n", "_k", "k1"]
_WORDS = [
    "plain",
    "two words",
    "",
    " ",
    "  ",
    ":",
    ": ",
    "#",
    " #",
    "# ",
    "-",
    "- ",
    "?",
    ",",
    "[",
    "]",
    "{",
    "}",
    "&",
    "*",
    "!",
    "|",
    ">",
    "'",
    '"',
    "%",
    "@",
    "`",
    "\\",
    "~",
    "true",
    "False",
    "YES",
    "no",
    "on",
    "Off",
    "null",
    "NULL",
    "1",
    "1.0",
    "1.0.0",
    "0x1f",
    "1e3",
    "-1",
    "+1",
    ".5",
    ".inf",
    ".NaN",
    "2024-01-02",
    "12:30",
    "1_000",
    "0o17",
    "=",
    "<<",
    "é",
    "日本",
    "🎉",
    "\u00a0",
    "\u2028",
    "\x85",
    "\ufeff",
    "\t",
    "\r",
    "x",
    "foo:bar",
    "a:",
    "a: b",
    "'q'",
    '"q"',
    "'it''s'",
    '"a\\"b"',
]


_TAME = ["plain", "two words", "x", " ", "é", "🎉", "true", "null", "1.0.0", "a:b", "C#", "(x)"]


def _fuzz_line(rng: random.Random, words: list[str]) -> str:
    kind = rng.random()
    indent = " " * rng.choice([0, 0, 0, 1, 2, 2, 4])
    value = "".join(rng.choice(words) for _ in range(rng.randint(0, 4)))
    if kind < 0.6:
        return f"{indent}{rng.choice(_KEYS)}:{rng.choice([' ', ' ', '  ', ''])}{value}"
    if kind < 0.8:
        return f"{indent}-{rng.choice([' ', ' ', ''])}{value}"
    if kind < 0.9:
        return indent + rng.choice(["", "# c", "#", " "])
    return indent + value


def _fuzz_doc(rng: random.Random, words: list[str]) -> str:
    """Frontmatter shaped like the fast path's (top-level keys, one level of nested
    mapping or list), with values from `words`."""

    def value() -> str:
        return "".join(rng.choice(words) for _ in range(rng.randint(0, 3)))

    lines = []
    for _ in range(rng.randint(1, 5)):
        r = rng.random()
        if r < 0.6:
            lines.append(f"{rng.choice(_KEYS)}: {value()}")
        elif r < 0.9:
            lines.append(f"{rng.choice(_KEYS)}:" + rng.choice(["", " ", " ~"]))
            pad = " " * rng.choice([0, 1, 2, 4])
            dash = rng.random() < 0.5
            for _ in range(rng.randint(0, 3)):
                lines.append(
                    f"{pad}- {value()}" if dash else f"{pad}{rng.choice(_KEYS)}: {value()}"
                )
        else:
            lines.append(rng.choice(["", "# c", "  # c", " "]))
    return "\n".join(lines) + "\n"


def test_fast_path_agrees_with_pyyaml_on_fuzzed_texts() -> None:
    rng = random.Random(20240611)
    taken = 0
    for i in range(30_000):
        words = _WORDS if i % 2 else _WORDS + _TAME * 20
        if i % 3:
            text = _fuzz_doc(rng, words)
        else:
            lines = [_fuzz_line(rng, words) for _ in range(rng.randint(1, 6))]
            text = "\n".join(lines) + rng.choice(["", "\n"])
        taken += check(text)
    assert taken > 3000  # the fuzzer does reach the fast path often
