"""Line mode and saved sessions: the history shown when a session is resumed, `/resume`
(pick another of this project's sessions and switch to it in place), and the line that
says how to come back after quitting.

What is shown comes from `codebot.ui.resume_view` (shared with the TUI); this module only
draws it as plain lines and does the switching.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from codebot.agent.session.transcript import DamagedSession, read_header
from codebot.ui import commands
from codebot.ui.line.render import Sink, clip, width
from codebot.ui.line.wrap import wrap_text
from codebot.ui.resume_view import Item, SessionRow, resume_view, session_rows

# `/resume` is line mode's own command until `commands.BUILTINS` has it (the TUI does not
# switch sessions yet); like every built-in it wins over a skill of the same name.
RESUME = commands.Completion("resume", "[id]", "switch to another saved session of this project", "builtin")
RESUME_HELP = f"  /{RESUME.name} {RESUME.hint}  — {RESUME.description}"
PICK = "resume which? number or id (Enter: none): "
MARKS = {"ok": "✓", "error": "✗ error", "denied": "✗ denied", "interrupted": "✗ interrupted"}

Complete = Callable[..., list[commands.Completion]]


def with_resume(complete: Complete) -> Complete:
    """The controller's completions with `/resume` among the built-ins."""

    def completions(prefix: str, limit: int = 50) -> list[commands.Completion]:
        q = prefix.strip().lower()
        score = commands.fuzzy_score(q, RESUME.name)
        found = complete(prefix, limit)
        if score is None:
            return found
        found = [c for c in found if c.name != RESUME.name]  # a skill named resume: the built-in wins

        def beaten(c: commands.Completion) -> bool:
            other = commands.fuzzy_score(q, c.name) or 0.0
            return other < score or (other == score and c.kind == "skill")  # built-ins first on a tie

        at = next((i for i, c in enumerate(found) if beaten(c)), len(found))
        return [*found[:at], RESUME, *found[at:]][:limit]

    return completions


# -- the resumed history ------------------------------------------------------------------------


def show_resumed(sink: Sink, session: Any) -> None:
    """The resumed session's last turns, when it is one: a new session's transcript file is
    written only with its first message, so a file already there means a resumed one."""
    transcript = session.transcript
    if transcript is None or not transcript.path.exists():
        return
    try:
        header = read_header(transcript.path)
    except DamagedSession:
        header = None
    draw(sink, resume_view(session.history, session.id, header.created if header is not None else None))


def draw(sink: Sink, items: Sequence[Item]) -> None:
    """Items as the live conversation looks: `> ` before what was typed, the answers as
    text, a tool call on one line with its outcome."""
    cols = sink.wrap_width()
    for item in items:
        if item.kind == "user":
            typed = wrap_text(item.text, cols - 2 if cols else None)
            sink.line("> " + typed.replace("\n", "\n  "))
        elif item.kind == "tool":
            mark = MARKS.get(item.status, item.status)
            sink.line(clip(f"→ {item.text}", (cols or width() - 1) - len(mark) - 2) + "  " + mark)
        else:
            sink.line(wrap_text(item.text, cols))
    sink.line("")


# -- after quitting ---------------------------------------------------------------------------


def continue_hint(session: Any) -> str | None:
    """How to come back to this session, once it holds a message (else there is nothing to
    come back to); None without a transcript."""
    if not session.history or session.transcript is None:
        return None
    sid = session.id
    hint = f"session {sid} · codebot --continue (or codebot --resume {sid})"
    if session.transcript.error:
        hint += " · saved only up to the write that failed"
    return hint


# -- /resume ----------------------------------------------------------------------------------


async def resume_command(controller: Any, sink: Sink, args: str, *, ask: Callable[[str], Awaitable[str]]) -> None:
    """`/resume`: this project's other sessions, newest first, to pick one by number;
    `/resume ID` (or a number from the list) switches at once."""
    settings = controller.settings
    rows = session_rows(settings.home / "sessions", settings.project_dir, exclude=controller.session.id)
    choice = args.strip()
    if not choice:
        if not rows:
            _say(sink, f"no other saved session for {settings.project_dir}; `codebot sessions --all` lists "
                       "every project's")  # fmt: skip
            return
        sink.line(session_table(rows, sink.wrap_width() or width() - 1))
        try:
            choice = (await ask(PICK)).strip()
        except (EOFError, KeyboardInterrupt):
            choice = ""
        if not choice:
            _say(sink, "(not resumed)")
            return
    picked = pick(choice, rows, controller.session.id)
    if picked.startswith("error: "):
        _say(sink, picked)
        return
    from codebot.agent.session import SetupError

    try:
        controller.switch_session(picked)  # the same switch as the TUI's /resume
        session = controller.session
    except SetupError as exc:
        _say(sink, f"error: {exc}")
        return
    for notice in session.transcript.notices if session.transcript is not None else ():
        sink.line(wrap_text(f"warning: {notice}", sink.wrap_width()))
    show_resumed(sink, session)


def _say(sink: Sink, text: str) -> None:
    """A reply to `/resume`: wrapped like any prose, then the blank line every reply ends with."""
    sink.line(wrap_text(text, sink.wrap_width()))
    sink.line("")


def session_table(rows: Sequence[SessionRow], cols: int) -> str:
    lines = [f"{'':>3}  {'ID':<26} {'STARTED':<17} FIRST PROMPT"]
    for n, r in enumerate(rows, 1):
        lines.append(clip(f"{n:>3}  {r.id:<26} {r.started:<17} {r.first_prompt or '(no prompt)'}", cols))
    lines.append("(pick one by number; or, after quitting: codebot --resume ID)")
    return "\n".join(lines)


def pick(choice: str, rows: Sequence[SessionRow], current: str) -> str:
    """The session id `choice` names (a number in the list, or an id), or "error: …"."""
    if choice.isdigit() and len(choice) <= 3:
        n = int(choice)
        if 1 <= n <= len(rows):
            return rows[n - 1].id
        return f"error: no session numbered {n}; /resume lists them"
    if choice == current:
        return f"error: session {current} is the one in use"
    if "/" in choice or "\\" in choice or choice.startswith("."):
        return f"error: no session {choice!r}; /resume lists them"  # an id is a file name, never a path
    return choice
