"""What the conversation opens with: the welcome lines, the start-up warnings, and the last
turns of a resumed session (also shown again after `/resume`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import codebot
from codebot.display import home_short
from codebot.ui.tui.conversation import Conversation

if TYPE_CHECKING:  # the controller's imports load after the first paint
    from codebot.ui.controller import Controller


async def welcome(conversation: Conversation, c: Controller) -> None:
    project = home_short(c.settings.project_dir)
    await conversation.add_line(
        f"codebot {codebot.__version__} · {project} · "
        f"{c.skill_count()} skills · /help for commands and keys"
    )
    if c.offline:
        from codebot.agent.model import HOW_TO

        await conversation.add_line(
            "No model is configured, so codebot runs offline. " + HOW_TO, "warning"
        )
    for warning in (
        *c.settings.warnings,
        *c.session.approvals.warnings,
        *filter(None, [c.session.sandbox_notice]),
    ):
        await conversation.add_line(warning, "warning")
    await show_resumed(conversation, c)


async def show_resumed(conversation: Conversation, c: Controller) -> None:
    """`--continue`/`--resume`: the last turns of the loaded history, headed by the
    session it is (a new session's transcript file does not exist before its first
    message, so a file already there means a resumed one)."""
    from codebot.agent.session.transcript import DamagedSession, read_header
    from codebot.ui.resume_view import resume_view

    session = c.session
    transcript = session.transcript
    if transcript is None or not transcript.path.exists() or not session.history:
        return
    try:
        header = read_header(transcript.path)
    except DamagedSession:
        header = None
    for item in resume_view(
        session.history, session.id, header.created if header is not None else None
    ):
        if item.kind == "user":
            await conversation.add_user(item.text)
        elif item.kind == "assistant":
            await conversation.add_markdown(item.text)
        elif item.kind == "tool":
            await conversation.add_line(f"⚙ {item.text} · {item.status}", "notice")
        else:
            await conversation.add_line(item.text, "skill" if item.kind == "heading" else "notice")
