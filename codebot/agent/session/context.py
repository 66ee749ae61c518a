"""How full the context is: the model's window, and what a request spends of it.

The window (`resolve_window`), first match wins:
1. config `model_context_window` naming this model (the person's word about it);
2. what the server said: the window a refusal named, else what its `/props`,
   `/v1/models` or `/api/show` told (`agent/model/server_window.py`);
3. litellm's model table, when it knows the model (real models only);
4. config `model_context_window` as one number (or its `default:` entry);
5. `DEFAULT_WINDOW`.

Counts come from the client (`count_tokens`: tiktoken's encodings for real models once loaded, the
4-characters-a-token estimate elsewhere), cached per message: a message never changes
once it is in the history, so a request costs one count per new message, not per message.
The split (`ContextUse`) is system prompt, instruction files (AGENTS.md and the like, part
of the system prompt but counted apart), tool definitions, skill listing, skills in force
and conversation; a user message that carries listing or skill text is divided between
those by its characters.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from codebot.agent.model import estimate_tokens, message_text
from codebot.agent.model.tokens import IMAGE_TOKENS, MESSAGE_OVERHEAD, media_parts

#: The window assumed when neither the config nor litellm knows the model.
DEFAULT_WINDOW = 128_000
LISTING_HEAD = "Skills available through the Skill tool"
_SKILL_BLOCK = re.compile(r'<skill name="[^"]*"[^>]*>.*?</skill>', re.DOTALL)
_REMINDER = re.compile(r"<system-reminder>\n?(.*?)\n?</system-reminder>", re.DOTALL)


def resolve_window(
    settings: Any, client: Any, model: str | None = None, *, may_import: bool = True
) -> tuple[int, str]:
    """(tokens, where it came from: "config", "refusal", "server:<path>", "litellm" or
    "default") for `model` (the client's own by default). `may_import=False` never imports
    litellm to find out (the TUI before the library is warm): that step is skipped until
    it is loaded."""
    name = model or client.model
    per_model = getattr(settings, "context_windows", {}) or {}
    if name in per_model:
        return int(per_model[name]), "config"
    served = getattr(client, "server_window", None)
    if served and name == client.model:
        return served
    if not getattr(client, "offline", False) and (may_import or getattr(client, "loaded", True)):
        known = client.context_window
        if known:
            return int(known), "litellm"
    one = getattr(settings, "context_window", None)
    if one:
        return int(one), "config"
    return DEFAULT_WINDOW, "default"


@dataclass(frozen=True, slots=True)
class ContextUse:
    """Tokens a request spends, by part, against the window."""

    system: int
    tools: int
    listing: int
    skills: int
    conversation: int
    window: int
    source: str  # where the window came from (see `resolve_window`)
    instructions: int = 0  # AGENTS.md and the like: sent in the system prompt, counted apart

    @property
    def total(self) -> int:
        parts = self.system + self.instructions + self.tools + self.listing + self.skills
        return parts + self.conversation

    @property
    def fraction(self) -> float:
        return self.total / self.window if self.window else 0.0

    def parts(self) -> dict[str, int]:
        return {
            "system prompt": self.system,
            "instructions": self.instructions,
            "tool definitions": self.tools,
            "skill listing": self.listing,
            "skills in force": self.skills,
            "conversation": self.conversation,
        }


def _split(message: dict[str, Any]) -> tuple[int, int, int]:
    """Characters of a message that are listing, skill text, and the rest."""
    text = message_text(message)
    skills = sum(len(m) for m in _SKILL_BLOCK.findall(text)) if "<skill " in text else 0
    listing = 0
    if message.get("role") == "user" and LISTING_HEAD in text:
        listing = sum(len(b) for b in _REMINDER.findall(text) if b.startswith(LISTING_HEAD))
    return listing, skills, max(len(text) - listing - skills, 0)


class Meter:
    """Counts with `count` (a client's `count_tokens`), caching each message's count."""

    def __init__(self, count: Callable[[str], int] = estimate_tokens) -> None:
        self.count = count
        # id(message) -> (message, listing, skills, rest): the message is kept so its id
        # cannot be reused by another object while the entry lives.
        self._cache: dict[int, tuple[dict[str, Any], int, int, int]] = {}
        self._texts: dict[str, int] = {}  # system prompt and tool definitions

    def text(self, text: str) -> int:
        n = self._texts.get(text)
        if n is None:
            if len(self._texts) > 64:
                self._texts.clear()
            n = self._texts[text] = self.count(text)
        return n

    def message(self, message: dict[str, Any]) -> tuple[int, int, int]:
        """(listing, skills, rest) tokens of one message, the overhead in `rest`."""
        hit = self._cache.get(id(message))
        if hit is not None and hit[0] is message:
            return hit[1], hit[2], hit[3]
        total = self.count(message_text(message)) + MESSAGE_OVERHEAD
        total += IMAGE_TOKENS * media_parts(message)  # an image part: a fixed estimate
        listing_c, skills_c, rest_c = _split(message)
        chars = listing_c + skills_c + rest_c
        listing = total * listing_c // chars if chars else 0
        skills = total * skills_c // chars if chars else 0
        self._cache[id(message)] = (message, listing, skills, total - listing - skills)
        return listing, skills, total - listing - skills

    def messages(self, messages: Sequence[dict[str, Any]]) -> int:
        return sum(sum(self.message(m)) for m in messages)

    def forget_except(self, messages: Sequence[dict[str, Any]]) -> None:
        """Drop cached counts of messages no longer in the history (after compaction)."""
        keep = {id(m) for m in messages}
        self._cache = {k: v for k, v in self._cache.items() if k in keep}

    def use(
        self,
        system: str,
        tools: Sequence[dict[str, Any]],
        messages: Sequence[dict[str, Any]],
        window: tuple[int, str],
        instructions: str = "",
    ) -> ContextUse:
        """`instructions`: the part of `system` that is instruction files, counted apart."""
        listing = skills = rest = 0
        for m in messages:
            a, b, c = self.message(m)
            listing, skills, rest = listing + a, skills + b, rest + c
        tools_n = (
            self.text(json.dumps(list(tools), ensure_ascii=False, sort_keys=True)) if tools else 0
        )
        system_n = self.text(system) + MESSAGE_OVERHEAD
        inst = min(self.text(instructions), system_n) if instructions else 0
        return ContextUse(system_n - inst, tools_n, listing, skills, rest, *window, inst)
