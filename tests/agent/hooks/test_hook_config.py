"""Reading hooks (pure parts and the sources), their outcome, and how they are shown."""

from __future__ import annotations

import json
from pathlib import Path

from codebot.agent.hooks import (
    HookCommand,
    HookRun,
    Outcome,
    collect_hooks,
    describe,
    load_hooks_file,
    parse_hooks,
    trust_lines,
)
from codebot.agent.hooks.output import merge
from codebot.agent.hooks.spec import matcher_matches
from codebot.provenance import Provenance


def test_the_claude_code_shape_is_read_and_bad_entries_are_named() -> None:
    warnings: list[str] = []
    hooks = parse_hooks(
        {
            "PreToolUse": [
                {
                    "matcher": "Bash|Write",
                    "hooks": [{"type": "command", "command": "a", "timeout": 5}],
                },
                {"matcher": 3, "hooks": []},
                {"hooks": [{"type": "prompt", "prompt": "x"}, {"command": ""}]},
            ],
            "OnFire": [],
            "Stop": {"hooks": []},
        },
        source="user",
        where="cfg.yaml",
        warnings=warnings,
    )
    assert [(h.event, h.matcher, h.command, h.timeout) for h in hooks] == [
        ("PreToolUse", "Bash|Write", "a", 5.0)
    ]
    text = "\n".join(warnings)
    for part in (
        "hooks.PreToolUse[1].matcher",
        "hooks.PreToolUse[2].hooks[0].type",
        "hooks.PreToolUse[2].hooks[1].command",
        "hooks.OnFire",
        "hooks.Stop",
    ):
        assert f"cfg.yaml: {part}" in text, part


def test_timeouts_default_and_are_capped() -> None:
    warnings: list[str] = []
    hooks = parse_hooks(
        {
            "Stop": [
                {
                    "hooks": [
                        {"command": "a"},
                        {"command": "b", "timeout": 1e9},
                        {"command": "c", "timeout": float("nan")},
                    ]
                }
            ]
        },
        source="user",
        where="f",
        warnings=warnings,
    )
    assert [h.timeout for h in hooks] == [60.0, 600.0, 60.0] and len(warnings) == 1


def test_matchers_are_whole_regular_expressions() -> None:
    assert matcher_matches("Bash", "Bash") and not matcher_matches("Bash", "BashOutput")
    assert matcher_matches("Edit|Write", "Write") and matcher_matches("", "Read")
    assert matcher_matches("*", "Read") and matcher_matches("Notebook.*", "NotebookEdit")
    assert matcher_matches("[", "[") and not matcher_matches("[", "Bash")  # not a regex: text


def test_plugin_root_is_expanded_in_the_command(tmp_path: Path) -> None:
    path = tmp_path / "hooks.json"
    path.write_text(
        json.dumps(
            {"hooks": {"Stop": [{"hooks": [{"command": "${CLAUDE_PLUGIN_ROOT}/run.sh --x"}]}]}}
        )
    )
    (hook,) = load_hooks_file(path, "plugin:p", tmp_path)
    assert hook.argv_command() == f"{tmp_path}/run.sh --x" and hook.plugin_root == str(tmp_path)


def _project_hook(project: Path, rel: str) -> None:
    path = project / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {"hooks": {"Stop": [{"hooks": [{"command": f"echo {rel}"}]}]}}
    path.write_text(json.dumps(body))  # JSON is YAML too


def test_project_hooks_need_trust_and_an_accepted_file(project: Path, codebot_home: Path) -> None:
    for rel in (".claude/settings.json", ".claude/settings.local.json", ".codebot/config.yaml"):
        _project_hook(project, rel)
    untrusted = collect_hooks(codebot_home, project, trusted=False, plugins=[])
    assert len(untrusted.hooks) == 3 and untrusted.active == []
    trusted = collect_hooks(codebot_home, project, trusted=True, plugins=[])
    assert len(trusted.active) == 3
    Provenance(codebot_home, project).record(
        [(".claude/settings.json", "created", "test")], by="Write", detail="", session="s"
    )
    marked = collect_hooks(codebot_home, project, trusted=True, plugins=[])
    (skipped,) = [h for h in marked.hooks if h.skipped]
    assert skipped.where.endswith(".claude/settings.json") and "codebot's agent" in skipped.skipped


def test_plugins_are_a_parameter_and_need_trust(tmp_path: Path, codebot_home: Path) -> None:
    root = tmp_path / "plug"
    (root / "hooks").mkdir(parents=True)
    (root / "hooks" / "hooks.json").write_text(
        json.dumps({"hooks": {"Stop": [{"hooks": [{"command": "${CLAUDE_PLUGIN_ROOT}/x"}]}]}})
    )
    given = [("plug", root, root / "hooks" / "hooks.json")]
    assert collect_hooks(codebot_home, tmp_path, trusted=False, plugins=given).active == []
    (hook,) = collect_hooks(codebot_home, tmp_path, trusted=True, plugins=given).active
    assert hook.source == "plugin:plug" and hook.argv_command() == f"{root}/x"


def _merged(event: str, *runs: HookRun) -> Outcome:
    out = Outcome()
    for run in runs:
        merge(out, event, "hook", run)
    return out


def test_exit_codes_and_json_decisions() -> None:
    assert _merged("PreToolUse", HookRun(2, "", "nope")).block
    assert _merged("PreToolUse", HookRun(2, "", "nope")).reason == "nope"
    other = _merged("PreToolUse", HookRun(1, "", "broken"))
    assert not other.block and other.errors == ["hook: exit code 1: broken"]
    old = _merged("PreToolUse", HookRun(0, '{"decision": "approve", "reason": "fine"}', ""))
    assert old.permission == "allow" and not old.block
    strict = _merged(
        "PreToolUse",
        HookRun(0, '{"hookSpecificOutput": {"permissionDecision": "allow"}}', ""),
        HookRun(0, '{"hookSpecificOutput": {"permissionDecision": "ask"}}', ""),
    )
    assert strict.permission == "ask"  # the strictest answer wins
    stop = _merged("Stop", HookRun(0, '{"decision": "block", "reason": "go on"}', ""))
    assert stop.block and stop.reason == "go on"
    ended = _merged("PostToolUse", HookRun(0, '{"continue": false, "stopReason": "enough"}', ""))
    assert ended.stop and ended.stop_reason == "enough"
    plain = _merged("PostToolUse", HookRun(0, "just text", ""))
    assert plain.context == []  # plain stdout is context for prompts and starts only
    assert _merged("UserPromptSubmit", HookRun(0, "just text", "")).context == ["just text"]


def test_what_is_shown_is_escaped() -> None:
    hook = HookCommand("PreToolUse", "Bash", "rm -rf ~ #\b\becho hi", 60, "claude-project", "f")
    assert "\\x08" in describe([hook]) and "\b" not in describe([hook])
    assert any("\\x08" in line for line in trust_lines([hook]))
    assert "none configured" in describe([])


def test_the_trust_question_lists_the_projects_hooks(project: Path, codebot_home: Path) -> None:
    from codebot.ui.trust_prompt import explanation

    _project_hook(project, ".claude/settings.json")
    text = "\n".join(explanation(project))
    assert "Stop [*] echo .claude/settings.json  (claude-project)" in text
