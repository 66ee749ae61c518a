"""Shell words: what one word of a parsed bash command is worth, statically.

This module owns quote removal for the argument nodes tree-sitter-bash produces (`word`,
`raw_string`, `string`, `number`, `concatenation`, `ansi_c_string`, `translated_string`),
ANSI-C (`$'...'`) decoding, the detection of globs and brace expansions in literal words,
and the names the permission messages give to every other construct. It knows nothing about
commands, wrappers or rules; `parse` calls it for each word it finds.

Nodes are used through duck typing (`type`, `children`, `start_byte`, `end_byte`,
`is_named`) so that this module never imports tree_sitter at run time (its `Node` is
imported for the type checker only).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = [
    "CONSTRUCTS",
    "Problem",
    "Word",
    "command_name",
    "decode_ansi_c",
    "decode_word",
    "text_of",
]

#: How reasons name each construct that makes a command not plain, by tree-sitter node type.
CONSTRUCTS: dict[str, str] = {
    "simple_expansion": "a parameter expansion",
    "expansion": "a parameter expansion",
    "arithmetic_expansion": "an arithmetic expansion",
    "command_substitution": "a command substitution",
    "process_substitution": "a process substitution",
    "brace_expression": "a brace expansion",
    "translated_string": "a locale-translated string",
    "file_redirect": "a redirection",
    "heredoc_redirect": "a heredoc",
    "herestring_redirect": "a here-string",
    "subshell": "a subshell",
    "compound_statement": "a group",
    "function_definition": "a function definition",
    "variable_assignment": "a variable assignment",
    "variable_assignments": "a variable assignment",
    "declaration_command": "a declaration",
    "unset_command": "an unset command",
    "test_command": "a test command",
    "negated_command": "a negation",
    "if_statement": "an if statement",
    "while_statement": "a loop",
    "for_statement": "a for loop",
    "c_style_for_statement": "a for loop",
    "case_statement": "a case statement",
    "comment": "a comment",
    "ERROR": "a syntax error",
}

_GLOB = frozenset("*?")
_SIMPLE_WORD = re.compile(r"[A-Za-z0-9_./:=@%+,^-]+")
_MAYBE_PATTERN = re.compile(r"[{*?\[]")
_EXPANDS = re.compile(r"[A-Za-z0-9_{(\[@*#?$!-]")
_DQ_ESCAPABLE = frozenset('$`"\\')
_SIMPLE_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}


@dataclass(frozen=True)
class Problem:
    """A construct that makes a command not plain: what it is, its text, its byte offset."""

    kind: str
    text: str
    offset: int
    hides: bool = False  # the parse itself is in doubt: commands may be hidden here


@dataclass(frozen=True)
class Word:
    """One shell word.

    `value` is the word after quote removal when `literal`, else its source text. A literal
    word has no expansion of any kind; `glob` says it holds unquoted `*`, `?` or `[...]` (the
    shell may replace it with file names, so it is not `literal`). `problem` is the first
    construct that keeps the word out of a plain command (None when it is plain): an ANSI-C
    string with escapes is literal (its value is known) but not plain.
    """

    value: str
    source: str
    offset: int  # byte offset in the analysed text
    literal: bool
    glob: bool = False
    problem: Problem | None = None


def text_of(src: bytes, start: int, end: int) -> str:
    try:
        return src[start:end].decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:  # a node boundary inside a character (error recovery)
        return src[start:end].decode("utf-8", "replace")


def decode_ansi_c(body: str) -> str:
    """The value of `$'body'` as bash computes it (a NUL ends the string, as in bash)."""
    out: list[str] = []
    i, n = 0, len(body)
    while i < n:
        ch = body[i]
        if ch != "\\" or i + 1 >= n:
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1]
        i += 2
        if nxt in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[nxt])
        elif nxt in "01234567":
            j = i
            while j < n and j < i + 2 and body[j] in "01234567":
                j += 1
            out.append(chr(int(nxt + body[i:j], 8) & 0xFF))
            i = j
        elif nxt in "xuU":
            limit = {"x": 2, "u": 4, "U": 8}[nxt]
            j = i
            while j < n and j < i + limit and body[j] in "0123456789abcdefABCDEF":
                j += 1
            if j == i:
                out.append("\\" + nxt)
            else:
                code = int(body[i:j], 16)
                out.append(chr(code) if code <= 0x10FFFF else "\\" + nxt + body[i:j])
            i = j
        elif nxt == "c" and i < n:
            out.append(chr(ord(body[i]) & 0x1F))
            i += 1
        else:
            out.append("\\" + nxt)
    value = "".join(out)
    return value.split("\0", 1)[0]


class _Builder:
    """Collects a word's characters with, for each, whether it was quoted."""

    def __init__(self) -> None:
        self.chars: list[str] = []
        self.quoted: list[bool] = []
        self.literal = True
        self.problem: Problem | None = None

    def add(self, text: str, quoted: bool) -> None:
        self.chars.extend(text)
        self.quoted.extend([quoted] * len(text))

    def fail(
        self, kind: str, text: str, offset: int, literal: bool = False, hides: bool = False
    ) -> None:
        self.literal = self.literal and literal
        if self.problem is None or (hides and not self.problem.hides):
            self.problem = Problem(kind, text, offset, hides)

    def bare(self, text: str, offset: int) -> None:
        """A bare word: a backslash quotes the next character; backslash-newline vanishes."""
        i, n = 0, len(text)
        while i < n:
            ch = text[i]
            if ch in " \t\n":  # `] [` read as one word (`parse` reports it)
                self.fail("a word that tree-sitter and bash split differently", text, offset)
            if ch == "\\" and i + 1 < n:
                if text[i + 1] != "\n":
                    self.add(text[i + 1], True)
                i += 2
                continue
            self.add(ch, False)
            i += 1

    def double_quoted(self, text: str, offset: int) -> None:
        """Inside "...": a backslash escapes only $ ` " \\ and newline."""
        i, n = 0, len(text)
        while i < n:
            ch = text[i]
            if ch == "$" and i + 1 < n and _EXPANDS.match(text, i + 1):
                # a `$` the tree did not turn into an expansion, yet bash would expand
                self.fail("a `$` whose meaning is unclear", text, offset, hides=True)
            if ch == "\\" and i + 1 < n and (text[i + 1] in _DQ_ESCAPABLE or text[i + 1] == "\n"):
                if text[i + 1] != "\n":
                    self.add(text[i + 1], True)
                i += 2
                continue
            self.add(ch, True)
            i += 1


def _string(b: _Builder, node: Node, src: bytes) -> None:
    """A double-quoted string, read from its source between the quotes.

    The text of anonymous tokens cannot be trusted (tree-sitter-bash gives a `$` token the
    text ` $`, and a closing quote ` "`), so everything outside the named expansion
    children is decoded from the source itself.
    """
    pos = node.start_byte + 1
    end = node.end_byte - 1
    if src[node.start_byte : pos] != b'"' or src[end : node.end_byte] != b'"' or end < pos:
        b.fail(
            "an unterminated string",
            text_of(src, node.start_byte, node.end_byte),
            node.start_byte,
            hides=True,
        )
        return
    for child in node.children:
        if not child.is_named or child.type == "string_content":
            continue
        if child.start_byte > pos:
            b.double_quoted(text_of(src, pos, child.start_byte), pos)
        kind = CONSTRUCTS.get(child.type, f"an unexpected `{child.type}`")
        b.fail(kind, text_of(src, child.start_byte, child.end_byte), child.start_byte)
        pos = max(pos, child.end_byte)
    if end > pos:
        b.double_quoted(text_of(src, pos, end), pos)


def _part(b: _Builder, node: Node, src: bytes, following: Node | None) -> None:
    """Add one part of a word; `following` is the next part (to read a `$` token)."""
    t = node.type
    text = text_of(src, node.start_byte, node.end_byte)
    if t in ("word", "number"):
        b.bare(text, node.start_byte)
    elif t == "raw_string":
        if len(text) < 2 or text[0] != "'" or text[-1] != "'":
            b.fail("an unterminated string", text, node.start_byte, hides=True)
        b.add(text[1:-1], True)
    elif t == "string":
        _string(b, node, src)
    elif t == "ansi_c_string":
        _ansi_c_string(b, node, text)
    elif t == "translated_string":
        inner = [c for c in node.children if c.type == "string"]
        for c in inner:
            _string(b, c, src)
        b.fail(CONSTRUCTS[t], text, node.start_byte, literal=True)
    elif t == "$" and not node.is_named:
        _dollar(b, node, src, text, following)
    elif t == "concatenation":
        _concatenation(b, node, src, text, following)
    else:
        b.fail(CONSTRUCTS.get(t, f"an unexpected `{t}`"), text, node.start_byte)


def _ansi_c_string(b: _Builder, node: Node, text: str) -> None:
    """`$'...'`: its decoded value, a literal noted when it holds escapes."""
    if len(text) < 3 or not text.startswith("$'") or text[-1] != "'":
        b.fail("an unterminated string", text, node.start_byte, hides=True)
    body = text[2:-1]
    b.add(decode_ansi_c(body), True)
    if "\\" in body:
        b.fail("an ANSI-C string with escapes", text, node.start_byte, literal=True)


def _dollar(b: _Builder, node: Node, src: bytes, text: str, following: Node | None) -> None:
    """A `$` token tree-sitter leaves unnamed: `$$`, the `$` of `$"..."`, or a plain `$`."""
    if text != "$":
        b.fail(CONSTRUCTS["simple_expansion"], text, node.start_byte)  # `$$` (the PID)
    elif following is not None and following.type == "string":
        # tree-sitter splits `$"..."` outside a command name into `$` and a string
        shown = "$" + text_of(src, following.start_byte, following.end_byte)
        b.fail(CONSTRUCTS["translated_string"], shown, node.start_byte, literal=True)
    elif following is not None:
        b.fail("a `$` whose meaning is unclear", text, node.start_byte)
        b.add("$", False)
    else:
        b.add("$", False)  # a trailing `$` (as in `a$`) is literal


def _concatenation(b: _Builder, node: Node, src: bytes, text: str, following: Node | None) -> None:
    """Each part of a concatenation, with no gap between them (else bash splits it)."""
    kids = list(node.children)
    pos = node.start_byte
    for i, child in enumerate(kids):
        if child.start_byte != pos:
            b.fail("a word that tree-sitter and bash split differently", text, pos, hides=True)
        _part(b, child, src, kids[i + 1] if i + 1 < len(kids) else following)
        pos = child.end_byte


def _is_glob(chars: Sequence[str], quoted: Sequence[bool]) -> bool:
    bracket = False
    for ch, q in zip(chars, quoted, strict=True):
        if q:
            continue
        if ch in _GLOB:
            return True
        if ch == "[":
            bracket = True
        elif ch == "]" and bracket:
            return True
    return False


def _is_brace_expansion(chars: Sequence[str], quoted: Sequence[bool]) -> bool:
    """An unquoted `{...}` holding an unquoted `,` or `..`, as bash expands it."""
    stack: list[tuple[int, bool]] = []
    for i, (ch, q) in enumerate(zip(chars, quoted, strict=True)):
        if q:
            continue
        if ch == "{":
            stack.append((i, False))
        elif ch == "," and stack:
            stack[-1] = (stack[-1][0], True)
        elif ch == "}" and stack:
            start, comma = stack.pop()
            if comma or ".." in "".join(chars[start + 1 : i]):
                return True
    return False


def decode_word(nodes: Sequence[Node], src: bytes) -> Word:
    """One shell word made of `nodes` (adjacent argument nodes with no gap between them)."""
    start, end = nodes[0].start_byte, nodes[-1].end_byte
    source = text_of(src, start, end)
    if len(nodes) == 1 and nodes[0].type == "word" and _SIMPLE_WORD.fullmatch(source):
        return Word(source, source, start, True)  # the common case: nothing to decode
    b = _Builder()
    for i, node in enumerate(nodes):
        _part(b, node, src, nodes[i + 1] if i + 1 < len(nodes) else None)
    value = "".join(b.chars)
    glob = False
    if b.literal and _MAYBE_PATTERN.search(value):
        if _is_brace_expansion(b.chars, b.quoted):
            b.fail(CONSTRUCTS["brace_expression"], source, start)
        else:
            glob = _is_glob(b.chars, b.quoted)
    if b.literal and "\n" in value and b.problem is None:
        b.fail("a newline inside a word", source, start, literal=True)
    return Word(
        value if b.literal else source, source, start, b.literal and not glob, glob, b.problem
    )


def command_name(word: Word) -> str | None:
    """The program a first word names (`/bin/rm`, `\\rm`, `'rm'` all name `rm`); None if unknown."""
    if not word.literal:
        return None
    base = word.value.rsplit("/", 1)[-1]
    return base or word.value
