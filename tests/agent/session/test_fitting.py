"""The `Fitter` alone: max_tokens against the window, the notice of a cut answer, what an
overflow refusal teaches and keeps, the overhead warning; and lean mode's `Toolset`."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from codebot.agent.model import Completion, ModelError, ScriptedModel, Usage
from codebot.agent.model.server_window import ServerView
from codebot.agent.session import events as ev
from codebot.agent.session.compacting import Compactor
from codebot.agent.session.fitting import GO_ON, Fitter
from codebot.agent.session.prompting import Prompter
from codebot.agent.session.state import SessionState
from codebot.agent.session.toolset import LEAN_TOOLS, Toolset
from codebot.agent.session.turn import TurnState
from codebot.agent.tools import ToolRegistry, builtin_tools
from codebot.config import Settings, load_settings
from codebot.model_config import ModelSettings
from codebot.workspace import open_catalog


class Windowed(ScriptedModel):
    """A scripted model behind a server view that says `window` (no network)."""

    def __init__(self, window: int | None, replies: list[dict[str, Any]] | None = None) -> None:
        super().__init__(replies or [])
        self.offline = False
        self.server = ServerView("http://127.0.0.1:9/v1", ask=lambda *a: None)
        if window:
            self.server.refused(window)

    @property
    def server_window(self) -> tuple[int, str] | None:
        return self.server.window()


def fitter(
    project: Path, client: Any, lean: bool = False, **model: Any
) -> tuple[Fitter, list[Any], SessionState]:
    settings: Settings = load_settings(cwd=project, trust=True)
    settings = dataclasses.replace(settings, requests=ModelSettings(lean=lean, **model))
    state = SessionState(settings, client)
    events: list[Any] = []
    toolset = Toolset(
        registry=ToolRegistry(builtin_tools()),
        tool_filter=lambda _n: True,
        project_dir=project,
        lean=lean,
    )
    prompter = Prompter(state=state, catalog=open_catalog(settings), usage_tracker=None)
    compactor = Compactor(state=state, toolset=toolset, prompter=prompter, emit=events.append)
    return Fitter(state=state, compactor=compactor, emit=events.append), events, state


def test_max_tokens_is_a_quarter_of_the_window_or_what_is_left(project: Path) -> None:
    fit, _, state = fitter(project, Windowed(8192))
    assert fit.max_tokens(TurnState()) == 2048
    state.history.append({"role": "user", "content": "x" * 4 * 7000})
    assert fit.max_tokens(TurnState()) < 2048  # the window has less left
    configured, _, _ = fitter(project, Windowed(8192), max_output_tokens=300)
    assert configured.max_tokens(TurnState()) == 300


def test_a_cut_answer_is_said_with_its_numbers(project: Path) -> None:
    fit, _, _ = fitter(project, Windowed(8192))
    fit.max_tokens(TurnState())
    cut = fit.cut(Completion("half", usage=Usage(10, 2048), finish_reason="length"))
    assert cut is not None and "cut at 2,048 tokens" in cut and "max_tokens 2048" in cut
    assert fit.cut(Completion("whole", finish_reason="stop")) is None


def test_a_refusal_teaches_the_window_and_keeps_the_streamed_text(project: Path) -> None:
    client = Windowed(None, [{"text": "SUMMARY: earlier talk"}])
    fit, events, state = fitter(project, client)
    for i in range(4):
        state.history += [
            {"role": "user", "content": f"q{i} " + "w " * 300},
            {"role": "assistant", "content": f"a{i} " + "w " * 300},
        ]
    exc = ModelError("context", "too long")
    exc.window, exc.partial = 4096, "Here is PARTIAL"
    kept: list[dict[str, Any]] = []

    def add(message: dict[str, Any]) -> None:
        kept.append(message)
        state.history.append(message)

    assert asyncio.run(fit.recover(exc, TurnState(), add))
    assert client.server.window() == (4096, "refusal")
    assert kept == [
        {"role": "assistant", "content": "Here is PARTIAL"},
        {"role": "user", "content": GO_ON},
    ]
    notices = [e.text for e in events if isinstance(e, ev.Notice)]
    assert any("4,096 tokens" in n for n in notices)
    assert any(n.startswith("compacted") for n in notices)
    assert state.history[-2:] == kept  # after the compacted view, as the last word


def test_an_unhelpful_refusal_is_not_retried(project: Path) -> None:
    fit, _, _ = fitter(project, Windowed(4096))
    exc = ModelError("context", "too long")  # names no window; one message: nothing to compact
    assert not asyncio.run(fit.recover(exc, TurnState(), lambda m: None))


def test_overhead_warning_once_and_lean_fits(project: Path) -> None:
    fit, _, _ = fitter(project, Windowed(2048))
    said = fit.overhead_warning(TurnState())
    assert said is not None and "of the 2,048-token window" in said and "--lean" in said
    assert fit.overhead_warning(TurnState()) is None  # once per window
    lean, _, _ = fitter(project, Windowed(2048), lean=True)
    assert lean.overhead_warning(TurnState()) is None
    roomy, _, _ = fitter(project, Windowed(200_000))
    assert roomy.overhead_warning(TurnState()) is None


def test_lean_toolset(project: Path) -> None:
    full = Toolset(
        registry=ToolRegistry(builtin_tools()), tool_filter=lambda _n: True, project_dir=project
    )
    lean = Toolset(
        registry=ToolRegistry(builtin_tools()),
        tool_filter=lambda n: n != "Write",
        project_dir=project,
        lean=True,
    )
    turn = TurnState()
    names = sorted(s["function"]["name"] for s in lean.schemas(turn))
    assert names == sorted(LEAN_TOOLS - {"Write"})  # the session's own filter still holds
    assert not lean.offered("Glob", turn) and not lean.offered("Task", turn)
    for schema in lean.schemas(turn):
        props = schema["function"]["parameters"].get("properties", {})
        assert all("description" not in p for p in props.values())
        assert "\n" not in schema["function"]["description"]
    assert len(json.dumps(lean.schemas(turn))) * 3 < len(json.dumps(full.schemas(turn)))
    assert len(lean.system_prompt) * 2 < len(full.system_prompt)
    assert "Tools: Read, Edit, Bash, Skill" in lean.system_prompt


@pytest.mark.parametrize("value", ["yes", 1, "true", None])
def test_lean_in_the_config_must_be_a_boolean(project: Path, value: Any) -> None:
    from codebot.model_config import model_keys

    warnings: list[str] = []
    out = model_keys({"lean": value}, warnings)
    assert "lean" not in out
    assert bool(warnings) is (value is not None)


def test_instruction_files_count_in_the_overhead(project: Path) -> None:
    from codebot.agent.session.instruction_source import InstructionSource

    (project / "AGENTS.md").write_text("Always run the tests. " * 400)
    fit, _, _ = fitter(project, Windowed(8192))
    fit.compactor.toolset.instructions = InstructionSource(
        project_root=project,
        cwd=project,
        home=project / "nohome",
        codebot_home=project / "nohome" / ".codebot",
        trusted=True,
        agent_written=set,
    )
    said = fit.overhead_warning(TurnState())
    assert said is not None and "instructions 2," in said


def test_lean_listing_names_every_skill_without_descriptions(project: Path, write_skill) -> None:
    from codebot.agent.session.prompting import lean_overrides

    skills = project / ".codebot" / "skills"
    write_skill(skills, "deploy", "description: Deploy the app to production.", "DEPLOY")
    write_skill(skills, "hidden", "description: Never listed for the model.", "HIDDEN")
    fit, _, state = fitter(project, Windowed(2048), lean=True)
    state.settings = dataclasses.replace(
        state.settings, overrides={**state.settings.overrides, "hidden": "off"}
    )
    text = fit.compactor.prompter.current_listing().text
    assert "- deploy" in text and "Deploy the app" not in text
    assert "hidden" not in text  # what the person turned off stays off
    assert lean_overrides([], {"x": "user-only"}) == {"x": "user-only"}
