"""Compaction as pure functions: which recent messages stay, which skills are re-attached
within their budgets, and the message that carries the summary (docs/sessions.md).

After compaction the model is sent: the system prompt, then one user message holding the
summary, every skill in force (its recorded text, never expanded again) and the listing,
then the recent messages verbatim. The session (`compacting`) asks for the summary and
swaps the history; the transcript keeps everything.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from codebot.skills.invoke import escape_tags
from codebot.units import CHARS_PER_TOKEN

# Shares of the room (the threshold's tokens minus system prompt, tools and listing) that
# each part of the compacted view may take; the rest is where the conversation grows again.
TAIL_SHARE = 0.25
SKILLS_SHARE = 0.25
SUMMARY_SHARE = 0.20
#: A single tool result in the kept messages is clipped past this share of the room.
RESULT_SHARE = 0.15
CUT_MARK = (
    "[… cut at compaction: {left:,} more tokens of this skill are not shown; "
    "invoke {name} again to reload it whole]"
)


@dataclass(frozen=True, slots=True)
class InForce:
    """A skill invoked inline in this session: the text it expanded to, as sent then."""

    key: str
    name: str
    text: str
    at: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "name": self.name, "text": self.text, "at": self.at}


@dataclass(frozen=True, slots=True)
class Compaction:
    """What one compaction did, for `/context`, the transcript and the notice."""

    at: float
    reason: str  # "auto" | "manual" | "overflow"
    summarized: int  # messages replaced by the summary
    kept: int  # recent messages kept verbatim
    attached: tuple[str, ...] = ()  # skills re-attached whole
    cut: tuple[str, ...] = ()  # skills re-attached cut to their budget
    named: tuple[str, ...] = ()  # skills only named: over the total budget
    before: int = 0  # tokens of the request before
    after: int = 0  # and after
    failed: str | None = None  # why there is no summary (the oldest turns were dropped)
    focus: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "at": self.at,
            "reason": self.reason,
            "summarized": self.summarized,
            "kept": self.kept,
            "attached": list(self.attached),
            "cut": list(self.cut),
            "named": list(self.named),
            "before": self.before,
            "after": self.after,
            "failed": self.failed,
            "focus": self.focus,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Compaction:
        def names(key: str) -> tuple[str, ...]:
            v = d.get(key)
            return tuple(str(x) for x in v) if isinstance(v, list) else ()

        def num(key: str) -> int:
            v = d.get(key)
            return v if isinstance(v, int) and not isinstance(v, bool) else 0

        at = d.get("at")
        return cls(
            float(at) if isinstance(at, int | float) and not isinstance(at, bool) else 0.0,
            str(d.get("reason") or "auto"),
            num("summarized"),
            num("kept"),
            names("attached"),
            names("cut"),
            names("named"),
            num("before"),
            num("after"),
            str(d["failed"]) if d.get("failed") else None,
            str(d.get("focus") or ""),
        )

    def describe(self) -> str:
        when = time.strftime("%H:%M:%S", time.localtime(self.at))
        skills = [*self.attached, *(f"{n} (cut)" for n in self.cut)]
        parts = [
            f"last compacted at {when} ({self.reason}): {self.summarized} messages "
            + ("dropped without a summary" if self.failed else "summarized"),
            f"{self.kept} recent kept",
            f"{self.before:,} → {self.after:,} tokens",
        ]
        if skills:
            parts.append("skills re-attached: " + ", ".join(skills))
        if self.named:
            parts.append("named only (over budget): " + ", ".join(self.named))
        if self.failed:
            parts.append(f"no summary: {self.failed}")
        return "; ".join(parts)


@dataclass
class Attached:
    blocks: list[str] = field(default_factory=list)
    whole: list[str] = field(default_factory=list)
    cut: list[str] = field(default_factory=list)
    named: list[str] = field(default_factory=list)


def latest_first(in_force: Sequence[InForce]) -> list[InForce]:
    """Each skill once, by its latest invocation, newest first."""
    seen: set[str] = set()
    out: list[InForce] = []
    for s in reversed(in_force):
        if s.key not in seen:
            seen.add(s.key)
            out.append(s)
    return out


def reattach(
    in_force: Sequence[InForce],
    count: Callable[[str], int],
    per_skill: int,
    total: int,
    present: Callable[[str], bool] = lambda _t: False,
) -> Attached:
    """The skills to re-attach, latest invocation first: each whole when it fits its
    budget, else cut with a marker; past `total`, named instead. A skill whose text is
    still in the kept messages (`present`) needs no copy."""
    out = Attached()
    used = 0
    for s in latest_first(in_force):
        if present(s.text):
            continue
        room = min(per_skill, total - used)
        n = count(s.text)
        if n <= room:
            out.blocks.append(s.text)
            out.whole.append(s.name)
            used += n
        elif room >= 200:  # a stub of a few lines is worth less than the name and a reload
            text = cut_skill(s, n, room)
            out.blocks.append(text)
            out.cut.append(s.name)
            used += count(text)
        else:
            out.named.append(s.name)
    return out


def cut_skill(s: InForce, tokens: int, room: int) -> str:
    """The skill's text cut to about `room` tokens, ending in a marker and `</skill>`."""
    body = s.text.removesuffix("</skill>").rstrip("\n")
    keep = max(room * CHARS_PER_TOKEN - 200, 0)  # less the marker
    head = body[:keep]
    nl = head.rfind("\n")
    if nl > keep // 2:
        head = head[:nl]
    left = max(tokens - room, 1)
    return f"{head}\n{CUT_MARK.format(left=left, name='/' + s.name)}\n</skill>"


def units(messages: Sequence[dict[str, Any]]) -> list[tuple[int, int]]:
    """(start, end) of each unit that may not be split: a user message, or an assistant
    message with the tool results that answer it (and the images they returned)."""
    from codebot.agent.session.images import is_image_message

    out: list[tuple[int, int]] = []
    i = 0
    while i < len(messages):
        j = i + 1
        if messages[i].get("role") == "assistant":
            while j < len(messages) and messages[j].get("role") == "tool":
                j += 1
            if j < len(messages) and is_image_message(messages[j]):
                j += 1
        out.append((i, j))
        i = j
    return out


def tail_start(
    messages: Sequence[dict[str, Any]],
    count: Callable[[dict[str, Any]], int],
    budget: int,
    floor: int = 0,
) -> int:
    """Where the kept recent messages begin: the newest whole units within `budget`
    tokens (at least the last one), never before `floor` (a previous summary message)."""
    start = len(messages)
    used = 0
    for a, b in reversed(units(messages)):
        if a < floor:
            break
        n = sum(count(m) for m in messages[a:b])
        if used + n > budget and start < len(messages):
            break
        start, used = a, used + n
    return start


def clip_results(messages: Sequence[dict[str, Any]], limit_chars: int) -> list[dict[str, Any]]:
    """The kept messages with any tool result longer than `limit_chars` clipped (the
    transcript keeps it whole). Other messages are the same objects."""
    out = []
    for m in messages:
        content = m.get("content")
        if m.get("role") == "tool" and isinstance(content, str) and len(content) > limit_chars:
            head = content[: max(limit_chars - 120, 0)]
            m = {
                **m,
                "content": f"{head}\n[… {len(content) - len(head):,} more characters of this "
                "result were cut at compaction; run the tool again if you need them]",
            }
        out.append(m)
    return out


def preamble(
    summary: str,
    attached: Attached,
    listing_blocks: Sequence[str],
    summarized: int,
    failed: str | None = None,
) -> dict[str, Any]:
    """The user message that stands for everything before the kept messages."""
    when = time.strftime("%Y-%m-%d %H:%M")
    if failed:
        head = (
            f'<conversation-summary messages="{summarized}" at="{when}">\n'
            f"[{summarized} earlier messages were dropped to fit the context window, "
            f"without a summary ({escape_tags(failed)}). The transcript on disk keeps them; "
            "ask the person if something from before matters.]\n</conversation-summary>"
        )
    else:
        head = (
            f'<conversation-summary messages="{summarized}" at="{when}">\n'
            f"The conversation so far was compacted: {summarized} earlier messages are "
            "summarized here, and the most recent ones follow as they were.\n\n"
            f"{escape_tags(summary.strip())}\n</conversation-summary>"
        )
    parts = [head]
    if attached.blocks:
        parts.append(
            "<system-reminder>\nSkills in force, loaded earlier in this conversation "
            "(their text as it was when invoked; keep following them):\n</system-reminder>"
        )
        parts.extend(attached.blocks)
    if attached.named:
        parts.append(
            f"<system-reminder>\nAlso in force earlier: {', '.join(attached.named)}; "
            "invoke again to reload (the Skill tool, or /name).\n</system-reminder>"
        )
    parts.extend(listing_blocks)
    return {"role": "user", "content": "\n\n".join(parts)}


def is_preamble(message: dict[str, Any]) -> bool:
    content = message.get("content")
    return (
        message.get("role") == "user"
        and isinstance(content, str)
        and content.startswith("<conversation-summary")
    )
