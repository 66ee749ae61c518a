"""Commands that run other commands: where, inside their words, the wrapped command is.

This module reads the options of the wrappers (`env`, `sudo`, `timeout`, `xargs`, ...:
their grammar is `wrapper_specs`) and of `find -exec`, and knows the shells and builtins
whose argument is itself a script (`bash -c`, `eval`, `trap`, `watch`, `ssh`), git's dashed
programs (`git-push x` is `git push x`), and the builtins whose effect cannot be seen
statically (`source`, `alias`, ...). `unwrap` says which
slices of one command's words are commands, which strings are scripts, and what cannot be
resolved; `parse` builds the nested commands and parses the scripts.

Unknown options of a modelled wrapper make the wrapped command unresolved instead of guessed
at: an option taking a value we do not know about would shift the command name by one word.
`--` ends a wrapper's options; its positionals follow (`timeout -- 5 rm x`). Rarer wrappers
(`fakeroot`, `firejail`, ...) are not modelled: each of their first words that is not an
option is taken as a possible command, which suits deny rules (they hit) and costs allow
rules nothing (those bogus commands are never covered, so such a command asks).
A wrapper missing from these lists hides its command from deny rules: the lists are the limit.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from codebot.shell.wrapper_specs import WRAPPERS, Spec

__all__ = ["SHELLS", "Inner", "Script", "Unwrap", "unwrap"]

_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_SYNTAX = frozenset({"!", "time", "coproc"})  # reserved words, read by the shell's parser


#: Shells whose `-c` argument is a script; without `-c` they run a file or their input.
SHELLS = frozenset({"sh", "bash", "rbash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "yash"})
#: Builtins whose arguments, joined with spaces, are a script run in the current shell.
_EVAL = frozenset({"eval"})
#: Builtins and programs that run code the command text does not show.
_HIDDEN = {
    "source": "runs the commands in a file",
    ".": "runs the commands in a file",
    "alias": "defines an alias, which can rename any command",
    "enable": "can load a builtin from a shared library or disable builtins",
    "fc": "re-runs commands from the history",
    "bind": "can bind keys to shell commands",
}
_SHELL_VALUED = frozenset({"o", "O"})
_SHELL_LONG_VALUED = frozenset({"--rcfile", "--init-file"})


@dataclass(frozen=True)
class Inner:
    """Words [start, end) of the wrapper are a command it runs."""

    start: int
    end: int
    via: str
    assignments: tuple[str, ...] = ()
    prefix: tuple[str, ...] = ()  # words put before them (`git-push x` runs `git push x`)


@dataclass(frozen=True)
class Script:
    """Word `index` (or words joined, when `joined`) is a shell script the command runs."""

    index: int
    text: str | None  # None when not a literal
    via: str


@dataclass(frozen=True)
class Unwrap:
    inners: tuple[Inner, ...] = ()
    scripts: tuple[Script, ...] = ()
    unresolved: tuple[str, ...] = ()


_NOTHING = Unwrap()


class _OptionReader:
    """What a wrapper's options say, read one word at a time: scripts they hold, options
    not in its grammar, assignments, and whether they leave no command to run."""

    def __init__(self, name: str, spec: Spec, words: Sequence[str], literal: Sequence[bool]):
        self.name, self.spec, self.words, self.literal = name, spec, words, literal
        self.unresolved: list[str] = []
        self.assigned: list[str] = []
        self.scripts: list[Script] = []
        self.no_command = False

    def value_at(self, k: int) -> str | None:
        return self.words[k] if k < len(self.words) and self.literal[k] else None

    def option(self, i: int, w: str) -> int:
        """How many words the option at `i` takes (0 when `w` is not an option)."""
        if self.spec.numeric_flags and re.fullmatch(r"--?\d+", w):
            return 1
        if w.startswith("--") and len(w) > 2:
            return self.long_option(i, w)
        if w.startswith("-") and len(w) > 1:
            return self.short_options(i, w)
        if self.name == "env" and w == "-":
            return 1
        return 0

    def long_option(self, i: int, w: str) -> int:
        spec, name = self.spec, self.name
        opt, eq, attached = w[2:].partition("=")
        takes_value = opt in spec.long_valued and not eq
        if opt not in spec.long_flags and opt not in spec.long_valued:
            self.unresolved.append(f"unknown option `{w}` of {name}")
        if opt in ("command", "split-string"):
            self.scripts.append(
                Script(i, attached, f"{name} --{opt}")
                if eq
                else Script(i + 1, self.value_at(i + 1), f"{name} --{opt}")
            )
            self.no_command = True
        return 2 if takes_value else 1

    def short_options(self, i: int, w: str) -> int:
        spec, name = self.spec, self.name
        for j in range(1, len(w)):
            ch = w[j]
            self.no_command = self.no_command or ch in spec.no_command
            if ch in spec.optional:
                return 1  # the rest of the word is the option's value (xargs -i{})
            if ch in spec.valued:
                attached = w[j + 1 :]
                if ch in spec.script:
                    self.scripts.append(
                        Script(i, attached, f"{name} -{ch}")
                        if attached
                        else Script(i + 1, self.value_at(i + 1), f"{name} -{ch}")
                    )
                    self.no_command = True
                return 1 if attached else 2
            if ch not in spec.flags:
                self.unresolved.append(f"unknown option `-{ch}` of {name}")
        return 1

    def assignment(self, w: str, source: str) -> bool:
        """Whether `w` is an assignment before the command (and note it)."""
        # after a reserved word bash decides on the source (`'a'=b` is a command); env and
        # sudo see the word after quote removal
        if (
            self.spec.assignments
            and _ASSIGNMENT.match(w)
            and (self.name not in _SYNTAX or _ASSIGNMENT.match(source))
        ):
            self.assigned.append(w.split("=", 1)[0])
            return True
        return False

    def result(self, i: int) -> Unwrap:
        """The command from word `i` on, with what the options said."""
        scripts, unresolved = tuple(self.scripts), tuple(self.unresolved)
        if self.no_command or i >= len(self.words):
            return Unwrap((), scripts, unresolved)
        inner = Inner(i, len(self.words), self.name, tuple(self.assigned))
        return Unwrap((inner,), scripts, unresolved)


def _options(
    name: str, spec: Spec, words: Sequence[str], literal: Sequence[bool], sources: Sequence[str]
) -> Unwrap:
    """Skip a wrapper's options, positionals and assignments; the rest is the command."""
    reader = _OptionReader(name, spec, words, literal)
    i, n = 1, len(words)
    positionals = spec.positionals
    ended = False  # after `--`: assignments, then the positionals even when they start with `-`
    while i < n:
        w = words[i]
        if not literal[i]:
            return Unwrap(unresolved=(f"`{w}` among the options of {name} is not a literal",))
        if w == "--" and not ended:
            ended, i = True, i + 1
            continue
        if ended and not (spec.assignments and _ASSIGNMENT.match(w)):
            if not positionals:
                break
            # after the last positional, words are read as without `--` (flock's `-c`)
            positionals, i, ended = positionals - 1, i + 1, positionals > 1
            continue
        taken = reader.option(i, w)
        if taken:
            i += taken
            continue
        if reader.assignment(w, sources[i]):
            i += 1
            continue
        if positionals:
            positionals -= 1
            i += 1
            continue
        break
    return reader.result(i)


def _find(words: Sequence[str]) -> Unwrap:
    """`find ... -exec cmd args ;` (or `+`), and -execdir, -ok, -okdir: each clause a command."""
    inners: list[Inner] = []
    i, n = 1, len(words)
    while i < n:
        action = words[i]
        if action in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            while j < n and words[j] not in (";", "+"):
                j += 1
            if j > i + 1:
                inners.append(Inner(i + 1, j, f"find {action}"))
            i = j
        i += 1
    return Unwrap(tuple(inners))


def _shell(name: str, words: Sequence[str], literal: Sequence[bool]) -> Unwrap:
    """`bash [options] -c script [name args...]`; without -c a shell runs a file or its input."""
    i, n = 1, len(words)
    has_c = False
    while i < n:
        w = words[i]
        if not literal[i]:
            break
        if w == "--" or w == "-":
            i += 1
            break
        if w in ("--version", "--help"):
            return _NOTHING
        if w in _SHELL_LONG_VALUED:
            i += 2
            continue
        if w.startswith("--"):
            i += 1
            continue
        if len(w) > 1 and w[0] in "-+":
            has_c = has_c or (w[0] == "-" and "c" in w[1:])
            i += 2 if any(ch in _SHELL_VALUED for ch in w[1:]) else 1
            continue
        break
    if has_c:
        if i >= n:
            return _NOTHING
        text = words[i] if literal[i] else None
        return Unwrap(scripts=(Script(i, text, f"{name} -c"),))
    if i < n:
        return Unwrap(
            unresolved=(f"`{name} {words[i]}` runs a script file, whose commands cannot be seen",)
        )
    return Unwrap(unresolved=(f"`{name}` without -c runs the commands it reads from its input",))


def _joined(
    name: str, start: int, words: Sequence[str], literal: Sequence[bool], via: str
) -> Unwrap:
    """The words from `start` on, joined with spaces, are a script (eval, watch, ssh)."""
    if start >= len(words):
        return _NOTHING
    if not all(literal[start:]):
        return Unwrap(scripts=(Script(start, None, via),))
    return Unwrap(scripts=(Script(start, " ".join(words[start:]), via),))


def _builtin_script(name: str, words: Sequence[str], literal: Sequence[bool]) -> Unwrap:
    """Builtins with a callback or evaluation: trap, mapfile -C, complete/compgen -C/-F, hash -p."""
    if name == "trap":
        args = [w for w in words[1:] if w != "--"]
        if not args or args[0] in ("-p", "-l", "-P", "-"):
            return _NOTHING
        index = words.index(args[0], 1)
        return Unwrap(scripts=(Script(index, args[0] if literal[index] else None, "trap"),))
    flags = "".join(w[1:] for w in words[1:] if w.startswith("-") and not w.startswith("--"))
    if name in ("mapfile", "readarray") and "C" in flags:
        return Unwrap(unresolved=(f"`{name} -C` runs a callback command",))
    if name in ("complete", "compgen") and ("C" in flags or "F" in flags):
        return Unwrap(unresolved=(f"`{name} -C/-F` runs a command or function",))
    if name == "hash" and "p" in flags:
        return Unwrap(unresolved=("`hash -p` makes a command name run another program",))
    return _NOTHING


def unwrap(
    name: str | None,
    words: Sequence[str],
    literal: Sequence[bool],
    sources: Sequence[str] | None = None,
) -> Unwrap:
    """What command `words` (whose resolved name is `name`) runs, besides itself.

    `literal` says which words are literals; `sources` is the words as written (the
    default, the words themselves, suits words that needed no quoting).
    """
    if name is None or len(words) == 0:
        return _NOTHING
    if name in _HIDDEN:
        return Unwrap(unresolved=(f"`{name}` {_HIDDEN[name]}",))
    if name.casefold().startswith("git-") and len(name) > 4:  # `git push` runs git-push
        return Unwrap((Inner(1, len(words), name, prefix=("git", name[4:].casefold())),))
    if name in WRAPPERS:
        return _options(name, WRAPPERS[name], words, literal, sources or words)
    return _runs_more(name, words, literal)


def _runs_more(name: str, words: Sequence[str], literal: Sequence[bool]) -> Unwrap:
    """`find -exec`, shells, `eval`, `watch`, `ssh`, `su -c`, the wrappers not modelled, and
    the builtins with a callback: what they run, as scripts, commands or unresolved."""
    if name == "find":
        return _find(words)
    if name in SHELLS:
        return _shell(name, words, literal)
    if name in _EVAL:
        return _joined(name, 1, words, literal, "eval")
    if name == "watch":
        return _watch(words, literal)
    if name == "ssh":
        return _ssh(words, literal)
    if name in _DASH_C:
        return _dash_c(name, words, literal)
    if name in _GENERIC:
        return _generic(name, words, literal)
    if name in _STDIN_RUNNERS:
        return Unwrap(unresolved=(f"`{name}` runs commands read from its input or a file",))
    return _builtin_script(name, words, literal)


#: Run `-c script` (su, runuser, script), like a shell.
_DASH_C = frozenset({"su", "runuser", "script"})
#: Less common wrappers whose options we do not model: the first word that is not an option,
#: and the one after it (in case an option took a value), are both taken as the command.
_GENERIC = frozenset(
    {
        "fakeroot",
        "unbuffer",
        "firejail",
        "valgrind",
        "nsenter",
        "unshare",
        "numactl",
        "cgexec",
        "pkexec",
        "run0",
        "systemd-run",
        "catchsegv",
        "proot",
        "faketime",
        "tsp",
        "perf",
        "gdb",
        "caffeinate",
        "dbus-run-session",
        "xvfb-run",
        "prlimit",
        "systemd-inhibit",
        "torsocks",
        "proxychains",
        "proxychains4",
        "parallel",
        "entr",
        "sem",
        "runuser",
    }
)
#: Run commands they read from their input (`echo rm x | at now`).
_STDIN_RUNNERS = frozenset({"at", "batch"})


def _dash_c(name: str, words: Sequence[str], literal: Sequence[bool]) -> Unwrap:
    """`su -c script` (runuser, script): the script; without -c runuser runs its words."""
    for i, w in enumerate(words[1:], 1):
        short_c = w.startswith("-") and not w.startswith("--") and "c" in w
        if (w == "--command" or (short_c and w.endswith("c"))) and i + 1 < len(words):
            return Unwrap(
                scripts=(Script(i + 1, words[i + 1] if literal[i + 1] else None, f"{name} -c"),)
            )
        if w.startswith("--command=") or short_c:  # `--command=x`, `-qcx`
            return Unwrap(
                scripts=(
                    Script(i, w.split("=", 1)[1] if "=" in w else w.split("c", 1)[1], f"{name} -c"),
                )
            )
    return _generic(name, words, literal) if name == "runuser" else _NOTHING


def _generic(name: str, words: Sequence[str], literal: Sequence[bool]) -> Unwrap:
    """Every one of the first words that is not an option may be the command (for deny)."""
    starts: list[int] = []
    for k in range(1, min(len(words), 9)):
        if not literal[k]:
            return Unwrap(
                tuple(Inner(j, len(words), name) for j in starts),
                unresolved=(f"`{words[k]}` after {name} is not a literal",),
            )
        if not words[k].startswith("-") or words[k - 1] == "--":
            starts.append(k)
    return Unwrap(tuple(Inner(k, len(words), name) for k in starts))


def _watch(words: Sequence[str], literal: Sequence[bool]) -> Unwrap:
    """`watch [-n s] cmd...` runs `sh -c "cmd..."`, or the words themselves with -x."""
    i, n, direct = 1, len(words), False
    while i < n and literal[i] and words[i].startswith("-") and words[i] != "--":
        w = words[i]
        direct = direct or w in ("-x", "--exec")
        i += 2 if w in ("-n", "-q", "--interval", "--equexit") else 1
    if i < n and words[i] == "--":
        i += 1
    if direct:
        return Unwrap((Inner(i, n, "watch -x"),)) if i < n else _NOTHING
    return _joined("watch", i, words, literal, "watch")


_SSH_VALUED = frozenset("BbcDEeFIiJLlmOoPpQRSWw")


def _ssh(words: Sequence[str], literal: Sequence[bool]) -> Unwrap:
    """`ssh [options] host command...`: the command runs on the host, through its shell."""
    i, n, host = 1, len(words), False
    while i < n:
        w = words[i]
        if not literal[i]:
            return Unwrap(unresolved=(f"`{w}` among the options of ssh is not a literal",))
        if w.startswith("-") and len(w) > 1 and not host:
            skip = 1
            for j in range(1, len(w)):
                if w[j] in _SSH_VALUED:
                    skip = 1 if j + 1 < len(w) else 2
                    break
            i += skip
            continue
        if not host:
            host = True
            i += 1
            continue
        break
    return _joined("ssh", i, words, literal, "ssh")
