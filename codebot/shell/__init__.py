"""The Bash analyzer: what a shell command will run, and the one decision on it.

`check_bash` decides a Bash call under the person's rules (deny, ask or allow, and why);
`analyze` takes a command apart with tree-sitter-bash (every simple command anywhere in it,
whether it is plain, what cannot be resolved), `parsed` is `analyze` remembered for the last
few texts, and `allow_match`/`deny_match` match one `Bash(...)` rule on an analysis.
Inside: `grammar` (tree-sitter, loaded at the first parse, and the work budget), `parse`
(the tree walk), `words`, `checks`, `wrappers` (with `wrapper_specs`, their option grammar),
`scripts` (sed, awk, curl), `danger_table` (the dangerous-options table) and `danger` (a
command checked against it), `git_prints` (git commands that print committed files),
`rules` (rule matching) and `decide` (the order of the decision).

May import: nothing else in codebot but `codebot._exports` (the lazy re-export helper).
"""

from typing import TYPE_CHECKING

from codebot._exports import lazy_exports

if TYPE_CHECKING:  # what the lazy table loads, spelled out for the type checker
    from codebot.shell.decide import Decision, check_bash, decide
    from codebot.shell.parse import Analysis, SimpleCommand, analyze, parsed
    from codebot.shell.rules import allow_match, deny_match


_EXPORTS = {
    "Analysis": "parse",
    "Decision": "decide",
    "SimpleCommand": "parse",
    "allow_match": "rules",
    "analyze": "parse",
    "check_bash": "decide",
    "decide": "decide",
    "deny_match": "rules",
    "parsed": "parse",
}
__all__ = [
    "Analysis",
    "Decision",
    "SimpleCommand",
    "allow_match",
    "analyze",
    "check_bash",
    "decide",
    "deny_match",
    "parsed",
]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
