"""Every host's skill folders: the one table, what is read, precedence, clashes, trust."""

from __future__ import annotations

import itertools
import os
import threading
from pathlib import Path

import pytest

from codebot.protected import fixed_locations, protected_reason
from codebot.skills.catalog import Catalog, default_roots
from codebot.skills.catalog.hosts import (
    HOSTS,
    Host,
    family_label,
    markdown_table,
    project_folders,
    user_folders,
)
from codebot.skills.files import Source
from codebot.skills.invoke import Request, process_invocation

REPO = Path(__file__).resolve().parents[3]
PROJECT = list(project_folders())  # (family, folder) in precedence order
FAMILIES = ["codebot", "agents", "claude", "opencode", "gemini", "copilot", "cursor", "codex"]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git work tree with the working directory two levels down."""
    top = tmp_path / "repo"
    (top / ".git").mkdir(parents=True)
    (top / "pkg" / "sub").mkdir(parents=True)
    return top


@pytest.fixture
def home(isolated_home: Path) -> Path:
    return isolated_home


def load(cwd: Path, home: Path, **kw):
    kw.setdefault("include_bundled", False)
    kw.setdefault("include_plugins", False)
    return Catalog(default_roots(cwd, home, home / ".codebot", **kw)).load()


def loaded_within(snapshot_fn, seconds: float = 20.0):
    """Run a load in a thread; fail (instead of hanging the suite) if it never returns."""
    out: list[object] = []
    t = threading.Thread(target=lambda: out.append(snapshot_fn()), daemon=True)
    t.start()
    t.join(seconds)
    assert out, f"loading did not finish within {seconds}s"
    return out[0]


# -- the table ---------------------------------------------------------------------------


def test_the_table_keeps_todays_order_and_puts_new_hosts_after() -> None:
    assert [h.family for h in HOSTS] == FAMILIES
    assert PROJECT[:3] == [
        ("codebot", ".codebot/skills"),
        ("agents", ".agents/skills"),
        ("claude", ".claude/skills"),
    ]
    assert ("copilot", ".github/skills") in PROJECT
    assert ("opencode", ".opencode/skill") in PROJECT  # OpenCode's older spelling too
    assert len({f for _, f in PROJECT}) == len(PROJECT)  # no folder twice


def test_the_docs_show_exactly_the_table() -> None:
    doc = (REPO / "docs" / "compatibility.md").read_text(encoding="utf-8")
    assert markdown_table() in doc, "docs/compatibility.md: paste hosts.markdown_table() output"
    # and only once, with no stale row left beside it
    rows = [ln for ln in doc.splitlines() if ln.startswith("| ") and "| `" in ln and "~/" in ln]
    assert len(rows) == len(HOSTS) - 1  # codebot's user row names $CODEBOT_HOME instead


def test_a_user_folder_must_name_its_base(tmp_path: Path, monkeypatch) -> None:
    from codebot.skills.catalog import hosts

    monkeypatch.setattr(hosts, "HOSTS", (Host("x", "x", (".x/skills",), ("/etc/skills",)),))
    with pytest.raises(ValueError, match="must start with ~/ or \\$CODEBOT_HOME/"):
        list(user_folders(tmp_path, tmp_path / ".codebot"))


def test_family_label() -> None:
    assert family_label("gemini", "project") == "project/gemini"
    assert family_label("claude", "user") == "user/claude"
    assert family_label("bundled", "bundled") == "bundled"
    assert family_label("plugin", "plugin") == "plugin"


# -- what is read -------------------------------------------------------------------------


def test_every_project_folder_is_read_from_cwd_up_to_the_git_root(repo, home, write_skill):
    cwd = repo / "pkg" / "sub"
    for i, (_, folder) in enumerate(PROJECT):
        write_skill(repo / folder, f"top-{i}", "description: at the git root")
        write_skill(cwd / folder, f"near-{i}", "description: at the working folder")
        write_skill(repo / "pkg" / folder, f"mid-{i}", "description: between")
        write_skill(repo.parent / folder, f"above-{i}", "description: above the git root")
    snap = load(cwd, home, include_user=False)
    got = {s.name: (s.root.family, s.source) for s in snap}
    for i, (family, _) in enumerate(PROJECT):
        for where in ("top", "near", "mid"):
            assert got.pop(f"{where}-{i}") == (family, Source.PROJECT)
    assert got == {}  # nothing from above the git root
    assert not any(d.severity.value == "error" for d in snap.diagnostics)


def test_every_user_folder_is_read_under_home(repo, home, write_skill):
    for i, (family, path) in enumerate(user_folders(home, home / ".codebot")):
        assert home in path.parents
        write_skill(path, f"mine-{i}-{family}", "description: a user skill")
    snap = load(repo, home)
    assert sorted((s.name, s.root.family, s.source) for s in snap) == sorted(
        (f"mine-{i}-{f}", f, Source.USER)
        for i, (f, _) in enumerate(user_folders(home, home / ".codebot"))
    )


def test_user_folders_are_not_project_paths(tmp_path: Path) -> None:
    """`~/.config/opencode` and `~/.copilot` are no project's folders; every project folder
    of the table is protected wherever it stands."""
    for _, folder in PROJECT:
        assert protected_reason(folder + "/x/SKILL.md"), folder
        assert protected_reason("deep/" + folder + "/x/SKILL.md"), folder
        assert protected_reason(folder.upper() + "/x/SKILL.md"), folder  # case-insensitive
    places = {str(p) for p in fixed_locations(tmp_path, tmp_path / "a")}
    for _, folder in PROJECT:
        top = folder.split("/")[0]
        first = top if top != ".github" else ".github/skills"
        assert str(tmp_path / first) in places and str(tmp_path / "a" / first) in places


# -- precedence ---------------------------------------------------------------------------


def test_every_pair_of_project_folders_follows_the_table(repo, home, write_skill):
    for (i, (_, a)), (j, (_, b)) in itertools.combinations(enumerate(PROJECT), 2):
        write_skill(repo / a, f"pair-{i}-{j}", f"description: from {a}")
        write_skill(repo / b, f"pair-{i}-{j}", f"description: from {b}")
    snap = load(repo, home)
    for (i, (fa, a)), (j, (fb, b)) in itertools.combinations(enumerate(PROJECT), 2):
        spec = snap.get(f"pair-{i}-{j}")
        assert spec is not None and spec.root.path == repo / a, (a, b)
        [lost] = [s for s in snap.shadowed if s.spec.key == f"pair-{i}-{j}"]
        assert lost.winner is spec and lost.spec.root.path == repo / b
        assert (spec.root.family, lost.spec.root.family) == (fa, fb)


def test_every_pair_of_user_folders_follows_the_table(repo, home, write_skill):
    users = list(user_folders(home, home / ".codebot"))
    for (i, (_, a)), (j, (_, b)) in itertools.combinations(enumerate(users), 2):
        write_skill(a, f"pair-{i}-{j}", "description: first")
        write_skill(b, f"pair-{i}-{j}", "description: second")
    snap = load(repo, home)
    for (i, (_, a)), (j, _) in itertools.combinations(enumerate(users), 2):
        spec = snap.get(f"pair-{i}-{j}")
        assert spec is not None and spec.root.path == a


def test_nearer_beats_farther_and_project_beats_user_and_user_beats_bundled(
    repo, home, write_skill
):
    cwd = repo / "pkg"
    last_family, last = PROJECT[-1]  # the lowest project folder…
    write_skill(cwd / last, "near", "description: the nearer level, lowest host")
    write_skill(repo / ".codebot" / "skills", "near", "description: farther, first host")
    write_skill(repo / last, "proj", "description: project, lowest host")
    [(_, first_user)] = list(itertools.islice(user_folders(home, home / ".codebot"), 1))
    write_skill(first_user, "proj", "description: user, first host")
    *_, (_, last_user) = user_folders(home, home / ".codebot")
    write_skill(last_user, "review", "description: user, lowest host")
    write_skill(repo / last, "extra", "description: the lowest project host folder")
    write_skill(repo / "more", "extra", "description: a --skills-dir folder")
    snap = load(cwd, home, include_bundled=True, extra_dirs=[repo / "more"])
    assert snap.get("extra").root.path == repo / last  # --skills-dir after every host
    assert snap.get("near").root.path == cwd / last
    assert snap.get("proj").root.path == repo / last and snap.get("proj").root.family == (
        last_family
    )
    assert snap.get("review").source is Source.USER
    assert any(s.spec.source is Source.BUNDLED for s in snap.shadowed if s.spec.key == "review")


# -- hostile folders ----------------------------------------------------------------------


def test_loops_fifos_and_junk_in_the_new_folders_do_not_hang(repo, home, write_skill):
    gem = repo / ".gemini" / "skills"
    write_skill(gem, "fine", "description: still loads")
    (gem / "loop").symlink_to(gem)  # a link back to the root
    (gem / "a").mkdir()
    (gem / "a" / "b").symlink_to(gem / "a")
    cur = repo / ".cursor" / "skills" / "pipe"
    cur.mkdir(parents=True)
    os.mkfifo(cur / "SKILL.md")
    (repo / ".opencode").mkdir()
    os.mkfifo(repo / ".opencode" / "skills")  # the root itself is a FIFO
    (repo / ".codex").mkdir()
    (repo / ".codex" / "skills").symlink_to(repo / ".codex" / "skills")  # a self-loop root
    (repo / ".github").mkdir()
    (repo / ".github" / "skills").write_text("not a folder")
    snap = loaded_within(lambda: load(repo, home))
    assert [s.name for s in snap] == ["fine"]
    codes = {d.code for d in snap.diagnostics}
    assert "symlink-loop" in codes or "folder-seen-twice" in codes


def test_a_github_skills_link_to_outside_is_read_like_a_claude_skills_link(
    tmp_path, repo, home, write_skill
):
    outside = tmp_path / "elsewhere"
    write_skill(outside / "one", "shared-a", "description: kept outside the project")
    write_skill(outside / "two", "shared-b", "description: kept outside the project")
    (repo / ".claude").mkdir()
    (repo / ".claude" / "skills").symlink_to(outside / "one")
    (repo / ".github").mkdir()
    (repo / ".github" / "skills").symlink_to(outside / "two")
    snap = load(repo, home)
    a, b = snap.get("shared-a"), snap.get("shared-b")
    assert a is not None and b is not None
    for spec, folder in ((a, ".claude/skills"), (b, ".github/skills")):
        assert spec.source is Source.PROJECT  # a project skill: the untrusted rules apply
        assert spec.path.parent.parent == repo / folder  # shown under the project's link
        assert spec.real_path.parent.parent.parent == outside
    assert (a.root.family, b.root.family) == ("claude", "copilot")


# -- an untrusted project ----------------------------------------------------------------

GRANTING = """name: {name}
description: Deploy the service to staging with the project's script.
allowed-tools: Bash(make:*)
model: big-model"""
BODY = "Deploy.\n\n!`touch {marker}`\n"


def test_untrusted_host_folders_behave_like_claude_skills(tmp_path, repo, home, write_skill):
    markers = {}
    for family, folder in PROJECT:
        name = f"deploy-{family}-{folder.rsplit('/', 1)[1]}"
        markers[name] = tmp_path / f"ran-{name}"
        write_skill(
            repo / folder,
            name,
            GRANTING.format(name=name),
            BODY.format(marker=markers[name]),
        )
    snap = load(repo, home)
    assert len(snap) == len(PROJECT)
    outcome = {}
    for name in markers:
        req = Request(skill=name, project_dir=repo, trusted_project=False)
        r = process_invocation(req, snap.skills)
        assert r.ok, name
        outcome[name] = (bool(r.delta), [c.ran for c in r.shell], len(r.notes))
        trusted = process_invocation(
            Request(skill=name, project_dir=repo, trusted_project=True, shell="list"), snap.skills
        )
        assert trusted.ok and trusted.delta.model == "big-model"  # so the gate is what differs
    claude = outcome["deploy-claude-skills"]
    assert claude[0] is False and not any(claude[1])
    assert all(v == claude for v in outcome.values()), outcome
    assert not any(m.exists() for m in markers.values())


def test_codebot_trust_lists_commands_in_every_hosts_folder(repo, write_skill):
    from codebot.commands.trust import _skill_grants

    for _, folder in PROJECT:
        write_skill(repo / folder, "x", "description: d", "!`echo hi`\n")
    lines = _skill_grants(repo)
    for _, folder in PROJECT:
        assert f"{folder}/x/SKILL.md:4: runs echo hi" in lines, lines
