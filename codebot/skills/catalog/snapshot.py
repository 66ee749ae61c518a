"""What a catalog load produces: the immutable `Snapshot`, its `Shadowed` losers, and the
`Change` between two snapshots (`diff`); plus `patch`, the cheap path for edits that leave
every name clash as it was.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from types import MappingProxyType

from codebot.skills.files import Diagnostic, Root, Spec, normalize_name


@dataclass(frozen=True, slots=True)
class Shadowed:
    """A skill that lost a name clash, and to whom."""

    spec: Spec
    winner: Spec
    reason: str


@dataclass(frozen=True)
class Snapshot:
    skills: MappingProxyType[str, Spec]  # key -> winning spec, in precedence order
    shadowed: tuple[Shadowed, ...]
    diagnostics: tuple[Diagnostic, ...]  # rejected files and root problems
    roots: tuple[Root, ...]
    generation: int = 0
    loaded_at: float = field(default_factory=time.time)

    def __len__(self) -> int:
        return len(self.skills)

    def __iter__(self) -> Iterator[Spec]:
        return iter(self.skills.values())

    def get(self, name: str) -> Spec | None:
        return self.skills.get(normalize_name(name))

    def shadowed_by(self, spec: Spec) -> Spec | None:
        for s in self.shadowed:
            if s.spec is spec:
                return s.winner
        return None

    def shadows_of(self, spec: Spec) -> list[Shadowed]:
        return [s for s in self.shadowed if s.winner is spec]


@dataclass(frozen=True, slots=True)
class Change:
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    ms: float = 0.0

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)


def patch(
    old: Snapshot, replaced: Iterable[tuple[Spec, Spec]], roots: tuple[Root, ...], generation: int
) -> Snapshot:
    """What `Catalog._build` would make when the only change is specs re-parsed into the
    same place ((old, new) pairs): each decision it takes (who wins a name, who is the same
    file as whom, why) depends on keys, names, roots, files and the order of candidates,
    none of which changed; so the new specs simply take the old ones' places."""
    pairs = list(replaced)
    swap = {id(o): n for o, n in pairs}
    skills = old.skills.copy()  # the mapping's own dict copy: dict(proxy) goes key by key
    for o, n in pairs:
        if skills.get(n.key) is o:
            skills[n.key] = n
    shadowed = tuple(
        Shadowed(swap.get(id(s.spec), s.spec), swap.get(id(s.winner), s.winner), s.reason)
        if id(s.spec) in swap or id(s.winner) in swap
        else s
        for s in old.shadowed
    )
    return Snapshot(MappingProxyType(skills), shadowed, old.diagnostics, roots, generation)


def diff(old: Snapshot, new: Snapshot, only: Iterable[str] | None = None) -> Change:
    """What changed from `old` to `new`, in `new`'s order. `only`: the keys that can
    differ at all (as `patch` replaces them; the same keys in both): the check is then
    theirs alone, not ten thousand skills' for an edit of one."""
    if new.skills is old.skills:
        return Change()
    olds = old.skills
    if only is not None:
        keys = set(only)
        changed = [k for k in keys if _edited(olds.get(k), new.skills.get(k))]
        if len(changed) > 1:
            place = list(new.skills)  # one C-level copy of the keys; .index is C too
            changed.sort(key=place.index)
        return Change((), (), tuple(changed))
    if new.skills.keys() == olds.keys():
        added = removed = ()
    else:
        added = tuple(k for k in new.skills if k not in olds)
        removed = tuple(k for k in olds if k not in new.skills)
    changed = tuple(k for k, s in new.skills.items() if _edited(olds.get(k), s))
    return Change(added, removed, changed)


def _edited(old: Spec | None, new: Spec | None) -> bool:
    """Both there, and the skill under that key was read again from a changed file."""
    return (
        old is not None
        and new is not None
        and old is not new
        and (old.stamp != new.stamp or old.path != new.path)
    )
