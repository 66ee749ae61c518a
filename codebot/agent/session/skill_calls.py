"""What the session needs to know about a skill or meta-tool call, as pure functions:
the subjects a deny rule is matched against, and the lifecycle trace of an invocation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from codebot.agent.tools import SKILL, TASK
from codebot.skills.files import Spec, normalize_name
from codebot.skills.invoke import Actor

if TYPE_CHECKING:
    from codebot.skills.invoke.invocation import Invocation, InvocationError
    from codebot.skills.trace import Tracer


def meta_subjects(skills: Mapping[str, Spec], name: str, args: Mapping[str, Any]) -> list[str]:
    """A Skill call is checked under the name the model asked for and the name it resolves
    to (so `Review` or `/REVIEW` cannot slip past `Skill(review)`); Task under its agent;
    SkillSearch under its query."""
    if name == SKILL:
        asked = str(args.get("skill", "")).lstrip("/")
        spec = skills.get(normalize_name(asked))
        if spec is None:  # a plain name reaches a server's `<server>:<name>` (source_set)
            from codebot.skills.catalog.source_set import plain_matches

            found = plain_matches(skills.values(), asked)
            spec = found[0] if len(found) == 1 else None
        return [asked, *((spec.name, spec.key) if spec is not None else ())]
    if name == TASK:
        return [str(args.get("agent") or "general")]
    return [str(args.get("query", ""))]


def trace_invocation(
    tracer: Tracer, result: Invocation | InvocationError, actor: Actor, name: str, ms: float
) -> None:
    """eligible -> selected -> activated -> executing -> completed, or denied / failed."""
    spec = getattr(result, "spec", None)
    source = spec.source.value if spec is not None else None
    skill = spec.name if spec is not None else name
    if result.ok is True:  # an Invocation (ok is a Literal that tells the two apart)
        for e in ("eligible", "selected", "activated"):
            tracer.emit(e, actor=actor.value, skill=skill, source=source, mode=result.mode)
        tracer.emit("executing", actor=actor.value, skill=skill, source=source, mode=result.mode)
        tracer.emit(
            "completed",
            actor=actor.value,
            skill=skill,
            source=source,
            mode=result.mode,
            duration_ms=ms,
        )
    else:
        event = "denied" if result.kind in ("denied", "unknown", "cycle", "depth") else "failed"
        tracer.emit(
            event,
            actor=actor.value,
            skill=skill,
            source=source,
            reason=result.message,
            duration_ms=ms,
        )
