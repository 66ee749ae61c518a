"""git commands that print the contents of committed files (`git show`, `git log -p`).

`prints_repository` names such a command: with a Read(...) deny rule in force, `decide`
always asks for one, since a denied file, once committed, can be read from git's objects.
"""

from __future__ import annotations

from codebot.shell.danger import positionals
from codebot.shell.parse import SimpleCommand

__all__ = ["prints_repository"]

#: git subcommands that print (or write out) the contents of committed files.
_GIT_PRINTS = frozenset(
    {
        "show",
        "cat-file",
        "diff",
        "grep",
        "archive",
        "blame",
        "annotate",
        "format-patch",
        "fast-export",
        "range-diff",
        "unpack-file",
    }
)
#: ... and those that do so with a patch option (`git log -p`; `git stash show` always).
_GIT_PATCHES = frozenset(
    {"log", "whatchanged", "reflog", "stash", "diff-tree", "diff-index", "diff-files"}
)
_PATCH_OPTIONS = (
    "-p",
    "-u",
    "--patch",
    "--patch-with-stat",
    "--patch-with-raw",
    "-c",
    "--cc",
    "--dd",
    "--binary",
)
_PATCH_PREFIXES = ("-U", "--unified", "-L", "--word-diff", "--color-words")


def prints_repository(cmd: SimpleCommand) -> str | None:
    """`git show`, `git log -p`, ...: a git command that prints committed file contents, as
    `git <sub> [option]`; a word that is not a literal may be one (None when it is not one)."""
    if (cmd.name or "").casefold() != "git":
        return None
    pos = positionals("git", cmd.words)
    if not pos:
        return None
    parts, sub = cmd.parts, cmd.words[pos[0]]
    if not parts[pos[0]].literal or sub in _GIT_PRINTS:
        return f"git {sub}"
    if sub not in _GIT_PATCHES:
        return None
    if sub == "stash":  # `git stash show` prints a patch when stash.showPatch is set
        action = cmd.words[pos[1]] if len(pos) > 1 else ""
        if action == "show" or (len(pos) > 1 and not parts[pos[1]].literal):
            return f"git stash {action}"
        if action != "list":  # `git stash list -p` takes log's options
            return None
    for part in parts[pos[0] + 1 :]:
        w = part.value
        if not part.literal or w in _PATCH_OPTIONS or w.startswith(_PATCH_PREFIXES):
            return f"git {sub} {w}"
    return None
