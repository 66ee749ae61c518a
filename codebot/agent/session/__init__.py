"""The session side: the turn loop and its per-turn state, sub-agents, agent
definitions, transcripts, the typed events front ends render, and `setup`, which
assembles a session from settings.

May import: `codebot.skills`, `codebot.config`, every earlier agent stage.
"""

from codebot._exports import lazy_exports

_EXPORTS = {
    "ResumeChoice": "resume",
    "SetupError": "resume",
    "build_session": "setup",
    "load_messages": "transcript",
    "select_client": "setup",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
