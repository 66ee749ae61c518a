"""The Bash analyzer: what a shell command will run, and the one decision on it.

`check_bash` decides a Bash call under the person's rules (deny, ask or allow, and why);
`analyze` takes a command apart with tree-sitter-bash (every simple command anywhere in it,
whether it is plain, what cannot be resolved), `parsed` is `analyze` remembered for the last
few texts, and `allow_match`/`deny_match` match one `Bash(...)` rule on an analysis.
Inside: `grammar` (tree-sitter, loaded at the first parse, and the work budget), `parse`
(the tree walk), `words`, `checks`, `wrappers`, `scripts` (sed, awk, curl), `danger` (the
dangerous-options table), `rules` (rule matching) and `decide` (the order of the decision).

May import: nothing else in codebot but `codebot._exports` (the lazy re-export helper).
"""

from codebot._exports import lazy_exports

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
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
