"""`Emit`: how a session and its collaborators tell the front end what happens (typed
events, and approval requests carrying a future the front end resolves)."""

from __future__ import annotations

from collections.abc import Callable

from codebot.agent.permissions import ApprovalRequest
from codebot.agent.session import events as ev

Emit = Callable[[ev.Event | ApprovalRequest], None]


def no_emit(_event: ev.Event | ApprovalRequest) -> None:
    """For a session nobody watches (tests, benches): events go nowhere."""
