"""Expand a skill body: shell injections, variables and arguments, in ONE pass.

Every placeholder is found in the original body, and each is replaced once. So a value
(an argument, a command's output) is never scanned again: an argument containing
`` !`rm -rf ~` `` or `$ARGUMENTS` stays text, and no argument can become a command.

Placeholder rule (documented in docs/skills.md):
- `$ARGUMENTS` / `${ARGUMENTS}` is always live.
- Positional `$1`..`$9` and `$ARGUMENTS[N]` are live only in skills that declare
  `arguments` or an `argument-hint`; then `$1` is not a placeholder when it is glued to a
  word or `$` before it (`$B$1`) or continues as a number (`$1,000`, `$1.50`, `$10`).
- `$name` / `${name}` is live for names declared in `arguments`; others stay literal.
- `\\$` is a literal `$`.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

OUTPUT_CAP = 30_000
VARIABLES = ("SKILL_DIR", "SESSION_ID", "PROJECT_DIR")

_PATTERN = re.compile(
    # The lookahead lets the engine skip every position that cannot start a placeholder:
    # without it, expanding a 300-line body took ~0.5 ms instead of a few microseconds.
    r"(?=[`!\\$])"
    r"(?:(?P<block>^```![^\n]*\n(?P<block_cmd>.*?)^```[ \t]*$)"
    r"|(?P<inline>(?<!\S)!`(?P<inline_cmd>[^`\n]+)`)"
    r"|(?P<escape>\\\$)"
    r"|(?P<var>\$\{(?:CODEBOT|CLAUDE)_(?P<var_name>SKILL_DIR|SESSION_ID|PROJECT_DIR)\})"
    r"|(?P<all>\$\{ARGUMENTS\}|\$ARGUMENTS(?!\[)(?!\w))"
    r"|(?P<index>\$ARGUMENTS\[(?P<index_n>\d+)\])"
    r"|(?P<pos>(?<![\w$])\$(?P<pos_n>[1-9])(?![\d]|[,.]\d))"
    r"|(?P<named>\$\{(?P<named_b>[A-Za-z_]\w*)\}|\$(?P<named_p>[A-Za-z_]\w*)))",
    re.MULTILINE | re.DOTALL,
)


class ShellRefused(Exception):
    """Raised by a runner when a command may not run (denied, not approved): the body
    then carries a `[command not run: …]` marker and the invocation goes on."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class ShellError(Exception):
    def __init__(self, command: str, output: str, code: int | None, reason: str) -> None:
        super().__init__(reason)
        self.command = command
        self.output = output
        self.code = code
        self.reason = reason


@dataclass(frozen=True, slots=True)
class ShellCall:
    command: str
    line: int
    ran: bool
    output: str = ""


@dataclass(frozen=True, slots=True)
class Expansion:
    text: str
    shell: tuple[ShellCall, ...]
    had_placeholder: bool
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ShellPolicy:
    """How `!` commands are treated: run, listed only (dry run), or refused (untrusted)."""

    mode: str = "run"  # "run" | "list" | "refuse"
    cwd: Path = Path(".")
    timeout: float = 120.0
    env: Mapping[str, str] = field(default_factory=dict)
    refuse_reason: str = "this skill may not run shell commands"  # for mode "refuse"
    # Turns ["/bin/bash", "-c", cmd] into the argv that runs it (the agent's sandbox), or None.
    wrap: Callable[[list[str]], list[str]] | None = None


Runner = Callable[[str, ShellPolicy], str]


def not_run(command: str, reason: str) -> str:
    """The marker that stands in the body where a command that did not run was."""
    return f"[command not run: {reason}: `{command}`]"


def split_arguments(raw: str) -> tuple[list[str], str | None]:
    """Shell-style split; unbalanced quotes (`don't`) fall back to whitespace, with a note."""
    if not raw.strip():
        return [], None
    try:
        return shlex.split(raw), None
    except ValueError as exc:
        return raw.split(), f"arguments were split on spaces ({exc}: quotes ignored)"


def run_shell(command: str, policy: ShellPolicy) -> str:
    """Run one injection in the project folder; raise ShellError on failure or timeout."""
    env = {**os.environ, **policy.env}
    argv = ["/bin/bash", "-c", command]
    if policy.wrap is not None:
        argv = policy.wrap(argv)
    proc = subprocess.Popen(
        argv, cwd=policy.cwd, env=env, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        out, _ = proc.communicate(timeout=policy.timeout)
    except subprocess.TimeoutExpired:
        # Kill the whole group: a backgrounded child would otherwise keep the pipe open.
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        out, _ = proc.communicate()
        raise ShellError(command, _cap(out), None, f"timed out after {policy.timeout:g} s") from None
    text = _cap(out)
    if proc.returncode != 0:
        raise ShellError(command, text, proc.returncode, f"exited with status {proc.returncode}")
    return text


def _cap(data: bytes) -> str:
    text = data.decode("utf-8", errors="replace")
    if len(text) > OUTPUT_CAP:
        return text[:OUTPUT_CAP] + f"\n[output truncated: {len(text):,} characters, showing {OUTPUT_CAP:,}]"
    return text.rstrip("\n")


def expand(
    body: str,
    *,
    args: Sequence[str],
    raw_args: str,
    declared: Sequence[str],
    positional_live: bool,
    variables: Mapping[str, str],
    shell: ShellPolicy,
    runner: Runner = run_shell,
) -> Expansion:
    """Expand `body` in one left-to-right pass. Raises ShellError if a command fails."""
    declared_set = set(declared)
    named_values = {name: (args[i] if i < len(args) else "") for i, name in enumerate(declared)}
    calls: list[ShellCall] = []
    notes: list[str] = []
    placeholder = False

    def replace(m: re.Match[str]) -> str:
        nonlocal placeholder
        if m.group("block") is not None or m.group("inline") is not None:
            cmd = (m.group("block_cmd") if m.group("block") is not None else m.group("inline_cmd")).strip()
            line = body.count("\n", 0, m.start()) + 1
            if shell.mode == "run":
                try:
                    out = runner(cmd, shell)
                except ShellRefused as refused:
                    calls.append(ShellCall(cmd, line, False))
                    notes.append(f"line {line}: command `{cmd}` not run: {refused.reason}")
                    return not_run(cmd, refused.reason)
                calls.append(ShellCall(cmd, line, True, out))
                return out
            calls.append(ShellCall(cmd, line, False))
            if shell.mode == "refuse":
                notes.append(f"line {line}: command `{cmd}` not run: {shell.refuse_reason}")
                return not_run(cmd, shell.refuse_reason)
            return m.group(0)
        if m.group("escape") is not None:
            return "$"
        if m.group("var") is not None:
            return variables.get(m.group("var_name"), m.group(0))
        if m.group("all") is not None:
            placeholder = True
            return raw_args
        if m.group("index") is not None:
            if not positional_live:
                return m.group(0)
            placeholder = True
            digits = m.group("index_n")
            # An index longer than any argument list could be is empty (and int() of a
            # 5,000-digit number would raise).
            n = int(digits) if len(digits) <= 9 else len(args)
            return args[n] if n < len(args) else ""
        if m.group("pos") is not None:
            if not positional_live:
                return m.group(0)
            placeholder = True
            n = int(m.group("pos_n")) - 1
            return args[n] if n < len(args) else ""
        name = m.group("named_b") or m.group("named_p")
        if name in declared_set:
            placeholder = True
            return named_values[name]
        return m.group(0)

    text = _PATTERN.sub(replace, body)
    return Expansion(text, tuple(calls), placeholder, tuple(notes))
