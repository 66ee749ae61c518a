"""Commands as skills, plugin agents, the remembered answer, and the protected set of a
plugin repository."""

from __future__ import annotations

import json
import os
from pathlib import Path

from plugin_kit import make_plugin

from codebot.agent.hooks import collect_hooks, hooks_of
from codebot.agent.session.agents import find_agent
from codebot.protected import plugin_folders, project_extras, protected_reason
from codebot.skills.catalog import Catalog
from codebot.skills.catalog.plugins import find_plugins
from codebot.skills.catalog.roots import plugin_skill_roots
from codebot.trust.plugin_choice import CHOICES_FILE, plugin_choice, remember_plugin_choice


def catalog_of(folder: Path) -> Catalog:
    catalog = Catalog(plugin_skill_roots(find_plugins(folder / "no-home", [folder])))
    catalog.load()
    return catalog


def test_plugin_skills_and_commands_load_namespaced(tmp_path: Path) -> None:
    root = make_plugin(tmp_path / "repo")
    snap = catalog_of(root).snapshot
    names = sorted(s.name for s in snap.skills.values())
    assert names == [
        "toolkit:brainstorm",
        "toolkit:plan-work",
        "toolkit:review-pr",
        "toolkit:verify",
    ]
    cmd = snap.get("toolkit:review-pr")
    assert cmd is not None and cmd.argument_hint == "[pr-number]"
    assert cmd.description == "Review a pull request for bugs and missing tests"
    assert "$ARGUMENTS" in cmd.read_body()


def test_a_command_without_frontmatter_is_described_by_its_first_line(tmp_path: Path) -> None:
    root = make_plugin(tmp_path / "repo")
    (root / "commands" / "plain.md").write_text("\n# Summarize the branch\n\nDo $ARGUMENTS.\n")
    (root / "commands" / "nodesc.md").write_text("---\nargument-hint: [x]\n---\nFix it now\n")
    (root / "commands" / "empty-body.md").write_text("---\nargument-hint: [x]\n---\n\n")
    snap = catalog_of(root).snapshot
    assert snap.get("toolkit:plain").description == "Summarize the branch"
    assert snap.get("toolkit:nodesc").description == "Fix it now"
    assert snap.get("toolkit:empty-body") is None  # nothing to describe it: an error, said
    assert any("empty-body.md" in d.path for d in snap.diagnostics)


def test_a_skill_file_without_frontmatter_still_fails_outside_commands(
    tmp_path: Path,
) -> None:
    root = make_plugin(tmp_path / "repo")
    (root / "skills" / "bare").mkdir()
    (root / "skills" / "bare" / "SKILL.md").write_text("# Just text\n")
    snap = catalog_of(root).snapshot
    assert snap.get("toolkit:bare") is None
    assert any(d.code == "no-frontmatter" for d in snap.diagnostics)


def test_command_grants_and_model_do_not_reach_a_plugin_skill(tmp_path: Path) -> None:
    from codebot.skills.invoke import Request, process_invocation

    root = make_plugin(tmp_path / "repo")
    snap = catalog_of(root).snapshot
    req = Request("toolkit:review-pr", "42", project_dir=tmp_path, trusted_project=True)
    inv = process_invocation(req, snap.skills)
    assert inv.ok, inv
    assert "Review pull request 42 carefully." in inv.prompt
    assert inv.delta.model is None and not inv.delta.allowed_tools


def test_plugin_agents_are_namespaced_and_never_set_the_model(tmp_path: Path) -> None:
    root = make_plugin(tmp_path / "repo")
    roots = plugin_skill_roots(find_plugins(tmp_path / "h", [root]))
    agent = find_agent("toolkit:checker", roots, trusted_project=True)
    assert agent is not None and agent.name == "toolkit:checker" and agent.model is None
    assert "CHECKER-AGENT-PROMPT" in agent.prompt and agent.tools == ("Read", "Grep")
    assert find_agent("checker", roots, trusted_project=True) is None
    assert find_agent("toolkit:nobody", roots) is None
    other = tmp_path / "custom-agents"
    other.mkdir()
    (other / "x.md").write_text("---\nname: x\ndescription: d\n---\nX-PROMPT\n")
    assert find_agent("toolkit:x", roots, plugin_agents={"toolkit": [other]}) is not None


def test_plugin_agent_names_are_plain(tmp_path: Path) -> None:
    import pytest

    from codebot.agent.session.agents import AgentNameError

    for bad in ("../x:y", "toolkit:../../etc/passwd", "a:b:c"):
        with pytest.raises(AgentNameError):
            find_agent(bad, [])


def test_plugin_hooks_come_from_the_plugin_list_and_need_trust(
    tmp_path: Path, codebot_home: Path
) -> None:
    root = make_plugin(tmp_path / "repo")
    plugins = hooks_of(find_plugins(codebot_home, [root]))
    assert collect_hooks(codebot_home, tmp_path, trusted=False, plugins=plugins).active == []
    (hook,) = collect_hooks(codebot_home, tmp_path, trusted=True, plugins=plugins).active
    assert hook.source == "plugin:toolkit" and hook.plugin_root == str(root)
    # Installed ones are the default.
    make_plugin(codebot_home / "plugins" / "inst", "inst")
    (hook,) = collect_hooks(codebot_home, tmp_path, trusted=True).active
    assert hook.source == "plugin:inst"


def test_the_answer_is_remembered_per_folder_and_a_bad_file_counts_as_none(
    tmp_path: Path, codebot_home: Path
) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    assert plugin_choice(codebot_home, a) is None
    assert remember_plugin_choice(codebot_home, a, True) is None
    assert remember_plugin_choice(codebot_home, b, False) is None
    assert (plugin_choice(codebot_home, a), plugin_choice(codebot_home, b)) == (True, False)
    assert os.stat(codebot_home / CHOICES_FILE).st_mode & 0o077 == 0
    (codebot_home / CHOICES_FILE).write_text(json.dumps({str(a): "yes-please"}))
    assert plugin_choice(codebot_home, a) is None
    (codebot_home / CHOICES_FILE).unlink()
    os.mkfifo(codebot_home / CHOICES_FILE)
    assert plugin_choice(codebot_home, a) is None  # never blocks


def test_a_plugin_repository_protects_what_it_runs(tmp_path: Path) -> None:
    root = make_plugin(tmp_path / "repo")
    extras = project_extras(root)
    assert protected_reason("hooks/hooks.json", extras) is not None
    assert protected_reason("HOOKS/new.sh", extras) is not None  # case-insensitive
    assert protected_reason("commands/x.md", extras) is not None
    assert protected_reason("agents/y.md", extras) is not None
    assert protected_reason("skills/a/SKILL.md", extras) is not None
    assert protected_reason(".claude-plugin/plugin.json", extras) is not None
    assert protected_reason("src/main.py", extras) is None
    plain = tmp_path / "plain"
    plain.mkdir()
    assert plugin_folders(plain) == ()
    assert protected_reason("hooks/hooks.json", project_extras(plain)) is None


def test_manifest_declared_folders_are_protected_and_escapes_ignored(tmp_path: Path) -> None:
    root = make_plugin(
        tmp_path / "repo",
        manifest={
            "name": "p",
            "hooks": "./config/hooks.json",
            "commands": ["../x", "/etc", "cmd2"],
        },
    )
    extras = project_extras(root)
    assert protected_reason("config/hooks.json", extras) is not None
    assert protected_reason("cmd2/a.md", extras) is not None
    assert protected_reason("config/other.txt", extras) is None
    assert all(not rel.startswith(("/", "..")) for rel, _ in extras)


def test_a_fifo_manifest_protects_the_defaults_without_blocking(tmp_path: Path) -> None:
    (tmp_path / "repo" / ".claude-plugin").mkdir(parents=True)
    os.mkfifo(tmp_path / "repo" / ".claude-plugin" / "plugin.json")
    assert protected_reason("hooks/x", plugin_folders(tmp_path / "repo")) is not None


def test_the_trust_question_names_a_plugin_repositorys_hooks(tmp_path: Path) -> None:
    from codebot.ui.trust_prompt import explanation

    root = make_plugin(tmp_path / "repo")
    text = "\n".join(explanation(root))
    assert "session-start.sh" in text
