"""What a front end asks of `setup` before anything heavy is loaded: which session to
resume, and the error when that cannot be done.

Its own module so the CLI can build a ResumeChoice without importing the session loop,
the tools and the model side before the TUI's first paint (about 0.3 s).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class ResumeChoice:
    continue_latest: bool = False
    session_id: str | None = None
    #: What the front end restored from the session's setup record (`commands/resume_setup`),
    #: said at start with the other notices.
    restored: tuple[str, ...] = ()


class SetupError(Exception):
    """A problem the person must fix before a session can start (message says how)."""
