"""A workflow as data: the frozen steps parsed from a skill's `steps:` frontmatter.

A step names one skill (`skill`, `args`) or a group of members run at once (`parallel`);
`on` maps how a step ended to what happens next, `when` skips it, `retry` runs an
idempotent skill's step again, `timeout` bounds it. Parsing is `workflow/parse.py`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

#: What `on:` may name: how a step ended that was not a success.
ON_KEYS = ("failed", "partial", "needs_confirmation", "timeout")
#: The plain actions; the fourth is a fallback `{skill: …, args: …}`.
STOP, CONTINUE, ASK = "stop", "continue", "ask"
ACTIONS = (STOP, CONTINUE, ASK)
#: The default of each `on:` key. A timeout that has no `on.timeout` of its own follows
#: `on.failed` when that is written (a timeout is a failure), else stops.
DEFAULT_ON: Mapping[str, str] = MappingProxyType(
    {"failed": STOP, "timeout": STOP, "partial": CONTINUE, "needs_confirmation": ASK}
)
#: Upper bounds, so a hand-written file cannot make a run endless or huge.
MAX_STEPS = 100
MAX_MEMBERS = 32
MAX_ATTEMPTS = 10
MAX_BACKOFF_S = 600.0
MAX_TIMEOUT_S = 86_400.0
MAX_TEMPLATE_CHARS = 10_000
#: The frontmatter keys a workflow and its skills use (not "unknown keys" to validate).
KEYS = frozenset({"steps", "idempotent", "timeout"})


@dataclass(frozen=True, slots=True)
class Fallback:
    """Run this skill instead and go on with the next step."""

    skill: str
    args: str = ""


Action = str | Fallback  # "stop" | "continue" | "ask" | Fallback


@dataclass(frozen=True, slots=True)
class Retry:
    """`attempts` tries in all (the first one included); before the n-th retry the engine
    waits `backoff_s * 2**(n-1)` seconds. Only a skill with `idempotent: true` is retried."""

    attempts: int = 2
    backoff_s: float = 1.0


@dataclass(frozen=True, slots=True)
class Step:
    """One step: a skill to run, or (`parallel`) members to run at once. A member is a
    Step too, with `skill` set and no `on`, `when` or `parallel` of its own."""

    id: str
    skill: str | None = None
    args: str = ""
    timeout: float | None = None
    retry: Retry | None = None
    on: Mapping[str, Action] = field(default_factory=lambda: MappingProxyType({}))
    when: str | None = None
    parallel: tuple[Step, ...] = ()
    #: Where it was written: (i,) for `steps[i]`, (i, j) for its `parallel[j]` member.
    index: tuple[int, ...] = ()

    def action(self, kind: str) -> Action:
        """What `on:` says for `kind` (one of ON_KEYS), with the defaults."""
        if kind in self.on:
            return self.on[kind]
        if kind == "timeout" and "failed" in self.on:
            return self.on["failed"]
        return DEFAULT_ON[kind]

    def skills(self) -> list[str]:
        """Every skill this step may run: its own, its members', its fallbacks'."""
        out = [self.skill] if self.skill else []
        out.extend(a.skill for a in self.on.values() if isinstance(a, Fallback))
        for member in self.parallel:
            out.extend(member.skills())
        return out


@dataclass(frozen=True, slots=True)
class Workflow:
    """A skill's steps, in order. `name`/`key` are the workflow skill's."""

    name: str
    key: str
    steps: tuple[Step, ...]

    def ids(self) -> list[str]:
        return [s.id for s in self.steps]
