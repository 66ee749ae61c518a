"""The four answers in both front ends: once, this session, always (the rule shown, then
saved, and where), deny with a reason the model is told; and the diff of an approved Edit
or Write shown after it ran."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from prompt_toolkit.input import create_pipe_input

from codebot.agent.model import ScriptedModel
from codebot.agent.permissions import ApprovalAnswer, ApprovalRequest
from codebot.config import load_settings
from codebot.ui.controller import Controller
from codebot.ui.line.approve import parse_reply, question_for
from codebot.ui.line.repl import LineApp
from codebot.ui.tui.app import CodebotApp
from codebot.ui.tui.approval import ApprovalScreen
from codebot.ui.tui.conversation import ToolCall


@pytest.fixture
def project(project: Path) -> Path:
    proj = project  # <tmp>/proj with .git/ (tests/conftest.py)
    (proj / "app.py").write_text("def f():\n    return 1\n")
    return proj


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"text": "", "tool_calls": [{"name": name, "arguments": args}]}


def controller(project: Path, replies: list[Any], trust: bool = True) -> Controller:
    return Controller(
        load_settings(cwd=project, trust=trust), client=ScriptedModel(replies), interactive=True
    )


def run_keys(ctrl: Controller, keys: str) -> str:
    import io

    out = io.StringIO()
    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        LineApp(ctrl, input=pipe, output=out, watch=False).run()
    ctrl.close()
    return out.getvalue()


def tool_messages(ctrl: Controller) -> list[str]:
    return [m["content"] for m in ctrl.session.history if m["role"] == "tool"]


# --------------------------------------------------------------------------- line mode


@pytest.mark.parametrize(
    ("text", "reply"),
    [
        ("y", (ApprovalAnswer.ALLOW_ONCE, "")),
        (" yes ", (ApprovalAnswer.ALLOW_ONCE, "")),
        ("a", (ApprovalAnswer.ALLOW_SESSION, "")),
        ("session", (ApprovalAnswer.ALLOW_SESSION, "")),
        ("A", (ApprovalAnswer.ALLOW_ALWAYS, "")),
        ("always", (ApprovalAnswer.ALLOW_ALWAYS, "")),
        ("!", (ApprovalAnswer.ALLOW_ALWAYS, "")),
        ("n", (ApprovalAnswer.DENY, "")),
        ("no", (ApprovalAnswer.DENY, "")),
        ("n use the other file", (ApprovalAnswer.DENY, "use the other file")),
        ("no  not now ", (ApprovalAnswer.DENY, "not now")),
        ("r", (ApprovalAnswer.DENY, None)),
        ("r too risky", (ApprovalAnswer.DENY, "too risky")),
        ("", None),
        ("maybe", None),
        ("yes please", None),
        ("aa", None),
    ],
)
def test_parse_reply(text: str, reply: Any) -> None:
    assert parse_reply(text) == reply


def test_the_question_leaves_out_what_is_not_offered() -> None:
    offered = ApprovalRequest(
        "Bash", {}, "ls", "ls", always=("Bash(ls)",), always_path="/p/.codebot/config.yaml"
    )
    assert "[A]lways" in question_for(offered) and "n <reason>" in question_for(offered)
    outside = ApprovalRequest("Bash", {}, "ls", "ls", outside_sandbox="no network")
    assert "[A]lways" not in question_for(outside) and "reason" not in question_for(outside)


def test_line_always_shows_the_rule_saves_it_and_says_where(project: Path) -> None:
    ctrl = controller(
        project, [call("Bash", command="echo hi"), "one", call("Bash", command="echo hi"), "two"]
    )
    out = run_keys(ctrl, "go\rA\ragain\r\x04")
    cfg = project / ".codebot" / "config.yaml"
    assert f"always allow saves Bash(echo hi) to {cfg}" in out  # before the question
    assert f"always allow: saved Bash(echo hi) to {cfg}" in out  # after it
    assert out.count("needs approval") == 1 and "two" in out
    assert yaml.safe_load(cfg.read_text()) == {"permissions": {"allow": ["Bash(echo hi)"]}}


def test_line_always_is_refused_in_an_untrusted_project(project: Path) -> None:
    ctrl = controller(project, [call("Bash", command="echo hi"), "ok"], trust=False)
    out = run_keys(ctrl, "go\rA\ry\r\x04")
    assert "always allow is not offered: this project is not trusted" in out
    assert "always allow is not offered here" in out  # the `A`, answered; then `y` ran it once
    assert not (project / ".codebot" / "config.yaml").exists()
    assert "hi" in tool_messages(ctrl)[0]


def test_line_deny_with_a_reason_tells_the_model(project: Path) -> None:
    ctrl = controller(project, [call("Write", path="lock.json", content="{}"), "ok"])
    run_keys(ctrl, "go\rn keep the lockfile as it is\r\x04")
    assert tool_messages(ctrl) == ["the person denied this call: keep the lockfile as it is"]
    assert not (project / "lock.json").exists()


def test_line_r_asks_for_the_reason_on_the_next_line(project: Path) -> None:
    ctrl = controller(project, [call("Write", path="lock.json", content="{}"), "ok"])
    out = run_keys(ctrl, "go\rr\rwrong file\r\x04")
    assert "Why not? (the model is told):" in out
    assert tool_messages(ctrl) == ["the person denied this call: wrong file"]


def test_line_shows_the_diff_after_an_edit(project: Path) -> None:
    ctrl = controller(
        project, [call("Edit", path="app.py", old="return 1", new="return 2"), "done"]
    )
    out = run_keys(ctrl, "go\ry\r\x04")
    after = out[out.index("✓ edited app.py") :]
    assert "    -    return 1" in after and "    +    return 2" in after and "@@ " in after
    assert (project / "app.py").read_text() == "def f():\n    return 2\n"


def test_line_shows_the_diff_after_an_overwrite_escaped(project: Path) -> None:
    ctrl = controller(
        project, [call("Write", path="app.py", content="print('\x1b[2Jhi')\n"), "done"]
    )
    out = run_keys(ctrl, "go\ry\r\x04")
    after = out[out.index("✓ wrote") :]
    assert "-def f():" in after and "+print('\\x1b[2Jhi')" in after
    assert "\x1b[2J" not in out  # the file's escape sequence never reaches the terminal


# --------------------------------------------------------------------------- TUI


def make_app(project: Path, replies: list[Any], trust: bool = True) -> CodebotApp:
    return CodebotApp(controller(project, replies, trust), watch_skills=False)


async def until(pilot, predicate) -> None:
    for _ in range(250):
        if predicate():
            return
        await pilot.pause(0.02)
    raise AssertionError("timed out waiting for the UI")


async def ask(pilot, app: CodebotApp) -> ApprovalScreen:
    await pilot.press(*"go", "enter")
    await until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
    return app.screen  # type: ignore[return-value]


async def test_tui_always_key_saves_the_rule_shown(project: Path) -> None:
    app = make_app(project, [call("Bash", command="echo hi"), "done"])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ask(pilot, app)
        shown = str(screen.query_one(".always").content)
        cfg = project / ".codebot" / "config.yaml"
        assert shown == f"always allow saves Bash(echo hi) to {cfg}"
        await pilot.press("A")
        await app.settled()
        assert yaml.safe_load(cfg.read_text()) == {"permissions": {"allow": ["Bash(echo hi)"]}}
        assert [r.text for r in app.controller.session.approvals.session_rules] == ["Bash(echo hi)"]


async def test_tui_always_is_not_offered_in_an_untrusted_project(project: Path) -> None:
    app = make_app(project, [call("Bash", command="echo hi"), "done"], trust=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ask(pilot, app)
        assert not screen.query("#allow_always")
        assert "not trusted" in str(screen.query_one(".always").content)
        await pilot.press("A")  # nothing happens but a notice
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("n")
        await app.settled()
        assert not (project / ".codebot" / "config.yaml").exists()


async def test_tui_deny_with_a_reason(project: Path) -> None:
    app = make_app(project, [call("Write", path="lock.json", content="{}"), "ok"])
    async with app.run_test(size=(120, 40)) as pilot:
        await ask(pilot, app)
        await pilot.press("r")
        await pilot.pause()
        await pilot.press(*"not ", "y", "e", "t")  # `y` in the input is text, not "allow once"
        assert isinstance(app.screen, ApprovalScreen)
        await pilot.press("enter")
        await app.settled()
        assert tool_messages(app.controller) == ["the person denied this call: not yet"]
        assert not (project / "lock.json").exists()


async def test_tui_escape_in_the_reason_goes_back_to_the_buttons(project: Path) -> None:
    app = make_app(project, [call("Write", path="new.txt", content="x\n"), "ok"])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ask(pilot, app)
        await pilot.press("r", "escape")
        await pilot.pause()
        assert app.screen is screen and not screen.has_class("-reason")
        await pilot.press("y")
        await app.settled()
        assert (project / "new.txt").read_text() == "x\n"


async def test_tui_shows_the_diff_of_an_edit_open(project: Path) -> None:
    from textual.widgets import Collapsible

    app = make_app(project, [call("Edit", path="app.py", old="return 1", new="return 2"), "done"])
    async with app.run_test(size=(120, 40)) as pilot:
        await ask(pilot, app)
        await pilot.press("y")
        await app.settled()
        await pilot.pause()
        (view,) = app.conversation.query(ToolCall)
        box = view.query_one(Collapsible)
        assert not box.collapsed
        text = str(view.query_one(".tool-result").content.code)  # a Syntax of the diff
        assert (
            "edited app.py (1 replacement)" in text
            and "-    return 1" in text
            and "+    return 2" in text
        )


async def test_tui_exclamation_mark_is_always_too(project: Path) -> None:
    app = make_app(project, [call("Bash", command="echo hi"), "done"])
    async with app.run_test(size=(120, 40)) as pilot:
        await ask(pilot, app)
        await pilot.press("exclamation_mark")
        await app.settled()
        assert (project / ".codebot" / "config.yaml").exists()


def test_a_resumed_conversation_shows_a_reasoned_denial_as_denied() -> None:
    from codebot.ui.resume_view import tool_status

    assert tool_status("Write", "the person denied this call: not now") == "denied"


# --------------------------------------------------------------------------- the Write result


async def test_write_says_what_an_overwrite_changed_and_keeps_it_short(project: Path) -> None:
    import os

    from codebot.agent.tools import ToolContext, ToolRegistry, builtin_tools

    reg, ctx = ToolRegistry(builtin_tools()), ToolContext(project_dir=project)
    new = await reg.call("Write", {"path": "new.txt", "content": "a\n"}, ctx)
    assert new.content == "wrote 2 bytes to new.txt"  # a new file: as before
    same = await reg.call("Write", {"path": "new.txt", "content": "a\n"}, ctx)
    assert same.content == "wrote 2 bytes to new.txt (no change: it already had this content)"
    over = await reg.call("Write", {"path": "app.py", "content": "def f():\n    return 3\n"}, ctx)
    assert over.content.startswith("wrote 22 bytes to app.py\n--- a/app.py\n+++ b/app.py\n@@ ")
    assert "-    return 1\n+    return 3" in over.content
    big = await reg.call(
        "Write", {"path": "app.py", "content": "".join(f"{i}\n" for i in range(500))}, ctx
    )
    assert len(big.content.splitlines()) <= 62 and "more diff lines not shown" in big.content
    (project / "blob.bin").write_bytes(b"\x00\x01")
    blob = await reg.call("Write", {"path": "blob.bin", "content": "text\n"}, ctx)
    assert "not UTF-8 text" in blob.content
    os.mkfifo(project / "fifo")  # never opened (a read would block): replaced, no diff
    fifo = await reg.call("Write", {"path": "fifo", "content": "x\n"}, ctx)
    assert fifo.status == "ok" and (project / "fifo").read_text() == "x\n"
