"""Checks over tree-sitter-bash's syntax tree that decide plainness and distrust.

This module owns `TreeChecks`, the part of the tree walk that looks at the text between
tokens and at the constructs that evaluate hidden text: which separators and blanks a plain
command may hold, where tree-sitter and bash would read the same bytes differently (`] [` as
one word, `a\\<newline>b`, `--a=b` taken for an assignment, ...), and which constructs run code
the command does not show (arithmetic on variables, `${x@P}`, `${!x}`, array subscripts, and
`evaluates`: builtins such as `let` or `printf -v 'a[$(id)]'`).
It records problems (why a command is not plain) and unresolved reasons; `parse`
builds the commands.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from codebot.shell.words import CONSTRUCTS, text_of

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = ["OPERATORS", "TreeChecks", "assigned_by", "evaluates", "fields", "shorten"]

_ASCII_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_BAD_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_ARITH_NAMES = re.compile(r"[A-Za-z_$`\\'\"\[]")
_TEST_ARITH = re.compile(r"(?:^|\s)-(?:eq|ne|lt|le|gt|ge|v|R)(?:\s|$)")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# redirected_statement is reported through its redirect children, which point at the `>`
_STATEMENTS = frozenset({"command", "list", "pipeline", "redirected_statement"})
OPERATORS = {
    "program": frozenset({";"}),
    "list": frozenset({"&&", "||"}),
    "pipeline": frozenset({"|"}),
}
_TOKEN_NAMES = {
    "&": "a background `&`",
    "|&": "a `|&` pipe (it redirects errors)",
    ";;": "a `;;`",
    ";&": "a `;&`",
    ";;&": "a `;;&`",
}


def fields(node: Node) -> list[tuple[Any, str | None]]:
    """A node's children with their field names (a cursor: `field_name_for_child` is O(n))."""
    out: list[tuple[Any, str | None]] = []
    cursor = node.walk()
    if cursor.goto_first_child():
        out.append((cursor.node, cursor.field_name))
        while cursor.goto_next_sibling():
            out.append((cursor.node, cursor.field_name))
    return out


def shorten(text: str, limit: int = 48) -> str:
    """A text short enough to quote in a message, on one line."""
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"


class TreeChecks:
    """Positions, problems and the checks of one command text's tree."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.src = text.encode("utf-8", "surrogatepass")
        self.multiline = "\n" in text.strip("\n")
        self.problems: list[tuple[int, str, str]] = []  # offset, text before and after "at ..."
        self.unresolved: list[str] = []
        self.assigned: list[str] = []
        self.joins: list[int] = []  # byte offsets of `\\<newline>` that join two words
        self._lines: list[int] | None = None
        self._chars: list[int] | None = None

    def where(self, offset: int) -> tuple[int, int]:
        """1-based line and column (in characters) of a byte offset, in O(log n)."""
        if self._lines is None:
            self._lines = [0] + [m.end() for m in re.finditer(b"\n", self.src)]
            if not self.src.isascii():  # byte offset -> character index, built once
                chars = [0] * (len(self.src) + 1)
                pos = 0
                for i, ch in enumerate(self.text):
                    size = len(ch.encode("utf-8", "surrogatepass"))
                    for k in range(size):
                        chars[pos + k + 1] = i + 1
                    pos += size
                self._chars = chars
        line = bisect.bisect_right(self._lines, offset)
        start = self._lines[line - 1]
        if self._chars is None:
            return line, offset - start + 1
        return line, self._chars[offset] - self._chars[start] + 1

    def at(self, offset: int) -> str:
        line, column = self.where(offset)
        return f"at line {line}, column {column}" if self.multiline else f"at column {column}"

    def problem(self, kind: str, text: str | None, offset: int) -> None:
        shown = f" `{shorten(text)}`" if text else ""
        self.problems.append((offset, f"contains {kind}{shown}", ""))

    def node_text(self, node: Node) -> str:
        return text_of(self.src, node.start_byte, node.end_byte)

    def full_text(self, node: Node) -> str:
        """A node's text for a pattern check; a huge one is not read (it fails the check)."""
        if node.end_byte - node.start_byte > 4096:
            return "$huge"
        return self.node_text(node)

    def snippet(self, node: Node) -> str:
        """The start of a node's text, enough for a message (never the whole of a huge node)."""
        end = min(node.end_byte, node.start_byte + 64)
        return text_of(self.src, node.start_byte, end) + ("…" if end < node.end_byte else "")

    def scan_characters(self) -> None:
        """Control and invisible format characters other than tab and newline."""
        text = self.text
        m = _ASCII_CONTROL.search(text)
        first = m.start() if m else None
        if not text.isascii():
            for i, ch in enumerate(text[: first if first is not None else len(text)]):
                if ch not in "\t\n" and unicodedata.category(ch) in _BAD_CATEGORIES:
                    first = i
                    break
        if first is not None:
            offset = len(text[:first].encode("utf-8", "surrogatepass"))
            code = f"U+{ord(text[first]):04X}"
            self.problems.append((offset, f"contains a control character {code}", ""))

    def hidden(self, node: Node, t: str) -> None:
        """Constructs that evaluate text the command does not show."""
        if t == "arithmetic_expansion":
            self.arithmetic(node, 3 if self.snippet(node).startswith("$((") else 2)
        elif t == "c_style_for_statement":
            self.arithmetic(node, 0)
        elif t == "test_command" and _TEST_ARITH.search(self.full_text(node)):
            self.unresolved.append(
                f"`{shorten(self.snippet(node))}` evaluates operands as arithmetic, which can run "
                "commands hidden in variable values"
            )
        elif t == "expansion":
            self.expansion(node)
        elif t == "variable_assignment":
            name = node.child_by_field_name("name")
            if name is not None:
                if name.type == "subscript":
                    self.subscript(name)
                    name = name.child_by_field_name("name") or name
                if not _IDENTIFIER.fullmatch(self.node_text(name)):
                    # tree-sitter accepts `--a=b`, `1a=b`; bash runs them as a command
                    self.unresolved.append(
                        f"`{shorten(self.snippet(node))}` {self.at(node.start_byte)} is a command "
                        "for bash, not an assignment"
                    )
                self.assigned.append(self.node_text(name))

    def arithmetic(self, node: Node, prefix: int) -> None:
        text = self.full_text(node)
        if _ARITH_NAMES.search(text[prefix:]):
            self.unresolved.append(
                f"`{shorten(text)}` evaluates variables as arithmetic, which can run commands "
                "hidden in their values"
            )

    def expansion(self, node: Node) -> None:
        text = self.snippet(node)
        kids = node.children
        for i, child in enumerate(kids):
            if child.type == "subscript":
                self.subscript(child)
            elif child.is_named or i == 0:
                continue
            elif child.type == "!" and i == 1:
                self.unresolved.append(
                    f"`{shorten(text)}` is an indirect expansion, which can evaluate a subscript "
                    "hidden in a value"
                )
            elif child.type == "@" and i + 1 < len(kids) and self.node_text(kids[i + 1]) == "P":
                self.unresolved.append(
                    f"`{shorten(text)}` expands a value as a prompt, which runs the command "
                    "substitutions in it"
                )
            elif child.type == ":" and (i + 1 >= len(kids) or kids[i + 1].type != "number"):
                self.unresolved.append(
                    f"`{shorten(text)}` takes a substring at an arithmetic offset, which can run "
                    "commands hidden in variable values"
                )

    def subscript(self, node: Node) -> None:
        index = node.child_by_field_name("index")
        if index is not None and not re.fullmatch(r"[0-9]+|@|\*", self.node_text(index)):
            self.unresolved.append(
                f"`{shorten(self.snippet(node))}`: an array subscript is evaluated as arithmetic, "
                "which can run commands hidden in variable values"
            )

    def structure(self, node: Node) -> None:
        """program, list, pipeline: only statements, their operators, blanks and newlines."""
        t = node.type
        ops = OPERATORS[t]
        pos, prev = node.start_byte, "start"
        for child in node.children:
            statement = child.is_named and child.type not in ("comment", "ERROR")
            newline_ok = statement and (t == "program" or prev == "op")
            self.gap(pos, child.start_byte, newline_ok)
            if (
                t == "program"
                and prev == "statement"
                and statement
                and b"\n" not in self.src[pos : child.start_byte]
            ):
                self.problem(
                    "two commands without a separator", self.node_text(child), child.start_byte
                )
                self.unresolved.append(
                    f"tree-sitter and bash read the text {self.at(child.start_byte)} differently"
                )
            if child.is_named:
                if child.type not in _STATEMENTS and child.type not in CONSTRUCTS:
                    self.problem(
                        f"an unexpected `{child.type}`", self.node_text(child), child.start_byte
                    )
                prev = "statement"
            elif child.type in ops and self.node_text(child) == child.type:
                prev = "op"
            elif not child.is_missing:
                kind = _TOKEN_NAMES.get(child.type, f"an unexpected `{self.node_text(child)}`")
                self.problem(kind, None, child.start_byte)
                prev = "op"
            pos = child.end_byte
        self.gap(pos, node.end_byte, t == "program")

    def gap(self, start: int, end: int, newline_ok: bool) -> None:
        """Text between two tokens: blanks, and a newline only where it separates commands."""
        g = self.src[start:end]
        i = 0
        while i < len(g):
            c = g[i : i + 1]
            if c in (b" ", b"\t") or (c == b"\n" and newline_ok):
                i += 1
                continue
            if c == b"\\" and g[i + 1 : i + 2] == b"\n":
                if i > 0 and g[i - 1 : i] in (b" ", b"\t"):
                    i += 2
                    continue
                # `a\<newline>b` is one word for bash, two for tree-sitter: not plain
                self.problem("a line continuation inside a word", None, start + i)
                self.unresolved.append(
                    f"a line continuation {self.at(start + i)} joins two words into one"
                )
                self.joins.append(start + i)
            elif c == b"\n":
                self.problem("a newline that does not separate commands", None, start + i)
            else:
                self.problem("unexpected text", g[i:].decode("utf-8", "replace"), start + i)
            # the tree is not what bash reads here: the commands it found are in doubt
            self.unresolved.append(
                f"tree-sitter and bash read the text {self.at(start + i)} differently"
            )
            return

    def word(self, node: Node) -> None:
        """tree-sitter-bash reads `] [` or `{ {` as one word in places; bash reads two."""
        text = self.node_text(node)
        if " " not in text and "\t" not in text and "\n" not in text:
            return
        i = 0
        while i < len(text):
            if text[i] == "\\":
                i += 2
                continue
            if text[i] in " \t\n":
                self.problem(
                    "a word that tree-sitter and bash split differently", text, node.start_byte
                )
                self.unresolved.append(
                    f"`{shorten(text)}` {self.at(node.start_byte)}: tree-sitter and bash split it "
                    "differently"
                )
                return
            i += 1

    def line_gaps(self, node: Node) -> None:
        """Between the parts of one command, bash ends the command at a newline."""
        pos = None
        for child in node.children:
            if pos is not None and child.type not in ("heredoc_redirect",):
                self.gap(pos, child.start_byte, False)
            pos = child.end_byte

    def adjacent(self, node: Node, words: tuple[str, ...]) -> None:
        """Two children with no blank between them are one word for bash, whatever the tree says."""
        prev = None
        for child, field in fields(node):
            if not child.is_named or child.is_missing:
                continue
            if (
                prev is not None
                and prev[0].end_byte == child.start_byte
                and not (prev[1] in words and field in words)
            ):
                self.problem(
                    "a word that tree-sitter and bash split differently",
                    self.node_text(child),
                    child.start_byte,
                )
                self.unresolved.append(
                    f"`{shorten(self.snippet(node))}`: tree-sitter and bash split its words "
                    "differently"
                )
                return
            prev = (child, field)


#: Builtins that take variable names: a name with a subscript (`a[$(cmd)]`) is evaluated.
_NAME_TAKERS = frozenset(
    {
        "printf",
        "read",
        "declare",
        "typeset",
        "local",
        "export",
        "readonly",
        "unset",
        "mapfile",
        "readarray",
        "getopts",
        "wait",
        "test",
        "[",
        "let",
    }
)
_ARITH_OPERAND = re.compile(r"[A-Za-z_$`\\'\"]")


def evaluates(name: str | None, words: Sequence[str]) -> str | None:
    """Why a builtin would evaluate text of its arguments as arithmetic or code, else None.

    Bash evaluates the subscript of an array name (`a[...]`) and the operands of `let` as
    arithmetic, and arithmetic expands a variable's value recursively: `a[$(rm x)]` in a
    value runs `rm x`. Plain numbers are harmless; names and subscripts are not.
    """
    if name not in _NAME_TAKERS:
        return None
    args = words[1:]
    if name == "let":
        if any(_ARITH_OPERAND.search(a) for a in args):
            return (
                "`let` evaluates its arguments as arithmetic, which can run commands hidden in "
                "variable values"
            )
        return None
    if name in ("test", "[") and not any(a in ("-v", "-R") for a in args):
        return None
    if name == "printf" and not any(a.startswith("-v") for a in args):
        return None
    if any("[" in a for a in args):
        return f"`{name}` evaluates an array subscript in a variable name, which can run commands"
    return None


def assigned_by(name: str | None, words: Sequence[str]) -> list[str]:
    """The variables a builtin assigns by name: `read PATH`, `printf -v PATH x`, `getopts o V`."""
    if name in ("read", "mapfile", "readarray"):
        valued = {"read": "adinNptu", "mapfile": "dnOsuCc", "readarray": "dnOsuCc"}[name]
        out: list[str] = []
        skip = take = False
        for w in words[1:]:
            if skip:
                skip = False
            elif w.startswith("-") and len(w) > 1 and not take:
                take = name == "read" and w[-1] == "a"  # `read -a NAME`
                skip = not take and w[-1] in valued
            else:
                out.append(w)
                take = False
        return out
    if name == "getopts" and len(words) > 2:
        return [words[2]]
    if name == "printf":
        return [
            w[2:] or (words[i + 1] if i + 1 < len(words) else "")
            for i, w in enumerate(words)
            if w.startswith("-v")
        ]
    return []
