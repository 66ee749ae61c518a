"""Whether a command that failed inside the sandbox earns the offer to run it once outside.

A command prints its own errors, so "Read-only file system" in its output is only a
claim: `touch X` and 120 blank lines, then `echo "touch: cannot touch 'x': Read-only file
system"; exit 1` would otherwise earn a run outside the sandbox for whatever it holds. The
note the model gets stays informative (`sandbox.explain_failure`); the offer, made from
`ToolResult.sandbox_failure`, counts a claim only when a fact codebot checks backs it:

* EROFS / EBUSY ("Read-only file system", "Device or resource busy"): a path the error
  line names, resolved against the command's working folder, is read-only inside the
  sandbox (`sandbox.is_read_only_in_sandbox`: outside the writable folders, or a protected
  name, or masked). A writable path, /tmp, or no path at all: no offer.
* EACCES / ENOENT ("Permission denied", "No such file or directory"): the line names a
  path the policy masks (a denied path, a credential store, codebot's home).
* No network: the policy has none, and the command runs a program that uses it
  (`runs_network_program` on the commands the shell parser finds). Tools come before the
  parser in the flow, so `checked_failure` puts this claim last, as `NETWORK_NOTE`, and the
  session drops it (`offer_reason`) unless the parsed command names such a program.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from codebot.agent.tools.sandbox import (
    _BUSY,
    _EROFS,
    _MISSING,
    _NO_NETWORK,
    _REFUSED,
    SandboxPolicy,
    _hidden_names,
    _real,
    _under,
    is_read_only_in_sandbox,
)

__all__ = ["NETWORK_NOTE", "checked_failure", "named_paths", "offer_reason", "runs_network_program"]

#: The network part of a reason, always last: the session checks it against the command.
NETWORK_NOTE = "the sandbox has no network"
#: Bounds on hostile output: error lines looked at, and words tried as paths in each.
_MAX_LINES = 50
_MAX_NAMES = 8
_QUOTED = re.compile(
    r"'([^'\n]{1,4096})'|\"([^\"\n]{1,4096})\"|`([^`'\n]{1,4096})'|‘([^’\n]{1,4096})’"
)
_EDGES = "'\"`‘’()[]{}<>,;:"

#: Programs that use the network whatever they are asked to do.
_ALWAYS = frozenset(
    {
        "curl",
        "wget",
        "ssh",
        "scp",
        "sftp",
        "rsync",
        "nc",
        "ncat",
        "netcat",
        "socat",
        "telnet",
        "ftp",
        "ping",
        "ping6",
        "dig",
        "nslookup",
        "host",
        "http",
        "https",
        "aria2c",
        "npx",
        "bunx",
        "pnpx",
        "uvx",
        "pipx",
        "gh",
        "hub",
        "glab",
        "aws",
        "gcloud",
        "az",
        "kubectl",
        "helm",
        "docker",
        "podman",
        "mvn",
        "gradle",
        "gradlew",
        "sbt",
        "brew",
        "yarn",
    }
)
_INSTALL = frozenset(
    {
        "install",
        "i",
        "add",
        "ci",
        "update",
        "upgrade",
        "up",
        "download",
        "fetch",
        "publish",
        "search",
        "sync",
        "lock",
        "restore",
        "get",
    }
)
#: Programs that use it for some subcommands (the first word that is not an option).
_SUBCOMMANDS: dict[str, frozenset[str]] = {
    "git": frozenset({"fetch", "pull", "push", "clone", "ls-remote", "submodule", "remote", "lfs"}),
    **dict.fromkeys(
        (
            "pip",
            "pip3",
            "uv",
            "poetry",
            "pdm",
            "npm",
            "pnpm",
            "bun",
            "gem",
            "bundle",
            "composer",
            "conda",
            "mamba",
            "micromamba",
            "apt",
            "apt-get",
            "dnf",
            "yum",
            "apk",
            "dotnet",
            "deno",
        ),
        _INSTALL | {"pip", "view", "info", "dlx", "exec", "create"},
    ),
    **dict.fromkeys(
        ("cargo", "go"), _INSTALL | {"build", "run", "test", "check", "mod", "b", "r", "t"}
    ),
}
_GIT_VALUE_OPTIONS = frozenset(
    {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"}
)


def runs_network_program(commands: Iterable[Sequence[str]]) -> bool:
    """Whether any of these commands (argv lists, as the shell parser finds them, wrappers
    and nested scripts included) runs a program that uses the network: `curl`, `git
    fetch`, `npm install`, `python -m pip install`, ..."""
    for words in commands:
        words = list(words)
        if len(words) > 2 and re.fullmatch(r"python[0-9.]*", Path(words[0]).name) and "-m" in words:
            words = words[words.index("-m") + 1 :]
        if not words:
            continue
        name = Path(words[0]).name
        if name in _ALWAYS:
            return True
        wanted = _SUBCOMMANDS.get(name)
        rest = iter(words[1:])
        for word in rest:
            if name == "git" and word in _GIT_VALUE_OPTIONS:
                next(rest, None)
            elif not word.startswith("-"):
                if wanted is not None and word in wanted:
                    return True
                break
    return False


def offer_reason(why: str, commands: Iterable[Sequence[str]]) -> str:
    """`why` (from `checked_failure`) less a network claim the commands cannot have earned;
    "" when nothing is left, and then nothing is offered."""
    if (why == NETWORK_NOTE or why.endswith("; " + NETWORK_NOTE)) and not runs_network_program(
        commands
    ):
        return why.removesuffix(NETWORK_NOTE).removesuffix("; ")
    return why


def named_paths(line: str) -> list[str]:
    """The words of an error line that may be the path it is about: quoted parts first
    (`touch: cannot touch 'a b'`, Python's `[Errno 30] ...: '/usr/x'`), then the words
    between blanks and colons (`bash: /usr/x: Read-only file system`)."""
    found = [next(g for g in m.groups() if g is not None) for m in _QUOTED.finditer(line)]
    for word in re.split(r"\s+", line):
        word = word.strip(_EDGES)
        if word and (word.startswith(("/", ".", "~")) or "/" in word):
            found.append(word)
    return list(dict.fromkeys(f for f in found if f.strip() and "\x00" not in f))[:_MAX_NAMES]


def _shown(path: Path, cwd: Path) -> str:
    text = path.relative_to(cwd).as_posix() if _under(path, cwd) and path != cwd else str(path)
    return text if len(text) <= 120 else text[:119] + "…"


def checked_failure(
    returncode: int | None, output: str, policy: SandboxPolicy, cwd: Path | str | None = None
) -> str | None:
    """Why the sandbox made this command fail, from facts codebot checked (module doc), in
    words for the person asked to run it outside; None when nothing backs the claim."""
    if not returncode:
        return None
    where = _real(cwd if cwd is not None else policy.project)
    lines = list(dict.fromkeys(output.splitlines()))
    notes: list[str] = []
    blocked: list[str] = []
    for line in [ln for ln in lines if any(m in ln.lower() for m in (*_EROFS, *_BUSY))][
        :_MAX_LINES
    ]:
        for name in named_paths(line):
            if name.startswith("~"):
                continue  # the shell expands `~` before the error is printed
            path = _real(where / name)
            if is_read_only_in_sandbox(path, policy, where) and _shown(path, where) not in blocked:
                blocked.append(_shown(path, where))
                break
    if blocked:
        notes.append(f"the sandbox keeps {', '.join(blocked[:3])} read-only")
    failing = [ln.lower() for ln in lines if any(m in ln.lower() for m in _MISSING)][:_MAX_LINES]
    hidden = [
        shown
        for shown, pattern in _hidden_names(policy, _real(policy.project)).items()
        if any(pattern.search(line) for line in failing)
    ]
    if hidden:
        notes.append(f"the sandbox hides {', '.join(hidden)} (denied paths and credentials)")
    if not policy.network and any(
        m in ln.lower() for ln in lines for m in (*_NO_NETWORK, *_REFUSED)
    ):
        notes.append(NETWORK_NOTE)
    return "; ".join(notes) or None
