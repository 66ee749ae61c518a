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
import selectors
import shlex
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from codebot.environment import command_env

OUTPUT_CAP = 30_000
#: The most bytes of a command's output that are read: OUTPUT_CAP characters of UTF-8 (at
#: most 4 bytes each). A command that prints more is stopped (`run_shell`).
READ_LIMIT = OUTPUT_CAP * 4
CHUNK = 64 * 1024
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
    """Run one injection in the project folder; raise ShellError on failure or timeout.

    The output is read in chunks and at most READ_LIMIT bytes are kept: a command that
    prints more is stopped there, its whole process group killed, and its text ends with
    a `[output truncated: …]` marker (a command printing 200 MB costs no more memory than
    one printing 200 KB). A command that stops printing but keeps running is killed at
    the timeout."""
    env = command_env(os.environ, set=policy.env)  # no secret variables (codebot/environment.py)
    argv = ["/bin/bash", "-c", command]
    if policy.wrap is not None:
        try:
            argv = policy.wrap(argv)
        except Exception as exc:  # the sandbox cannot be set up (its masks may be incomplete)
            raise ShellRefused(str(exc)) from None
    proc = subprocess.Popen(
        argv,
        cwd=policy.cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    deadline = time.monotonic() + policy.timeout
    data, over, timed_out, done = b"", False, False, False
    try:
        assert proc.stdout is not None
        data, over, timed_out = read_bounded(proc.stdout.fileno(), READ_LIMIT, deadline)
        if not over and not timed_out:  # the output ended: the command has the time left to exit
            try:
                proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                timed_out = True
        done = not over and not timed_out
    finally:
        if not done:  # past the cap, timed out, or interrupted: the whole group goes
            _kill_group(proc)
        if proc.stdout is not None:
            proc.stdout.close()
    if timed_out:
        raise ShellError(command, _cap(data, over), None, f"timed out after {policy.timeout:g} s")
    text = _cap(data, over)
    if not over and proc.returncode != 0:
        raise ShellError(command, text, proc.returncode, f"exited with status {proc.returncode}")
    return text


def read_bounded(fd: int, limit: int, deadline: float) -> tuple[bytes, bool, bool]:
    """Read `fd` until end of file, more than `limit` bytes, or `deadline` (a
    `time.monotonic()` time): (data, over the limit, timed out). Never holds more than
    `limit + 1` bytes, whatever the writer sends."""
    chunks: list[bytes] = []
    total = 0
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return b"".join(chunks), False, True
            if not sel.select(left):
                continue
            chunk = os.read(fd, min(CHUNK, limit + 1 - total))
            if not chunk:
                return b"".join(chunks), False, False
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                return b"".join(chunks), True, False


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    # The whole group: a child (`yes | …`, `server &`) would otherwise keep running, and
    # keep the pipe open.
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    proc.wait()


def _cap(data: bytes, stopped: bool = False) -> str:
    text = data.decode("utf-8", errors="replace")
    if stopped:
        return text[:OUTPUT_CAP] + (
            f"\n[output truncated: the command printed more than {READ_LIMIT:,} bytes "
            f"and was stopped; showing the first {OUTPUT_CAP:,} characters]"
        )
    if len(text) > OUTPUT_CAP:
        return (
            text[:OUTPUT_CAP]
            + f"\n[output truncated: {len(text):,} characters, showing {OUTPUT_CAP:,}]"
        )
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
    expander = _Expander(body, args, raw_args, declared, positional_live, variables, shell, runner)
    text = _PATTERN.sub(expander.replace, body)
    return Expansion(text, tuple(expander.calls), expander.placeholder, tuple(expander.notes))


class _Expander:
    """The state of one `expand` pass: `replace` is called for each `_PATTERN` match, in
    order, and records the commands, the notes and whether a placeholder was filled."""

    def __init__(
        self,
        body: str,
        args: Sequence[str],
        raw_args: str,
        declared: Sequence[str],
        positional_live: bool,
        variables: Mapping[str, str],
        shell: ShellPolicy,
        runner: Runner,
    ) -> None:
        self.body = body
        self.args = args
        self.raw_args = raw_args
        self.declared_set = set(declared)
        self.named_values = {
            name: (args[i] if i < len(args) else "") for i, name in enumerate(declared)
        }
        self.positional_live = positional_live
        self.variables = variables
        self.shell = shell
        self.runner = runner
        self.calls: list[ShellCall] = []
        self.notes: list[str] = []
        self.placeholder = False

    def replace(self, m: re.Match[str]) -> str:
        if m.group("block") is not None or m.group("inline") is not None:
            return self._command(m)
        if m.group("escape") is not None:
            return "$"
        if m.group("var") is not None:
            return self.variables.get(m.group("var_name"), m.group(0))
        return self._argument(m)

    def _command(self, m: re.Match[str]) -> str:
        """A !`command` (inline or fenced block): run, refused, or left as written."""
        cmd = (
            m.group("block_cmd") if m.group("block") is not None else m.group("inline_cmd")
        ).strip()
        line = self.body.count("\n", 0, m.start()) + 1
        shell = self.shell
        if shell.mode == "run":
            try:
                out = self.runner(cmd, shell)
            except ShellRefused as refused:
                self.calls.append(ShellCall(cmd, line, False))
                self.notes.append(f"line {line}: command `{cmd}` not run: {refused.reason}")
                return not_run(cmd, refused.reason)
            self.calls.append(ShellCall(cmd, line, True, out))
            return out
        self.calls.append(ShellCall(cmd, line, False))
        if shell.mode == "refuse":
            self.notes.append(f"line {line}: command `{cmd}` not run: {shell.refuse_reason}")
            return not_run(cmd, shell.refuse_reason)
        return m.group(0)

    def _argument(self, m: re.Match[str]) -> str:
        """$ARGUMENTS, $ARGUMENTS[n], $n or a declared $name; anything else as written."""
        args = self.args
        if m.group("all") is not None:
            self.placeholder = True
            return self.raw_args
        if m.group("index") is not None:
            if not self.positional_live:
                return m.group(0)
            self.placeholder = True
            digits = m.group("index_n")
            # An index longer than any argument list could be is empty (and int() of a
            # 5,000-digit number would raise).
            n = int(digits) if len(digits) <= 9 else len(args)
            return args[n] if n < len(args) else ""
        if m.group("pos") is not None:
            if not self.positional_live:
                return m.group(0)
            self.placeholder = True
            n = int(m.group("pos_n")) - 1
            return args[n] if n < len(args) else ""
        name = m.group("named_b") or m.group("named_p")
        if name in self.declared_set:
            self.placeholder = True
            return self.named_values[name]
        return m.group(0)
