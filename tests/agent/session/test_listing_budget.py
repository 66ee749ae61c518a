"""The listing in the agent with a catalog far over its budget: capped, relevant to the
request, pointing at SkillSearch, and a delta after a reload."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from codebot.agent.model import ScriptedModel
from codebot.agent.session import build_session
from codebot.config import load_settings
from codebot.skills.prompt.reminders import DELTA_HEAD
from codebot.workspace import open_catalog


@pytest.fixture
def project(project: Path, over_budget) -> Path:
    over_budget(project / ".codebot" / "skills", 1500)  # <tmp>/proj with .git/
    return project


def listing_of(text: str) -> str:
    blocks = re.findall(r"<system-reminder>\n(.*?)\n</system-reminder>", text, re.DOTALL)
    return next(b for b in blocks if b.startswith(("Skills available", DELTA_HEAD)))


def test_over_budget_listing_is_capped_ranked_for_the_request_and_names_skillsearch(
    project: Path,
) -> None:
    settings = load_settings(cwd=project, trust=True)
    model = ScriptedModel(["ok", "ok"])
    session = build_session(settings, open_catalog(settings), client=model)
    asyncio.run(session.run_turn("check the terraform drift in prod"))
    listing = listing_of(model.requests[0].messages[-1]["content"])
    assert len(listing) <= 8000
    assert "- terraform-drift: Detect drift" in listing  # ranked in for this request
    assert re.search(
        r"\d+ more skills exist but are not listed here; the SkillSearch tool finds", listing
    )
    session.transcript.close()


def test_a_reload_sends_what_changed_not_the_whole_listing(tmp_path: Path, write_skill) -> None:
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    skills = proj / ".codebot" / "skills"
    for i in range(20):
        write_skill(
            skills,
            f"tool-{i:02d}",
            f"description: Tool {i} does its job. Not for other jobs.",
            "Go.",
        )
    settings = load_settings(cwd=proj, trust=True)
    model = ScriptedModel(["a", "b", "c"])
    session = build_session(settings, open_catalog(settings), client=model)
    asyncio.run(session.run_turn("hello"))
    write_skill(skills, "new-one", "description: Brand new skill. Not for old things.", "New.")
    (skills / "tool-03" / "SKILL.md").write_text(
        "---\ndescription: Tool 3, edited. Not for other jobs.\n---\nGo.\n"
    )
    import shutil

    shutil.rmtree(skills / "tool-05")
    session.catalog.reload()
    asyncio.run(session.run_turn("again"))
    delta = listing_of(model.requests[1].messages[-1]["content"])
    assert delta.startswith(DELTA_HEAD)
    assert (
        "+ new-one: Brand new skill." in delta
        and "− tool-05" in delta
        and "~ tool-03: Tool 3, edited." in delta
    )
    assert "tool-07" not in delta
    session.transcript.close()


def test_the_listing_is_made_off_the_event_loop_and_a_cancel_leaves_no_trace(
    tmp_path: Path, write_skill
) -> None:
    """Ranking an over-budget catalog can wait for the router's index: meanwhile the event
    loop keeps running (the TUI draws the skill line and the spinner), and a turn cancelled
    then leaves `last_listing` as it was (the next turn still sends the whole listing)."""
    import threading
    import time

    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    write_skill(
        proj / ".codebot" / "skills",
        "solo",
        "description: The only skill. Not for anything else.",
        "Go.",
    )
    settings = load_settings(cwd=proj, trust=True)
    model = ScriptedModel(["ok", "ok"])
    session = build_session(settings, open_catalog(settings), client=model)
    made = session.prompter.current_listing  # the Prompter makes each turn's listing
    release = threading.Event()

    def slow_listing(request: str = ""):
        release.wait(5)  # as a listing waiting for the router's index would
        return made(request)

    session.prompter.current_listing = slow_listing  # type: ignore[method-assign]

    async def go() -> int:
        ticks = 0
        turn = asyncio.create_task(session.run_turn("hello"))
        t0 = time.monotonic()
        while time.monotonic() - t0 < 0.3:
            await asyncio.sleep(0.01)
            ticks += 1
        turn.cancel()
        release.set()
        with pytest.raises(asyncio.CancelledError):
            await turn
        return ticks

    ticks = asyncio.run(go())
    assert ticks >= 10, f"the event loop was blocked while the listing was made ({ticks} ticks)"
    assert session.last_listing is None  # the cancelled turn's listing was never sent
    session.prompter.current_listing = made  # type: ignore[method-assign]
    asyncio.run(session.run_turn("hello again"))
    assert "Skills available" in model.requests[-1].messages[-1]["content"]
    session.transcript.close()
