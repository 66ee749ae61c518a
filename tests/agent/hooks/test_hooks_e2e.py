"""Hooks through the real program: `codebot -p` in a subprocess, the real litellm path, a
scripted server on 127.0.0.1 (what the provider receives is checked), real hook scripts
the tests write into the project."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hookkit import HookKit, write_user_hooks

from codebot.home import codebot_home

pytestmark = pytest.mark.slow


def bash(*commands: str, end: str = "done") -> list[dict[str, Any]]:
    steps = [
        {"tool_calls": [{"name": "Bash", "arguments": json.dumps({"command": c})}]}
        for c in commands
    ]
    return [*steps, {"text": end}]


def codebot(
    project: Path, url: str, *args: str, prompt: str = "go", ok: bool = True
) -> tuple[dict[str, Any] | None, str]:
    cmd = [
        sys.executable,
        "-m",
        "codebot",
        "--cwd",
        str(project),
        "-p",
        prompt,
        "--output-format",
        "json",
        "--api-base",
        url,
        "--model",
        "openai/test-model",
        *args,
    ]
    env = {**os.environ, "OPENAI_API_KEY": "sk-hidden-4811"}
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=project, env=env)
    if ok:
        assert r.returncode == 0, r.stderr
    try:
        return json.loads(r.stdout), r.stderr
    except ValueError:
        return None, r.stderr


def sent(server: Any, i: int = -1) -> str:
    return json.dumps(server.requests[i]["messages"])


def tool_outputs(server: Any) -> list[str]:
    return [m["content"] for m in server.requests[-1]["messages"] if m["role"] == "tool"]


def test_pre_tool_use_exit_2_blocks_bash_and_the_model_reads_why(
    fake_openai: Any, project: Path, kit: HookKit
) -> None:
    write_user_hooks(
        codebot_home(), {"PreToolUse": [kit.group("pre", "exit2:no bash-4801", "Bash")]}
    )
    fake_openai.script(bash("echo ran > ran.txt"))
    out, _ = codebot(project, fake_openai.url, "--allow", "Bash")
    assert not (project / "ran.txt").exists()
    assert "no bash-4801" in tool_outputs(fake_openai)[0]
    assert out is not None and out["tool_calls"][0]["status"] == "denied"
    (entry,) = kit.log("pre")
    assert entry["hook_event_name"] == "PreToolUse" and entry["tool_name"] == "Bash"
    assert entry["tool_input"] == {"command": "echo ran > ran.txt"}
    assert entry["session_id"] and entry["transcript_path"].endswith(".jsonl")
    assert entry["cwd"] == str(project)
    assert entry["_env_secret"] is None  # the provider key never reaches a hook


def test_a_matcher_that_does_not_match_runs_nothing(
    fake_openai: Any, project: Path, kit: HookKit
) -> None:
    write_user_hooks(codebot_home(), {"PreToolUse": [kit.group("pre", "exit2:no", "Write|Edit")]})
    fake_openai.script(bash("echo ran > ran.txt"))
    codebot(project, fake_openai.url, "--allow", "Bash")
    assert (project / "ran.txt").exists() and kit.log("pre") == []


@pytest.mark.parametrize(
    ("decision", "allow", "runs"),
    [("deny", True, False), ("allow", False, True), ("ask", True, False)],
)
def test_pre_tool_use_permission_decision(
    fake_openai: Any, project: Path, kit: HookKit, decision: str, allow: bool, runs: bool
) -> None:
    answer = json.dumps(
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": decision,
                "permissionDecisionReason": f"hook says {decision}-4802",
            }
        }
    )
    write_user_hooks(codebot_home(), {"PreToolUse": [kit.group("pre", f"json:{answer}", "Bash")]})
    fake_openai.script(bash("echo ran > ran.txt"))
    codebot(project, fake_openai.url, *(["--allow", "Bash"] if allow else []))
    # deny: blocked although allowed; allow: runs without a rule (print mode asks no one);
    # ask: asked although allowed, and print mode cannot ask, so it is denied.
    assert (project / "ran.txt").exists() is runs
    if decision == "deny":
        assert "hook says deny-4802" in tool_outputs(fake_openai)[0]


def test_post_tool_use_context_reaches_the_next_request(
    fake_openai: Any, project: Path, kit: HookKit
) -> None:
    answer = json.dumps(
        {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "post-4803"}}
    )
    write_user_hooks(codebot_home(), {"PostToolUse": [kit.group("post", f"json:{answer}")]})
    fake_openai.script(bash("echo hi"))
    codebot(project, fake_openai.url, "--allow", "Bash")
    assert "post-4803" in sent(fake_openai, 1) and "post-4803" not in sent(fake_openai, 0)
    (entry,) = kit.log("post")
    assert entry["tool_name"] == "Bash" and "hi" in entry["tool_response"]["content"]


def test_user_prompt_submit_blocks_the_prompt_and_tells_the_person(
    fake_openai: Any, project: Path, kit: HookKit
) -> None:
    write_user_hooks(codebot_home(), {"UserPromptSubmit": [kit.group("ups", "exit2:refused-4804")]})
    fake_openai.script([{"text": "never"}])
    _, err = codebot(project, fake_openai.url, prompt="secret plan", ok=False)
    assert fake_openai.requests == []  # the model never saw the prompt
    assert "refused-4804" in err
    assert kit.log("ups")[0]["prompt"] == "secret plan"


def test_user_prompt_submit_adds_context(fake_openai: Any, project: Path, kit: HookKit) -> None:
    write_user_hooks(codebot_home(), {"UserPromptSubmit": [kit.group("ups", "print:upctx-4805")]})
    fake_openai.script([{"text": "ok"}])
    codebot(project, fake_openai.url)
    assert "upctx-4805" in sent(fake_openai, 0)


@pytest.mark.parametrize(
    "answer",
    [
        "print:start-4806",
        'json:{"hookSpecificOutput": {"hookEventName": "SessionStart", '
        '"additionalContext": "start-4806"}}',
        'json:{"additionalContext": "start-4806"}',
        'json:{"additional_context": "start-4806"}',
    ],
)
def test_session_start_context_reaches_the_first_request(
    fake_openai: Any, project: Path, kit: HookKit, answer: str
) -> None:
    write_user_hooks(codebot_home(), {"SessionStart": [kit.group("start", answer)]})
    fake_openai.script([{"text": "ok"}])
    codebot(project, fake_openai.url)
    assert "start-4806" in sent(fake_openai, 0)
    (entry,) = kit.log("start")
    assert entry["hook_event_name"] == "SessionStart" and entry["source"] == "startup"


def test_stop_exit_2_makes_the_model_go_on_once(
    fake_openai: Any, project: Path, kit: HookKit
) -> None:
    write_user_hooks(codebot_home(), {"Stop": [kit.group("stop", "stop-once:run the tests-4807")]})
    fake_openai.script([{"text": "first answer"}, {"text": "second answer"}])
    out, _ = codebot(project, fake_openai.url)
    assert len(fake_openai.requests) == 2 and "run the tests-4807" in sent(fake_openai, 1)
    assert out is not None and out["result"] == "second answer"
    assert [e["stop_hook_active"] for e in kit.log("stop")] == [False, True]


def test_a_stop_hook_that_always_blocks_is_capped(
    fake_openai: Any, project: Path, kit: HookKit
) -> None:
    write_user_hooks(codebot_home(), {"Stop": [kit.group("stop", "exit2:again")]})
    fake_openai.script([{"text": f"answer {i}"} for i in range(10)])
    codebot(project, fake_openai.url)
    assert len(fake_openai.requests) == 4  # the answer and three continues, then it stops
    assert len(kit.log("stop")) == 4


def test_subagent_stop_fires_for_a_task(fake_openai: Any, project: Path, kit: HookKit) -> None:
    write_user_hooks(
        codebot_home(),
        {"SubagentStop": [kit.group("sub")], "Stop": [kit.group("stop")]},
    )
    task = {"prompt": "look around", "description": "explore", "agent": "general"}
    fake_openai.script(
        [
            {"tool_calls": [{"name": "Task", "arguments": json.dumps(task)}]},
            {"text": "child answer"},
            {"text": "parent answer"},
        ]
    )
    codebot(project, fake_openai.url)
    (sub,) = kit.log("sub")
    assert sub["hook_event_name"] == "SubagentStop" and sub["stop_hook_active"] is False
    assert len(kit.log("stop")) == 1  # the parent's own Stop, once


def test_untrusted_project_hooks_do_not_run(fake_openai: Any, project: Path, kit: HookKit) -> None:
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {"PreToolUse": [kit.group("proj", "exit2:blocked-4808")]}})
    )
    fake_openai.script(bash("echo ran > ran.txt"))
    codebot(project, fake_openai.url, "--allow", "Bash")
    assert (project / "ran.txt").exists() and kit.log("proj") == []
    # The control: trusted, the same file's hook runs and blocks.
    (project / "ran.txt").unlink()
    fake_openai.script(bash("echo ran > ran.txt"))
    codebot(project, fake_openai.url, "--allow", "Bash", "--trust")
    assert not (project / "ran.txt").exists() and len(kit.log("proj")) == 1


def test_agent_written_settings_do_not_run_until_accepted(
    fake_openai: Any, project: Path, kit: HookKit
) -> None:
    settings = json.dumps({"hooks": {"PreToolUse": [kit.group("agent", "exit2:from-agent")]}})
    fake_openai.script(
        [
            {
                "tool_calls": [
                    {
                        "name": "Write",
                        "arguments": json.dumps(
                            {"path": ".claude/settings.json", "content": settings}
                        ),
                    }
                ]
            },
            {"text": "wrote it"},
        ]
    )
    codebot(project, fake_openai.url, "--trust", "--allow", "Write(.claude/settings.json)")
    assert (project / ".claude" / "settings.json").exists()
    fake_openai.script(bash("echo ran > ran.txt"))
    _, err = codebot(project, fake_openai.url, "--trust", "--allow", "Bash")
    assert (project / "ran.txt").exists() and kit.log("agent") == []
    assert "codebot written --accept .claude/settings.json" in err
    accept = [sys.executable, "-m", "codebot", "written", "--accept", ".claude/settings.json"]
    subprocess.run(accept, cwd=project, check=True, capture_output=True, timeout=60)
    (project / "ran.txt").unlink()
    fake_openai.script(bash("echo ran > ran.txt"))
    codebot(project, fake_openai.url, "--trust", "--allow", "Bash")
    assert not (project / "ran.txt").exists() and len(kit.log("agent")) == 1


def test_a_plugin_hook_gets_its_root_expanded_and_in_its_environment(
    fake_openai: Any, project: Path, kit: HookKit
) -> None:
    root = codebot_home() / "plugins" / "guard-plugin"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text('{"name": "guard-plugin"}')
    (root / "hooks").mkdir()
    log = kit.logs / "plugin.jsonl"
    script = root / "hooks" / "check.sh"
    script.write_text(
        f'#!/bin/bash\n{sys.executable} {kit.bin} {log} "exit2:plugin says $(basename "$0")"\n'
    )
    script.chmod(0o755)
    (root / "hooks" / "hooks.json").write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {
                            "matcher": "Bash",
                            "hooks": [
                                {
                                    "type": "command",
                                    "command": "${CLAUDE_PLUGIN_ROOT}/hooks/check.sh",
                                }
                            ],
                        }
                    ]
                }
            }
        )
    )
    fake_openai.script(bash("echo ran > ran.txt"))
    codebot(project, fake_openai.url, "--allow", "Bash", "--trust")
    assert not (project / "ran.txt").exists()
    assert "plugin says check.sh" in tool_outputs(fake_openai)[0]
    (entry,) = kit.log("plugin")
    assert entry["_env_plugin_root"] == str(root)
