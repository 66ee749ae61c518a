"""Typed events the session emits; every front end renders the same stream."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from codebot.agent.model import Usage


@dataclass(frozen=True, slots=True)
class TextDelta:
    text: str
    depth: int = 0  # 0 for the main conversation, 1+ inside sub-agents


@dataclass(frozen=True, slots=True)
class AssistantText:
    """A whole assistant message, after its deltas."""

    text: str
    depth: int = 0


@dataclass(frozen=True, slots=True)
class ToolStarted:
    call_id: str
    name: str
    arguments: dict[str, Any]
    depth: int = 0


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """Output of a running tool (Bash) as it arrives, between its ToolStarted and ToolFinished:
    whole lines joined by newlines, escape sequences already removed, at most about ten
    events a second per call. For the screen only: ToolFinished still carries the whole
    result, which is what the model sees."""

    call_id: str
    text: str
    depth: int = 0


@dataclass(frozen=True, slots=True)
class ToolFinished:
    call_id: str
    name: str
    status: str  # ok | error | denied
    content: str
    ms: float
    depth: int = 0


@dataclass(frozen=True, slots=True)
class SkillActivated:
    name: str
    actor: str
    mode: str  # inline | fork
    source: str
    delta: dict[str, Any] = field(default_factory=dict)
    depth: int = 0


@dataclass(frozen=True, slots=True)
class SkillEnded:
    """How a skill run ended (issue 35): its outcome's status and summary."""

    name: str
    status: str  # success | failed | partial | needs_confirmation
    summary: str = ""
    ms: float = 0.0
    mode: str = "inline"
    actor: str = ""
    timed_out: bool = False
    depth: int = 0


@dataclass(frozen=True, slots=True)
class Notice:
    """Something worth a line in the UI that is not part of the conversation."""

    text: str
    level: str = "info"  # info | warning


@dataclass(frozen=True, slots=True)
class ErrorEvent:
    message: str
    kind: str = "error"  # a ModelError kind, "skill", "tool", ...


@dataclass(frozen=True, slots=True)
class TurnEnded:
    usage: Usage
    cancelled: bool = False
    error: str | None = None
    text: str = ""


Event = (
    TextDelta
    | AssistantText
    | ToolStarted
    | ToolOutput
    | ToolFinished
    | SkillActivated
    | SkillEnded
    | Notice
    | ErrorEvent
    | TurnEnded
)
