"""Compaction through the real litellm path, against the scripted server with a 6,000-token
window: long sessions never overflow, skills in force come back, nothing runs twice."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from codebot.agent.session import ResumeChoice, build_session
from codebot.agent.session import events as ev
from codebot.config import load_settings
from codebot.workspace import open_catalog

WINDOW = 6000
MODEL = "openai/test-small"
SUMMARY = "SUMMARY-OF-WORK goals: read files one by one; files touched: big.txt"


def _chars(body: dict[str, Any]) -> int:
    text = json.dumps(body.get("messages", []), ensure_ascii=False) + json.dumps(
        body.get("tools") or []
    )
    return len(text)


def _last(body: dict[str, Any]) -> dict[str, Any]:
    return body["messages"][-1]


class Agent:
    """Answers like a model that reads a large file every turn; refuses a request over
    the window the way OpenAI does, so an overflow fails the test."""

    def __init__(self) -> None:
        self.summaries = 0
        self.turns = 0

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        # JSON-serialized characters / 3.2 overestimates tokens: stricter than the provider.
        tokens = _chars(body) / 3.2
        if tokens > WINDOW:
            return {
                "status": 400,
                "body": {
                    "error": {
                        "message": f"This model's maximum context length is {WINDOW} tokens. "
                        f"However, your messages resulted in {int(tokens)} tokens.",
                        "type": "invalid_request_error",
                        "param": "messages",
                        "code": "context_length_exceeded",
                    }
                },
            }
        last = _last(body)
        content = str(last.get("content") or "")
        if last["role"] == "user" and content.startswith("Summarize the conversation so far"):
            self.summaries += 1
            assert not body.get("tools"), "the summary request carries no tools"
            return {"text": f"{SUMMARY} (summary {self.summaries})"}
        if last["role"] == "tool":
            return {"text": f"read it, turn {self.turns} done"}
        self.turns += 1
        return {
            "tool_calls": [
                {"name": "Read", "arguments": {"path": "big.txt"}, "id": f"c{self.turns}"}
            ]
        }


@pytest.fixture
def project(project: Path, isolated_home: Path, write_skill) -> Path:
    proj = project  # <tmp>/proj with .git/ (tests/conftest.py)
    # ~1,200 tokens per read: five reads fill the window.
    (proj / "big.txt").write_text(
        "".join(f"line {i}: the quick brown fox jumps over the lazy dog\n" for i in range(90))
    )
    counter = proj / "ran.txt"
    write_skill(
        proj / ".codebot" / "skills",
        "house-style",
        "description: House style for this repo. Not for other repos.",
        f"Always write tests first. Stamp: !`echo ran >> {counter}; echo STAMP-$$`",
    )
    (isolated_home / ".codebot" / "config.yaml").write_text(
        f"model_context_window: {{{MODEL}: {WINDOW}}}\n"
    )
    return proj


def _session(project: Path, fake, events: list, resume: ResumeChoice | None = None):
    settings = load_settings(cwd=project, model=MODEL, api_base=fake.url, trust=True)
    session = build_session(
        settings, open_catalog(settings), emit=events.append, resume=resume, allow=["Read"]
    )
    session.client.backoff = 0.0
    return session


async def _forty_turns(session) -> list[Any]:
    records = [await session.run_turn("/house-style one")]
    for i in range(40):
        records.append(await session.run_turn(f"please read big.txt again, round {i}"))
    return records


def test_forty_turns_in_a_small_window_never_overflow_and_keep_the_skill(
    project: Path, fake_openai
) -> None:
    agent = Agent()
    fake_openai.responder = agent
    events: list[Any] = []
    session = _session(project, fake_openai, events)
    try:
        records = asyncio.run(_forty_turns(session))
    finally:
        session.transcript.close()
    errors = [r.error for r in records if r.error]
    assert errors == []
    assert agent.turns == 41 - 1 + 1  # every turn reached the model (the /skill turn too)
    assert agent.summaries >= 3, "a 6,000-token window with 1,200-token reads must compact often"
    assert session.last_compaction is not None and session.last_compaction.reason == "auto"
    # The injected command ran once, when the person invoked the skill: never again.
    assert (project / "ran.txt").read_text().splitlines() == ["ran"]
    # The last request after a compaction carries summary, skill, listing and recent messages.
    compacted = [
        b
        for b in fake_openai.requests
        if str(b["messages"][1].get("content", "")).startswith("<conversation-summary")
    ]
    assert compacted, "requests after compaction start with the summary message"
    first = compacted[-1]["messages"][1]["content"]
    assert SUMMARY in first
    # The recorded text (its command's output, the arguments given then), not re-expanded.
    stamp = next(
        m["content"]
        for m in fake_openai.requests[0]["messages"]
        if "STAMP-" in str(m.get("content"))
    )
    pid = stamp.split("STAMP-", 1)[1].split()[0]
    assert (
        '<skill name="house-style"' in first
        and f"STAMP-{pid}" in first
        and "ARGUMENTS: one" in first
    )
    assert "Skills available through the Skill tool" in first  # the listing is sent again
    tail = compacted[-1]["messages"][2:]
    assert tail and tail[-1]["role"] in ("user", "tool")
    ids = {c["id"] for m in tail if m["role"] == "assistant" for c in m.get("tool_calls") or []}
    answered = {m["tool_call_id"] for m in tail if m["role"] == "tool"}
    assert ids == answered, "a tool call and its result are never split"
    notices = [e.text for e in events if isinstance(e, ev.Notice)]
    assert any(t.startswith("compacted: ") for t in notices)


def test_continue_after_compaction_resumes_the_compacted_view(project: Path, fake_openai) -> None:
    agent = Agent()
    fake_openai.responder = agent
    session = _session(project, fake_openai, [])
    try:
        asyncio.run(_forty_turns(session))
    finally:
        session.transcript.close()
    path = session.transcript.path
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    messages = [x for x in lines if x.get("type") == "message"]
    assert len(messages) >= 41 * 4, "the transcript keeps every message"
    assert any(x.get("type") == "compact" for x in lines)

    again = _session(project, fake_openai, [], ResumeChoice(continue_latest=True))
    try:
        assert again.id == session.id
        assert again.history[0]["content"].startswith("<conversation-summary")
        assert [s.name for s in again.in_force] == ["house-style"]
        assert again.last_compaction is not None
        before = len(fake_openai.requests)
        record = asyncio.run(again.run_turn("and once more"))
    finally:
        again.transcript.close()
    assert record.error is None
    sent = fake_openai.requests[before]["messages"]
    assert sent[1]["content"].startswith("<conversation-summary") and SUMMARY in sent[1]["content"]
    assert (project / "ran.txt").read_text().splitlines() == ["ran"]


def test_manual_compact_with_focus_and_a_failing_summary_falls_back(
    project: Path, fake_openai
) -> None:
    calls = {"n": 0}

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        last = _last(body)
        if str(last.get("content") or "").startswith("Summarize the conversation so far"):
            calls["n"] += 1
            assert "Keep in focus above all: the parser" in last["content"]
            return {"status": 500}
        return {"text": "ok"}

    fake_openai.responder = answer
    events: list[Any] = []
    session = _session(project, fake_openai, events)
    session.client.max_retries = 0
    try:
        for i in range(4):
            asyncio.run(session.run_turn(f"message {i}"))
        record = asyncio.run(session.compact("the parser"))
        assert record is not None and record.failed and "summary request failed" in record.failed
        assert calls["n"] == 1
        assert session.history[0]["content"].startswith("<conversation-summary")
        assert "dropped to fit the context window" in session.history[0]["content"]
        assert session.history[-1] == {"role": "assistant", "content": "ok"}
        # Still usable after the fallback.
        assert asyncio.run(session.run_turn("go on")).error is None
    finally:
        session.transcript.close()
    kept = [json.loads(x) for x in session.transcript.path.read_text().splitlines()]
    assert sum(1 for x in kept if x.get("type") == "message") == 10, (
        "no message is lost from the transcript"
    )
    assert any(
        isinstance(e, ev.Notice) and e.level == "warning" and "without a summary" in e.text
        for e in events
    )


def test_provider_overflow_compacts_and_retries_once(project: Path, fake_openai) -> None:
    state = {"refused": 0}

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        last = _last(body)
        if str(last.get("content") or "").startswith("Summarize the conversation so far"):
            return {"text": "short summary"}
        if (
            not str(body["messages"][1].get("content", "")).startswith("<conversation-summary")
            and len(body["messages"]) > 6
        ):
            state["refused"] += 1
            return {
                "status": 400,
                "body": {
                    "error": {
                        "message": "maximum context length is 6000 tokens",
                        "type": "invalid_request_error",
                        "code": "context_length_exceeded",
                    }
                },
            }
        return {"text": "fine"}

    fake_openai.responder = answer
    session = _session(project, fake_openai, [])
    session.client.max_retries = 0
    try:
        records = [asyncio.run(session.run_turn(f"m{i}")) for i in range(5)]
    finally:
        session.transcript.close()
    assert [r.error for r in records] == [None] * 5
    assert state["refused"] == 1
    assert session.last_compaction is not None and session.last_compaction.reason == "overflow"


def test_a_retry_is_said_with_its_delay_and_attempt(project: Path, fake_openai) -> None:
    fake_openai.script([{"status": 429, "headers": {"retry-after": "0"}}, {"text": "fine"}])
    events: list[Any] = []
    session = _session(project, fake_openai, events)
    try:
        record = asyncio.run(session.run_turn("hello"))
    finally:
        session.transcript.close()
    assert record.error is None and record.text == "fine"
    said = [e.text for e in events if isinstance(e, ev.Notice) and e.text.startswith("retrying in")]
    assert said and "(attempt 1 of 3)" in said[0] and "rate limit" in said[0].lower()
