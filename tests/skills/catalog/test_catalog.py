"""The catalog: snapshots, incremental reloads, lookups and shadowing."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest

from codebot.skills.catalog import Catalog, Change
from codebot.skills.catalog import catalog as catalog_mod
from codebot.skills.files import Root, Severity, Source


@pytest.fixture
def cat(skills_root: Path, write_skill) -> Catalog:
    """A loaded catalog over `skills_root` holding `alpha` and `beta`."""
    write_skill(skills_root, "alpha", "description: first")
    write_skill(skills_root, "beta", "description: second")
    catalog = Catalog([Root(skills_root, Source.PROJECT, "codebot", (0,))])
    catalog.load()
    return catalog


@pytest.fixture
def parse_calls(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every path the catalog parses from now on."""
    calls: list[Path] = []
    real = catalog_mod.parse_file

    def counting(path, *args, **kwargs):
        calls.append(Path(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(catalog_mod, "parse_file", counting)
    return calls


def rewrite(path: Path, old: str, new: str) -> None:
    """Edit a file so that its size changes (an mtime tick alone can be too coarse)."""
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_load_returns_the_current_snapshot(cat):
    snapshot = cat.load()
    assert cat.snapshot is snapshot
    assert [s.name for s in cat.snapshot] == ["alpha", "beta"]
    assert len(cat.snapshot) == 2


def test_empty_catalog_has_an_empty_snapshot():
    assert len(Catalog([]).snapshot) == 0
    assert Catalog([]).load().diagnostics == ()


def test_reload_reports_added_removed_and_changed(cat, skills_root, write_skill):
    write_skill(skills_root, "gamma", "description: new")
    shutil.rmtree(skills_root / "beta")
    rewrite(skills_root / "alpha" / "SKILL.md", "first", "first, edited")
    change = cat.reload()
    assert (change.added, change.removed, change.changed) == (("gamma",), ("beta",), ("alpha",))
    assert change
    assert change.ms >= 0


def test_reload_without_changes_reports_nothing(cat):
    change = cat.reload()
    assert change == Change(ms=change.ms)
    assert not change


def test_reload_without_changes_parses_nothing(cat, parse_calls):
    cat.reload()
    cat.reload()
    assert parse_calls == []


def test_reload_parses_only_the_edited_file(cat, skills_root, parse_calls):
    rewrite(skills_root / "beta" / "SKILL.md", "second", "second, edited")
    cat.reload()
    assert parse_calls == [skills_root / "beta" / "SKILL.md"]


def test_reload_bumps_the_generation(cat):
    gen = cat.snapshot.generation
    cat.reload()
    assert cat.snapshot.generation == gen + 1


def test_reload_of_an_edited_file_path_picks_up_the_edit(cat, skills_root):
    path = skills_root / "alpha" / "SKILL.md"
    rewrite(path, "first", "first, now longer")
    change = cat.reload(paths=[path])
    assert change.changed == ("alpha",)
    assert cat.snapshot.get("alpha").description == "first, now longer"


def test_reload_of_paths_parses_only_what_changed(cat, skills_root, parse_calls):
    path = skills_root / "alpha" / "SKILL.md"
    rewrite(path, "first", "first, now longer")
    cat.reload(paths=[path])
    assert parse_calls == [path]


def test_reload_of_a_new_skill_folder_adds_it(cat, skills_root, write_skill):
    write_skill(skills_root, "gamma", "description: new")
    change = cat.reload(paths=[skills_root / "gamma"])
    assert change.added == ("gamma",)
    assert cat.snapshot.get("gamma").description == "new"


def test_reload_of_a_new_nested_skill_file_adds_it(cat, skills_root, write_skill):
    path = write_skill(skills_root / "group", "delta", "description: nested")
    assert cat.reload(paths=[path]).added == ("delta",)


def test_reload_of_a_deleted_skill_folder_removes_it(cat, skills_root):
    shutil.rmtree(skills_root / "beta")
    change = cat.reload(paths=[skills_root / "beta"])
    assert change.removed == ("beta",)
    assert cat.snapshot.get("beta") is None
    assert cat.snapshot.get("alpha") is not None


def test_reload_of_a_deleted_skill_file_path_removes_it(cat, skills_root):
    shutil.rmtree(skills_root / "beta")
    assert cat.reload(paths=[skills_root / "beta" / "SKILL.md"]).removed == ("beta",)


def test_reload_of_a_path_outside_every_root_changes_nothing(cat, tmp_path):
    assert not cat.reload(paths=[tmp_path / "elsewhere" / "file.md"])


def test_reload_of_a_file_that_became_invalid_moves_it_to_diagnostics(cat, skills_root, diags_for):
    path = skills_root / "alpha" / "SKILL.md"
    path.write_text("---\nname: alpha\n---\nno description now\n")
    change = cat.reload(paths=[path])
    assert change.removed == ("alpha",)
    [diag] = diags_for(cat.snapshot, path, Severity.ERROR)
    assert diag.code == "missing-description"


def test_fixing_a_broken_file_clears_its_diagnostic(cat, skills_root, diags_for):
    path = skills_root / "alpha" / "SKILL.md"
    good = path.read_text()
    path.write_text("---\nname: [broken\n---\n")
    cat.reload(paths=[path])
    path.write_text(good)
    assert cat.reload(paths=[path]).added == ("alpha",)
    assert diags_for(cat.snapshot, path) == []


def test_reload_of_paths_refreshes_scan_diagnostics(cat, skills_root, diags_for):
    link = skills_root / "alpha" / "helper"
    link.symlink_to(skills_root / "missing-target")
    cat.reload()
    assert [d.code for d in diags_for(cat.snapshot, link)] == ["dangling-symlink"]
    link.unlink()
    cat.reload(paths=[link])
    assert diags_for(cat.snapshot, link) == []


def test_old_snapshot_is_unchanged_after_reload(cat, skills_root, write_skill):
    old = cat.snapshot
    old_alpha = old.get("alpha")
    write_skill(skills_root, "gamma", "description: new")
    rewrite(skills_root / "alpha" / "SKILL.md", "first", "first, edited")
    cat.reload()
    assert cat.snapshot is not old
    assert sorted(old.skills) == ["alpha", "beta"]
    assert old.get("alpha") is old_alpha
    assert old_alpha.description == "first"
    assert cat.snapshot.get("alpha").description == "first, edited"


def test_snapshot_skills_cannot_be_mutated(cat):
    with pytest.raises(TypeError):
        cat.snapshot.skills["evil"] = cat.snapshot.get("alpha")  # type: ignore[index]


def test_unchanged_specs_are_reused_across_reloads(cat, skills_root, write_skill):
    before = cat.snapshot.get("beta")
    write_skill(skills_root, "gamma", "description: new")
    cat.reload()
    assert cat.snapshot.get("beta") is before


def test_reload_can_run_while_readers_use_the_snapshot(cat, skills_root, write_skill):
    errors: list[BaseException] = []
    stop = threading.Event()

    def reader() -> None:
        while not stop.is_set():
            try:
                snap = cat.snapshot
                assert {"alpha", "beta"} <= set(snap.skills)
                list(snap)
            except BaseException as exc:  # reported below
                errors.append(exc)
                return

    thread = threading.Thread(target=reader)
    thread.start()
    for i in range(20):
        write_skill(skills_root, f"extra-{i}", "description: x")
        cat.reload()
    stop.set()
    thread.join()
    assert errors == []
    assert len(cat.snapshot) == 22


@pytest.mark.parametrize("query", ["alpha", "ALPHA", "Alpha", " alpha "])
def test_snapshot_get_normalizes_the_name(cat, query):
    assert cat.snapshot.get(query).name == "alpha"


def test_snapshot_get_treats_underscores_and_spaces_as_hyphens(skills_root, write_skill, load):
    write_skill(skills_root, "code-review", "description: x")
    snapshot = load(skills_root)
    assert snapshot.get("Code_Review") is snapshot.get("code review") is snapshot.get("code-review")


def test_snapshot_get_of_an_unknown_name_is_none(cat):
    assert cat.snapshot.get("nope") is None


def test_shadowed_entries_name_their_winner(tmp_path, write_skill, load):
    project = Root(tmp_path / "p", Source.PROJECT, "codebot", (0,))
    user = Root(tmp_path / "u", Source.USER, "codebot", (1,))
    write_skill(project.path, "deploy", "description: project")
    write_skill(user.path, "deploy", "description: user")
    snapshot = load(project, user)
    winner = snapshot.get("deploy")
    [shadow] = snapshot.shadowed
    assert shadow.winner is winner
    assert shadow.spec.source is Source.USER
    assert snapshot.shadowed_by(shadow.spec) is winner
    assert snapshot.shadowed_by(winner) is None
    assert snapshot.shadows_of(winner) == [shadow]


def test_rejected_file_is_not_shadowing_anything(tmp_path, write_skill, load):
    project = Root(tmp_path / "p", Source.PROJECT, "codebot", (0,))
    user = Root(tmp_path / "u", Source.USER, "codebot", (1,))
    write_skill(project.path, "deploy", "name: deploy")  # no description: rejected
    write_skill(user.path, "deploy", "description: user")
    snapshot = load(project, user)
    assert snapshot.get("deploy").source is Source.USER
    assert snapshot.shadowed == ()


def test_removing_a_winner_promotes_the_shadowed_skill(tmp_path, write_skill):
    project = Root(tmp_path / "p", Source.PROJECT, "codebot", (0,))
    user = Root(tmp_path / "u", Source.USER, "codebot", (1,))
    write_skill(project.path, "deploy", "description: project")
    write_skill(user.path, "deploy", "description: user")
    catalog = Catalog([project, user])
    catalog.load()
    shutil.rmtree(project.path / "deploy")
    change = catalog.reload(paths=[project.path / "deploy"])
    assert (change.added, change.removed, change.changed) == ((), (), ("deploy",))
    assert catalog.snapshot.get("deploy").source is Source.USER
    assert catalog.snapshot.shadowed == ()


def test_snapshot_lists_skills_in_precedence_order(tmp_path, write_skill, load):
    project = Root(tmp_path / "p", Source.PROJECT, "codebot", (0,))
    user = Root(tmp_path / "u", Source.USER, "codebot", (1,))
    write_skill(user.path, "aaa", "description: user")
    write_skill(project.path, "zzz", "description: project")
    assert list(load(user, project).skills) == ["zzz", "aaa"]


def test_catalog_keeps_root_diagnostics_in_the_snapshot(tmp_path):
    missing = Root(tmp_path / "gone", Source.PROJECT, "extra", (0,), explicit=True)
    snapshot = Catalog([missing]).load()
    assert [d.code for d in snapshot.diagnostics] == ["root-missing"]
    assert snapshot.roots == (missing,)


def test_a_root_created_after_load_is_found_by_reload(tmp_path, write_skill):
    later = tmp_path / "later"
    catalog = Catalog([Root(later, Source.PROJECT, "codebot", (0,))])
    assert len(catalog.load()) == 0
    write_skill(later, "fresh", "description: x")
    assert catalog.reload().added == ("fresh",)


def test_replaced_file_with_same_size_and_new_inode_is_reparsed(cat, skills_root):
    path = skills_root / "alpha" / "SKILL.md"
    text = path.read_text().replace("first", "fir5t")
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text)
    st = path.stat()
    os.utime(tmp, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(tmp, path)  # an editor's atomic save: same size and mtime, new inode
    assert cat.reload().changed == ("alpha",)
    assert cat.snapshot.get("alpha").description == "fir5t"


def test_on_scanned_sees_the_candidates_once_before_any_is_parsed(
    skills_root, write_skill, parse_calls
):
    """The hook the router's body prefetch hangs on: the files a full scan found, before
    parsing starts, and only once (a reload does not call it again)."""
    write_skill(skills_root, "alpha", "description: first")
    write_skill(skills_root, "beta", "description: second")
    catalog = Catalog([Root(skills_root, Source.PROJECT, "codebot", (0,))])
    seen: list[tuple[list[str], int]] = []
    catalog.on_scanned = lambda cands: seen.append(
        (sorted(c.path.parent.name for c in cands), len(parse_calls))
    )
    catalog.load()
    assert seen == [(["alpha", "beta"], 0)]
    assert catalog.on_scanned is None and len(catalog.snapshot) == 2
    write_skill(skills_root, "gamma", "description: third")
    catalog.reload()
    assert len(seen) == 1 and len(catalog.snapshot) == 3


def test_on_found_streams_the_scan_in_batches_before_on_scanned(
    skills_root, write_skill, parse_calls, monkeypatch
):
    from codebot.skills.catalog import discover

    monkeypatch.setattr(discover, "FOUND_BATCH", 2)
    for name in ("a1", "a2", "a3", "a4", "a5"):
        write_skill(skills_root, name, f"description: {name}")
    catalog = Catalog([Root(skills_root, Source.PROJECT, "codebot", (0,))])
    events: list[tuple[str, list[str], int]] = []
    catalog.on_found = lambda batch: events.append(
        ("found", [c.path.parent.name for c in batch], len(parse_calls))
    )
    catalog.on_scanned = lambda cands: events.append(
        ("scanned", [c.path.parent.name for c in cands], len(parse_calls))
    )
    catalog.load()
    kinds = [e[0] for e in events]
    assert kinds[-1] == "scanned" and kinds.count("scanned") == 1 and kinds.count("found") >= 1
    streamed = [n for kind, names, _ in events if kind == "found" for n in names]
    assert len(streamed) == len(set(streamed)) and set(streamed) < set(
        events[-1][1]
    )  # each once, the rest at the end
    assert all(parsed == 0 for _, _, parsed in events)  # all before any parse
    assert catalog.on_found is None and catalog.on_scanned is None
    events.clear()
    write_skill(skills_root, "a6", "description: a6")
    catalog.reload()
    assert events == []


def test_on_found_alone_is_not_called(skills_root, write_skill, monkeypatch):
    """Batches only come with the one full scan `on_scanned` waits for."""
    from codebot.skills.catalog import discover

    monkeypatch.setattr(discover, "FOUND_BATCH", 1)
    for name in ("b1", "b2", "b3"):
        write_skill(skills_root, name, f"description: {name}")
    catalog = Catalog([Root(skills_root, Source.PROJECT, "codebot", (0,))])
    seen: list[object] = []
    catalog.on_found = seen.append
    catalog.load()
    assert seen == []
