"""Templates render in a worker thread: a render that takes long (a hostile step's data,
up to `MAX_RENDER_S`) never blocks the event loop, so the UI keeps drawing."""

from __future__ import annotations

import asyncio
import threading

import pytest

from codebot.skills.outcome import Outcome, Status
from codebot.skills.workflow import Engine, StepSkill, template
from codebot.skills.workflow import engine as engine_mod
from codebot.skills.workflow.parse import parse_steps


async def _run_step(_: str, args: str, timeout: float | None, attempt: int = 1) -> Outcome:
    return Outcome(Status.SUCCESS, "x" * 10, {"items": list(range(50))})


def _engine() -> Engine:
    def lookup(name: str) -> StepSkill:
        return StepSkill(name, name, False, None, None)

    return Engine(_run_step, lookup=lookup)


@pytest.mark.parametrize("where", ["args", "when"])
async def test_a_slow_render_leaves_the_loop_free(monkeypatch, where: str) -> None:
    """The render waits until a task on the loop has run: on the loop itself it would wait
    in vain (the loop is blocked), in a thread the task runs and frees it."""
    started, freed = threading.Event(), threading.Event()
    waited: list[bool] = []
    real_render = template.render

    def slow_render(text: str, context):
        if "steps.a" in text:
            started.set()
            waited.append(freed.wait(3))
        return real_render(text, context)

    monkeypatch.setattr(template, "render", slow_render)
    monkeypatch.setattr(engine_mod, "render", slow_render, raising=False)
    step_b = {"id": "b", "skill": "two"}
    if where == "args":
        step_b["args"] = "{% for i in steps.a.data['items'] %}{{ i }},{% endfor %}"
    else:
        step_b["when"] = "{{ steps.a.data['items'] | length > 3 }}"
    workflow, problems = parse_steps("flow", "flow", [{"id": "a", "skill": "one"}, step_b])
    assert workflow is not None, problems

    async def free_soon() -> None:  # runs only while the loop is free
        while not freed.is_set():
            await asyncio.sleep(0.005)
            if started.is_set():
                freed.set()

    helper = asyncio.create_task(free_soon())
    out = await _engine().run(workflow, "go")
    freed.set()
    await helper
    assert waited == [True], "the render ran on the event loop and blocked it"
    assert out.status is Status.SUCCESS


async def test_the_thread_reads_a_snapshot_of_steps() -> None:
    steps = template.Steps({"a": template.StepView("a", {"status": "success", "summary": "s"})})
    context = {"args": "x", "steps": steps}
    got = await template.render_off_loop("{{ steps.a.summary }}-{{ args }}", context)
    assert got == "s-x"
    assert await template.condition_off_loop("{{ steps.a.status == 'success' }}", context)
    assert await template.render_off_loop("plain", context) == "plain"
