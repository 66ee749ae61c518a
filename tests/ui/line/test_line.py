"""Line mode (`codebot --plain`): completion, streaming, built-ins, approvals, skills, exits."""

from __future__ import annotations

import asyncio
import io
import os
import re
import signal
import subprocess
import sys
import threading
import time
import types
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.input import create_pipe_input

from codebot.agent.model import Completion as ModelCompletion
from codebot.agent.model import ScriptedModel
from codebot.config import load_settings
from codebot.skills.catalog import Change
from codebot.ui.controller import Controller
from codebot.ui.line.input import SlashCompleter
from codebot.ui.line.repl import LineApp, parse_answer, run_line, should_use_line_mode

ROOT = Path(__file__).resolve().parents[3]
EOF = "\x04"  # Ctrl+D
CTRL_C = "\x03"


@pytest.fixture
def project(project: Path, write_skill) -> Path:
    proj = project  # <tmp>/proj with .git/ (tests/conftest.py)
    write_skill(
        proj / ".codebot" / "skills",
        "deploy",
        "description: Deploy the app to staging. Not for local runs.\nmodel: big-model\n"
        'argument-hint: "[env]"',
        "Deploy to $ARGUMENTS.",
    )
    return proj


def controller(project: Path, replies: list[Any] | None = None) -> Controller:
    return Controller(
        load_settings(cwd=project, trust=True),
        client=ScriptedModel(replies or []),
        interactive=True,
    )


class Recorder(io.StringIO):
    """A text stream that also remembers each write (to see streaming)."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[str] = []

    def write(self, s: str) -> int:
        self.writes.append(s)
        return super().write(s)


def run_keys(ctrl: Controller, keys: str) -> tuple[int, str]:
    """Drive the prompt-toolkit prompt with `keys` (Enter is \\r) and return (code, output)."""
    out = Recorder()
    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        code = LineApp(ctrl, input=pipe, output=out, watch=False).run()
    ctrl.close()
    return code, out.getvalue()


def complete(ctrl: Controller, text: str) -> list[Any]:
    completer = SlashCompleter(ctrl.completions)
    return list(completer.get_completions(Document(text), CompleteEvent(completion_requested=True)))


# -- completion -----------------------------------------------------------------------------------


def test_completer_completes_a_builtin_after_the_slash(project: Path) -> None:
    found = complete(controller(project), "/he")
    assert found, "no completion for /he"
    first = found[0]
    assert first.text == "help"
    assert first.start_position == -2  # replaces "he", keeps the slash
    assert first.display_text == "/help"
    assert "commands" in first.display_meta_text


def test_completer_puts_the_matching_skill_first_with_hint_and_description(project: Path) -> None:
    found = complete(controller(project), "/rev")
    assert found[0].text == "review"
    assert found[0].display_text == "/review [path or git range]"
    assert found[0].display_meta_text.startswith("Review code changes")
    assert len(found[0].display_meta_text) <= 90
    deploy = complete(controller(project), "/depl")[0]
    assert (deploy.text, deploy.display_text) == ("deploy", "/deploy [env]")


def test_completer_stays_quiet_outside_a_command_name(project: Path) -> None:
    ctrl = controller(project)
    assert complete(ctrl, "hello") == []
    assert complete(ctrl, "/review src") == []
    assert complete(ctrl, "//x") == []
    assert [c.text for c in complete(ctrl, "/")][:1] == ["help"]


# -- turns ----------------------------------------------------------------------------------------


def test_a_message_streams_the_answer(project: Path) -> None:
    answer = "Hello from the scripted model, streamed in pieces."
    code, out = run_keys(controller(project, [answer]), "hi there\r" + EOF)
    assert code == 0
    assert "> hi there" in out
    assert answer in out
    assert out.rstrip().endswith(answer)


def test_text_is_written_as_it_arrives(project: Path) -> None:
    answer = "one two three four five six"
    out = Recorder()
    ctrl = controller(project, [answer])
    app = LineApp(ctrl, input=io.StringIO("go\n"), output=out, watch=False)
    assert app.run() == 0
    pieces = [w for w in out.writes if w and w in answer]
    assert len(pieces) >= 3 and "".join(pieces) == answer  # ScriptedModel streams 3 deltas
    ctrl.close()


def test_help_lists_the_commands_and_line_keys(project: Path) -> None:
    code, out = run_keys(controller(project), "/help\r" + EOF)
    assert code == 0
    for name in ("/help", "/skills", "/reload", "/model", "/clear", "/context", "/usage", "/exit"):
        assert name in out
    assert "Ctrl+D quit" in out and "Ctrl+P" not in out


def test_other_builtins_print_plain_words(project: Path) -> None:
    code, out = run_keys(
        controller(project), "/model\r/usage\r/context\r/clear\r/reload\r/bogus-builtin-x\r" + EOF
    )
    assert code == 0
    assert "model: scripted" in out
    assert "Usage this session:" in out and "0 in" in out
    assert "Context:" in out and "system" in out
    assert "conversation cleared" in out
    assert "skills: +0 ~0 −0" in out


def test_skills_prints_a_table_and_can_switch_one_off(project: Path) -> None:
    ctrl = controller(project)
    code, out = run_keys(ctrl, "/skills\r/skills off deploy\r/skills depl\r" + EOF)
    assert code == 0
    table = out.split("> /skills off")[0]
    assert "name" in table and "source" in table and "state" in table
    assert any(
        line.startswith("review") and "bundled" in line and " on " in line
        for line in table.splitlines()
    )
    assert any(line.startswith("deploy") and "project" in line for line in table.splitlines())
    assert "deploy: off (saved in" in out
    after = out.split("> /skills depl")[1]
    assert any(line.startswith("deploy") and " off " in line for line in after.splitlines())
    assert "off" in ctrl.settings.local_config_path.read_text()
    assert not ctrl.settings.config_path.exists()  # this project only


def test_a_typed_skill_shows_its_activation_line(project: Path) -> None:
    model = ScriptedModel(["Reviewed."])
    ctrl = Controller(load_settings(cwd=project, trust=True), client=model, interactive=True)
    code, out = run_keys(ctrl, "/review x\r" + EOF)
    assert code == 0
    assert "skill review · inline" in out
    assert "Reviewed." in out
    assert 'name="review"' in str(model.requests[0].messages[-1]["content"])


def test_a_skill_that_changes_the_model_says_so(project: Path) -> None:
    code, out = run_keys(controller(project, ["Deployed."]), "/deploy staging\r" + EOF)
    assert code == 0
    assert "skill deploy · inline · model big-model for this turn" in out


def test_tool_calls_show_as_one_line_with_a_status(project: Path) -> None:
    replies = [
        {"text": "", "tool_calls": [{"name": "Read", "arguments": {"path": "README.md"}}]},
        "Read it.",
    ]
    (project / "README.md").write_text("# Project title\nmore\n")
    code, out = run_keys(controller(project, replies), "read the readme\r" + EOF)
    assert code == 0
    assert "→ Read README.md" in out
    assert "✓" in out and "Project title" in out


def write_call(path: str = "notes.txt", content: str = "hi\n") -> dict[str, Any]:
    return {
        "text": "",
        "tool_calls": [{"name": "Write", "arguments": {"path": path, "content": content}}],
    }


def test_an_approval_answered_yes_writes_the_file(project: Path) -> None:
    code, out = run_keys(controller(project, [write_call(), "Written."]), "write notes\ry\r" + EOF)
    assert code == 0
    assert (project / "notes.txt").read_text() == "hi\n"
    assert "Write needs approval" in out and "new file notes.txt" in out
    assert (
        "Allow? [y]es once / [a] this session / [A]lways / [n]o (n <reason> tells the model why): y"
        in out
    )
    assert "→ Write notes.txt" in out and "✓" in out
    assert "Written." in out


def test_an_approval_answered_no_does_not_write(project: Path) -> None:
    code, out = run_keys(
        controller(project, [write_call(), "Not written."]), "write notes\rn\r" + EOF
    )
    assert code == 0
    assert not (project / "notes.txt").exists()
    assert "✗" in out and "did not approve" in out


def test_always_grants_the_same_call_for_the_session(project: Path) -> None:
    replies = [write_call(), "one", write_call(), "two"]
    code, out = run_keys(controller(project, replies), "first\ra\rsecond\r" + EOF)
    assert code == 0
    assert out.count("needs approval") == 1
    assert "two" in out


def test_an_unclear_answer_is_asked_again(project: Path) -> None:
    code, out = run_keys(controller(project, [write_call(), "ok"]), "write\rmaybe\ry\r" + EOF)
    assert code == 0
    assert "please answer y" in out
    assert (project / "notes.txt").exists()


def test_errors_are_shown_in_plain_words(project: Path) -> None:
    from codebot.agent.model import ModelError

    code, out = run_keys(
        controller(project, [ModelError("auth", "the provider rejected the key")]), "hi\r" + EOF
    )
    assert code == 0
    assert "error (auth): the provider rejected the key" in out
    code, out = run_keys(controller(project), "/no-such-skill\r" + EOF)
    assert "error:" in out and "no-such-skill" in out


# -- exits and cancelling -------------------------------------------------------------------------


@pytest.mark.parametrize("keys", ["/exit\r", EOF, CTRL_C + CTRL_C, "/exit\rnever sent\r"])
def test_exit_eof_and_double_ctrl_c_exit_zero(project: Path, keys: str) -> None:
    code, out = run_keys(controller(project), keys)
    assert code == 0
    assert "> never sent" not in out


def test_ctrl_c_with_text_clears_the_line_and_does_not_count(project: Path) -> None:
    code, out = run_keys(
        controller(project, ["answer"]), "abc" + CTRL_C + "hello\r" + CTRL_C + "x\r" + EOF
    )
    assert code == 0
    assert "> hello" in out and "> abchello" not in out
    assert "press Ctrl+C again" in out


class Hanging:
    """A model that never answers (until cancelled)."""

    model = "hanging"
    offline = False
    context_window = None

    def __init__(self) -> None:
        self.asked = asyncio.Event()  # set once a request has reached the model

    async def stream(self, request: Any):
        self.asked.set()
        await asyncio.Event().wait()
        yield ModelCompletion("never")


async def test_cancelling_a_turn_keeps_the_session(project: Path) -> None:
    out = io.StringIO()
    model = Hanging()
    ctrl = Controller(load_settings(cwd=project, trust=True), client=model, interactive=True)
    app = LineApp(ctrl, input=io.StringIO(""), output=out, watch=False)
    task = asyncio.ensure_future(app.turn("wait forever"))
    await asyncio.wait_for(model.asked.wait(), 30)  # the turn is under way, not a guess
    assert app.cancel_turn()
    await asyncio.wait_for(task, 5)
    assert "(turn cancelled)" in out.getvalue()
    assert ctrl.session.history[0]["role"] == "user"  # history kept and repaired
    ctrl.close()


async def test_sigint_during_a_turn_cancels_only_the_turn(project: Path) -> None:
    out = io.StringIO()
    model = Hanging()
    ctrl = Controller(load_settings(cwd=project, trust=True), client=model, interactive=True)
    app = LineApp(ctrl, input=io.StringIO(""), output=out, watch=False)
    before = signal.getsignal(signal.SIGINT)
    task = asyncio.ensure_future(app.turn("wait forever"))
    await asyncio.wait_for(model.asked.wait(), 30)
    os.kill(os.getpid(), signal.SIGINT)
    await asyncio.wait_for(task, 5)
    assert "(turn cancelled)" in out.getvalue()
    assert signal.getsignal(signal.SIGINT) is before
    ctrl.close()


# -- piped input ----------------------------------------------------------------------------------


def test_piped_lines_are_turns_and_eof_exits_zero(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    out = io.StringIO()
    code = run_line(
        load_settings(cwd=project, trust=True),
        input=io.StringIO("hello\n/exit\nnot reached\n"),
        output=out,
        watch=False,
    )
    assert code == 0
    text = out.getvalue()
    assert "> hello" in text and "offline model" in text
    assert "not reached" not in text
    out = io.StringIO()
    assert (
        run_line(
            load_settings(cwd=project, trust=True),
            input=io.StringIO("hello\n"),
            output=out,
            watch=False,
        )
        == 0
    )


def test_piped_approval_reads_the_next_line(project: Path) -> None:
    out = io.StringIO()
    ctrl = controller(project, [write_call(), "done"])
    assert LineApp(ctrl, input=io.StringIO("write\ny\n"), output=out, watch=False).run() == 0
    assert (project / "notes.txt").exists()
    assert (
        "Allow? [y]es once / [a] this session / [A]lways / [n]o (n <reason> tells the model why): y"
        in out.getvalue()
    )
    ctrl.close()
    out = io.StringIO()
    ctrl = controller(project, [write_call("other.txt"), "done"])
    assert (
        LineApp(ctrl, input=io.StringIO("write\n"), output=out, watch=False).run() == 0
    )  # EOF: denied
    assert not (project / "other.txt").exists()
    assert "(no answer: denied)" in out.getvalue()
    ctrl.close()


def test_a_bad_resume_id_is_a_setup_error(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_line(
        load_settings(cwd=project, trust=True),
        resume="nope",
        input=io.StringIO(""),
        output=io.StringIO(),
    )
    assert code == 2
    assert "no session 'nope'" in capsys.readouterr().err


def test_plain_subprocess_with_piped_stdin(project: Path) -> None:
    env = dict(os.environ)  # provider keys are already cleared (tests/conftest.py)
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.run(
        [sys.executable, "-m", "codebot", "--plain"],
        input="hello\n/exit\n",
        capture_output=True,
        text=True,
        cwd=project,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "> hello" in proc.stdout
    assert "offline model" in proc.stdout


# -- hot reload and mode choice -------------------------------------------------------------------


def test_the_watcher_runs_and_its_reloads_are_printed(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, Any] = {}

    class FakeWatcher:
        def __init__(self, catalog: Any, on_reload: Any) -> None:
            seen["catalog"], self.on_reload = catalog, on_reload

        def run_in_thread(self) -> None:
            self.on_reload(Change(added=("new-skill",)))
            self.on_reload(Change())  # nothing changed: nothing said

        def stop(self) -> None:
            seen["stopped"] = True

    monkeypatch.setitem(
        sys.modules, "codebot.skills.watch.watcher", types.SimpleNamespace(SkillWatcher=FakeWatcher)
    )
    ctrl = controller(project)
    out = io.StringIO()
    assert LineApp(ctrl, input=io.StringIO(""), output=out, watch=True).run() == 0
    assert seen["catalog"] is ctrl.catalog and seen["stopped"]
    assert "skills: +1 ~0 −0 (6 loaded) · + new-skill" in out.getvalue()
    assert "skills: +0 ~0 −0" not in out.getvalue()
    ctrl.close()


def test_a_new_skill_file_is_announced_while_waiting_for_input(project: Path, write_skill) -> None:
    pytest.importorskip("codebot.skills.watch.watcher")
    read_fd, write_fd = os.pipe()
    out = Recorder()
    ctrl = controller(project)
    with os.fdopen(read_fd, "r") as stdin:
        result: dict[str, int] = {}
        app = LineApp(ctrl, input=stdin, output=out, watch=True)
        runner = threading.Thread(target=lambda: result.setdefault("code", app.run()))
        runner.start()
        try:
            deadline = time.monotonic() + 10
            while "skills" not in out.getvalue() and time.monotonic() < deadline:
                time.sleep(0.02)  # the banner is out: the watcher is starting
            time.sleep(0.3)
            write_skill(
                project / ".codebot" / "skills",
                "fresh",
                "description: A fresh skill. Not for tests.",
            )
            while "skills: +1" not in out.getvalue() and time.monotonic() < deadline:
                time.sleep(0.05)
        finally:
            os.close(write_fd)  # end of input: the session exits
            runner.join(15)
    assert result.get("code") == 0
    assert "skills: +1 ~0 −0" in out.getvalue()
    assert ctrl.catalog.snapshot.get("fresh") is not None
    ctrl.close()


def test_no_watcher_module_is_fine(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(
        sys.modules, "codebot.skills.watch.watcher", None
    )  # import raises ImportError
    ctrl = controller(project)
    assert LineApp(ctrl, input=io.StringIO(""), output=io.StringIO(), watch=True).run() == 0
    ctrl.close()


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_should_use_line_mode() -> None:
    assert should_use_line_mode(io.StringIO(), {}) is True
    assert should_use_line_mode(Tty(), {"TERM": "xterm-256color"}) is False
    assert should_use_line_mode(Tty(), {"TERM": "dumb"}) is True
    assert should_use_line_mode(Tty(), {}, stdin=io.StringIO()) is True
    assert should_use_line_mode(Tty(), {}, stdin=Tty()) is False


def test_parse_answer() -> None:
    from codebot.agent.permissions import ApprovalAnswer

    assert parse_answer(" Y ") is ApprovalAnswer.ALLOW_ONCE
    assert parse_answer("a") is ApprovalAnswer.ALLOW_SESSION
    assert parse_answer("always") is parse_answer("A") is ApprovalAnswer.ALLOW_ALWAYS
    assert parse_answer("n") is ApprovalAnswer.DENY
    assert parse_answer("") is None


def test_prompt_toolkit_stays_in_line_modules() -> None:
    code = (
        "import codebot.ui.controller, codebot.ui.commands, codebot.agent, sys; "
        "print('prompt_toolkit' in sys.modules)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert proc.stdout.strip() == "False", proc.stderr
    imports = re.compile(r"^\s*(from|import)\s+prompt_toolkit\b", re.MULTILINE)
    offenders = [
        p
        for p in (ROOT / "codebot").rglob("*.py")
        if imports.search(p.read_text(encoding="utf-8"))
        and not p.is_relative_to(ROOT / "codebot" / "ui" / "line")
    ]
    assert offenders == []


def test_completer_offers_a_second_skill_after_the_first(project: Path) -> None:
    found = complete(controller(project), "/deploy /rev")
    assert found and found[0].text == "review" and found[0].start_position == -3
    assert all(
        c.text not in ("help", "reload") for c in complete(controller(project), "/deploy /re")
    )
    assert complete(controller(project), "/help /rev") == []  # a built-in takes no stack
    assert complete(controller(project), "/deploy /tmp/x") == []  # a path is an argument


def test_compact_in_line_mode_summarizes_and_context_shows_it(project: Path) -> None:
    ctrl = controller(project, ["first answer", "second answer", "the summary", "third answer"])
    code, out = run_keys(
        ctrl, "/deploy staging\rhello there\r/compact keep deploys\r/context\rgo on\r" + EOF
    )
    assert code == 0
    assert "compacting the conversation (manual" in out and "compacted: " in out
    assert "skills re-attached: deploy" in out and "last compacted at" in out
    assert "third answer" in out
