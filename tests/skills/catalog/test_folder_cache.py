"""The scanner's folder cache (discover.DirCache): reloads and warm starts skip listing
folders that have not changed, and still see every change a full listing would see."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import time
from pathlib import Path

import pytest

from codebot.skills.catalog import Catalog, DirCache, Index, Snapshot, discover, scan_root
from codebot.skills.catalog.index import read_document, write_document
from codebot.skills.files import Root, Source


def skill(root: Path, rel: str, name: str, description: str = "does a thing") -> Path:
    path = root / rel / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {name}\ndescription: {description}\n---\nbody\n", encoding="utf-8")
    return path


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Scans behave as if they ran 10 s after the folders last changed.

    A folder changed less than RACY_NS before a listing is listed again next time (its
    mtime might not move on the next change), and every folder a test creates is that
    fresh; this lets the cache be used.
    """
    monkeypatch.setattr(discover, "RACY_NS", -10_000_000_000)


@pytest.fixture
def listings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The folders the scanner lists (rather than taking from the cache), in order."""
    seen: list[str] = []
    real = discover._scan_dir

    def counting(root, d, *args, **kwargs):
        seen.append(d)
        return real(root, d, *args, **kwargs)

    monkeypatch.setattr(discover, "_scan_dir", counting)
    return seen


@pytest.fixture
def tree(tmp_path: Path) -> list[Root]:
    """Two roots with nesting, a shadowed name, a broken file, a venv, a single-file skill,
    an agents/openai.yaml, scripts/ and references/ folders, and a symbolic link."""
    a, b = tmp_path / "a", tmp_path / "b"
    skill(a, "alpha", "alpha")
    skill(a, "group/beta", "beta")
    skill(a, "group/deeper/gamma", "gamma")
    (a / "group" / "beta" / "scripts").mkdir()
    (a / "group" / "beta" / "scripts" / "run.py").write_text("print()\n")
    (a / "group" / "beta" / "references").mkdir()
    (a / "group" / "beta" / "references" / "notes.md").write_text("# notes\n")
    side = a / "alpha" / "agents" / "openai.yaml"
    side.parent.mkdir()
    side.write_text("interface:\n  display_name: Alpha\n")
    (a / "broken").mkdir()
    (a / "broken" / "SKILL.md").write_text("---\nname: broken\n---\n")
    (a / "single.md").write_text("---\ndescription: one file\n---\nbody\n")
    (a / "README.md").write_text("# not a skill\n")
    skill(a, "env/lib/pkg", "vendored")
    (a / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    skill(b, "alpha", "alpha", "the shadowed one")
    skill(b, "delta", "delta")
    skill(tmp_path / "outside", "linked", "linked")
    (b / "link").symlink_to(tmp_path / "outside")
    return [
        Root(a, Source.PROJECT, "extra", (0, 1, 0), explicit=True),
        Root(b, Source.USER, "codebot", (1, 0)),
    ]


def same(x: Snapshot, y: Snapshot) -> None:
    assert list(x.skills) == list(y.skills)
    for key, spec in x.skills.items():
        other = y.skills[key]
        for f in dataclasses.fields(spec):
            assert getattr(spec, f.name) == getattr(other, f.name), (key, f.name)
    assert x.shadowed == y.shadowed
    assert x.diagnostics == y.diagnostics


def cold(roots: list[Root]) -> Snapshot:
    return Catalog(roots).load()


# -- reload() in one process ------------------------------------------------------------


def test_noop_reload_lists_no_folder(tree, settled, listings) -> None:
    cat = Catalog(tree)
    cat.load()
    first = len(listings)
    change = cat.reload()
    assert not change
    # Only the folders holding a symbolic link, or reached through one, are listed again.
    assert listings[first:] == [
        str(tree[1].path),
        str(tree[1].path / "link"),
        str(tree[1].path / "link" / "linked"),
    ]
    same(cat.snapshot, cold(tree))


def test_edit_to_a_skill_md_is_seen_although_its_folder_is_unchanged(tree, settled, listings):
    cat = Catalog(tree)
    cat.load()
    folder = tree[0].path / "group" / "beta"
    before = folder.stat().st_mtime_ns
    target = folder / "SKILL.md"
    target.write_text("---\nname: beta\ndescription: edited in place\n---\nnew body\n")
    os.utime(target, ns=(time.time_ns(), target.stat().st_mtime_ns + 1_000_000))
    assert folder.stat().st_mtime_ns == before
    n = len(listings)
    change = cat.reload()
    assert change.changed == ("beta",)
    assert str(folder) not in listings[n:]  # taken from the cache, file re-stat'ed
    assert cat.snapshot.get("beta").description == "edited in place"
    same(cat.snapshot, cold(tree))


def test_new_skill_folder_is_seen(tree, settled, listings) -> None:
    cat = Catalog(tree)
    cat.load()
    skill(tree[0].path, "group/epsilon", "epsilon")
    n = len(listings)
    change = cat.reload()
    assert change.added == ("epsilon",)
    assert str(tree[0].path / "group") in listings[n:]  # its parent changed: listed again
    assert str(tree[0].path / "alpha") not in listings[n:]
    same(cat.snapshot, cold(tree))


def test_new_skill_deep_in_a_new_folder_is_seen(tree, settled) -> None:
    cat = Catalog(tree)
    cat.load()
    skill(tree[0].path, "group/deeper/gamma/nested/zeta", "zeta")
    assert cat.reload().added == ("zeta",)
    same(cat.snapshot, cold(tree))


def test_removed_skill_folder_is_gone(tree, settled) -> None:
    cat = Catalog(tree)
    cat.load()
    shutil.rmtree(tree[0].path / "group" / "deeper")
    change = cat.reload()
    assert change.removed == ("gamma",)
    assert cat.snapshot.get("gamma") is None
    same(cat.snapshot, cold(tree))


def test_removed_shadowing_skill_promotes_the_other(tree, settled) -> None:
    cat = Catalog(tree)
    cat.load()
    shutil.rmtree(tree[0].path / "alpha")
    assert cat.reload().changed == ("alpha",)
    assert cat.snapshot.get("alpha").description == "the shadowed one"
    same(cat.snapshot, cold(tree))


def test_dangling_link_that_comes_to_life_is_followed(tmp_path, settled) -> None:
    root = tmp_path / "skills"
    (root / "later").mkdir(parents=True)
    target = tmp_path / "elsewhere" / "SKILL.md"
    (root / "later" / "SKILL.md").symlink_to(target)
    roots = [Root(root, Source.PROJECT, "extra", (0,), explicit=True)]
    cat = Catalog(roots)
    assert [d.code for d in cat.load().diagnostics] == ["dangling-symlink"]
    target.parent.mkdir()
    target.write_text("---\ndescription: now here\n---\n")  # no folder under the root changed
    assert cat.reload().added == ("later",)
    assert cat.snapshot.diagnostics == ()
    same(cat.snapshot, cold(roots))


def test_retargeted_link_is_followed(tmp_path, settled) -> None:
    root = tmp_path / "skills"
    root.mkdir()
    skill(tmp_path / "one", "x", "first")
    skill(tmp_path / "two", "y", "second")
    (root / "pack").symlink_to(tmp_path / "one")
    roots = [Root(root, Source.PROJECT, "extra", (0,), explicit=True)]
    cat = Catalog(roots)
    assert [s.name for s in cat.load()] == ["first"]
    stamp = root.stat().st_mtime_ns
    (root / "pack").unlink()
    (root / "pack").symlink_to(tmp_path / "two")
    os.utime(root, ns=(stamp, stamp))  # even if the root's mtime looked unchanged
    change = cat.reload()
    assert (change.added, change.removed) == (("second",), ("first",))
    same(cat.snapshot, cold(roots))


def test_reload_with_paths_uses_the_cache_too(tree, settled, listings) -> None:
    cat = Catalog(tree)
    cat.load()
    target = tree[0].path / "group" / "deeper" / "gamma" / "SKILL.md"
    target.write_text("---\nname: gamma\ndescription: edited\n---\n")
    os.utime(target, ns=(time.time_ns(), target.stat().st_mtime_ns + 1_000_000))
    n = len(listings)
    assert cat.reload(paths=[target]).changed == ("gamma",)
    assert listings[n:] == []
    same(cat.snapshot, cold(tree))


# -- the racy-listing rule ------------------------------------------------------------------


def _root(path: Path) -> Root:
    return Root(path, Source.PROJECT, "extra", (0,), explicit=True)


def _tampered(cache: DirCache, folder: Path, listed_at: int) -> None:
    """Make the kept listing of `folder` forget its subfolders, keeping its stamp: what a
    change in the same clock tick as the listing would look like."""
    entry = list(cache.new[str(folder)])
    entry[4] = listed_at
    entry[6] = []
    cache.new[str(folder)] = tuple(entry)


def test_folder_changed_just_before_its_listing_is_listed_again(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skill(root, "one", "one")
    cache = DirCache()
    assert len(scan_root(_root(root), cache=cache).candidates) == 1
    _tampered(cache, root, listed_at=time.time_ns())  # its mtime is less than 2 s older
    again = DirCache(cache.new, {})
    res = scan_root(_root(root), cache=again)
    assert [c.path.parent.name for c in res.candidates] == ["one"]
    assert res.listed >= 1 and again.new[str(root)][6] == ["one"]


def test_folder_settled_before_its_listing_is_taken_from_the_cache(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skill(root, "one", "one")
    cache = DirCache()
    scan_root(_root(root), cache=cache)
    _tampered(cache, root, listed_at=time.time_ns() + 10_000_000_000)
    res = scan_root(_root(root), cache=DirCache(cache.new, {}))
    assert res.candidates == [] and res.listed == 0  # the (tampered) kept listing was used


def test_changed_stamp_means_listing_again(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skill(root, "one", "one")
    cache = DirCache()
    scan_root(_root(root), cache=cache)
    _tampered(cache, root, listed_at=time.time_ns() + 10_000_000_000)
    entry = list(cache.new[str(root)])
    entry[1] -= 1  # ctime: a chmod, or a change whose mtime was put back
    cache.new[str(root)] = tuple(entry)
    res = scan_root(_root(root), cache=DirCache(cache.new, {}))
    assert len(res.candidates) == 1


# -- the persisted cache: warm starts ---------------------------------------------------------


def test_warm_start_with_persisted_folder_cache_equals_cold_load(tree, tmp_path, settled, listings):
    path = tmp_path / "index.json"
    Catalog(tree, index=Index(path)).load()
    assert read_document(path)["dirs"]
    n = len(listings)
    index = Index(path)
    warm = Catalog(tree, index=index)
    warm.load()
    assert index.misses == 0
    assert listings[n:] == [
        str(tree[1].path),
        str(tree[1].path / "link"),
        str(tree[1].path / "link" / "linked"),
    ]
    same(warm.snapshot, cold(tree))


def test_warm_start_sees_changes_made_between_sessions(tree, tmp_path, settled) -> None:
    path = tmp_path / "index.json"
    Catalog(tree, index=Index(path)).load()
    skill(tree[0].path, "group/new-one", "new-one")
    shutil.rmtree(tree[0].path / "alpha")
    target = tree[1].path / "delta" / "SKILL.md"
    target.write_text("---\nname: delta\ndescription: edited between sessions\n---\n")
    os.utime(target, ns=(time.time_ns(), target.stat().st_mtime_ns + 1_000_000))
    warm = Catalog(tree, index=Index(path))
    warm.load()
    assert warm.snapshot.get("new-one") is not None
    assert warm.snapshot.get("delta").description == "edited between sessions"
    same(warm.snapshot, cold(tree))


def test_unchanged_warm_start_does_not_rewrite_the_index(tree, tmp_path, settled) -> None:
    path = tmp_path / "index.json"
    Catalog(tree, index=Index(path)).load()
    before = path.stat().st_mtime_ns, path.read_bytes()
    time.sleep(0.01)
    Catalog(tree, index=Index(path)).load()
    assert (path.stat().st_mtime_ns, path.read_bytes()) == before


@pytest.mark.parametrize(
    "dirs",
    [
        None,
        [],
        "junk",
        {"x": 1},
        "each entry is junk",
        "names escape the folder",
        "stamps are strings",
        "entries are short",
    ],
)
def test_corrupt_folder_cache_is_ignored(tree, tmp_path, settled, dirs) -> None:
    path = tmp_path / "index.json"
    Catalog(tree, index=Index(path)).load()
    doc = read_document(path)
    good = doc["dirs"]
    if dirs == "each entry is junk":
        dirs = {k: [None, 42, "x", {"s": 1}][i % 4] for i, k in enumerate(good)}
    elif dirs == "names escape the folder":
        dirs = {k: [*e[:6], ["..", "../..", "a/b", ""], ["../SKILL.md"]] for k, e in good.items()}
    elif dirs == "stamps are strings":
        dirs = {k: [str(x) for x in e[:6]] + list(e[6:]) for k, e in good.items()}
    elif dirs == "entries are short":
        dirs = {k: e[:5] for k, e in good.items()}
    doc["dirs"] = dirs
    write_document(path, doc)
    warm = Catalog(tree, index=Index(path))
    warm.load()
    same(warm.snapshot, cold(tree))
    # ... and a good cache is written in its place.
    assert isinstance(read_document(path)["dirs"], dict)


def test_folder_cache_from_another_format_is_ignored(tree, tmp_path, settled, listings) -> None:
    path = tmp_path / "index.json"
    Catalog(tree, index=Index(path)).load()
    magic, header, rest = path.read_bytes().split(b"\n", 2)
    other = json.loads(header) | {"format": -1}
    path.write_bytes(magic + b"\n" + json.dumps(other).encode() + b"\n" + rest)
    n = len(listings)
    Catalog(tree, index=Index(path)).load()
    assert len(listings[n:]) > 5  # everything listed again


# -- invariants the catalog relies on ---------------------------------------------------------


def test_candidate_order_holds_the_path_as_a_string(tree) -> None:
    for root in tree:
        for c in scan_root(root, cache=DirCache()).candidates:
            assert c.order[1] == str(c.path)


@pytest.mark.corpus
def test_candidate_order_holds_the_path_as_a_string_on_the_corpus(corpus_dir: Path) -> None:
    res = scan_root(_root(corpus_dir), cache=DirCache())
    assert res.candidates
    assert all(c.order[1] == str(c.path) for c in res.candidates)


def test_cached_scan_equals_plain_scan(tree, settled) -> None:
    for root in tree:
        plain = scan_root(root)
        cache = DirCache()
        first = scan_root(root, cache=cache)
        second = scan_root(root, cache=DirCache(cache.new, {}))
        assert second.reused > 0
        for res in (first, second):
            assert [(c.path, c.real_path, c.order, c.side) for c in res.candidates] == [
                (c.path, c.real_path, c.order, c.side) for c in plain.candidates
            ]
            assert res.diagnostics == plain.diagnostics


# -- snapshots patched after an edit equal rebuilt ones -----------------------------------


def test_edits_that_keep_every_clash_patch_the_snapshot_correctly(tree, tmp_path, settled) -> None:
    cat = Catalog(tree, index=Index(tmp_path / "index.json"))
    cat.load()
    edits = {
        tree[0].path / "alpha" / "SKILL.md": "alpha",  # a winner
        tree[1].path / "alpha" / "SKILL.md": "alpha",  # the loser it shadows
        tree[1].path / "link" / "linked" / "SKILL.md": "linked",
    }
    for i, (target, name) in enumerate(edits.items()):
        target.write_text(f"---\nname: {name}\ndescription: edit {i}\n---\n")
        os.utime(target, ns=(time.time_ns(), target.stat().st_mtime_ns + 1_000_000))
    change = cat.reload(paths=list(edits))
    assert set(change.changed) == {"alpha", "linked"}
    same(cat.snapshot, cold(tree))
    assert cat.snapshot.shadowed[0].spec.description == "edit 1"
    # A rename changes a clash: the snapshot is rebuilt, and still right.
    target = tree[0].path / "alpha" / "SKILL.md"
    target.write_text("---\nname: omega\ndescription: renamed\n---\n")
    os.utime(target, ns=(time.time_ns(), target.stat().st_mtime_ns + 1_000_000))
    cat.reload()
    assert cat.snapshot.shadowed == ()
    same(cat.snapshot, cold(tree))


def test_a_patched_reload_reports_the_change_a_full_diff_finds(tree, tmp_path, settled) -> None:
    """A reload that patches the snapshot checks only the edited keys for what changed
    (not every skill): it must report what comparing the whole snapshots reports, in the
    snapshot's order, whatever order the files were edited in."""
    from codebot.skills.catalog.snapshot import diff

    cat = Catalog(tree, index=Index(tmp_path / "index.json"))
    cat.load()
    before = cat.snapshot
    edits = [
        tree[1].path / "link" / "linked" / "SKILL.md",
        tree[0].path / "alpha" / "SKILL.md",
        tree[1].path / "alpha" / "SKILL.md",
    ]
    for i, target in enumerate(edits):
        name = target.parent.name
        target.write_text(f"---\nname: {name}\ndescription: again {i}\n---\n")
        os.utime(target, ns=(time.time_ns(), target.stat().st_mtime_ns + 1_000_000))
    change = cat.reload(paths=edits)
    full = diff(before, cat.snapshot)
    assert (change.added, change.removed, change.changed) == (
        full.added,
        full.removed,
        full.changed,
    )
    assert sorted(change.changed) == ["alpha", "linked"] and len(change.changed) == 2
    # only the shadowed copy edited: the winner is the same object, nothing to report
    before = cat.snapshot
    loser = tree[1].path / "alpha" / "SKILL.md"
    loser.write_text("---\nname: alpha\ndescription: the loser again\n---\n")
    os.utime(loser, ns=(time.time_ns(), loser.stat().st_mtime_ns + 1_000_000))
    change = cat.reload(paths=[loser])
    assert change.changed == diff(before, cat.snapshot).changed == ()
    assert cat.snapshot.shadowed[0].spec.description == "the loser again"
    same(cat.snapshot, cold(tree))


def test_renaming_within_the_same_key_rebuilds_the_reasons(tmp_path, settled) -> None:
    root = tmp_path / "skills"
    plain = skill(root, "a", "review")
    skill(root, "b", "r\u0435view")  # a Cyrillic е: looks like "review"
    roots = [_root(root)]
    cat = Catalog(roots)
    cat.load()
    [lost] = cat.snapshot.shadowed
    assert "'review'" in lost.reason
    plain.write_text("---\nname: Review\ndescription: same key, other spelling\n---\n")
    os.utime(plain, ns=(time.time_ns(), plain.stat().st_mtime_ns + 1_000_000))
    cat.reload(paths=[plain])
    assert "'Review'" in cat.snapshot.shadowed[0].reason
    same(cat.snapshot, cold(roots))


def test_one_index_keeps_the_folder_listings_of_every_project(tmp_path, settled, listings) -> None:
    shared = tmp_path / "user-skills"
    skill(shared, "common", "common")
    projects = []
    for name in ("x", "y"):
        skill(tmp_path / name, f"only-{name}", f"only-{name}")
        projects.append([_root(tmp_path / name), Root(shared, Source.USER, "codebot", (1, 0))])
    path = tmp_path / "index.json"
    for roots in projects:  # each project's first start writes its listings
        Catalog(roots, index=Index(path)).load()
    for roots in projects:  # ... and neither start pushed out the other's
        n = len(listings)
        warm = Catalog(roots, index=Index(path))
        warm.load()
        assert listings[n:] == []
        same(warm.snapshot, cold(roots))


def test_listings_of_vanished_folders_are_dropped_on_save(tmp_path, settled) -> None:
    path = tmp_path / "index.json"
    gone, kept = tmp_path / "gone", tmp_path / "kept"
    skill(gone, "a", "a")
    skill(kept, "b", "b")
    Catalog([_root(gone)], index=Index(path)).load()
    shutil.rmtree(gone)
    Catalog([_root(kept)], index=Index(path)).load()
    dirs = read_document(path)["dirs"]
    assert str(kept) in dirs and not any(k.startswith(str(gone)) for k in dirs)
