"""The summary request of a compaction, as text: its instructions, the conversation
rendered for it, and the deterministic extract the offline model writes instead.

The conversation goes to the model as one rendered text rather than as chat messages:
tool calls without tool definitions are rejected by some providers, and a text can be
clipped to fit the window line by line. Pure functions; nothing here sends anything.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

SUMMARY_PREFIX = "Summarize the conversation so far"
INSTRUCTIONS = (
    SUMMARY_PREFIX + " so that the work can go on from your summary alone: the messages it "
    "covers will no longer be sent. Write plain text under these headings:\n"
    "Goals: what the person wants done, overall.\n"
    "Decisions: what was decided or found out, and why.\n"
    "Files touched: each path, and what was read or changed in it.\n"
    "Open tasks: what is not done yet, in order.\n"
    "Asked last: what the person asked most recently, in their words.\n"
    "Be specific: names, paths, commands, error messages. Skills loaded in the conversation "
    "are re-attached separately: name them, do not repeat their text. Do not call tools."
)
#: The rendered conversation goes between these lines.
OPEN, CLOSE = "<conversation>", "</conversation>"
#: How a previous compaction's summary appears in the next one's conversation.
EARLIER = "[summary of the conversation before that]"

_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>\s*", re.DOTALL)
_SKILL = re.compile(r'<skill name="([^"]*)"[^>]*>.*?</skill>', re.DOTALL)
_SUMMARY = re.compile(r"<conversation-summary[^>]*>\n?(.*?)\n?</conversation-summary>", re.DOTALL)
_LINE = re.compile(r"^\[(?P<who>[^\]]+)\] ?(?P<text>.*)$")


def request_text(rendered: str, focus: str = "") -> str:
    """The user message of the summary request: instructions first (it begins with
    `SUMMARY_PREFIX`), then what to keep in focus, then the conversation."""
    focus_line = f"\nKeep in focus above all: {' '.join(focus.split())}" if focus.strip() else ""
    return f"{INSTRUCTIONS}{focus_line}\n\n{OPEN}\n{rendered}\n{CLOSE}"


def _content(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content or "")


def _clip(text: str, limit: int) -> str:
    text = text.strip()
    if len(text) <= limit:
        return text
    return f"{text[: max(limit, 0)]} […{len(text) - limit:,} characters left out]"


def _user_text(text: str) -> str:
    """A user message without its per-turn reminders; a previous summary stays (it is
    what the conversation before it was), re-attached skills and loaded skills are named."""
    found = _SUMMARY.search(text)
    if found:
        return f"{EARLIER} {found.group(1).strip()}"
    text = _SKILL.sub(lambda m: f"[skill {m.group(1)} loaded]", text)
    return _REMINDER.sub("", text).strip()


def render_lines(messages: Iterable[dict[str, Any]], clip: int = 2000) -> list[str]:
    """One text per message (a message may take several lines): `[user] …`,
    `[assistant] …`, `[assistant calls Bash] {…}`, `[Bash result] …`. Tool results and
    long texts are clipped to `clip` characters."""
    names: dict[str, str] = {}  # tool call id -> tool name, to label the results
    out: list[str] = []
    for m in messages:
        role = m.get("role")
        if role == "user":
            text = _user_text(_content(m))
            if text.startswith(
                EARLIER
            ):  # a summary is kept whole: it is all that is left of its part
                out.append(text)
            elif text:
                out.append(f"[user] {_clip(text, clip * 2)}")
        elif role == "assistant":
            text = _content(m).strip()
            if text:
                out.append(f"[assistant] {_clip(text, clip * 2)}")
            for call in m.get("tool_calls") or ():
                if not isinstance(call, dict):
                    continue
                fn = call.get("function")
                fn = fn if isinstance(fn, dict) else {}
                name = str(fn.get("name") or "tool")
                names[str(call.get("id"))] = name
                out.append(
                    f"[assistant calls {name}] {_clip(str(fn.get('arguments') or ''), clip)}"
                )
        elif role == "tool":
            name = names.get(str(m.get("tool_call_id")), "tool")
            out.append(
                f"[{name} result] "
                f"{_clip(_SKILL.sub(lambda x: f'[skill {x.group(1)} loaded]', _content(m)), clip)}"
            )
    return out


def fit_lines(lines: Sequence[str], budget_chars: int) -> str:
    """The newest lines that fit in `budget_chars`, oldest first, with a line saying how
    many older ones were left out (the summary then covers what it was shown)."""
    kept: list[str] = []
    used = 0
    for line in reversed(lines):
        if used + len(line) + 1 > budget_chars and kept:
            break
        kept.append(line[:budget_chars])
        used += len(line) + 1
    dropped = len(lines) - len(kept)
    head = [f"[{dropped} older messages are not shown here: they did not fit]"] if dropped else []
    return "\n".join(head + kept[::-1])


# -- the offline model's extract -----------------------------------------------------------

_PATH_KEYS = ("path", "file_path", "notebook_path")


def _calls(lines: Sequence[str]) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for line in lines:
        m = _LINE.match(line)
        if not m or not m.group("who").startswith("assistant calls "):
            continue
        try:
            args = json.loads(m.group("text"))
        except ValueError:
            args = {}
        out.append(
            (
                m.group("who").removeprefix("assistant calls "),
                args if isinstance(args, dict) else {},
            )
        )
    return out


def extract(request: str) -> str:
    """What the offline model answers to a summary request: the facts a summary needs
    that can be read off the conversation without understanding it. Deterministic."""
    body = request.split(OPEN, 1)[-1].rsplit(CLOSE, 1)[0]
    lines = [ln for ln in body.splitlines() if ln.startswith("[")]
    said = [(m.group("who"), m.group("text")) for m in map(_LINE.match, lines) if m]
    asks = [text for who, text in said if who == "user"]
    earlier = [text for who, text in said if who == EARLIER.strip("[]")]
    changed, read, commands = [], [], []
    for name, args in _calls(lines):
        path = next((str(args[k]) for k in _PATH_KEYS if isinstance(args.get(k), str)), None)
        if name in ("Write", "Edit") and path:
            changed.append(path)
        elif path:
            read.append(path)
        if name == "Bash" and isinstance(args.get("command"), str):
            commands.append(args["command"])
    answers = [text for who, text in said if who == "assistant"]

    def bullets(items: Sequence[str], limit: int = 10, width: int = 200) -> str:
        items = list(dict.fromkeys(items))
        shown = [f"- {_clip(' '.join(i.split()), width)}" for i in items[-limit:]]
        more = [f"- (and {len(items) - limit} earlier)"] if len(items) > limit else []
        return "\n".join(more + shown) if shown else "- (none)"

    parts = [
        "(written by codebot's offline model: an extract, not an understanding)",
        "Goals:\n" + bullets(asks[:3]),
        "Decisions:\n"
        + (bullets(earlier, 1, 600) + "\n" if earlier else "")
        + bullets(answers[-2:], 2, 300),
        "Files touched:\n"
        + bullets([f"{p} (changed)" for p in changed] + [f"{p} (read)" for p in read], 20),
        "Commands run:\n" + bullets(commands),
        "Open tasks:\n- (not known to the offline model: see what the person asked last)",
        "Asked last:\n" + bullets(asks[-1:], 1, 600),
    ]
    return "\n\n".join(parts)
