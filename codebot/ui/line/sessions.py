"""Line mode and saved sessions: the history shown when a session is resumed, the picker
`/resume` opens (a numbered table and a question), and the line that says how to come
back after quitting.

What is shown comes from `codebot.ui.resume_view` (shared with the TUI) and what `/resume`
does from the controller; this module only draws it as plain lines.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from codebot.agent.session.transcript import DamagedSession, read_header
from codebot.ui.line.render import Sink, clip, width
from codebot.ui.line.wrap import wrap_text
from codebot.ui.resume_view import Item, SessionRow, pick, resume_view

if TYPE_CHECKING:
    from codebot.agent.session.loop import Session
    from codebot.ui.controller import Controller

__all__ = [
    "continue_hint",
    "draw",
    "pick",
    "pick_session",
    "session_table",
    "show_resumed",
    "show_switched",
]

PICK = "resume which? number or id (Enter: none): "
MARKS = {"ok": "✓", "error": "✗ error", "denied": "✗ denied", "interrupted": "✗ interrupted"}


# -- the resumed history ------------------------------------------------------------------------


def show_resumed(sink: Sink, session: Session) -> None:
    """The resumed session's last turns, when it is one: a new session's transcript file is
    written only with its first message, so a file already there means a resumed one."""
    transcript = session.transcript
    if transcript is None or not transcript.path.exists():
        return
    try:
        header = read_header(transcript.path)
    except DamagedSession:
        header = None
    draw(
        sink,
        resume_view(session.history, session.id, header.created if header is not None else None),
    )


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


def continue_hint(session: Session) -> str | None:
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


async def pick_session(
    controller: Controller, sink: Sink, *, ask: Callable[[str], Awaitable[str]]
) -> str:
    """Line mode's picker for `/resume` alone: this project's other sessions, newest first,
    as a numbered table, and a question; what was answered ("" for none: said so)."""
    rows = controller.session_rows()
    sink.line(session_table(rows, sink.wrap_width() or width() - 1))
    try:
        choice = (await ask(PICK)).strip()
    except (EOFError, KeyboardInterrupt):
        choice = ""
    if not choice:
        sink.line(wrap_text("(not resumed)", sink.wrap_width()))
        sink.line("")
    return choice


def show_switched(sink: Sink, session: Session) -> None:
    """After `/resume ID` switched sessions: the new one's warnings, then its history."""
    for notice in session.transcript.notices if session.transcript is not None else ():
        sink.line(wrap_text(f"warning: {notice}", sink.wrap_width()))
    show_resumed(sink, session)


def session_table(rows: Sequence[SessionRow], cols: int) -> str:
    lines = [f"{'':>3}  {'ID':<26} {'STARTED':<17} FIRST PROMPT"]
    for n, r in enumerate(rows, 1):
        lines.append(
            clip(f"{n:>3}  {r.id:<26} {r.started:<17} {r.first_prompt or '(no prompt)'}", cols)
        )
    lines.append("(pick one by number; or, after quitting: codebot --resume ID)")
    return "\n".join(lines)
