"""tree-sitter-bash, loaded on first use, and a parse bounded by counted work.

The only module of codebot that loads tree_sitter (the others of codebot.shell import its
types for the type checker only), and only inside functions: the parser and its grammar
cost a few milliseconds to load, and most sessions never run Bash. Each thread gets its own
parser (a tree-sitter parser is not safe to share between threads).

The budget counts work, never time, so the same command is decided the same way however
loaded the machine is. tree-sitter has no step limit of its own, but it reports progress
every `OPERATIONS_PER_REPORT` parser operations and reads its input through a callback, so
both its operations and the bytes its lexer is handed (re-reads included: error recovery
reads `x=(x=(...` quadratically) are counted, and past either budget the parse is cancelled.
`SAFETY_SECONDS` is a last-resort wall clock, not a budget: the counted budgets stop every
known hostile input far below it (bench/shell_parse.py's `hostile_ms`: tens of milliseconds),
no test input comes near it, and only a tree-sitter pathology nobody has measured (or a
machine stalled for seconds) could reach it; the command is then asked, never allowed.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Language, Node, Parser, Point

__all__ = [
    "MAX_LEXED_BYTES",
    "MAX_NODES",
    "MAX_PARSE_OPERATIONS",
    "SAFETY_SECONDS",
    "Budget",
    "parse_tree",
]

#: Syntax nodes walked per `analyze` call, nested scripts included (a typical command has 10-50).
MAX_NODES = 4000
#: Parser operations per `analyze` call, nested scripts included: a typical command takes
#: under 2,000, one at the `MAX_NODES` limit ~10,000 (2,000 words), `a|` 1,024 times 17,400.
MAX_PARSE_OPERATIONS = 50_000
#: Bytes handed to the lexer per `analyze` call, nested scripts included: plain text is read
#: about twice, `x=(` 1,024 times 3.8 MB (1 MiB of it takes ~15 ms).
MAX_LEXED_BYTES = 1024 * 1024
#: The last-resort wall clock per `analyze` call (see the module docstring).
SAFETY_SECONDS = 2.0
#: tree-sitter calls the progress callback once per this many parser operations.
OPERATIONS_PER_REPORT = 100
_CHUNK = 256


@dataclass
class Budget:
    """Work left for one `analyze` call, shared by the scripts it parses again."""

    deadline: float  # the safety net (`SAFETY_SECONDS`), not a budget
    nodes: int = MAX_NODES
    operations: int = MAX_PARSE_OPERATIONS
    lexed: int = MAX_LEXED_BYTES

    @classmethod
    def start(cls) -> Budget:
        _parser()  # loaded before the safety clock starts
        return cls(time.perf_counter() + SAFETY_SECONDS)


@cache
def _language() -> Language:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Language(tree_sitter_bash.language())


_local = threading.local()


def _parser() -> Parser:
    parser = getattr(_local, "parser", None)
    if parser is None:
        import tree_sitter

        parser = _local.parser = tree_sitter.Parser(_language())
    return parser


def parse_tree(src: bytes, budget: Budget) -> tuple[Node | None, str | None]:
    """(the root node, None), or (None, why) when parsing needs more work than `budget` has left."""
    over: list[str] = []

    def read(offset: int, _point: Point) -> bytes:
        if over:
            return b""
        chunk = src[offset : offset + _CHUNK]
        budget.lexed -= len(chunk)
        if budget.lexed < 0:
            over.append(f"needs more than {MAX_LEXED_BYTES:,} bytes of lexing to parse")
            return b""
        return chunk

    def progress(_offset: int, _has_error: bool) -> bool:
        budget.operations -= OPERATIONS_PER_REPORT
        if budget.operations < 0:
            over.append(f"needs more than {MAX_PARSE_OPERATIONS:,} parser operations")
        elif time.perf_counter() > budget.deadline:  # the safety net, never the budget
            over.append(f"took more than {SAFETY_SECONDS:.0f} s to parse")
        return bool(over)  # True cancels the parse

    parser = _parser()
    try:
        tree = parser.parse(read, progress_callback=progress)
    except ValueError:  # what py-tree-sitter raises when the progress callback cancels
        if not over:
            raise
        tree = None
    finally:
        parser.reset()  # a cancelled parse would otherwise resume on the next text
    if over or tree is None:
        return None, over[0] if over else "could not be parsed"
    return tree.root_node, None
