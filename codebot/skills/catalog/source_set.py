"""The sources a catalog joins to every snapshot it hands out (`Catalog.sources`).

A `SourceSet` asks its `provider` for `(token, sources)`: `token` changes whenever the
sources or their listings change (a server became ready, said its list changed). The
snapshot a catalog hands out is then `with_sources(base, sources)`, made once per (base
snapshot, token) and kept, so readers that compare snapshots by identity (the router's
index, the listing's caches) see one object until something changes; its `generation`
grows with either. What a source could not load (`problems`) joins the diagnostics, and
the specs that lost a name are in `shadowed` (`with_sources`), so `/skills` shows both.

A plain name (`/refunds`) reaches a source's `<server>:refunds` when no skill has that
name and exactly one source's skill has it as its last part (`resolve`).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Awaitable, Callable, Hashable, Iterable, Sequence

from codebot.skills.catalog.snapshot import Snapshot
from codebot.skills.catalog.sources import SkillSource, with_sources
from codebot.skills.files import Diagnostic, Severity, Source, Spec, normalize_name

__all__ = ["SourceSet", "plain_matches"]

Provider = Callable[[], tuple[Hashable, Sequence[SkillSource]]]


class SourceSet:
    """Sources joined to a catalog's snapshots (module docstring)."""

    def __init__(
        self, provider: Provider, settle: Callable[[], Awaitable[None]] | None = None
    ) -> None:
        self.provider = provider
        #: waits until sources still starting have listed their skills (bounded)
        self._settle = settle
        self._lock = threading.Lock()
        self._made: tuple[Snapshot, Hashable, Snapshot] | None = None
        self._bumps = 0  # token changes: the joined generation grows with them too

    def over(self, base: Snapshot) -> Snapshot:
        """`base` with the sources' skills (the same object while nothing changed)."""
        token, sources = self.provider()
        made = self._made
        if made is not None and made[0] is base and made[1] == token:
            return made[2]
        with self._lock:
            made = self._made
            if made is not None and made[0] is base and made[1] == token:
                return made[2]
            if made is not None and made[1] != token:
                self._bumps += 1
            joined = with_sources(base, sources)
            problems = tuple(
                Diagnostic(source.label, 0, "source", Severity.WARNING, str(p))
                for source in sources
                for p in getattr(source, "problems", ())
            )
            joined = dataclasses.replace(
                joined,
                diagnostics=joined.diagnostics + problems,
                generation=base.generation + self._bumps,
            )
            self._made = (base, token, joined)
            return joined

    def source_of(self, spec: Spec) -> SkillSource | None:
        """The source a spec came from (by its label), if it is still one of them."""
        _, sources = self.provider()
        for source in sources:
            if source.label == spec.root.family:
                return source
        return None

    def resolve(self, name: str, snap: Snapshot) -> tuple[Spec | None, list[str]]:
        """`name`'s skill in `snap`, else the one source skill whose last part it is; or
        (None, the candidates' names) when none or several are."""
        got = snap.get(name)
        if got is not None or ":" in name:
            return got, []
        found = plain_matches(snap.skills.values(), name)
        return (found[0], []) if len(found) == 1 else (None, [s.name for s in found])

    async def settle(self) -> None:
        """Wait (bounded) for sources still starting, so a `/server:skill` typed before a
        server was ready finds it."""
        if self._settle is not None:
            await self._settle()


def plain_matches(specs: Iterable[Spec], name: str) -> list[Spec]:
    """The source skills (`<server>:<name>`) whose `<name>` is `name`."""
    key = normalize_name(name)
    return [
        s
        for s in specs
        if s.source is Source.MCP and normalize_name(s.name.partition(":")[2]) == key
    ]
