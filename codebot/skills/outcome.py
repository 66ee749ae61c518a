"""How a skill run ended: the structured outcome code branches on (issue 35).

Every skill run — inline or fork, by the person or the model, or a workflow step — ends
with one `Outcome`. The model never decides what runs next from its own prose: a fork's
sub-agent reports through the `SkillOutcome` tool, an inline skill's outcome follows from
how its turn ended, and a workflow reads `status` to choose its next step.

Pure data, no imports from other stages, so every layer can carry it.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


class Status(enum.StrEnum):
    SUCCESS = "success"
    FAILED = "failed"
    PARTIAL = "partial"
    NEEDS_CONFIRMATION = "needs_confirmation"


# Worse outcomes rank higher: a parallel group's outcome is the worst of its members'.
_RANK = {
    Status.SUCCESS: 0,
    Status.PARTIAL: 1,
    Status.NEEDS_CONFIRMATION: 2,
    Status.FAILED: 3,
}

NO_OUTCOME = "no outcome reported"


class OutcomeError(ValueError):
    """A value that is not an outcome (from a transcript, a tool call or a test)."""


@dataclass(frozen=True)
class Outcome:
    """`status` and a one-paragraph `summary`; `data` is the skill's structured result
    (validated against its `outputs:` schema when it declares one). `timed_out` marks a
    failure by timeout, which a workflow's `on: {timeout: …}` treats apart from others."""

    status: Status
    summary: str = ""
    data: Any = None
    timed_out: bool = False
    ms: float = 0.0
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status is Status.SUCCESS

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"status": self.status.value, "summary": self.summary}
        if self.data is not None:
            out["data"] = self.data
        if self.timed_out:
            out["timed_out"] = True
        if self.ms:
            out["ms"] = round(self.ms, 1)
        out.update(self.extra)
        return out

    @classmethod
    def from_json(cls, value: object) -> Outcome:
        if not isinstance(value, Mapping):
            raise OutcomeError(f"an outcome is an object, not {type(value).__name__}")
        raw = value.get("status")
        try:
            status = Status(raw)
        except ValueError:
            choices = ", ".join(s.value for s in Status)
            raise OutcomeError(f"status {raw!r} is not one of {choices}") from None
        summary = value.get("summary", "")
        if not isinstance(summary, str):
            raise OutcomeError("summary must be a string")
        ms = value.get("ms", 0.0)
        known = {"status", "summary", "data", "timed_out", "ms"}
        return cls(
            status,
            summary,
            value.get("data"),
            bool(value.get("timed_out", False)),
            float(ms) if isinstance(ms, int | float) else 0.0,
            {k: v for k, v in value.items() if k not in known},
        )


def worst(outcomes: Iterable[Outcome]) -> Status:
    """The worst status among `outcomes` (success when there are none)."""
    return max((o.status for o in outcomes), key=_RANK.__getitem__, default=Status.SUCCESS)


def success(summary: str = "", data: Any = None) -> Outcome:
    return Outcome(Status.SUCCESS, summary, data)


def failed(summary: str, *, timed_out: bool = False) -> Outcome:
    return Outcome(Status.FAILED, summary, timed_out=timed_out)
