"""Hot reload: real files in tmp folders, a real watchfiles watcher, polling with timeouts."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from codebot.skills.catalog import Catalog, Change
from codebot.skills.files import Root, Severity, Source
from codebot.skills.watch import SkillWatcher, make_plan

TIMEOUT = 10.0  # generous for a loaded 2-core machine; every wait returns as soon as it can
REPO = Path(__file__).resolve().parents[3]


def wait_until(pred: Callable[[], object], timeout: float = TIMEOUT, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.01)
    assert pred(), f"timed out after {timeout}s waiting for {what or pred}"


class Recorder:
    """The on_reload callback: remembers every Change, thread-safely."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.changes: list[Change] = []
        self.threads: set[int] = set()

    def __call__(self, change: Change) -> None:
        with self.lock:
            self.changes.append(change)
            self.threads.add(threading.get_ident())

    def all(self, field: str) -> set[str]:
        with self.lock:
            return {k for c in self.changes for k in getattr(c, field)}

    def count(self) -> int:
        with self.lock:
            return len(self.changes)

    def wait_quiet(self, quiet: float = 0.5, timeout: float = TIMEOUT) -> None:
        """Wait until no callback arrived for `quiet` seconds (bounded by `timeout`)."""
        deadline = time.monotonic() + timeout
        last, since = self.count(), time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(0.02)
            n = self.count()
            if n != last:
                last, since = n, time.monotonic()
            elif time.monotonic() - since >= quiet:
                return


def skill_text(description: str, name: str | None = None) -> str:
    head = f"name: {name}\n" if name else ""
    return f"---\n{head}description: {description}\n---\nDo the thing.\n"


def put_skill(root: Path, name: str, description: str = "A skill.", *, named: bool = False) -> Path:
    path = root / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(skill_text(description, name if named else None), encoding="utf-8")
    return path


def project_root(path: Path, i: int = 0) -> Root:
    return Root(path, Source.PROJECT, "codebot", (0, i))


Started = tuple[SkillWatcher, Recorder, Catalog]


@pytest.fixture
def watch() -> Iterator[Callable[..., Started]]:
    """`watch(root_path, ..., **watcher_kwargs)` -> (watcher, recorder, catalog), armed."""
    started: list[SkillWatcher] = []

    def start(*paths: Path, **kw: object) -> Started:
        catalog = Catalog([project_root(p, i) for i, p in enumerate(paths)])
        catalog.load()
        rec = Recorder()
        watcher = SkillWatcher(catalog, rec, **kw)  # type: ignore[arg-type]
        started.append(watcher)
        watcher.start()
        assert watcher.ready.wait(TIMEOUT), "watcher never became ready"
        return watcher, rec, catalog

    yield start
    for w in started:
        w.stop()
        assert not w.running


# -- the basics -------------------------------------------------------------------------


def test_edit_skill_is_changed(skills_root: Path, watch) -> None:
    path = put_skill(skills_root, "alpha", "First version.")
    _w, rec, cat = watch(skills_root)
    assert cat.snapshot.get("alpha") is not None
    path.write_text(skill_text("Second, longer version of the description."), encoding="utf-8")
    wait_until(lambda: "alpha" in rec.all("changed"), what="alpha changed")
    assert cat.snapshot.get("alpha").description == "Second, longer version of the description."


def test_add_skill_folder_is_added(skills_root: Path, watch) -> None:
    _w, rec, cat = watch(skills_root)
    put_skill(skills_root, "beta")
    wait_until(lambda: "beta" in rec.all("added"), what="beta added")
    assert cat.snapshot.get("beta") is not None


def test_single_file_skill_added(skills_root: Path, watch) -> None:
    _w, rec, _cat = watch(skills_root)
    (skills_root / "solo.md").write_text(skill_text("A single-file skill."), encoding="utf-8")
    wait_until(lambda: "solo" in rec.all("added"), what="solo added")


def test_remove_skill_folder_is_removed(skills_root: Path, watch) -> None:
    put_skill(skills_root, "gamma")
    put_skill(skills_root, "keep")
    _w, rec, cat = watch(skills_root)
    shutil.rmtree(skills_root / "gamma")
    wait_until(lambda: "gamma" in rec.all("removed"), what="gamma removed")
    assert cat.snapshot.get("gamma") is None
    assert cat.snapshot.get("keep") is not None


def test_rename_folder_is_removed_and_added(skills_root: Path, watch) -> None:
    put_skill(skills_root, "old-name")  # no `name:`: the folder names the skill
    _w, rec, cat = watch(skills_root)
    os.rename(skills_root / "old-name", skills_root / "new-name")
    wait_until(
        lambda: "new-name" in rec.all("added") and "old-name" in rec.all("removed"),
        what="rename seen",
    )
    assert set(cat.snapshot.skills) == {"new-name"}


# -- roots that appear, vanish, or are links -----------------------------------------------


def test_root_created_after_start(tmp_path: Path, watch) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    root = project / ".codebot" / "skills"  # neither .codebot nor skills exists yet
    w, rec, cat = watch(root)
    assert str(project) in w.plan.parents and not w.plan.recursive
    put_skill(root, "late")
    wait_until(lambda: "late" in rec.all("added"), what="skill in a new root")
    put_skill(root, "later")  # the new root must now be watched itself
    wait_until(lambda: "later" in rec.all("added"), what="second skill in the new root")
    assert os.path.realpath(root) in w.plan.recursive
    assert set(cat.snapshot.skills) == {"late", "later"}


def test_root_deleted_and_recreated(skills_root: Path, watch) -> None:
    put_skill(skills_root, "first")
    w, rec, cat = watch(skills_root)
    arms = w.arms
    shutil.rmtree(skills_root)
    wait_until(lambda: "first" in rec.all("removed"), what="first removed with its root")
    skills_root.mkdir()
    put_skill(skills_root, "second")
    wait_until(lambda: "second" in rec.all("added"), what="second added in the recreated root")
    put_skill(skills_root, "third")  # watchfiles would be silent here without a re-arm
    wait_until(lambda: "third" in rec.all("added"), what="third added later")
    assert w.arms > arms
    assert set(cat.snapshot.skills) == {"second", "third"}


def test_symlinked_root(tmp_path: Path, watch) -> None:
    real = tmp_path / "real-skills"
    real.mkdir()
    put_skill(real, "linked")
    link = tmp_path / "link-skills"
    link.symlink_to(real, target_is_directory=True)
    w, rec, cat = watch(link)
    assert str(real) in w.plan.recursive  # watched through its resolved path
    put_skill(real, "via-real")  # written through the real path...
    wait_until(lambda: "via-real" in rec.all("added"), what="skill added through the real path")
    spec = cat.snapshot.get("via-real")
    assert spec.path == link / "via-real" / "SKILL.md"  # ...reported under the root's own path
    (link / "linked" / "SKILL.md").write_text(
        skill_text("Edited through the link, longer."), encoding="utf-8"
    )
    wait_until(lambda: "linked" in rec.all("changed"), what="edit through the link")
    assert cat.snapshot.get("linked").path == link / "linked" / "SKILL.md"


def test_symlinked_root_whose_target_is_recreated(tmp_path: Path, watch) -> None:
    real = tmp_path / "target"
    put_skill(real, "before")
    link = tmp_path / "skills-link"
    link.symlink_to(real, target_is_directory=True)
    _w, rec, cat = watch(link)
    shutil.rmtree(real)  # the link now dangles
    wait_until(lambda: "before" in rec.all("removed"), what="skills gone with the target")
    real.mkdir()
    put_skill(real, "after")
    wait_until(lambda: "after" in rec.all("added"), what="the recreated target")
    put_skill(link, "later")
    wait_until(lambda: "later" in rec.all("added"), what="a later addition")
    assert set(cat.snapshot.skills) == {"after", "later"}


def test_two_roots_one_unchanged(tmp_path: Path, watch) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    put_skill(b, "bee")
    _w, rec, cat = watch(a, b)
    put_skill(a, "ay")
    wait_until(lambda: "ay" in rec.all("added"), what="ay added")
    assert set(cat.snapshot.skills) == {"ay", "bee"}


def test_plan_for_missing_and_existing_roots(tmp_path: Path) -> None:
    existing = tmp_path / "x" / "skills"
    existing.mkdir(parents=True)
    missing = tmp_path / "y" / "deep" / "skills"
    plan = make_plan([existing, missing])
    assert plan.recursive == (str(existing),)
    assert str(tmp_path / "x") in plan.parents  # where `skills` itself can vanish
    assert str(tmp_path) in plan.parents  # nearest existing ancestor of the missing root
    assert str(tmp_path / "y") in plan.relevant and str(tmp_path / "y" / "deep") in plan.relevant
    assert str(missing) in plan.relevant


# -- bursts ---------------------------------------------------------------------------------


def test_burst_of_300_is_a_few_reloads(skills_root: Path, watch) -> None:
    put_skill(skills_root, "existing")
    _w, rec, cat = watch(skills_root)
    names = [f"burst-{i:03d}" for i in range(300)]
    for n in names:
        put_skill(skills_root, n)
    wait_until(lambda: len(cat.snapshot) == 301, what="all 300 new skills")
    rec.wait_quiet(0.5)
    assert 1 <= rec.count() <= 5, [len(c.added) for c in rec.changes]
    assert rec.all("added") == set(names)
    fresh = Catalog([project_root(skills_root)]).load()
    assert set(cat.snapshot.skills) == set(fresh.skills)
    assert {k: (s.path, s.stamp) for k, s in cat.snapshot.skills.items()} == {
        k: (s.path, s.stamp) for k, s in fresh.skills.items()
    }


# -- broken skills and diagnostics ------------------------------------------------------------

BROKEN = '---\ndescription: "never closed\n---\nbody\n'


def test_catalog_drops_a_skill_edited_into_broken_yaml(skills_root: Path) -> None:
    """The catalog itself (no watcher): a broken edit removes the skill, never keeps the old one."""
    path = put_skill(skills_root, "fragile")
    cat = Catalog([project_root(skills_root)])
    assert cat.load().get("fragile") is not None
    path.write_text(BROKEN, encoding="utf-8")
    change = cat.reload(paths=[path])
    assert change.removed == ("fragile",)
    assert cat.snapshot.get("fragile") is None
    diags = [d for d in cat.snapshot.diagnostics if d.path == str(path)]
    assert diags and diags[0].severity is Severity.ERROR and diags[0].code == "yaml-syntax"


def test_broken_yaml_edit_removes_skill_with_diagnostic(skills_root: Path, watch) -> None:
    path = put_skill(skills_root, "fragile")
    _w, rec, cat = watch(skills_root)
    path.write_text(BROKEN, encoding="utf-8")
    wait_until(lambda: "fragile" in rec.all("removed"), what="broken skill removed")
    assert cat.snapshot.get("fragile") is None
    assert any(
        d.path == str(path) and d.severity is Severity.ERROR for d in cat.snapshot.diagnostics
    )
    path.write_text(skill_text("Fixed again, with a longer description."), encoding="utf-8")
    wait_until(lambda: "fragile" in rec.all("added"), what="fixed skill back")
    assert not any(d.path == str(path) for d in cat.snapshot.diagnostics)


def test_diagnostics_change_alone_calls_back(skills_root: Path, watch) -> None:
    path = skills_root / "bad" / "SKILL.md"
    path.parent.mkdir()
    path.write_text(BROKEN, encoding="utf-8")
    _w, rec, cat = watch(skills_root)
    before = [d for d in cat.snapshot.diagnostics if d.path == str(path)]
    path.write_text("---\ndescription: ok\n- item\nmore: x\n---\nbody\n", encoding="utf-8")
    wait_until(lambda: rec.count() >= 1, what="a callback for a diagnostics-only change")
    assert not rec.changes[0]  # an empty Change: no skill came or went
    after = [d for d in cat.snapshot.diagnostics if d.path == str(path)]
    assert after and after != before


# -- what is ignored --------------------------------------------------------------------------


def test_changes_outside_roots_and_filtered_files_are_ignored(tmp_path: Path, watch) -> None:
    root = tmp_path / "skills"
    root.mkdir()
    put_skill(root, "alpha")
    _w, rec, cat = watch(root)
    calls: list[object] = []
    real_reload = cat.reload

    def spy(paths=None):
        calls.append(None if paths is None else [str(p) for p in paths])
        return real_reload(paths=paths)

    cat.reload = spy  # type: ignore[method-assign]
    (tmp_path / "notes.txt").write_text("next to the root, not in it")  # the parent is watched
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / "alpha" / ".SKILL.md.swp").write_text("swap")
    put_skill(root, "omega")
    wait_until(lambda: "omega" in rec.all("added"), what="omega added")
    rec.wait_quiet(0.3)
    assert calls and None not in calls, calls  # no full reload for any of this
    flat = [p for c in calls for p in c]
    assert all(p.startswith(str(root) + os.sep) for p in flat), flat
    assert not any(".git" in p or p.endswith(".swp") for p in flat), flat


def test_noise_in_a_skill_folder_causes_no_reload(skills_root: Path, watch) -> None:
    """A file written over and over (a script's log) neither reloads nor delays an edit."""
    skill = put_skill(skills_root, "noisy")
    (skills_root / "noisy" / "scripts").mkdir()
    _w, rec, cat = watch(skills_root)
    calls: list[object] = []
    real_reload = cat.reload

    def spy(paths=None):
        calls.append(paths)
        return real_reload(paths=paths)

    cat.reload = spy  # type: ignore[method-assign]
    stop = threading.Event()
    written = [0]

    def noise() -> None:
        log_file = skills_root / "noisy" / "scripts" / "run.log"
        while not stop.is_set():
            with open(log_file, "a") as fh:
                fh.write("tick\n")
            written[0] += 1
            time.sleep(0.005)

    t = threading.Thread(target=noise, daemon=True)
    t.start()
    try:
        wait_until(lambda: written[0] >= 40, what="some noise")
        assert calls == []
        skill.write_text(skill_text("Edited while a log file kept growing."), encoding="utf-8")
        wait_until(lambda: "noisy" in rec.all("changed"), what="the edit, despite the noise")
    finally:
        stop.set()
        t.join()
    assert all(p is not None and all(str(x).endswith(".md") for x in p) for p in calls), calls


def test_folder_with_a_dotted_name_moved_away(tmp_path: Path, watch) -> None:
    root = tmp_path / "skills"
    put_skill(root, "v1.2")
    _w, rec, cat = watch(root)
    assert cat.snapshot.get("v1.2") is not None
    os.rename(root / "v1.2", tmp_path / "elsewhere")  # one event: 'deleted root/v1.2'
    wait_until(lambda: "v1.2" in rec.all("removed"), what="v1.2 removed")


# -- robustness -----------------------------------------------------------------------------


def test_callback_and_reload_errors_are_logged_and_watching_goes_on(
    skills_root: Path, watch, caplog
) -> None:
    caplog.set_level(logging.ERROR, logger="codebot.watch")
    w, rec, cat = watch(skills_root)
    failures = {"callback": 1, "reload": 1}

    def flaky(change: Change) -> None:
        if failures["callback"]:
            failures["callback"] -= 1
            raise RuntimeError("callback bug")
        rec(change)

    w.on_reload = flaky
    put_skill(skills_root, "one")
    wait_until(lambda: failures["callback"] == 0, what="the failing callback")
    wait_until(lambda: cat.snapshot.get("one") is not None, what="one loaded")

    real_reload = cat.reload

    def broken(paths=None):
        if failures["reload"]:
            failures["reload"] -= 1
            raise OSError("disk on fire")
        return real_reload(paths=paths)

    cat.reload = broken  # type: ignore[method-assign]
    put_skill(skills_root, "two")
    wait_until(lambda: failures["reload"] == 0, what="the failing reload")
    wait_until(lambda: cat.snapshot.get("two") is not None, what="the failed reload retried")
    put_skill(skills_root, "three")
    wait_until(lambda: cat.snapshot.get("three") is not None, what="watching went on")
    assert w.running and w.errors >= 2
    messages = [r.getMessage() for r in caplog.records if r.name == "codebot.watch"]
    assert any("callback failed" in m for m in messages)
    assert any("reload failed" in m for m in messages)


def test_falls_back_to_polling_when_notify_fails(skills_root: Path, monkeypatch, caplog) -> None:
    """An OS that refuses more watches (inotify limit): retry, then poll; never crash."""
    import watchfiles

    real_watch = watchfiles.watch

    def limited(*paths, **kw):
        if not kw.get("force_polling"):
            raise OSError(28, "OS file watch limit reached")
        return real_watch(*paths, **kw)

    monkeypatch.setattr(watchfiles, "watch", limited)
    caplog.set_level(logging.WARNING, logger="codebot.watch")
    cat = Catalog([project_root(skills_root)])
    cat.load()
    rec = Recorder()
    w = SkillWatcher(cat, rec).start()
    try:
        assert w.ready.wait(TIMEOUT) and w.running
        assert w.force_polling is True
        put_skill(skills_root, "polled")
        wait_until(lambda: "polled" in rec.all("added"), what="a skill seen by polling")
    finally:
        w.stop()
    assert any("falling back to polling" in r.getMessage() for r in caplog.records)


def test_stop_is_prompt_and_idempotent(skills_root: Path) -> None:
    cat = Catalog([project_root(skills_root)])
    cat.load()
    w = SkillWatcher(cat, lambda c: None).start()
    assert w.ready.wait(TIMEOUT)
    t0 = time.monotonic()
    w.stop()
    assert not w.running
    assert time.monotonic() - t0 < 3
    w.stop()
    with pytest.raises(RuntimeError):
        w.start()


async def test_arun_delivers_on_the_event_loop(skills_root: Path) -> None:
    cat = Catalog([project_root(skills_root)])
    cat.load()
    rec = Recorder()
    w = SkillWatcher(cat, rec)
    task = asyncio.create_task(w.arun())
    loop_thread = threading.get_ident()
    deadline = time.monotonic() + TIMEOUT
    while not w.ready.is_set() and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    assert w.ready.is_set()
    put_skill(skills_root, "async-skill")
    while "async-skill" not in rec.all("added") and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    assert "async-skill" in rec.all("added")
    assert rec.threads == {loop_thread}  # on_reload ran on the event loop, not the watcher thread
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    while w.running and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    assert not w.running


# -- the command ----------------------------------------------------------------------------


def _watch_command(skills_dir: Path) -> list[str]:
    """`python -m codebot skills watch ...`, or the module itself until cli.py wires it."""
    from codebot.cli import build_parser

    python = REPO / ".venv" / "bin" / "python"
    exe = str(python) if python.exists() else sys.executable
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            build_parser().parse_args(["skills", "watch", "--json"])
        prefix = [exe, "-m", "codebot", "skills", "watch"]
    except SystemExit:
        prefix = [exe, "-m", "codebot.commands.watch"]
    return [*prefix, "--json", "--skills-dir", str(skills_dir)]


def test_cli_watch_json(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    skills_dir = tmp_path / "extra-skills"
    skills_dir.mkdir()
    proc = subprocess.Popen(
        _watch_command(skills_dir),
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout], daemon=True).start()

    def next_event(timeout: float) -> dict:
        try:
            return json.loads(lines.get(timeout=timeout))
        except queue.Empty:
            proc.kill()
            pytest.fail(f"no line from `skills watch` in {timeout}s; stderr: {proc.stderr.read()}")

    try:
        ready = next_event(30)
        assert ready["event"] == "ready" and isinstance(ready["skills"], int)
        put_skill(skills_dir, "from-cli-test")
        event = next_event(TIMEOUT)
        while "from-cli-test" not in event.get("added", []):
            event = next_event(TIMEOUT)
        assert event["event"] == "reload"
        assert set(event) == {"event", "added", "removed", "changed", "ms"}
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(TIMEOUT) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


# -- a catch-up that waits ----------------------------------------------------------------


def test_catch_up_after_delays_the_rescan_but_misses_nothing(skills_root: Path) -> None:
    """`catch_up_after`: ready as soon as the watches are armed, the full rescan for what
    changed while loading comes that much later, and it finds that change."""
    put_skill(skills_root, "alpha")
    catalog = Catalog([project_root(skills_root)])
    catalog.load()
    put_skill(skills_root, "written-while-loading")  # after the load, before the watch
    rec = Recorder()
    watcher = SkillWatcher(catalog, rec, catch_up_after=1.0)
    try:
        t0 = time.monotonic()
        watcher.start()
        assert watcher.ready.wait(TIMEOUT)
        assert watcher.full_reloads == 0, "ready must not wait for the catch-up"
        assert catalog.snapshot.get("written-while-loading") is None
        wait_until(lambda: "written-while-loading" in rec.all("added"), what="the catch-up")
        assert time.monotonic() - t0 >= 0.9, "the catch-up came before its delay"
        assert watcher.full_reloads == 1
        put_skill(skills_root, "after-arming")  # events still work, and no second catch-up
        wait_until(lambda: "after-arming" in rec.all("added"), what="a plain event")
        assert watcher.full_reloads == 1
    finally:
        watcher.stop()


def test_catch_up_is_immediate_by_default(skills_root: Path, watch) -> None:
    w, _rec, _cat = watch(skills_root)
    assert w.full_reloads == 1  # done before ready


def test_sandbox_placeholders_do_not_reload_but_a_real_root_still_does(
    tmp_path: Path, watch
) -> None:
    """Each sandboxed command holds missing protected names (`.codebot`) with empty folders
    and removes them after: the watcher must not re-arm and reload for those."""
    from codebot.protected import note_placeholders

    project = tmp_path / "proj"
    project.mkdir()
    root = project / ".codebot" / "skills"
    _w, rec, cat = watch(root)
    calls: list[object] = []
    real_reload = cat.reload
    cat.reload = lambda paths=None: (calls.append(paths), real_reload(paths=paths))[1]  # type: ignore[method-assign]
    holder = str(project / ".codebot")
    for _ in range(5):  # five commands' worth of placeholders
        note_placeholders([holder], held=True)
        os.mkdir(holder)
        os.rmdir(holder)
        note_placeholders([holder], held=False, removed=[holder])
    marker = project / "marker"
    marker.mkdir()  # an unrelated event in the same watched folder, to know the batch passed
    rec.wait_quiet(quiet=0.5)
    assert calls == [] and rec.count() == 0
    # Something real in its place counts again at once (the control).
    note_placeholders([holder], held=True)
    note_placeholders([holder], held=False, removed=[])  # not removed: not a placeholder any more
    put_skill(root, "real")
    wait_until(lambda: "real" in rec.all("added"), what="a real skill after the placeholders")
    assert "real" in cat.snapshot.skills
