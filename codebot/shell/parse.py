"""One parse of a Bash command for every permission decision: `analyze(command) -> Analysis`.

This module owns the tree walk over tree-sitter-bash's syntax tree: whether a command is
*plain* (simple commands of literal words joined by `&&`, `||`, `;`, `|` or newlines, nothing
else), every simple command found anywhere in it (inside substitutions, subshells, functions,
loops, through wrappers such as `sudo` or `xargs`, and inside `bash -c` scripts, parsed again
up to `MAX_SCRIPT_DEPTH` levels), and what cannot be resolved statically (`$c x`, `eval $x`,
`source f`, arithmetic on variables, ...). Words are decoded by `words`, the text
between tokens and the hidden evaluations are checked by `checks`, wrappers are
described by `wrappers`, and rules are matched by `rules`.

Hostile input is bounded by counted work, never by the clock, so the same text is always
analysed the same way: at most `MAX_CHARS` characters and `MAX_SPECIALS` metacharacters are
parsed; per call (nested scripts included) tree-sitter gets a budget of parser operations
and lexed bytes (`grammar`), and the walk `MAX_NODES` nodes, `MAX_TREE_DEPTH` levels deep;
past any limit the command is not plain and unresolved.

tree_sitter is imported on the first `analyze` call, not at import time (`grammar`).
"""

from __future__ import annotations

import collections
import dataclasses
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from codebot.shell.checks import (
    OPERATORS,
    TreeChecks,
    assigned_by,
    evaluates,
    fields,
    shorten,
)
from codebot.shell.grammar import MAX_NODES, Budget, parse_tree
from codebot.shell.words import (
    CONSTRUCTS,
    Word,
    command_name,
    decode_word,
    text_of,
)
from codebot.shell.wrappers import Script, unwrap

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = [
    "MAX_CHARS",
    "MAX_NODES",
    "MAX_SCRIPT_DEPTH",
    "MAX_SPECIALS",
    "MAX_TREE_DEPTH",
    "Analysis",
    "SimpleCommand",
    "analyze",
    "parsed",
]

#: Longer commands are not analysed at all: not plain, and unresolved.
MAX_CHARS = 64 * 1024
#: How deep `bash -c '... bash -c "..."'` (and eval, env -S, ...) scripts are parsed.
MAX_SCRIPT_DEPTH = 6
#: How deep the syntax tree is walked (`$($($(...)))`, long `&&` chains nest one level each).
MAX_TREE_DEPTH = 200
#: More shell metacharacters than this and the command is not parsed: tree-sitter's error
#: recovery grows with their square on hostile input.
MAX_SPECIALS = 1024
_SPECIALS = "()<>|&;{}[]$`'\"\\"

_RESERVED = frozenset(
    {
        "!",
        "case",
        "do",
        "done",
        "elif",
        "else",
        "esac",
        "fi",
        "for",
        "function",
        "if",
        "in",
        "select",
        "then",
        "until",
        "while",
        "{",
        "}",
        "[[",
        "]]",
    }
)


@dataclass(frozen=True)
class SimpleCommand:
    """One simple command: its words after quote removal and the program it names.

    `words` holds the value of each literal word and the source text of the others (see
    `parts` for which is which). `name` is the basename of the first word when it is a
    literal (`/bin/rm`, `\\rm`, `'rm'`, `"r""m"` are all `rm`), else None. `via` lists the
    wrappers it was found through, outermost first: `("sudo", "bash -c")`.
    """

    words: tuple[str, ...]
    name: str | None
    literal: bool
    start_column: int
    via: tuple[str, ...] = ()
    parts: tuple[Word, ...] = ()
    assignments: tuple[str, ...] = ()  # NAME=value set for this command (x=1 cmd, env X=1 cmd)
    start_line: int = 1
    # Found through a wrapper or a script: the index of that command in `Analysis.commands`,
    # the index of its word where this one starts (or which holds the script), and which.
    parent: int = -1
    at: int = 0
    in_script: bool = False

    @property
    def text(self) -> str:
        """The command as written (its words' source text, joined with spaces)."""
        return " ".join(p.source for p in self.parts) if self.parts else " ".join(self.words)


@dataclass(frozen=True)
class Analysis:
    """What a Bash command is made of, as far as can be seen without running it."""

    command: str
    plain: bool
    reason: str | None  # the first reason it is not plain ("not plain: contains ...")
    commands: tuple[SimpleCommand, ...] = ()
    unresolved: tuple[str, ...] = ()
    assignments: tuple[str, ...] = ()  # every variable name it assigns, anywhere

    @property
    def chain(self) -> tuple[SimpleCommand, ...]:
        """The commands as written at the top level (not found through a wrapper)."""
        return tuple(c for c in self.commands if not c.via)


class _Walk(TreeChecks):
    """One pass over the tree of one command text, collecting problems and commands."""

    def __init__(self, text: str, depth: int, budget: Budget, rejoined: bool = False) -> None:
        super().__init__(text)
        self.budget = budget
        self.rejoined = rejoined
        self.depth = depth
        self.commands: list[SimpleCommand] = []

    def run(self) -> Analysis:
        self.scan_characters()
        root = self.parse()
        if root is None:
            return self.result()
        if root.has_error:
            self.unresolved.append(
                "the command does not parse, so not all of its commands can be found"
            )
        stack = [(root, 0)]
        while stack:  # iterative, and capped: a hostile command can nest thousands of levels
            node, level = stack.pop()
            self.budget.nodes -= 1
            if self.budget.nodes < 0:
                self.give_up(f"has more than {MAX_NODES} syntax nodes", node.start_byte)
                break
            if level > MAX_TREE_DEPTH:
                self.problems.append(
                    (node.start_byte, f"is nested more than {MAX_TREE_DEPTH} levels deep", "")
                )
                self.unresolved.append(
                    f"nested more than {MAX_TREE_DEPTH} levels deep, so not analysed further"
                )
                continue
            self.visit(node)
            stack.extend((child, level + 1) for child in reversed(node.children))
        if root.has_error and not self.problems:
            self.problems.append((0, "does not parse", ""))
        if self.joins and not self.rejoined:
            self.rejoin()
        return self.result()

    def parse(self) -> Node | None:
        """The syntax tree, or None when parsing needs more work than the budget has left."""
        root, over = parse_tree(self.src, self.budget)
        if over:
            self.give_up(over, 0)
        return root

    def give_up(self, why: str, offset: int) -> None:
        self.problems.append((offset, f"is too complex to analyze: it {why}", ""))
        self.unresolved.append(f"too complex to analyze: it {why}")

    def result(self) -> Analysis:
        reason = None
        if self.problems:
            # the first construct; at the same place, a parse error says most
            offset, before, after = min(
                self.problems, key=lambda p: (p[0], not p[1].startswith("does"))
            )
            reason = f"not plain: {before} {self.at(offset)}{after}"
        return Analysis(
            self.text,
            reason is None,
            reason,
            tuple(self.commands),
            tuple(dict.fromkeys(self.unresolved)),
            tuple(dict.fromkeys(self.assigned)),
        )

    def rejoin(self) -> None:
        """Bash removes `\\<newline>` before splitting words: find the commands it would see."""
        joined = bytearray(self.src)
        for offset in sorted(set(self.joins), reverse=True):
            del joined[offset : offset + 2]
        again = _Walk(
            text_of(bytes(joined), 0, len(joined)), self.depth, self.budget, rejoined=True
        ).run()
        self.commands = list(again.commands)
        self.unresolved.extend(again.unresolved)
        self.assigned.extend(again.assignments)

    def visit(self, node: Node) -> None:
        t = node.type
        if node.is_missing:
            self.problems.append((node.start_byte, f"does not parse: missing `{t}`", ""))
            return
        if t == "ERROR":
            text = shorten(self.snippet(node).strip() or "?")
            self.problems.append((node.start_byte, f"does not parse: unexpected `{text}`", ""))
        elif t in OPERATORS:
            self.structure(node)
        elif t == "command":
            self.command(node)
        elif t in ("declaration_command", "unset_command"):
            self.declaration(node)
            self.line_gaps(node)
        elif t == "word":
            self.word(node)
        elif t == "redirected_statement":
            self.adjacent(node, ())
            self.line_gaps(node)
        elif t == "file_redirect" and len(node.children_by_field_name("destination")) > 1:
            self.problem(CONSTRUCTS[t], self.snippet(node), node.start_byte)
            self.unresolved.append(
                f"`{shorten(self.snippet(node))}`: tree-sitter reads words after a redirection as "
                "part of it"
            )
        elif t == "compound_statement" and self.snippet(node).startswith("(("):
            self.problem("an arithmetic command", self.snippet(node), node.start_byte)
            self.arithmetic(node, 2)
        elif t in CONSTRUCTS:
            self.problem(CONSTRUCTS[t], self.snippet(node), node.start_byte)
            self.hidden(node, t)

    def command(self, node: Node) -> None:
        self.budget.nodes -= node.child_count
        if self.budget.nodes < 0:
            return  # the walk stops at the next node and says why
        self.adjacent(node, ("name", "argument"))
        self.line_gaps(node)
        assignments: list[str] = []
        groups = self.word_groups(node, assignments)
        if not groups:
            return
        parts = tuple(decode_word(g, self.src) for g in groups)
        self.word_problems(parts)
        if parts[0].glob:
            self.problem("a glob in the command name", parts[0].source, parts[0].offset)
        self.add(self.make(parts, (), tuple(assignments)))

    def word_groups(self, node: Node, assignments: list[str]) -> list[list[Node]]:
        """The nodes of each word of a command, name first (adjacent arguments are one
        word); the names its assignments set go to `assignments`."""
        groups: list[list[Node]] = []
        for child, field in fields(node):
            if child.is_missing:
                continue
            if field == "name":
                nodes = [c for c in child.children if not c.is_missing]
            elif field == "argument":
                nodes = [child]
            else:
                if child.type == "variable_assignment":
                    name = child.child_by_field_name("name")
                    if name is not None:
                        assignments.append(self.node_text(name).split("[", 1)[0])
                continue
            if not nodes:
                continue
            if groups and groups[-1][-1].end_byte == nodes[0].start_byte:
                groups[-1].extend(nodes)  # `$"..."` comes as two adjacent arguments
            else:
                groups.append(nodes)
        return groups

    def word_problems(self, parts: tuple[Word, ...]) -> None:
        """Note what makes a word not plain, and what hides its value."""
        for p in parts:
            if p.problem is not None:
                self.problem(p.problem.kind, p.problem.text, p.problem.offset)
                if p.problem.hides:
                    self.unresolved.append(
                        f"{p.problem.kind}: `{shorten(p.problem.text)}` {self.at(p.offset)}"
                    )

    def declaration(self, node: Node) -> None:
        """`export`/`declare`/`local`/`readonly`/`typeset`/`unset`: a command for the rules."""
        self.problem(CONSTRUCTS[node.type], self.snippet(node), node.start_byte)
        kids = node.children
        if not kids:
            return
        keyword = Word(self.node_text(kids[0]), self.node_text(kids[0]), kids[0].start_byte, True)
        args = tuple(
            Word(self.node_text(k), self.node_text(k), k.start_byte, False)
            for k in kids[1:]
            if k.is_named
        )
        self.add(self.make((keyword, *args), (), ()))

    def make(
        self,
        parts: tuple[Word, ...],
        via: tuple[str, ...],
        assignments: tuple[str, ...],
        parent: int = -1,
        at: int = 0,
    ) -> SimpleCommand:
        line, column = self.where(parts[0].offset)
        name = command_name(parts[0])
        words = tuple(p.value for p in parts)
        how = f" (run via {' → '.join(via)})" if via else ""
        if parts[0].source in _RESERVED and parts[0].literal:
            # a reserved word where tree-sitter saw a command name: bash reads it as syntax
            self.problem("a reserved word as a command name", parts[0].source, parts[0].offset)
            if parts[0].source != "!":  # `! ! rm x`: the negation is unwrapped like a wrapper
                self.unresolved.append(
                    f"`{parts[0].source}` is a reserved word; bash may read this command "
                    "differently"
                )
        if name is None:
            what = "a glob" if parts[0].glob else "not a literal"
            self.unresolved.append(f"the command name `{shorten(parts[0].source)}`{how} is {what}")
        else:
            why = evaluates(name, words)
            if why:
                self.unresolved.append(why + how)
            self.assigned.extend(assigned_by(name, words))
        literal = all(p.literal for p in parts)
        return SimpleCommand(
            words, name, literal, column, via, parts, assignments, line, parent, at
        )

    def add(self, first: SimpleCommand) -> None:
        """Record a command, then the commands it runs through wrappers and scripts."""
        queue = collections.deque([first])
        while queue:
            cmd = queue.popleft()
            index = len(self.commands)
            self.commands.append(cmd)
            self.assigned.extend(cmd.assignments)
            how = f" (run via {' → '.join(cmd.via)})" if cmd.via else ""
            u = unwrap(
                cmd.name, cmd.words, [p.literal for p in cmd.parts], [p.source for p in cmd.parts]
            )
            self.unresolved.extend(r + how for r in u.unresolved)
            for inner in u.inners:  # words of a prefix stand where the command's first word is
                parts = (
                    *(Word(w, w, cmd.parts[0].offset, True) for w in inner.prefix),
                    *cmd.parts[inner.start : inner.end],
                )
                queue.append(
                    self.make(
                        parts,
                        (*cmd.via, inner.via),
                        inner.assignments,
                        index,
                        inner.start - len(inner.prefix),
                    )
                )
            for script in u.scripts:
                self.script(cmd, index, script)

    def script(self, cmd: SimpleCommand, index: int, script: Script) -> None:
        word = cmd.parts[min(script.index, len(cmd.parts) - 1)]
        via = (*cmd.via, script.via)
        if script.text is None:
            self.unresolved.append(
                f"`{script.via}` runs a script that is not a literal: `{shorten(word.source)}`"
            )
            self.problem(
                f"a script for `{script.via}` that is not a literal", word.source, word.offset
            )
            return
        if self.depth + 1 > MAX_SCRIPT_DEPTH:
            self.unresolved.append(
                f"scripts nested more than {MAX_SCRIPT_DEPTH} levels deep are not analysed"
            )
            self.problem("scripts nested too deeply", word.source, word.offset)
            return
        inner = _analyze(script.text, self.depth + 1, self.budget)
        line, column = self.where(word.offset)
        base = len(self.commands)
        for c in inner.commands:
            top = c.parent < 0
            self.commands.append(
                dataclasses.replace(
                    c,
                    via=via + c.via,
                    start_column=column,
                    start_line=line,
                    parent=index if top else base + c.parent,
                    at=script.index if top else c.at,
                    in_script=top or c.in_script,
                )
            )
        self.unresolved.extend(f"in the script of `{script.via}`: {r}" for r in inner.unresolved)
        self.assigned.extend(inner.assignments)
        if not inner.plain and inner.reason:
            detail = inner.reason.removeprefix("not plain: ")
            self.problems.append(
                (
                    word.offset,
                    f"contains a script for `{script.via}`",
                    f" that is not plain ({detail})",
                )
            )


def _analyze(command: str, depth: int, budget: Budget) -> Analysis:
    if len(command) > MAX_CHARS:
        why = f"too long to analyze ({len(command):,} characters; the limit is {MAX_CHARS:,})"
        return Analysis(command, False, f"not plain: {why}", (), (why,))
    specials = sum(map(command.count, _SPECIALS))
    if specials > MAX_SPECIALS:
        why = (
            f"too complex to analyze ({specials:,} operators, quotes and brackets; the limit is "
            f"{MAX_SPECIALS:,})"
        )
        return Analysis(command, False, f"not plain: {why}", (), (why,))
    if not command.strip():
        return Analysis(command, False, "not plain: an empty command")
    return _Walk(command, depth, budget).run()


def analyze(command: str) -> Analysis:
    """Parse `command` as bash and say what it is made of. Pure (the budgets count work, not
    time: the same text always gives the same analysis); never raises for any text."""
    try:
        return _analyze(command, 0, Budget.start())
    except Exception as e:  # fail closed: a bug here must ask, never allow
        why = f"could not be analysed ({type(e).__name__}: {e})"
        return Analysis(command, False, f"not plain: {why}", (), (why,))


@lru_cache(maxsize=64)
def parsed(command: str) -> Analysis:
    """`analyze`, remembered for the last few texts: one Bash decision asks about the same
    command several times (each rule's `Pattern.matches`, the deny rules, the always-allow
    offer), and `analyze` is pure, so each command is parsed once."""
    return analyze(command)
