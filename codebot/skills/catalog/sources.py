"""Skills that do not come from folders: the `SkillSource` protocol, and how their specs
join a snapshot.

A source (an MCP server's SEP-2640 skills: `codebot.mcp.server_skills`, outside
`skills`) yields `Spec`s of `Source.MCP` whose root's `family` is its label (`mcp:docs`),
and fetches a skill's body on demand, checked its own way; `Spec.read_body` refuses such
a spec (no file holds it). `external_spec` builds such a spec from the fields a source
knows; `with_sources` adds the specs of every source after the folder skills: a name
already taken is never replaced, and a source's spec that loses is listed as shadowed,
with the reason, never dropped in silence.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Protocol, runtime_checkable

from codebot.skills.catalog.snapshot import Shadowed, Snapshot
from codebot.skills.files import EMPTY, Root, Source, Spec, new_stamp, normalize_name

__all__ = ["SkillSource", "SourceError", "external_spec", "with_sources"]


class SourceError(Exception):
    """A source's skill cannot be used now; the message names the source and why."""


@runtime_checkable
class SkillSource(Protocol):
    """Anything that yields specs with a source label and fetches a body on demand."""

    @property
    def label(self) -> str:
        """Where its skills come from, as shown (`mcp:<server>`)."""
        ...

    def specs(self) -> Sequence[Spec]:
        """Its skills now, already named as they enter the catalog."""
        ...

    async def fetch_body(self, spec: Spec) -> str:
        """The body (after the frontmatter) of one of its specs, checked; SourceError when
        it cannot be had or does not match what was listed."""
        ...


def external_spec(
    label: str,
    name: str,
    description: str,
    where: str,
    *,
    when_to_use: str | None = None,
    argument_hint: str | None = None,
    context: str = "inline",
    user_invocable: bool = True,
    disable_model_invocation: bool = False,
    license: str | None = None,
    metadata: Mapping[str, str] = EMPTY,
    frontmatter_keys: tuple[str, ...] = (),
) -> Spec:
    """A spec of a source's skill. Only fields that describe the skill: a source's skill
    grants nothing (`allowed-tools`, `model`, `effort`, `paths` are not taken), and its
    `path` (`<label>/<where>`) is a name, not a file."""
    root = Root(Path(label), Source.MCP, label, (len(Source), 0))
    path = Path(label) / where
    return Spec(
        name=name,
        key=normalize_name(name),
        description=description,
        path=path,
        real_path=path,
        dir=path.parent,
        root=root,
        body_offset=0,
        body_line=1,
        stamp=new_stamp(0, 0, 0),
        when_to_use=when_to_use,
        argument_hint=argument_hint,
        context=context if context in ("inline", "fork") else "inline",
        user_invocable=user_invocable,
        disable_model_invocation=disable_model_invocation,
        license=license,
        metadata=MappingProxyType(dict(metadata)),
        frontmatter_keys=frontmatter_keys,
    )


def with_sources(snap: Snapshot, sources: Iterable[SkillSource]) -> Snapshot:
    """`snap` with every source's specs after its own skills. A key already taken keeps
    its skill; the source's spec is then shadowed, with a reason naming both."""
    skills = dict(snap.skills)
    shadowed = list(snap.shadowed)
    for source in sources:
        for spec in source.specs():
            winner = skills.get(spec.key)
            if winner is None:
                skills[spec.key] = spec
                continue
            shadowed.append(
                Shadowed(
                    spec,
                    winner,
                    f"{spec.name} of {source.label} has the name of a "
                    f"{winner.root.family} skill, which keeps it",
                )
            )
    return Snapshot(
        MappingProxyType(skills), tuple(shadowed), snap.diagnostics, snap.roots, snap.generation
    )
