"""What the skill watcher watches, and which of the reported changes matter.

`make_plan` turns the catalog's roots into recursive watches (existing roots, through
their resolved paths) and non-recursive ones (each root's parent, and the nearest existing
ancestor of a missing root). `EventFilter` maps what the pumps report back onto the roots'
own paths and keeps only the changes that can alter the catalog.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from codebot.protected import placeholder_paths
from codebot.skills.catalog import Catalog
from codebot.skills.watch.pump import ERROR, PARENT, RECURSIVE

_ADDED, _DELETED = 1, 3  # watchfiles.Change values


@dataclass(frozen=True)
class Plan:
    """What to watch, and the state of every root when it was decided."""

    recursive: tuple[str, ...]  # resolved folders of existing roots (outermost only)
    parents: tuple[str, ...]  # watched non-recursively
    state: tuple[tuple[str, str, int, int], ...]  # (root, resolved or nearest ancestor, dev, ino)
    relevant: frozenset[str]  # paths whose appearance/disappearance in a parent means "re-arm"
    prefixes: tuple[tuple[str, Path], ...]  # (watched prefix, root path), longest first


def _is_dir(path: str) -> bool:
    try:
        return os.path.isdir(path)
    except (OSError, ValueError):
        return False


def _nearest_existing(path: Path) -> Path | None:
    for p in (path, *path.parents):
        if _is_dir(str(p)):
            return p
    return None


def _within(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix.rstrip(os.sep) + os.sep)


def make_plan(roots: Iterable[Path]) -> Plan:
    recursive: set[str] = set()
    parents: set[str] = set()
    state: list[tuple[str, str, int, int]] = []
    relevant: set[str] = set()
    prefixes: set[tuple[str, Path]] = set()
    for root in dict.fromkeys(Path(r) for r in roots):
        given = os.path.abspath(root)
        relevant.add(given)
        prefixes.add((given, root))
        if _is_dir(given):
            real = os.path.realpath(given)
            try:
                st = os.stat(real)
                dev, ino = st.st_dev, st.st_ino
            except OSError:
                dev, ino = 0, 0
            state.append((given, real, dev, ino))
            recursive.add(real)
            relevant.add(real)
            prefixes.add((real, root))
            for p in (Path(given).parent, Path(real).parent):
                if str(p) != given and _is_dir(str(p)):
                    parents.add(str(p))  # where the root itself can vanish or be replaced
        else:
            # A missing root (or a link to a missing folder: then its target's way, too).
            ways = [Path(given)]
            if os.path.islink(given):
                ways.append(Path(os.path.realpath(given)))
            for way in ways:
                anchor = _nearest_existing(way.parent)
                state.append((given, "" if anchor is None else str(anchor), 0, 0))
                if anchor is None:
                    continue
                parents.add(str(anchor))
                relevant.add(str(way))
                # every folder between the watched ancestor and the root: its creation matters
                for p in way.parents:
                    if p == anchor:
                        break
                    relevant.add(str(p))
    outer = tuple(
        sorted(r for r in recursive if not any(o != r and _within(r, o) for o in recursive))
    )
    return Plan(
        recursive=outer,
        parents=tuple(sorted(parents)),
        state=tuple(state),
        relevant=frozenset(relevant),
        prefixes=tuple(sorted(prefixes, key=lambda x: (-len(x[0]), x[0]))),
    )


@dataclass
class Batch:
    """Relevant changes gathered from one or more pump batches."""

    paths: set[Path] = field(default_factory=set)
    rearm: bool = False  # a root appeared, vanished or was replaced
    whole: bool = False  # a root itself was touched: full reload
    error: BaseException | None = None

    def __bool__(self) -> bool:
        return bool(self.paths or self.rearm or self.whole or self.error is not None)

    def merge(self, other: Batch) -> None:
        self.paths |= other.paths
        self.rearm |= other.rearm
        self.whole |= other.whole
        self.error = self.error or other.error


class EventFilter:
    """Turns pump items into a `Batch` of root paths, dropping what cannot change the catalog."""

    def __init__(self, catalog: Catalog) -> None:
        import watchfiles

        self.catalog = catalog
        self._filter = (
            watchfiles.DefaultFilter()
        )  # on root-relative paths: a root under .venv works
        self._known: tuple[object, frozenset[str]] | None = None

    def classify(self, item: tuple, plan: Plan | None) -> Batch:
        """Map one pump batch onto root paths, keeping only what can change the catalog."""
        kind, changes = item
        batch = Batch()
        if kind == ERROR:
            batch.error = changes
            return batch
        if kind not in (RECURSIVE, PARENT) or plan is None:
            return batch
        held = placeholder_paths()  # the sandbox's empty stand-ins come and go with each command
        for change, raw in changes:
            if raw in held:
                continue
            if kind == PARENT:
                # only a root itself, or a folder on the way to a missing one, counts
                if raw in plan.relevant:
                    batch.rearm = True
                continue
            self._map_change(batch, change, raw, plan)
        return batch

    def _map_change(self, batch: Batch, change: int, raw: str, plan: Plan) -> None:
        """Add one change below the watched roots to `batch`, if it can matter."""
        for prefix, root in plan.prefixes:
            if not _within(raw, prefix):
                continue
            rel = raw[len(prefix) :].lstrip(os.sep)
            if not rel:
                batch.whole = True
                if change in (_ADDED, _DELETED):
                    batch.rearm = True  # the watch on a deleted root is dead: re-arm
                continue
            if not self._filter(change, rel):
                continue  # .git, node_modules, editor swap files, ...
            path = root / rel
            if self._matters(change, raw, path):
                batch.paths.add(path)

    def _matters(self, change: int, raw: str, path: Path) -> bool:
        """Could this change add, remove or alter a skill or a diagnostic?

        Markdown files and folders can; so can a link (a dangling one is a diagnostic).
        Any other file cannot, unless it is gone and the catalog knew something at or
        below that path (a folder with a dotted name moved away).
        """
        if raw.lower().endswith(".md"):
            return True
        if change != _DELETED:
            return os.path.isdir(raw) or os.path.islink(raw)
        return str(path) in self._known_paths()

    def _known_paths(self) -> frozenset[str]:
        """Every skill file, diagnosed path and their folders, for the current snapshot."""
        snap = self.catalog.snapshot
        if self._known is not None and self._known[0] is snap:
            return self._known[1]
        known: set[str] = set()
        files = [s.path for s in snap] + [sh.spec.path for sh in snap.shadowed]
        files += [Path(d.path) for d in snap.diagnostics]
        for f in files:
            known.add(str(f))
            for parent in f.parents:
                key = str(parent)
                if key in known:
                    break
                known.add(key)
        frozen = frozenset(known)
        self._known = (snap, frozen)
        return frozen
