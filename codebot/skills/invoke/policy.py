"""Who may invoke a skill: the policy matrix, with the reason for every decision.

Two adapters: `core` reads only codebot's own config (`skills.overrides`); `extension`
(the default) also honours the host fields other agents put in skill files:
`user-invocable`, `disable-model-invocation` and Codex's
`agents/openai.yaml: policy.allow_implicit_invocation`.

Eligibility is decided before anything is ranked or listed, so a skill the actor may not
use can never push an eligible one out of a listing or a routing decision.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from codebot.skills.files import Spec, normalize_name


class Actor(enum.Enum):
    HUMAN = "human"  # typed /name
    MODEL = "model"  # the main model's Skill tool
    AGENT = "agent"  # a sub-agent's model
    APPLICATION = "application"  # print mode / API with an explicit skill
    SKILL = "skill"  # a skill (running in a fork) asking for another skill
    EVAL = "eval"  # the evaluation harness


class Adapter(enum.Enum):
    CORE = "core"
    EXTENSION = "extension"


MODEL_ACTORS = frozenset({Actor.MODEL, Actor.AGENT, Actor.SKILL})
EXPLICIT_ACTORS = frozenset({Actor.APPLICATION, Actor.EVAL})


@dataclass(frozen=True, slots=True)
class Decision:
    allowed: bool
    actor: Actor
    adapter: Adapter
    decided_by: str  # the field or rule that set the outcome ("default" when nothing did)
    reason: str
    describe: bool = True  # False for `name-only`: listed without its description

    def to_json(self) -> dict[str, object]:
        return {
            "allowed": self.allowed,
            "actor": self.actor.value,
            "adapter": self.adapter.value,
            "decided_by": self.decided_by,
            "reason": self.reason,
        }


def normalize_overrides(overrides: Mapping[str, str]) -> dict[str, str]:
    """Config keys are written by people: `Code_Review` means the skill `code-review`."""
    return {normalize_name(k): v for k, v in overrides.items()}


def override_for(spec: Spec, overrides: Mapping[str, str]) -> str | None:
    """`overrides` must already be normalized (Settings does it once)."""
    return overrides.get(spec.key) if overrides else None


def how_to_run(spec: Spec, actor: Actor) -> str:
    """One sentence telling the person what would work instead."""
    if actor in MODEL_ACTORS:
        return f"type /{spec.name} yourself to run it"
    if actor is Actor.HUMAN:
        return "the model may still choose it when a request matches"
    return "change skills.overrides in config to allow it"


def decide(
    spec: Spec,
    actor: Actor,
    overrides: Mapping[str, str] | None = None,
    adapter: Adapter = Adapter.EXTENSION,
) -> Decision:
    ov = override_for(spec, overrides or {})
    rule = f"skills.overrides.{spec.name}={ov}"

    def deny(by: str, why: str) -> Decision:
        return Decision(False, actor, adapter, by, f"{why}; {how_to_run(spec, actor)}")

    if ov == "off":
        return Decision(False, actor, adapter, rule, "the skill is turned off in config")
    if ov == "user-only" and actor not in (Actor.HUMAN, *EXPLICIT_ACTORS):
        return deny(rule, "config allows only people to run this skill")
    if ov == "model-only" and actor is Actor.HUMAN:
        return deny(rule, "config allows only the model to run this skill")
    if adapter is Adapter.EXTENSION:
        if actor is Actor.HUMAN and not spec.user_invocable:
            return deny("user-invocable", "the skill sets user-invocable: false")
        if actor in MODEL_ACTORS and spec.disable_model_invocation:
            return deny("disable-model-invocation", "the skill sets disable-model-invocation: true")
        if actor in MODEL_ACTORS and not spec.allow_implicit_invocation:
            return deny(
                "agents/openai.yaml:policy.allow_implicit_invocation",
                "agents/openai.yaml sets allow_implicit_invocation: false",
            )
    if ov == "name-only":
        return Decision(True, actor, adapter, rule, "allowed; listed by name only", describe=False)
    return Decision(True, actor, adapter, rule if ov else "default", "allowed")


def eligible(
    specs: Iterable[Spec],
    actor: Actor,
    overrides: Mapping[str, str] | None = None,
    adapter: Adapter = Adapter.EXTENSION,
) -> list[tuple[Spec, Decision]]:
    """The skills this actor may invoke, each with its decision (in input order)."""
    out = []
    # Most skills have no override and restrict no one: `decide` allows them by default for
    # every actor and adapter, so they share one decision (a listing asks this of every
    # skill of the catalog each turn; 10,000 calls to `decide` took 30 ms).
    plain = Decision(True, actor, adapter, "default", "allowed")
    for spec in specs:
        if (
            (not overrides or spec.key not in overrides)
            and spec.user_invocable
            and not spec.disable_model_invocation
            and spec.allow_implicit_invocation
        ):
            out.append((spec, plain))
            continue
        d = decide(spec, actor, overrides, adapter)
        if d.allowed:
            out.append((spec, d))
    return out
