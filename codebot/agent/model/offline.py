"""The offline model: what codebot runs on when no model or provider key is configured.

It is deterministic and honest. Like a real model it sees only the conversation: it
reads the skill listing from the `<system-reminder>` on the user message, calls the
`Skill` tool when the request matches a listed skill, and then says plainly that it is
the offline model and how to configure a real one. It never imports litellm.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from codebot.agent.model.protocol import (
    Completion,
    ModelRequest,
    StreamItem,
    TextDelta,
    ToolCall,
    Usage,
)
from codebot.agent.model.summary import SUMMARY_PREFIX, extract
from codebot.agent.model.tokens import estimate_tokens
from codebot.skills.prompt.reminders import DELTA_HEAD

_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>\s*", re.DOTALL)
_LISTED = re.compile(r"^- (?P<name>[^\s\[:]+)(?: \[[^\]]*\])?(?:: (?P<desc>.*))?$", re.MULTILINE)
_SKILL_TAG = re.compile(r'<skill name="([^"]+)"')

HOW_TO = (
    "To use a real model, set a provider key (for example OPENAI_API_KEY or ANTHROPIC_API_KEY) "
    "or pass --model MODEL (any litellm model string), or point codebot at an OpenAI-compatible "
    "server with --api-base URL --model openai/NAME."
)

#: (request text, listed skills as (name, description)) -> chosen name or None
Matcher = Callable[[str, Sequence[tuple[str, str]]], str | None]


def lexical_match(text: str, listed: Sequence[tuple[str, str]]) -> str | None:
    """Pick a listed skill whose name appears in the request, or whose description shares
    at least two content words with it; the clearest winner only."""
    from codebot.skills.prompt import tokens

    q = set(tokens(text))
    if not q:
        return None
    best: tuple[float, str] | None = None
    runner_up = 0.0
    for name, desc in listed:
        name_words = set(tokens(name.replace("-", " ").replace(":", " ")))
        s = 3.0 * len(q & name_words) + len(q & set(tokens(desc)))
        if best is None or s > best[0]:
            runner_up = best[0] if best else 0.0
            best = (s, name)
        elif s > runner_up:
            runner_up = s
    if best is None or best[0] < 2.0 or best[0] == runner_up:
        return None
    return best[1]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


class OfflineModel:
    model = "offline"
    context_window: int | None = None

    @staticmethod
    def count_tokens(text: str) -> int:
        return estimate_tokens(text)
    offline = True

    def __init__(self, matcher: Matcher | None = None) -> None:
        self.matcher = matcher or lexical_match
        self._calls = 0

    def _listed(self, messages: Sequence[dict[str, Any]]) -> list[tuple[str, str]]:
        """The listing as the conversation has it: the latest full listing, with the
        changes sent after it (`+ name: …`, `− name`, `~ name: …`) applied."""
        listed: dict[str, str] = {}
        for m in messages:
            if m.get("role") != "user":
                continue
            for block in re.findall(r"<system-reminder>(.*?)</system-reminder>", _text(m.get("content")), re.DOTALL):
                if block.strip().startswith(DELTA_HEAD):
                    for line in block.splitlines():
                        if line[:2] in ("+ ", "~ ") and (x := _LISTED.match("- " + line[2:])):
                            listed[x["name"]] = x["desc"] or ""
                        elif line.startswith("− "):
                            listed.pop(line[2:].strip(), None)
                    continue
                found = [(x["name"], x["desc"] or "") for x in _LISTED.finditer(block)]
                if found:
                    listed = dict(found)
        return list(listed.items())

    def decide(self, messages: Sequence[dict[str, Any]]) -> Completion:
        last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
        if last_user >= 0 and _text(messages[last_user].get("content")).startswith(SUMMARY_PREFIX):
            # A compaction's summary request: a deterministic extract, so compaction works
            # (and can be tested) without a model.
            return Completion(extract(_text(messages[last_user].get("content"))))
        after = messages[last_user + 1 :]
        used_skill = [c["function"]["name"] for m in after for c in m.get("tool_calls") or [] if "function" in c]
        request = _REMINDER.sub("", _text(messages[last_user].get("content"))).strip() if last_user >= 0 else ""
        invoked = _SKILL_TAG.search(request)
        if after and after[-1].get("role") == "tool":
            result = _text(after[-1].get("content"))
            name = _SKILL_TAG.search(result)
            if name:
                return Completion(f"I loaded the skill '{name.group(1)}', but I am codebot's offline model and cannot "
                                  f"carry out its instructions. {HOW_TO}")  # fmt: skip
            return Completion(f"The tool answered:\n{result[:2000]}\n\nI am codebot's offline model. {HOW_TO}")
        if invoked:
            return Completion(f"The skill '{invoked.group(1)}' is loaded, but I am codebot's offline model and cannot "
                              f"carry out its instructions. {HOW_TO}")  # fmt: skip
        if "Skill" not in used_skill and request:
            choice = self.matcher(request, self._listed(messages))
            if choice:
                self._calls += 1
                call = ToolCall(f"offline-{self._calls}", "Skill", json.dumps({"skill": choice, "args": ""}))
                return Completion("", (call,), finish_reason="tool_calls")
        return Completion(f"I am codebot's offline model: no model is configured, so I can run skills you type "
                          f"(/name) and pick a matching skill, but not answer freely. {HOW_TO}")  # fmt: skip

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        completion = self.decide(request.messages)
        if completion.text:
            yield TextDelta(completion.text)
        yield Completion(completion.text, completion.tool_calls, Usage(), self.model, completion.finish_reason or "stop")
