"""The session side: the turn loop and its per-turn state, sub-agents, agent
definitions, transcripts, the typed events front ends render, and `setup`, which
assembles a session from settings.

May import: `codebot.skills`, `codebot.config`, every earlier agent stage.
"""

from typing import TYPE_CHECKING

from codebot._exports import lazy_exports

if TYPE_CHECKING:  # what the lazy table loads, spelled out for the type checker
    from codebot.agent.session.resume import ResumeChoice, SetupError
    from codebot.agent.session.setup import build_session, select_client
    from codebot.agent.session.transcript import load_messages

_EXPORTS = {
    "ResumeChoice": "resume",
    "SetupError": "resume",
    "build_session": "setup",
    "load_messages": "transcript",
    "select_client": "setup",
}
__all__ = ["ResumeChoice", "SetupError", "build_session", "load_messages", "select_client"]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
