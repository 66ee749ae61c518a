"""What a resumed session shows first, and the sessions `/resume` offers, as plain data.

`resume_view` turns the history a resumed session will send into small typed items (a
heading, the last few turns, notes) that each front end draws its own way: line mode as
plain lines, the TUI as widgets. `session_rows` lists this project's saved sessions,
newest first, for picking one. Pure apart from reading transcripts: no terminal, no
session object, nothing written.

The history is what the model will be sent, not the whole transcript: after a compaction
it begins with the summary message (`is_preamble`), which is said in a note, not shown.
Messages carry what was sent, so what the person typed is read back out of it: system
reminders are taken off, and a skill's expanded text is shown as the `/name` that
produced it.
"""

from __future__ import annotations

import html
import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codebot.agent.session.compact import is_preamble
from codebot.agent.session.images import is_image_message
from codebot.agent.session.transcript import find_sessions, summarize
from codebot.ui.calls import tool_summary

LAST_TURNS = 5
MAX_LINES = 20  # of one user or assistant text; a pasted log must not fill the screen

_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>\s*", re.S)
# A skill block as `invocation` writes it, or the line sent instead of an unchanged one.
_SKILL = re.compile(
    r'<skill name="([^"]*)"[^>]*>(.*?)</skill>|\[skill "([^"]+)" is already loaded[^\]]*\]', re.S
)
_ARGUMENTS = re.compile(r"\n\nARGUMENTS: (.*)\n?$", re.S)
_SUMMARY = re.compile(r'<conversation-summary messages="(\d+)" at="([^"]*)">')


@dataclass(frozen=True, slots=True)
class Item:
    """One thing to show. `status` is set for tools: ok | error | denied | interrupted."""

    kind: str  # "heading" | "user" | "assistant" | "tool" | "note"
    text: str
    status: str = ""


def resume_view(
    history: Sequence[dict[str, Any]],
    session_id: str,
    started: float | None,
    *,
    last: int = LAST_TURNS,
    max_lines: int | None = MAX_LINES,
) -> list[Item]:
    """The heading, a note on a compaction, then the last `last` turns (a turn is a user
    message and what followed), after a note on how many earlier ones are not shown.
    `started`: the session's start (the transcript header's `created`), when known."""
    when = (
        f" from {time.strftime('%Y-%m-%d %H:%M', time.localtime(started))}"
        if started is not None
        else ""
    )
    items = [Item("heading", f"resumed session {session_id}{when}")]
    messages = list(history)
    if messages and is_preamble(messages[0]):
        items.append(Item("note", compaction_note(str(messages[0]["content"]))))
        messages = messages[1:]
    turns = split_turns(messages)
    shown = turns[len(turns) - last :] if 0 < last < len(turns) else ([] if last <= 0 else turns)
    if len(shown) < len(turns):
        n = len(turns) - len(shown)
        items.append(
            Item("note", f"… {n} earlier turn{'s' if n != 1 else ''} (see `codebot sessions`)")
        )
    for turn in shown:
        items.extend(turn_items(turn, max_lines))
    return items


def compaction_note(content: str) -> str:
    """What the summary message says about the compaction, in one line."""
    m = _SUMMARY.match(content)
    how = (
        "dropped without a summary"
        if "were dropped to fit the context window" in content[:600]
        else "summarized"
    )
    what = f"{m.group(1)} messages {how} at {m.group(2)}" if m else f"the earlier messages {how}"
    skills = list(
        dict.fromkeys(html.unescape(s.group(1)) for s in _SKILL.finditer(content) if s.group(1))
    )
    again = f"; skills re-attached: {', '.join(skills)}" if skills else ""
    return f"(the conversation before was compacted: {what}{again}; the transcript keeps it all)"


def split_turns(messages: Sequence[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Messages grouped by the user message that begins each turn. Messages before the
    first user message (the end of a turn a compaction cut) are a turn of their own."""
    turns: list[list[dict[str, Any]]] = []
    for m in messages:
        if m.get("role") == "system":
            continue
        if (m.get("role") == "user" and not is_image_message(m)) or not turns:
            turns.append([])
        turns[-1].append(m)
    return turns


def turn_items(turn: Sequence[dict[str, Any]], max_lines: int | None = MAX_LINES) -> list[Item]:
    results = {
        m.get("tool_call_id"): text_of(m.get("content")) for m in turn if m.get("role") == "tool"
    }
    items: list[Item] = []
    for m in turn:
        role = m.get("role")
        if role == "user" and not is_image_message(m):
            text = user_text(text_of(m.get("content")))
            if text:
                items.append(Item("user", clip_lines(text, max_lines)))
        elif role == "assistant":
            text = text_of(m.get("content")).strip()
            if text:
                items.append(Item("assistant", clip_lines(text, max_lines)))
            for call in m.get("tool_calls") or ():
                items.append(tool_item(call, results.get(call.get("id"))))
    return items


def text_of(content: Any) -> str:
    """A message's text: a string, or the text parts of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(p.get("text", ""))
            for p in content
            if isinstance(p, dict) and p.get("type") == "text"
        )
    return ""


def user_text(content: str) -> str:
    """What the person typed, as near as the message tells: reminders taken off; skills
    sent as the whole message shown as `/a /b args`, any other skill block as a mark."""
    body = _REMINDER.sub("", content).strip()
    typed = typed_skills(body)
    if typed is not None:
        return typed
    return _SKILL.sub(lambda s: f"[skill {html.unescape(s.group(1) or s.group(3))} loaded]", body)


def typed_skills(body: str) -> str | None:
    """`/review src/` for a message that is nothing but skill blocks, else None. The
    arguments are known when the skill had no placeholder for them (`ARGUMENTS:` line)."""
    names: list[str] = []
    args = ""
    end = 0
    for s in _SKILL.finditer(body):
        if body[end : s.start()].strip():
            return None
        names.append(html.unescape(s.group(1) or s.group(3)))
        found = _ARGUMENTS.search(s.group(2) or "")
        args = args or (found.group(1).strip() if found else "")
        end = s.end()
    if not names or body[end:].strip():
        return None
    return " ".join([*(f"/{n}" for n in names), *([args] if args else [])])


def call_parts(call: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A recorded tool call's name and arguments, whatever the file holds (a saved
    transcript is read as untrusted: arguments that are not a JSON object come back as
    `{"_raw": ...}`)."""
    fn = call.get("function")
    fn = fn if isinstance(fn, dict) else {}
    name = str(fn.get("name") or "?")
    raw = fn.get("arguments") or ""
    try:
        args = (
            json.loads(raw)
            if isinstance(raw, str) and raw.strip()
            else (raw if isinstance(raw, dict) else {})
        )
    except ValueError:
        args = {"_raw": raw}
    if not isinstance(args, dict):
        args = {"_raw": str(raw)}
    return name, args


def tool_item(call: dict[str, Any], result: str | None) -> Item:
    """A tool call in the words line mode uses for a live one (`tool_summary`: plain text,
    no terminal), with its outcome."""
    name, args = call_parts(call)
    status = tool_status(name, result)
    text = tool_summary(name, args)
    if name == "Skill" and status == "ok":
        text = f"{text}  [skill {args.get('skill', '?')} loaded]"
    return Item("tool", text, status)


def tool_status(name: str, result: str | None) -> str:
    """ok | error | denied | interrupted, read from the result's text. A message keeps no
    status, so this reads the fixed wordings the loop and the tool registry use for
    refusals and failures; a result in any other words counts as ok."""
    if result is None or result.startswith("[interrupted:"):
        return "interrupted"
    if result.startswith(
        ("denied by rule ", "the person did not approve", "the person denied this call")
    ):
        return "denied"
    failed = (
        f"{name} failed: ",
        f"{name}: ",
        f"{name}.",
        "unknown tool ",
        f"tool {name} is not available",
        "command timed out after ",
        "the sub-agent was stopped: ",
    )
    if (
        name == "Bash"
        and result.startswith("exit code ")
        and not result.startswith("exit code 0\n")
    ):
        return "error"  # a command that failed, as the Bash tool said when it ran
    return (
        "error"
        if result.startswith(failed) or " was not run: turn budget reached" in result[:80]
        else "ok"
    )


def clip_lines(text: str, max_lines: int | None) -> str:
    lines = text.split("\n")
    if max_lines is None or len(lines) <= max_lines:
        return text
    return "\n".join([*lines[:max_lines], f"… ({len(lines) - max_lines} more lines)"])


# -- the sessions to pick from ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SessionRow:
    id: str
    started: str  # YYYY-MM-DD HH:MM, local time
    first_prompt: str  # one line


def session_rows(
    sessions_dir: Path, project: Path, *, exclude: str = "", limit: int = 20
) -> list[SessionRow]:
    """This project's sessions, newest first (by last write), but `exclude` (the one in
    use), at most `limit`. Damaged files are left out (`codebot sessions` names them)."""
    rows = []
    for info in find_sessions(sessions_dir, project):
        if info.path.stem == exclude:
            continue
        started = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.created))
        rows.append(SessionRow(info.path.stem, started, " ".join(first_prompt(info.path).split())))
        if len(rows) >= limit:
            break
    return rows


def first_prompt(path: Path) -> str:
    """The first thing typed in a session: its first `turn` record (what was typed), else,
    in a transcript written before those records, its first user message."""
    text, _, typed = summarize(path)
    return text if typed else user_text(text)


def pick(choice: str, rows: Sequence[SessionRow], current: str) -> str:
    """The session id `choice` names (a number in the list, or an id), or "error: …"."""
    if choice.isdigit() and len(choice) <= 3:
        n = int(choice)
        if 1 <= n <= len(rows):
            return rows[n - 1].id
        return f"error: no session numbered {n}; /resume lists them"
    if choice == current:
        return f"error: session {current} is the one in use"
    if "/" in choice or "\\" in choice or choice.startswith("."):
        # An id is a file name, never a path.
        return f"error: no session {choice!r}; /resume lists them"
    return choice
