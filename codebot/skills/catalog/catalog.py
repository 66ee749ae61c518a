"""The catalog: every skill root turned into one deduplicated, explained snapshot.

`Catalog.load()` scans and parses; `reload()` re-stats and re-parses only files whose
(mtime, size, inode) changed. Folders whose listing cannot have changed since the last
scan are not listed again (`folder_cache.DirCache`; kept in the `Index` across sessions),
and an edit that leaves every name clash as it was patches the snapshot instead of
rebuilding it (`snapshot.patch`). Each call swaps in a new immutable `Snapshot`, so the
watcher thread and the UI can read `catalog.snapshot` at any time without locks.
"""

from __future__ import annotations

import dataclasses
import gc
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path
from types import MappingProxyType

from codebot.skills.catalog import discover
from codebot.skills.catalog.candidate import Candidate
from codebot.skills.catalog.folder_cache import DirCache
from codebot.skills.catalog.lookalike import skeleton
from codebot.skills.catalog.snapshot import Change, Shadowed, Snapshot, diff, patch
from codebot.skills.catalog.source_set import SourceSet
from codebot.skills.catalog.twins import (
    name_problem,
    same_source,
    twin_reason,
    valid_twin_wins,
)
from codebot.skills.files import (
    Diagnostic,
    Root,
    Severity,
    Source,
    Spec,
    Stamp,
    new_stamp,
    parse_file,
)

# The snapshot types live in `snapshot`; other code imports them from here too.
__all__ = ["Catalog", "Change", "Shadowed", "Snapshot", "diff", "source_order"]


@dataclass(slots=True)
class _Parsed:
    stamp: Stamp
    spec: Spec | None
    diagnostics: list[Diagnostic]
    source: Candidate | None = None  # the candidate parsed; the scan reuses unchanged ones


# A reload that made more container objects than this moves them straight to the oldest GC
# generation (see `Catalog.reload`).
_PROMOTE_OVER = 20_000


class Catalog:
    """Holds the current snapshot and what is needed to refresh it cheaply."""

    def __init__(self, roots: Sequence[Root], index=None) -> None:
        self.roots = tuple(roots)
        self._index = index  # optional persistent cache (codebot.skills.catalog.index.Index)
        self._lock = threading.Lock()
        self._parsed: dict[str, _Parsed] = {}  # by file path
        self._candidates: dict[str, Candidate] = {}
        self._root_diags: dict[str, list[Diagnostic]] = {}
        # Folder listings from the last scan (folder_cache.DirCache), taken from the index the
        # first time: unchanged folders are not listed again.
        self._dirs: dict[str, object] = {}
        self._dirs_loaded = False
        self._order: list[str] | None = (
            None  # candidate keys in precedence order, while the set holds
        )
        self._dirty = True  # something the snapshot is built from has changed
        # Specs re-parsed into the same place (same key, name, root and file): when nothing
        # else changed, the snapshot is patched instead of rebuilt. key -> (old, new).
        self._replaced: dict[str, tuple[Spec, Spec]] = {}
        self._snapshot = Snapshot(MappingProxyType({}), (), (), self.roots)
        #: called once, with the candidates, when a full scan has found them and before
        #: they are parsed (the router's body-tokenizing helper gets them); `on_found`, with
        #: batches of them while that scan goes on
        self.on_scanned: Callable[[list[Candidate]], None] | None = None
        self.on_found: Callable[[list[Candidate]], None] | None = None
        #: skills that do not come from folders (a session's MCP servers), joined to every
        #: snapshot handed out (`source_set`)
        self.sources: SourceSet | None = None

    @property
    def snapshot(self) -> Snapshot:
        if self.sources is not None:
            return self.sources.over(self._snapshot)
        return self._snapshot

    def load(self) -> Snapshot:
        self.reload()
        return self.snapshot

    def reload(self, paths: Iterable[Path] | None = None) -> Change:
        """Bring the snapshot up to date. With `paths` (from a watcher), only look there."""
        t0 = time.perf_counter()
        with self._lock:
            old = self._snapshot
            # Scanning, parsing and building make many objects and no reference cycles: a
            # collection triggered half-way would walk them all for nothing.
            collect = gc.isenabled()
            gc.disable()
            try:
                if paths is None:
                    self._rescan_all()
                else:
                    self._rescan_paths([Path(p) for p in paths])
                only = None
                if self._dirty:
                    self._dirty = False
                    new = self._build(old.generation + 1)
                elif self._replaced:  # only edits that leave every clash as it was
                    new = patch(old, self._replaced.values(), self.roots, old.generation + 1)
                    only = [n.key for _, n in self._replaced.values()]  # all that can differ
                else:  # nothing changed: the same contents under a new generation, no rebuild
                    new = dataclasses.replace(
                        old, generation=old.generation + 1, loaded_at=time.time()
                    )
                self._replaced.clear()
                self._snapshot = new
                change = diff(old, new, only)
            finally:
                if collect:
                    # What a big load made lives as long as the catalog. Left in the young
                    # generations, the next two collections would walk all of it (about a
                    # tenth of the load's time at 10,000 skills) only to promote it; freeze +
                    # unfreeze moves every tracked object to the oldest generation at once.
                    # Skipped when the process uses gc.freeze() itself.
                    if gc.get_count()[0] > _PROMOTE_OVER and gc.get_freeze_count() == 0:
                        gc.freeze()
                        gc.unfreeze()
                    gc.enable()
            if self._index is not None:
                self._index.save_if_dirty()
        return Change(
            change.added, change.removed, change.changed, (time.perf_counter() - t0) * 1000
        )

    # -- scanning ------------------------------------------------------------------

    def _dir_cache(self, full: bool, prev: dict[str, Candidate]) -> DirCache:
        if not self._dirs_loaded:
            self._dirs_loaded = True
            if self._index is not None:
                self._dirs = self._index.dirs()
        return DirCache(self._dirs, {} if full else None, prev)

    def _keep_dirs(self, cache: DirCache) -> None:
        changed = cache.changed or (
            cache.new is not cache.old and cache.new.keys() != cache.old.keys()
        )
        self._dirs = cache.new
        if changed and self._index is not None:
            self._index.put_dirs(dict(cache.new), [str(r.path) for r in self.roots])

    def _rescan_all(self) -> None:
        prev = self._candidates
        old_diags = self._root_diags
        self._candidates = {}
        self._root_diags = {}
        cache = self._dir_cache(True, prev)
        found = self.on_found if self.on_scanned is not None else None
        for root in self.roots:
            res = discover.scan_root(root, cache=cache, found=found)
            self._root_diags[str(root.path)] = res.diagnostics
            self._add(res.candidates)
        self._keep_dirs(cache)
        if self.on_scanned is not None:
            scanned, self.on_scanned, self.on_found = self.on_scanned, None, None
            scanned(list(self._candidates.values()))
        if prev.keys() != self._candidates.keys():
            self._order = None
            self._dirty = True
        if old_diags != self._root_diags:
            self._dirty = True
        self._parse_candidates()

    def _rescan_paths(self, paths: list[Path]) -> None:
        before = set(self._candidates)
        old_diags = {k: list(v) for k, v in self._root_diags.items()}
        touched: set[str] = set()  # keys that may have appeared, changed or gone
        whole: set[Root] = set()
        anchors: dict[Path, Root] = {}
        for p in paths:
            root = self._root_for(p)
            if root is None:
                continue
            anchor = p if p.is_dir() else p.parent
            while anchor != root.path and not anchor.exists():
                anchor = anchor.parent  # a deleted folder: look again from its parent
            if anchor == root.path or not _is_below(anchor, root.path):
                whole.add(root)
            else:
                anchors[anchor] = root
        removed: dict[str, Candidate] = {}
        cache = self._dir_cache(False, removed)
        for root in whole:
            for k in [k for k, c in self._candidates.items() if c.root == root]:
                removed[k] = self._candidates.pop(k)
                touched.add(k)
            res = discover.scan_root(root, cache=cache)
            self._root_diags[str(root.path)] = res.diagnostics
            self._add(res.candidates)
            touched.update(c.order[1] for c in res.candidates)
        for anchor, root in anchors.items():
            if root in whole or any(_is_below(anchor, a) for a in anchors):
                continue  # covered by a wider rescan
            prefix = str(anchor) + "/"
            for k in [k for k in self._candidates if k.startswith(prefix)]:
                removed[k] = self._candidates.pop(k)
                touched.add(k)
            res = discover.scan_root(root, start=anchor, cache=cache)
            self._add(res.candidates)
            touched.update(c.order[1] for c in res.candidates)
            key = str(root.path)
            kept = [d for d in self._root_diags.get(key, []) if not d.path.startswith(prefix)]
            self._root_diags[key] = kept + res.diagnostics
        self._keep_dirs(cache)
        if before != self._candidates.keys():
            self._order = None
            self._dirty = True
        if old_diags != self._root_diags:
            self._dirty = True
        self._parse_candidates(touched)

    def _add(self, candidates: list[Candidate]) -> None:
        cands = self._candidates
        for c in candidates:
            cands[c.order[1]] = c  # str(c.path), without making it (see candidate.Candidate)

    def _root_for(self, p: Path) -> Root | None:
        best: Root | None = None
        for root in self.roots:
            inside = p == root.path or _is_below(p, root.path)
            if inside and (best is None or len(root.path.parts) > len(best.path.parts)):
                best = root
        return best

    def _parse_candidates(self, only: set[str] | None = None) -> None:
        """Parse new and changed candidates: all of them, or those whose keys are in `only`."""
        keys = self._candidates.keys() if only is None else only
        parsed_by_key = self._parsed
        for gone in [
            k
            for k in (parsed_by_key if only is None else only)
            if k in parsed_by_key and k not in self._candidates
        ]:
            del parsed_by_key[gone]
            self._dirty = True
        index = self._index
        for key in list(keys):
            c = self._candidates.get(key)
            if c is None:
                continue
            cached = parsed_by_key.get(key)
            if cached is not None and cached.source is c:
                continue  # the scan found the file unchanged and kept its candidate
            st = c.stat
            stamp = new_stamp(st.st_mtime_ns, st.st_size, st.st_ino)  # parse.stamp_of, inlined
            if (
                cached is not None
                and cached.stamp == stamp
                and (cached.spec is None or cached.spec.root == c.root)
            ):
                cached.source = c
                continue
            spec = diags = None
            if index is not None:
                hit = index.get(c, stamp)
                if hit is not None:
                    spec, diags = hit
            if diags is None:
                spec, diags = parse_file(c.path, c.root, c.stat, c.real_path, c.side)
                if index is not None:
                    index.put(c, stamp, spec, diags)
            parsed_by_key[key] = _Parsed(stamp, spec, diags, c)
            old = cached.spec if cached is not None else None
            if (
                old is not None
                and cached is not None
                and spec is not None
                and old.key == spec.key
                and old.name == spec.name
                and old.root is spec.root
                and cached.source is not None
                and cached.source.stat.st_ino == c.stat.st_ino
                and cached.source.stat.st_dev == c.stat.st_dev
            ):
                first = self._replaced.get(key)
                self._replaced[key] = (first[0] if first is not None else old, spec)
            else:
                self._dirty = True

    # -- deduplication ---------------------------------------------------------------

    def _build(self, generation: int) -> Snapshot:
        if self._order is None:
            # By (root rank, order in the root): two stable sorts with C key functions.
            ordered = sorted(self._candidates.values(), key=_in_root)
            ordered.sort(key=_root_rank)
            self._order = [c.order[1] for c in ordered]
        candidates, parsed_by_key = self._candidates, self._parsed
        winners: dict[str, Spec] = {}
        shadowed: list[Shadowed] = []
        diags: list[Diagnostic] = []
        by_file: dict[tuple[int, int], Spec] = {}
        for d in self._root_diags.values():
            diags.extend(d)
        get_parsed, get_winner = parsed_by_key.get, winners.get
        for k in self._order:
            parsed = get_parsed(k)
            if parsed is None:
                continue
            spec = parsed.spec
            if spec is None:
                diags.extend(parsed.diagnostics)
                continue
            st = candidates[k].stat
            ident = (st.st_dev, st.st_ino)
            first = by_file.get(ident)
            if first is not None:
                diags.append(
                    Diagnostic(
                        str(candidates[k].path),
                        0,
                        "same-file",
                        Severity.INFO,
                        f"same file as {first.path} (reached through a link); loaded once",
                    )
                )
                continue
            by_file[ident] = spec
            key = spec.key
            winner = get_winner(key)
            if winner is None:
                winners[key] = spec
            elif valid_twin_wins(spec, winner):  # `good-one` over `Good-One` in one source
                winners[key] = spec
                shadowed = [_repoint(s, spec) if s.winner is winner else s for s in shadowed]
                shadowed.append(Shadowed(winner, spec, twin_reason(winner, spec)))
            else:
                shadowed.append(Shadowed(spec, winner, _clash_reason(spec, winner)))
        _resolve_lookalikes(winners, shadowed)
        return Snapshot(
            MappingProxyType(winners), tuple(shadowed), tuple(diags), self.roots, generation
        )


_in_root = attrgetter("order")
_root_rank = attrgetter("root.rank")


def _repoint(lost: Shadowed, winner: Spec) -> Shadowed:
    """`lost` lost to a skill that has just lost its place to `winner`."""
    same = same_source(lost.spec, winner) and name_problem(lost.spec)
    reason = twin_reason(lost.spec, winner) if same else _clash_reason(lost.spec, winner)
    return Shadowed(lost.spec, winner, reason)


def _clash_reason(loser: Spec, winner: Spec) -> str:
    if loser.source is not winner.source:
        return f"{winner.source.value} skills take precedence over {loser.source.value} skills"
    if loser.root == winner.root:
        return "same name twice in one folder; the shallower (then alphabetically first) path wins"
    return f"same name in {winner.root.path}, which takes precedence over {loser.root.path}"


def _resolve_lookalikes(winners: dict[str, Spec], shadowed: list[Shadowed]) -> None:
    """A name that only looks like another (Cyrillic е for e, a zero-width space, U+2010
    for `-`) must not sit beside it: same UTS #39 skeleton (`lookalike.skeleton`)."""
    groups: dict[str, list[Spec]] = {}
    for spec in winners.values():
        if not spec.key.isascii():
            groups.setdefault(skeleton(spec.key), [])
    if not groups:
        return
    for spec in winners.values():
        sk = skeleton(spec.key)
        if sk in groups:
            groups[sk].append(spec)
    for members in groups.values():
        if len(members) < 2:
            continue
        # The plain-ASCII spelling wins; among the rest, the usual precedence. Only
        # non-ASCII names are shadowed: `rn` and `m` share a skeleton, but two ASCII names
        # are both exactly what they look like.
        members.sort(key=lambda s: (not s.key.isascii(), s.root.rank))
        keep = members[0]
        # Within one source a valid spelling wins, but never a non-ASCII one over the
        # ASCII spelling: a spoof that follows the name rule must not take its place.
        valid = [
            s
            for s in members
            if same_source(s, keep)
            and s.key.isascii() == keep.key.isascii()
            and not name_problem(s)
        ]
        if valid and name_problem(keep):
            keep = valid[0]
        for s in members:
            if s is keep or (s.key.isascii() and keep.key.isascii()):
                continue
            del winners[s.key]
            reason = (  # a spoof is called one; a twin chosen by the name rule says why
                twin_reason(s, keep)
                if keep is not members[0] and same_source(s, keep) and name_problem(s)
                else f"name looks like '{keep.name}' but uses other characters (spoofing?)"
            )
            shadowed.append(Shadowed(s, keep, reason))


def _is_below(p: Path, parent: Path) -> bool:
    try:
        p.relative_to(parent)
        return p != parent
    except ValueError:
        return False


def source_order(source: Source) -> int:
    return list(Source).index(source)
