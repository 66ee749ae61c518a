"""Which index serves which catalog snapshot, and how it is made as cheaply as possible.

In order of preference, the index for a list of skills is

1. the current one: the same snapshot, or a list of specs it holds (then a row mask);
2. the current one *patched* (`postings.patch`): the rows of unchanged skills are kept
   and only added or edited skills are tokenized, so a reload that changed one skill
   costs that skill's tokens and a few array copies (a catalog under `PATCH_MIN` skills
   is built again from its rows instead: exact, and a matter of milliseconds);
3. the persisted one (`store`; for a snapshot, when the router was given a store),
   memory-mapped and patched the same way for whatever changed since it was saved;
4. a build, which tokenizes every skill no row was found for.

A row is reused for the same Spec object, or for a spec whose `rows.fingerprint` is
unchanged. Patched postings keep the average field lengths they were built with; once
those drift past `postings.MAX_DRIFT`, an exact build runs in a background thread and is
swapped in while the patched index serves, so no request waits for a full rebuild after
an edit. Saves after a build happen at once (a short-lived `skills route` leaves a warm
cache behind); after a patch, in the background a moment later, and at exit.

Thread-safe: one lock is held while the index is chosen and made, so a request that
arrives while another thread builds or loads waits for that index and never makes a
second one.
"""

from __future__ import annotations

import gc
import operator
import threading
import time
from collections.abc import Mapping, Sequence
from itertools import repeat
from typing import TYPE_CHECKING, Literal, TypedDict, TypeGuard

from codebot.skills.files import Spec
from codebot.skills.route.config import RouterConfig
from codebot.skills.route.index.index import Index
from codebot.skills.route.index.postings import MAX_DRIFT, Postings, build, patch
from codebot.skills.route.index.rows import RowBags, assemble, fingerprint, pieces_for
from codebot.skills.route.index.text import Tokenizer
from codebot.skills.route.index.tokens import TokenCache

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from codebot.skills.catalog import Snapshot
    from codebot.skills.route.index.store import IndexStore

    #: what an index was made for: a snapshot, or the specs it was given as a tuple
    Owner = Snapshot | tuple[Spec, ...]

_COUNTERS: dict[str, Literal["full_builds", "patches", "refreshes"]] = {
    "build": "full_builds",
    "patch": "patches",
    "refresh": "refreshes",
}


class IndexStats(TypedDict):
    """`IndexCache.stats`: what the index builds did, for tests, benchmarks and
    `skills route`."""

    builds: int
    full_builds: int
    patches: int
    loads: int
    refreshes: int
    saves: int
    rows_tokenized: int
    bodies_read: int
    bodies_prefetched: int
    last_build_ms: float
    last: str


#: where the store keeps an index: its slot and header
Where = tuple[str, dict[str, object]]
#: below this many skills a changed catalog is built again from its rows (exact, and a
#: few milliseconds) instead of patched
PATCH_MIN = 1000


def _carry(
    base_idx: Index | None, old_rows: NDArray[np.int64], by_identity: NDArray[np.bool_]
) -> tuple[Index, NDArray[np.int64]] | None:
    """What a new index carries over from `base_idx` (its eligibility): the old index and,
    for each old row, the new row holding the same Spec object (-1: none)."""
    import numpy as np

    if base_idx is None:
        return None
    same = np.full(base_idx.n, -1, dtype=np.int64)
    same[old_rows[by_identity]] = np.nonzero(by_identity)[0]
    return (base_idx, same)


def _is_snapshot(specs: object) -> TypeGuard[Snapshot]:
    return isinstance(getattr(specs, "skills", None), Mapping)


class IndexCache:
    """The current index, what it was made for, the token caches and the optional store."""

    def __init__(self, config: RouterConfig, store: IndexStore | None = None) -> None:
        self.config = config
        self.store = store
        self.tokens = TokenCache()
        self._lock = threading.RLock()
        self._index: Index | None = None
        self._index_owner: Owner | None = (
            None  # the snapshot (or spec tuple) the index was made for
        )
        self._index_key: tuple[object, ...] | None = None
        self._slot: Where | None = None  # where the current index is saved
        self._refreshing = False
        # for tests, benchmarks and `skills route`: "builds" counts every new index,
        # whichever way it was made; "last" says how: "build", "patch", "reuse" (new spec
        # objects, same rows), "refresh", "load" or "load+patch"
        self.stats: IndexStats = {
            "builds": 0,
            "full_builds": 0,
            "patches": 0,
            "loads": 0,
            "refreshes": 0,
            "saves": 0,
            "rows_tokenized": 0,
            "bodies_read": 0,
            "bodies_prefetched": 0,
            "last_build_ms": 0.0,
            "last": "",
        }

    @property
    def tokenizer(self) -> Tokenizer:
        return self.tokens.tokenizer(self.config)

    @property
    def current(self) -> Index | None:
        """The index made last, if any (whatever it was made for)."""
        return self._index

    def index(self, specs: Snapshot | Sequence[Spec]) -> tuple[Index, NDArray[np.bool_] | None]:
        """The index for `specs` (a Snapshot or a sequence of Spec) and a row mask or None.

        A sequence whose specs are all in the current index reuses it with a mask, so the
        SkillSearch tool's pre-filtered lists do not cause rebuilds.
        """
        import numpy as np

        with self._lock:
            idx = self._index if self._index_key == self.config.index_key else None
            if _is_snapshot(specs):
                if idx is not None and self._index_owner is specs:
                    return idx, None
                seq = list(specs)
                if (
                    idx is not None
                    and len(seq) == idx.n
                    and all(a is b for a, b in zip(seq, idx.specs, strict=True))
                ):
                    self._index_owner = specs  # a reload that changed nothing
                    return idx, None
                return self._derive(seq, specs, idx), None
            seq = specs if isinstance(specs, tuple | list) else list(specs)
            if idx is not None:
                if len(seq) == idx.n and all(a is b for a, b in zip(seq, idx.specs, strict=True)):
                    return idx, None
                rows = [idx.pos.get(id(s), -1) for s in seq]
                if (
                    rows
                    and min(rows) >= 0
                    and all(idx.specs[r] is s for r, s in zip(rows, seq, strict=True))
                ):
                    mask = np.zeros(idx.n, dtype=bool)
                    mask[rows] = True
                    return idx, mask
            return self._derive(list(seq), tuple(seq), idx), None

    # -- making an index ------------------------------------------------------------------

    def _derive(self, specs: list[Spec], owner: Owner, base_idx: Index | None) -> Index:
        # Tokenizing 10,000 bodies makes millions of objects and no reference cycles: a
        # collection triggered half-way would walk them all for nothing (~15% of a build).
        collect = gc.isenabled()
        gc.disable()
        try:
            return self._derive_now(specs, owner, base_idx)
        finally:
            if collect:
                gc.enable()

    def _derive_now(self, specs: list[Spec], owner: Owner, base_idx: Index | None) -> Index:
        import numpy as np

        t0 = time.perf_counter()
        cfg = self.config
        base = base_idx.postings if base_idx is not None else None
        base, where, loaded = self._stored(owner, base)
        old_rows, by_identity, fresh = self._match(specs, base_idx, base)
        reused = np.nonzero(old_rows >= 0)[0]
        kept = old_rows[reused]
        rising = bool((np.diff(kept) > 0).all())
        old_to_new = None
        if base is not None:
            old_to_new = np.full(base.rows.n, -1, dtype=np.int32)
            old_to_new[kept] = reused
        if base is not None and not fresh and rising and len(kept) == base.rows.n:
            # every row as it was: the arrays as they are (mapped, if loaded)
            postings: Postings = base
            how = "reuse"
        else:
            rows = assemble(pieces_for(old_rows, base.rows if base is not None else None, fresh))
            fresh_rows = np.asarray(sorted(fresh), dtype=np.int64)
            del fresh  # the rows hold what the bags held: free them before the postings are made
            self.tokens.clear()
            n_terms = len(self.tokens.terms)
            if (
                base is not None
                and old_to_new is not None  # set with `base`
                and rising
                and 2 * len(kept) >= len(specs) >= PATCH_MIN
            ):
                postings = patch(base, rows, old_to_new, fresh_rows, n_terms, cfg)
                how = "patch"
            else:
                postings = build(rows, n_terms, cfg)
                how = "build"
        idx = Index(
            specs, postings, self.tokens.lexicon, cfg, _carry(base_idx, old_rows, by_identity)
        )
        moved = self._slot != where  # the index now belongs to another catalog's slot
        self._install(idx, owner, where, how, t0, loaded)
        if how == "build":
            self._save(idx, now=True)
        elif how == "patch" or (moved and not loaded):
            self._save(idx, now=False)
        if postings.patches and postings.drift() > MAX_DRIFT:
            self._refresh_in_background(idx)
        return idx

    def _stored(
        self, owner: Owner, base: Postings | None
    ) -> tuple[Postings | None, Where | None, bool]:
        """Where the store keeps a snapshot's index, (slot, header) or None (not a snapshot,
        or no store); with no index to start from (`base` None), the postings saved there
        instead; and whether they were loaded."""
        if self.store is None or not _is_snapshot(owner):
            return base, None, False
        from codebot.skills.route.index.store import header, slot

        head = header(self.config)
        where = (slot(owner.roots, head), head)
        if base is None:
            got = self.store.load(*where)
            if got is not None:
                base, terms = got
                self.tokens.adopt(terms)
                return base, where, True
        return base, where, False

    def _match(
        self, specs: list[Spec], base_idx: Index | None, base: Postings | None
    ) -> tuple[NDArray[np.int64], NDArray[np.bool_], dict[int, RowBags]]:
        """For each spec, the row of `base` it reuses (-1: none); which of them hold the
        very same Spec object as that row; and the fresh rows."""
        import numpy as np

        n = len(specs)
        if base_idx is not None and base is base_idx.postings:
            # the old index holds its specs alive, so an id found there is that very object.
            # After an edit nearly every spec is the very one in the same row: compared in
            # C first, only the others are looked up (10,000 lookups cost ms)
            m = min(n, base_idx.n)
            here = np.fromiter(map(operator.is_, specs, base_idx.specs), dtype=bool, count=m)
            old_rows = np.full(n, -1, dtype=np.int64)
            old_rows[:m][here] = np.nonzero(here)[0]
            rest = np.nonzero(old_rows < 0)[0]
            if len(rest):
                others = map(specs.__getitem__, rest.tolist())
                old_rows[rest] = np.fromiter(
                    map(base_idx.pos.get, map(id, others), repeat(-1)),
                    dtype=np.int64,
                    count=len(rest),
                )
        else:
            old_rows = np.full(n, -1, dtype=np.int64)
        ident = old_rows >= 0
        fps: dict[int, bytes] = {}
        missing = np.nonzero(old_rows < 0)[0].tolist()
        if base is not None and missing:
            fps = {i: fingerprint(specs[i]) for i in missing}
            if len(missing) <= 32:  # an edit or two: look each up in the array
                words = base.rows.fps.view(np.uint64)
                for i, fp in fps.items():
                    a, b = np.frombuffer(fp, dtype=np.uint64)
                    hit = np.nonzero((words[:, 0] == a) & (words[:, 1] == b))[0]
                    old_rows[i] = hit[0] if len(hit) else -1
            else:
                by_fp = base.rows.fp_rows()
                for i, fp in fps.items():
                    old_rows[i] = by_fp.get(fp, -1)
        kept = old_rows[old_rows >= 0]
        if not (np.diff(kept) > 0).all():  # a row serves one spec: a second claim is tokenized anew
            claimed = np.zeros(base.rows.n if base is not None else 0, dtype=bool)
            for i in np.nonzero(old_rows >= 0)[0].tolist():
                r = old_rows[i]
                if claimed[r]:
                    old_rows[i] = -1
                claimed[r] = True
        cfg = self.config
        todo = np.nonzero(old_rows < 0)[0].tolist()
        self.tokens.ahead([specs[i] for i in todo], cfg)  # the helper's bodies, then batches
        fresh = {i: self.tokens.row(specs[i], cfg, fps.get(i)) for i in todo}
        return old_rows, ident & (old_rows >= 0), fresh

    def _install(
        self,
        idx: Index,
        owner: Owner | None,
        where: Where | None,
        how: str,
        t0: float,
        loaded: bool = False,
    ) -> None:
        self._index, self._index_owner, self._index_key, self._slot = (
            idx,
            owner,
            self.config.index_key,
            where,
        )
        s = self.stats
        # a refresh swaps an index in behind the requests' back: no request waited for it
        s["builds"] += how != "refresh"
        if how in _COUNTERS:
            s[_COUNTERS[how]] += 1
        s["loads"] += loaded
        s["rows_tokenized"] = self.tokens.stats["rows_tokenized"]
        s["bodies_read"] = self.tokens.stats["bodies_read"]
        s["bodies_prefetched"] = self.tokens.stats["bodies_prefetched"]
        s["last"] = ("load" if how == "reuse" else f"load+{how}") if loaded else how
        s["last_build_ms"] = (time.perf_counter() - t0) * 1000

    def _save(self, idx: Index, now: bool) -> None:
        if self.store is None or self._slot is None:
            return
        slot_id, head = self._slot
        if now:
            if self.store.save(slot_id, head, idx.postings, self.tokens.terms):
                self.stats["saves"] += 1
        else:
            self.store.save_later(slot_id, head, idx.postings, self.tokens.terms)

    def _refresh_in_background(self, idx: Index) -> None:
        """Rebuild `idx` with its skills' current average lengths, then swap it in."""
        if self._refreshing:
            return
        self._refreshing = True

        def run() -> None:
            import numpy as np

            try:
                t0 = time.perf_counter()
                postings = build(idx.rows, idx.n_terms, idx.config)
                with self._lock:
                    if self._index is idx:
                        exact = Index(
                            idx.specs,
                            postings,
                            idx.lexicon,
                            idx.config,
                            (idx, np.arange(idx.n, dtype=np.int32)),
                        )
                        self._install(exact, self._index_owner, self._slot, "refresh", t0)
                        self._save(exact, now=False)
            finally:
                self._refreshing = False

        threading.Thread(target=run, name="codebot-router-refresh", daemon=True).start()
