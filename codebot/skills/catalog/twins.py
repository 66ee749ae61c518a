"""Two spellings of one name inside one source: the one that follows the Agent Skills
specification's name rule wins.

`name: Good-One` in a folder `case/` and a valid `good-one` are one catalog key; so are
`rеview` (Cyrillic е) and `Review` by their look-alike skeleton. Scan order alone would
let the invalid spelling shadow the valid one, and the person would see the wrong skill
with the right name. "One source" is one root (one skill folder such as
`.claude/skills/`): between roots precedence still decides (a nearer folder, a project
over a personal skill, valid or not), so this is only the tie-break inside a root.
"""

from __future__ import annotations

from codebot.skills.files import Spec, name_problems


def name_problem(spec: Spec) -> str:
    """The first way `spec`'s name breaks the specification's rule ("" when it follows
    it: lowercase letters, digits and `-` after NFKC, equal to its folder)."""
    name = spec.name.split(":", 1)[1] if spec.plugin else spec.name
    problems = name_problems(name, None if spec.single_file else spec.dir.name)
    return problems[0].message if problems else ""


def valid_twin_wins(spec: Spec, winner: Spec) -> bool:
    """`spec` (later in the scan) takes `winner`'s place: the same skill folder (root),
    and only `spec` follows the name rule."""
    return same_source(spec, winner) and not name_problem(spec) and bool(name_problem(winner))


def same_source(a: Spec, b: Spec) -> bool:
    """One skill folder (root): between roots, precedence alone decides."""
    return a.root == b.root


def twin_reason(loser: Spec, winner: Spec) -> str:
    """Why `loser` is shadowed by its valid twin, naming the winner."""
    return (
        f"'{winner.name}' ({winner.path}) has the same name and follows the specification's "
        f"name rule; this one does not ({name_problem(loser)})"
    )
