"""Hooks in a real session built by `setup.build_session` (a scripted model, real hook
processes): PreCompact, Notification, SessionStart after /clear, a skill's own hooks
scoped to its turn, and a hook that overstays its timeout."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hookkit import HookKit, write_user_hooks

from codebot.agent.hooks import HookCommand, HookConfig, Hooks, run_hook
from codebot.agent.model import ScriptedModel
from codebot.agent.permissions import ApprovalAnswer, ApprovalRequest
from codebot.agent.session.events import Notice
from codebot.agent.session.setup import build_session
from codebot.agent.tools.sandbox import SandboxPolicy
from codebot.config import load_settings
from codebot.home import codebot_home
from codebot.workspace import open_catalog


def make(
    project: Path, replies: list[Any], interactive: bool = False, shown: list[Any] | None = None
) -> Any:
    """A session over `project` with a scripted model; `shown` collects what it emits."""
    settings = load_settings(cwd=project, trust=True)
    model = ScriptedModel(replies)

    def emit(e: Any) -> None:
        if shown is not None:
            shown.append(e)
        if isinstance(e, ApprovalRequest) and e.future is not None:
            e.future.set_result(ApprovalAnswer.ALLOW_ONCE)

    session = build_session(
        settings, open_catalog(settings), client=model, emit=emit, interactive=interactive
    )
    return session, model


def bash(command: str) -> dict[str, Any]:
    return {"text": "", "tool_calls": [{"name": "Bash", "arguments": {"command": command}}]}


async def test_pre_compact_fires_with_trigger_and_focus(project: Path, kit: HookKit) -> None:
    write_user_hooks(codebot_home(), {"PreCompact": [kit.group("pre", "ok", "manual")]})
    session, _ = make(project, ["SUMMARY of the work"])
    for i in range(6):
        session.add({"role": "user", "content": f"question {i} " + "words " * 50})
        session.add({"role": "assistant", "content": f"answer {i} " + "words " * 50})
    record = await session.compact("the parser")
    assert record is not None
    (entry,) = kit.log("pre")
    assert entry["hook_event_name"] == "PreCompact" and entry["trigger"] == "manual"
    assert entry["custom_instructions"] == "the parser"
    assert session.state.hooks.start_pending == "compact"


async def test_notification_fires_when_an_approval_is_asked(project: Path, kit: HookKit) -> None:
    write_user_hooks(codebot_home(), {"Notification": [kit.group("note")]})
    shown: list[Any] = []
    session, _ = make(project, [bash("echo hi"), "done"], interactive=True, shown=shown)
    await session.run_turn("go")
    # The hook runs beside the question; wait for that run itself, not a fixed 10 s, which
    # a loaded 2-core CI machine overran.
    outcomes = await asyncio.gather(*session.approver._notifying)
    # Once seen failing under load with no log at all: if it does again, say what the hook
    # run and the session reported rather than only that the log is empty.
    # (A string, which pytest prints whole: a tuple's repr is cut in the middle.) Seen
    # again in the next stop's CI; the likely cause, a command ending beside the hook and
    # removing the placeholders its bwrap was mounting onto, is fixed (engine._run holds
    # them, test_a_sandboxed_hook_leaves_no_placeholder_behind).
    notices = [e for e in shown if isinstance(e, Notice)]
    why = "\n".join(
        [f"hook: errors={o.errors} messages={o.messages}" for o in outcomes]
        + [f"notice: {n!r}" for n in notices]
    )
    assert len(kit.log("note")) == 1, why
    (entry,) = kit.log("note")
    assert entry["hook_event_name"] == "Notification"
    assert entry["message"] == "codebot needs your permission to use Bash"


async def test_session_start_fires_again_after_clear(project: Path, kit: HookKit) -> None:
    write_user_hooks(codebot_home(), {"SessionStart": [kit.group("start", "print:ctx-4901")]})
    session, model = make(project, ["one", "two", "three"])
    await session.run_turn("a")
    await session.run_turn("b")
    session.clear()
    await session.run_turn("c")
    assert [e["source"] for e in kit.log("start")] == ["startup", "clear"]
    first, second, third = (r.messages[-1]["content"] for r in model.requests)  # the new prompt
    assert "ctx-4901" in first and "ctx-4901" not in second and "ctx-4901" in third


async def test_a_skills_hooks_last_for_its_turn_only(project: Path, kit: HookKit) -> None:
    folder = codebot_home() / "skills" / "guarded"
    folder.mkdir(parents=True)
    hooks = {"PreToolUse": [kit.group("skill", "exit2:skill guard-4902", "Bash")]}
    (folder / "SKILL.md").write_text(
        "---\nname: guarded\ndescription: Test skill with a hook. Not for anything.\n"
        f"hooks: {json.dumps(hooks)}\n---\nDo the guarded thing.\n"
    )
    session, model = make(
        project, [bash("echo one > one.txt"), "first", bash("echo two > two.txt"), "second"]
    )
    session.approvals.grant_session("Bash")
    await session.run_turn("/guarded")
    assert len(kit.log("skill")) == 1 and not (project / "one.txt").exists()
    assert "skill guard-4902" in json.dumps(model.requests[1].messages)
    await session.run_turn("now without the skill")
    assert len(kit.log("skill")) == 1  # removed when the skill's turn ended
    assert (project / "two.txt").exists()


async def test_a_hook_past_its_timeout_is_killed_with_its_group(
    project: Path, kit: HookKit
) -> None:
    command = kit.command("slow", "sleep:60") + " & wait"
    run = await run_hook(command, b"{}", cwd=project, env=dict(os.environ), timeout=1.0)
    assert run.timed_out and run.exit_code is None  # ended at 1 s, not the hook's 60
    pid = int((kit.logs / "slow.jsonl.pid").read_text())
    for _ in range(100):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError(f"the hook's child {pid} is still running")


async def test_a_timed_out_hook_is_a_warning_and_blocks_nothing(
    project: Path, kit: HookKit
) -> None:
    said: list[tuple[str, str]] = []
    hook = HookCommand("PreToolUse", "", kit.command("slow", "sleep:60"), 0.5, "user", "test")
    hooks = Hooks(HookConfig([hook]), project_dir=project, say=lambda t, lv: said.append((t, lv)))
    out = await hooks.fire("PreToolUse", {"tool_name": "Bash"}, subject="Bash")
    assert not out.block and said and "timed out" in said[0][0] and said[0][1] == "warning"


async def test_hook_output_cannot_put_control_characters_on_screen(project: Path) -> None:
    said: list[str] = []
    msg = json.dumps({"systemMessage": "look\x1b[2J\x1b]52;c;ZXZpbA==\x07here"})
    hook = HookCommand("Stop", "", f"printf '%s' {json.dumps(msg)}", 5, "user", "test")
    hooks = Hooks(HookConfig([hook]), project_dir=project, say=lambda t, _lv: said.append(t))
    await hooks.fire("Stop", {"stop_hook_active": False})
    assert said == ["lookhere"] or all("\x1b" not in s and "\x07" not in s for s in said)


async def test_a_flood_of_output_and_a_background_child_do_not_hang(project: Path) -> None:
    flood = await run_hook(
        "head -c 20000000 /dev/zero | tr '\\0' x; echo done >&2",
        b"{}",
        cwd=project,
        env=dict(os.environ),
        timeout=60,
    )
    assert flood.exit_code == 0 and len(flood.stdout) < 70_000 and "truncated" in flood.stdout
    # The child holds stdout open; the run still ends when the hook exits (not timed out).
    held = await run_hook(
        "sleep 60 & echo started", b"{}", cwd=project, env=dict(os.environ), timeout=60
    )
    assert held.exit_code == 0 and not held.timed_out and held.stdout.strip() == "started"


async def test_a_fork_skills_hooks_hold_in_its_fork_only(project: Path, kit: HookKit) -> None:
    folder = codebot_home() / "skills" / "forky"
    folder.mkdir(parents=True)
    hooks = {"PreToolUse": [kit.group("fork", "exit2:fork guard-4903", "Bash")]}
    (folder / "SKILL.md").write_text(
        "---\nname: forky\ndescription: Test fork skill with a hook. Not for anything.\n"
        f"context: fork\nhooks: {json.dumps(hooks)}\n---\nDo the forked thing.\n"
    )
    session, model = make(
        project,
        [bash("echo one > one.txt"), "child done", bash("echo two > two.txt"), "parent done"],
    )
    session.approvals.grant_session("Bash")
    await session.run_turn("/forky")
    assert len(kit.log("fork")) == 1 and not (project / "one.txt").exists()
    assert "fork guard-4903" in json.dumps(model.requests[1].messages)
    await session.run_turn("go on")
    assert len(kit.log("fork")) == 1 and (project / "two.txt").exists()


def test_slash_hooks_lists_each_hook_with_its_state(project: Path, kit: HookKit) -> None:
    from codebot.ui.controller import Controller

    write_user_hooks(codebot_home(), {"Stop": [kit.group("stop")]})
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.json").write_text(
        json.dumps(
            {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"command": "x\x1b"}]}]}}
        )
    )
    ctrl = Controller(load_settings(cwd=project), client=ScriptedModel([]), interactive=True)
    try:
        text = ctrl.builtin("hooks").text
    finally:
        ctrl.close()
    assert "hooks: 1 active, 1 skipped" in text
    assert f"Stop [*] {kit.command('stop')}" in text and "user (" in text
    assert "PreToolUse [Bash] x\\x1b" in text and "\x1b" not in text
    assert "skipped: the project folder is not trusted" in text


async def test_a_blocked_first_prompt_keeps_the_start_context_for_the_next(
    project: Path, kit: HookKit
) -> None:
    write_user_hooks(
        codebot_home(),
        {
            "SessionStart": [kit.group("start", "print:ctx-4904")],
            "UserPromptSubmit": [kit.group("ups", "exit2:not this one")],
        },
    )
    session, model = make(project, ["answer"])
    first = await session.run_turn("blocked")
    assert first.error is not None and "not this one" in first.error and model.requests == []
    hooks = session.state.hooks  # the person drops the prompt hook (as a /reload would)
    hooks.active = [h for h in hooks.active if h.event != "UserPromptSubmit"]
    hooks.events = frozenset({"SessionStart"})
    await session.run_turn("allowed")
    assert "ctx-4904" in model.requests[0].messages[-1]["content"]
    assert len(kit.log("start")) == 1


def _compactable_in_sandbox(project: Path, group: dict[str, Any]) -> tuple[Any, Any]:
    """A session with `group` as its PreCompact hook, history enough to compact, and hooks
    that run in the sandbox (skips without bubblewrap)."""
    from codebot.agent.tools.sandbox import probe

    write_user_hooks(codebot_home(), {"PreCompact": [group]})
    session, _ = make(project, ["SUMMARY of the work"])
    context = session.state.hooks.context
    if context is None or not isinstance(context.sandbox, SandboxPolicy) or not probe().ok:
        pytest.skip("needs the sandbox (bubblewrap) to run hooks in")
    for i in range(6):
        session.add({"role": "user", "content": f"question {i} " + "words " * 50})
        session.add({"role": "assistant", "content": f"answer {i} " + "words " * 50})
    return session, context


async def test_a_sandboxed_hook_leaves_no_placeholder_behind(project: Path, kit: HookKit) -> None:
    """bwrap makes an empty folder in the project for each protected name that does not
    exist yet (AGENTS.md, .mcp.json, .codebot …) to mount a read-only one there. Around a
    hook as around a Bash command they are held while it runs and removed after: a hook
    left fifteen of them behind (an `AGENTS.md` folder where the file should go), and a
    command ending beside a hook could remove them under its bwrap, so it never ran."""
    from codebot.agent.tools.sandbox_protect import flush_placeholders

    session, _ = _compactable_in_sandbox(project, kit.group("pre", "ok", "manual"))
    before = set(project.rglob("*"))
    await session.compact("the parser")
    assert kit.log("pre")  # the hook ran, in the sandbox
    flush_placeholders()
    left = sorted(str(p.relative_to(project)) for p in set(project.rglob("*")) - before)
    assert left == ["hooklog/pre.jsonl"]


async def test_a_command_ending_beside_a_hook_leaves_its_placeholders(
    project: Path, kit: HookKit
) -> None:
    """The race behind the Notification test's failure: a command holds the placeholders,
    a hook starts beside it, the command ends. The placeholders must stay until the hook is
    done too (removed under it, its bwrap could not mount onto them)."""
    from codebot.agent.tools.sandbox_protect import flush_placeholders, protected_run

    session, context = _compactable_in_sandbox(project, kit.group("slow", "sleep:3", "manual"))
    placeholder = project / "AGENTS.md"  # a protected name that does not exist yet
    pid_file = kit.logs / "slow.jsonl.pid"  # written by the hook once it runs
    with protected_run(context.sandbox):  # the command
        compacting = asyncio.create_task(session.compact("the parser"))
        while not pid_file.exists() and not compacting.done():
            await asyncio.sleep(0.02)
    flush_placeholders()  # the command has ended: what nobody holds goes now
    assert pid_file.exists() and placeholder.is_dir()  # the hook, still running, holds it
    await compacting
    flush_placeholders()
    assert not placeholder.exists()  # and once it is done, nobody does
