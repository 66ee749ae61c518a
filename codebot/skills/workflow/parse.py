"""`steps:` frontmatter (parsed YAML, kept in `Spec.extra`) → a `Workflow` and problems.

Each problem names where it was written as a path (`("steps", 1, "retry")`) that
`workflow/lines.py` turns into a line of the file. A workflow with an error problem is
not run: `workflow_of` returns None and says why.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

from codebot.skills.workflow.model import (
    ACTIONS,
    MAX_ATTEMPTS,
    MAX_BACKOFF_S,
    MAX_MEMBERS,
    MAX_STEPS,
    MAX_TEMPLATE_CHARS,
    MAX_TIMEOUT_S,
    ON_KEYS,
    Action,
    Fallback,
    Retry,
    Step,
    Workflow,
)

if TYPE_CHECKING:
    from codebot.skills.files import Spec

Where = tuple[str | int, ...]
ID = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")
STEP_KEYS = frozenset({"id", "skill", "args", "timeout", "retry", "on", "when", "parallel"})
MEMBER_KEYS = frozenset({"id", "skill", "args", "timeout", "retry"})
_TRUE = {"true", "yes", "on", "1", "y"}
_FALSE = {"false", "no", "off", "0", "n", ""}


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a workflow's steps; `where` is a path into the frontmatter."""

    code: str
    message: str
    hint: str
    where: Where
    error: bool = True


def _key(extra: Mapping[str, object], name: str) -> object:
    for k, v in extra.items():
        if k.strip().lower().replace("_", "-") == name:
            return v
    return None


def has_steps(spec: Spec) -> bool:
    """Whether the skill is a workflow (it has a `steps:` key); the same test as the one
    that keeps a workflow's body from running its `!` commands."""
    from codebot.skills.invoke.invocation import is_workflow

    return is_workflow(spec)


def is_idempotent(spec: Spec) -> bool:
    """`idempotent: true` in the skill's frontmatter."""
    value = _key(spec.extra, "idempotent")
    return value is True or (isinstance(value, str) and value.strip().lower() in _TRUE)


def skill_timeout(spec: Spec) -> float | None:
    """The skill's own `timeout:` in seconds, when it is a valid one."""
    value = _number(_key(spec.extra, "timeout"))
    return value if value is not None and 0 < value <= MAX_TIMEOUT_S else None


def _number(value: object) -> float | None:
    """A number as YAML gave it or as text ("120", kept as written by the parser)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        out = float(value)
    elif isinstance(value, str):
        try:
            out = float(value.strip())
        except ValueError:
            return None
    else:
        return None
    return out if math.isfinite(out) else None


class _Parser:
    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def bad(self, code: str, message: str, hint: str, where: Where, error: bool = True) -> None:
        self.problems.append(Problem(code, message, hint, where, error))

    def text(self, value: object, where: Where) -> str | None:
        if value is None:
            return None
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, str | int | float):
            text = str(value)
            if len(text) > MAX_TEMPLATE_CHARS:
                self.bad(
                    "workflow-template-size",
                    f"{where[-1]} is {len(text):,} characters",
                    f"keep a template under {MAX_TEMPLATE_CHARS:,} characters",
                    where,
                )
                return None
            return text
        self.bad(
            "workflow-field",
            f"{where[-1]} must be a string (a template), not {type(value).__name__}",
            'quote it; to pass data write e.g. "{{ steps.collect.data | tojson }}"',
            where,
        )
        return None

    def timeout(self, value: object, where: Where) -> float | None:
        if value is None:
            return None
        n = _number(value)
        if n is None or not 0 < n <= MAX_TIMEOUT_S:
            self.bad(
                "workflow-timeout",
                f"timeout {value!r} is not a number of seconds above 0 and up to "
                f"{MAX_TIMEOUT_S:,.0f}",
                "write e.g. 'timeout: 120'",
                where,
            )
            return None
        return n

    def retry(self, value: object, where: Where) -> Retry | None:
        if value is None:
            return None
        if not isinstance(value, Mapping):
            value = {"attempts": value}
        default = Retry()
        attempts = _number(value.get("attempts", default.attempts))
        backoff = _number(value.get("backoff_s", default.backoff_s))
        unknown = sorted(str(k) for k in value if str(k) not in ("attempts", "backoff_s"))
        if (
            attempts is None
            or attempts != int(attempts)
            or not 1 <= attempts <= MAX_ATTEMPTS
            or backoff is None
            or not 0 <= backoff <= MAX_BACKOFF_S
            or unknown
        ):
            self.bad(
                "workflow-retry",
                f"retry {dict(value)!r} is not {{attempts: 1..{MAX_ATTEMPTS}, backoff_s: "
                f"0..{MAX_BACKOFF_S:g}}}",
                "attempts counts every try (the first included), e.g. "
                "'retry: {attempts: 2, backoff_s: 5}'",
                where,
            )
            return None
        return Retry(int(attempts), backoff)

    def action(self, value: object, where: Where) -> Action | None:
        if isinstance(value, str) and value.strip().lower() in ACTIONS:
            return value.strip().lower()
        if isinstance(value, Mapping) and isinstance(value.get("skill"), str):
            extra = sorted(str(k) for k in value if str(k) not in ("skill", "args"))
            if extra:
                self.bad(
                    "workflow-on",
                    f"a fallback takes skill and args, not {', '.join(extra)}",
                    'write {skill: NAME, args: "..."}',
                    where,
                )
            args = self.text(value.get("args"), (*where, "args")) or ""
            return Fallback(value["skill"].strip(), args)
        self.bad(
            "workflow-on",
            f"{where[-1]}: {value!r} is not stop, continue, ask or a fallback",
            'write stop, continue, ask or {skill: NAME, args: "..."}',
            where,
        )
        return None

    def on(self, value: object, where: Where) -> Mapping[str, Action]:
        if value is None:
            return MappingProxyType({})
        if not isinstance(value, Mapping):
            self.bad(
                "workflow-on",
                f"on must be a mapping, not {type(value).__name__}",
                f"map {', '.join(ON_KEYS)} to stop, continue, ask or {{skill: NAME}}",
                where,
            )
            return MappingProxyType({})
        out: dict[str, Action] = {}
        for k, v in value.items():
            kind = str(k).strip().lower()
            if kind not in ON_KEYS:
                self.bad(
                    "workflow-on",
                    f"on: {k!r} is not one of {', '.join(ON_KEYS)}",
                    "success always goes on with the next step",
                    (*where, str(k)),
                )
                continue
            act = self.action(v, (*where, str(k)))
            if act is not None:
                out[kind] = act
        return MappingProxyType(out)

    def step(self, raw: object, where: Where, index: tuple[int, ...], member: bool) -> Step | None:
        what = "a parallel member" if member else "a step"
        if not isinstance(raw, Mapping):
            self.bad(
                "workflow-step",
                f"{what} must be a mapping, not {type(raw).__name__}",
                "write e.g. '- {id: check, skill: NAME, args: \"...\"}'",
                where,
            )
            return None
        # YAML 1.1 reads a bare `on:` key as the boolean true (kept as "True" in `extra`).
        raw = {("on" if k is True or k == "True" else k): v for k, v in raw.items()}
        allowed = MEMBER_KEYS if member else STEP_KEYS
        for k in raw:
            if str(k) == "parallel" and member:
                self.bad(
                    "workflow-nested-parallel",
                    "a parallel member has a parallel of its own",
                    "parallel groups do not nest: list every member in one group, or make "
                    "the inner group a workflow skill of its own and name it",
                    (*where, "parallel"),
                )
            elif str(k) not in allowed:
                hint = (
                    "on, when and parallel belong to the group, not to a member"
                    if member and str(k) in STEP_KEYS
                    else f"a step takes {', '.join(sorted(allowed))}"
                )
                self.bad("workflow-key", f"{what} has an unknown key {k!r}", hint, (*where, str(k)))
        pos = ".".join(str(i + 1) for i in index)
        sid = raw.get("id")
        if sid is None:
            sid = f"step{pos}"
            if not member:
                self.bad(
                    "workflow-id",
                    f"step {pos} has no id",
                    "give every step an id: later steps read it as steps.<id>",
                    where,
                    error=False,
                )
        sid = str(sid)
        if not ID.match(sid):
            self.bad(
                "workflow-id",
                f"step id {sid!r} is not a name",
                "use letters, digits, _ and - (starting with a letter), at most 64",
                (*where, "id"),
            )
        skill = raw.get("skill")
        parallel = raw.get("parallel") if not member else None
        if (skill is None) == (parallel is None):
            self.bad(
                "workflow-step",
                f"step {sid!r} needs exactly one of skill and parallel",
                "name the skill to run, or list parallel members",
                where,
            )
            return None
        if skill is not None and not (isinstance(skill, str) and skill.strip()):
            self.bad("workflow-step", f"step {sid!r}: skill must be a name", "", (*where, "skill"))
            return None
        members: tuple[Step, ...] = ()
        if parallel is not None:
            members = self.members(parallel, sid, (*where, "parallel"), index)
        return Step(
            id=sid,
            skill=skill.strip().lstrip("/") if isinstance(skill, str) else None,
            args=self.text(raw.get("args"), (*where, "args")) or "",
            timeout=self.timeout(raw.get("timeout"), (*where, "timeout")),
            retry=self.retry(raw.get("retry"), (*where, "retry")),
            on=self.on(raw.get("on"), (*where, "on")) if not member else MappingProxyType({}),
            when=self.text(raw.get("when"), (*where, "when")) if not member else None,
            parallel=members,
            index=index,
        )

    def members(
        self, raw: object, sid: str, where: Where, index: tuple[int, ...]
    ) -> tuple[Step, ...]:
        if not isinstance(raw, list) or not raw:
            self.bad(
                "workflow-step",
                f"step {sid!r}: parallel must be a list of members",
                "write '- {skill: NAME, args: \"...\"}' under parallel:",
                where,
            )
            return ()
        if len(raw) > MAX_MEMBERS:
            self.bad(
                "workflow-size",
                f"step {sid!r} has {len(raw)} parallel members",
                f"at most {MAX_MEMBERS}",
                where,
            )
            return ()
        out: list[Step] = []
        for j, item in enumerate(raw):
            if isinstance(item, Mapping) and item.get("id") is None:
                item = {**item, "id": f"{sid}-{j + 1}"}
            member = self.step(item, (*where, j), (*index, j), member=True)
            if member is not None:
                out.append(member)
        return tuple(out)


def parse_steps(name: str, key: str, raw: object) -> tuple[Workflow | None, list[Problem]]:
    """The workflow written in `raw` (a `steps:` value) and what is wrong with it; None
    when something is wrong enough that it must not run."""
    p = _Parser()
    if not isinstance(raw, list) or not raw:
        p.bad(
            "workflow-steps",
            "steps must be a non-empty list",
            "write one '- id: NAME' item per step under steps:",
            ("steps",),
        )
        return None, p.problems
    if len(raw) > MAX_STEPS:
        p.bad("workflow-size", f"{len(raw)} steps", f"at most {MAX_STEPS}", ("steps",))
        return None, p.problems
    steps = [p.step(item, ("steps", i), (i,), member=False) for i, item in enumerate(raw)]
    seen: dict[str, int] = {}
    for i, step in enumerate(steps):
        if step is None:
            continue
        ids = [step.id, *(m.id for m in step.parallel)]
        for j, sid in enumerate(ids):
            where: Where = ("steps", i, "id") if j == 0 else ("steps", i, "parallel", j - 1, "id")
            if sid in seen:
                p.bad(
                    "workflow-duplicate-id",
                    f"step id {sid!r} is used twice (first in step {seen[sid] + 1})",
                    "give every step its own id",
                    where,
                )
            seen.setdefault(sid, i)
    if any(pr.error for pr in p.problems):
        return None, p.problems
    return Workflow(name, key, tuple(s for s in steps if s is not None)), p.problems


def workflow_of(spec: Spec) -> tuple[Workflow | None, list[Problem]]:
    """The skill's workflow (None when it has no `steps:` or they have errors)."""
    raw = _key(spec.extra, "steps")
    if raw is None:
        return None, []
    return parse_steps(spec.name, spec.key, raw)
