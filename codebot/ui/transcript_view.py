"""The whole session as plain entries, for the transcript view (Ctrl+T, `/transcript`).

Read from the session's transcript file (`$CODEBOT_HOME/sessions/<id>.jsonl`), which
keeps everything: what was typed (`turn` records), every message, the skills loaded
(`skill` records), `/clear` and every compaction (whose messages stay in the file). A
session without a file (nothing said yet, or it could not be written) is shown from the
history in the context instead, with a note. Tool calls come with their arguments and
their whole result, next to each other even when the model made several calls at once
(a call still running, or cut off, is marked `no result`).

Every text is passed through `strip_escapes`: tool output and model text must not move
the cursor or restyle the terminal. No terminal, no Textual: line mode prints `as_text`.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codebot.agent.session.images import is_image_message
from codebot.display import strip_escapes
from codebot.ui.calls import tool_summary
from codebot.ui.resume_view import call_parts, text_of, tool_status, user_text

if TYPE_CHECKING:
    from codebot.agent.session.loop import Session

#: The most of a transcript file read; a longer one is shown from its end, with a note.
MAX_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Entry:
    """One thing to show. For a tool call, `text` is the call in a few words, `detail` its
    arguments and `result` what it returned; `status`: ok | error | denied | interrupted."""

    kind: str  # "heading" | "user" | "assistant" | "tool" | "skill" | "marker" | "note"
    text: str
    detail: str = ""
    result: str | None = None
    status: str = ""


def session_entries(session: Session) -> list[Entry]:
    """The entries of a live session: its transcript file, else its history."""
    transcript = getattr(session, "transcript", None)
    path = getattr(transcript, "path", None)
    if path is not None and Path(path).is_file():
        entries = file_entries(Path(path))
        error = getattr(transcript, "error", None)
        if error:
            entries.append(
                Entry(
                    "note",
                    f"the transcript stopped being written ({error}); what followed is not here",
                )
            )
        return entries
    history = list(getattr(session, "history", None) or ())
    if not history:
        return [Entry("note", "nothing in this session yet")]
    return [
        Entry("note", "no transcript file for this session; showing the messages in the context"),
        *entries_of({"type": "message", "message": m} for m in history),
    ]


def file_entries(path: Path) -> list[Entry]:
    """The entries of a transcript file (a truncated last line is skipped)."""
    notes: list[Entry] = []
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > MAX_BYTES:
                fh.seek(size - MAX_BYTES)
                fh.readline()  # the rest of a cut line
                notes.append(
                    Entry(
                        "note",
                        f"the first {(size - MAX_BYTES) // (1024 * 1024)} MiB of the "
                        f"transcript are not shown ({path})",
                    )
                )
            data = fh.read()
    except OSError as exc:
        return [Entry("note", f"the transcript cannot be read ({exc.strerror or exc}): {path}")]
    return notes + entries_of(_records(data.decode("utf-8", errors="replace").splitlines()))


def _records(lines: Iterable[str]) -> Iterable[dict[str, Any]]:
    for line in lines:
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict):
            yield rec


def entries_of(records: Iterable[dict[str, Any]]) -> list[Entry]:
    """Transcript records (see `transcript.load_state`) as entries, in order."""
    out: list[Entry] = []
    calls: dict[str, int] = {}  # tool call id -> its entry, for the last assistant message
    typed = False  # a `turn` record said what was typed: its user message is not shown again
    for rec in records:
        kind = rec.get("type")
        if kind == "session":
            out.append(Entry("heading", _heading(rec)))
        elif kind == "turn" and isinstance(rec.get("text"), str):
            out.append(Entry("user", _safe(rec["text"])))
            typed = True
        elif kind == "skill" and isinstance(rec.get("name"), str):
            out.append(Entry("skill", f"skill {_safe(rec['name'])} loaded into the conversation"))
        elif kind == "clear":
            out.append(Entry("marker", "conversation cleared (/clear): the model starts afresh"))
            calls = {}
        elif kind == "compact":
            out.append(Entry("marker", _compaction(rec)))
        elif kind == "message" and isinstance(rec.get("message"), dict):
            typed = _message(rec["message"], out, calls, typed)
    return out


def _message(m: dict[str, Any], out: list[Entry], calls: dict[str, int], typed: bool) -> bool:
    """Add the entries of one message; returns whether a typed turn still awaits its message."""
    role = m.get("role")
    if is_image_message(m):  # a tool's images: its result's line says so already
        return typed
    if role == "user":
        if not typed:
            text = user_text(text_of(m.get("content")))
            if text:
                out.append(Entry("user", _safe(text)))
        return False
    if role == "assistant":
        text = text_of(m.get("content")).strip()
        if text:
            out.append(Entry("assistant", _safe(text)))
        calls.clear()
        for call in m.get("tool_calls") or ():
            if isinstance(call, dict):
                calls[str(call.get("id"))] = len(out)
                out.append(_call(call))
    elif role == "tool":
        result = text_of(m.get("content"))
        at = calls.pop(str(m.get("tool_call_id")), None)
        if at is None:
            out.append(
                Entry("tool", "result of an earlier call", result=_safe(result), status="ok")
            )
        else:
            name = out[at].text.split(" ", 1)[0]
            out[at] = replace(out[at], result=_safe(result), status=tool_status(name, result))
    return typed


def _call(call: dict[str, Any]) -> Entry:
    name, args = call_parts(call)
    detail = "\n".join(
        f"{k}: {v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)}"
        for k, v in args.items()
    )
    return Entry("tool", _safe(tool_summary(name, args)), _safe(detail), None, "no result")


def _heading(rec: dict[str, Any]) -> str:
    created = rec.get("created")
    when = (
        time.strftime(" · started %Y-%m-%d %H:%M", time.localtime(created))
        if isinstance(created, int | float) and not isinstance(created, bool)
        else ""
    )
    return _safe(f"session {rec.get('id', '?')}{when} · {rec.get('project', '')}")


def _compaction(rec: dict[str, Any]) -> str:
    from codebot.agent.session.compact import Compaction

    try:
        said = Compaction.from_json(rec).describe().replace("last compacted", "compacted", 1)
    except (TypeError, ValueError, OverflowError, OSError):
        said = "compacted"
    return _safe(f"{said} (the model sees a summary of what is above; it stays here)")


def _safe(text: str) -> str:
    return strip_escapes(text)


def as_text(entries: Sequence[Entry]) -> str:
    """The entries as plain text (line mode's `/transcript`)."""
    lines: list[str] = []
    for e in entries:
        if e.kind == "user":
            lines.append("> " + e.text.replace("\n", "\n  "))
        elif e.kind == "tool":
            lines.append(f"● {e.text}  [{e.status}]")
            lines += [f"    {ln}" for ln in e.detail.splitlines()]
            lines += [
                f"  │ {ln}"
                for ln in (e.result if e.result is not None else "(no result)").splitlines()
            ]
        elif e.kind in ("marker", "heading"):
            lines.append(f"── {e.text} ──")
        else:
            lines.append(e.text)
        lines.append("")
    return "\n".join(lines).rstrip("\n")
