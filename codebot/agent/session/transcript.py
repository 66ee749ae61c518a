"""Session transcripts: one JSONL file per session, appended as messages happen.

`$CODEBOT_HOME/sessions/<id>.jsonl`: a header line, then one line per message. Every
line is flushed when written and the file is fsynced when a turn ends, so a killed
process loses at most the message in flight. Loading tolerates a truncated last line
and repairs a tool call that never got its result.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codebot.home import private_dir, private_open

FORMAT = 1


def new_session_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:8]


@dataclass(frozen=True, slots=True)
class SessionInfo:
    id: str
    path: Path
    project: str
    created: float
    model: str | None


class Transcript:
    def __init__(self, sessions_dir: Path, session_id: str, project: Path, model: str | None = None) -> None:
        self.id = session_id
        self.path = sessions_dir / f"{session_id}.jsonl"
        self.project = project
        self.model = model
        self._fh = None
        self.error: str | None = None  # set when the transcript cannot be written

    def _open(self):
        if self._fh is None:
            try:
                # Private (0700 folder, 0600 file): a transcript holds every file the model read.
                private_dir(self.path.parent)
                new = not self.path.exists()
                self._fh = private_open(self.path, "a", encoding="utf-8")
                if new:
                    self._write({"type": "session", "format": FORMAT, "id": self.id, "project": str(self.project),
                                 "created": time.time(), "model": self.model})  # fmt: skip
            except OSError as exc:
                self.error = f"cannot write transcript {self.path}: {exc.strerror or exc}"
                return None
        return self._fh

    def _write(self, record: dict[str, Any]) -> None:
        fh = self._fh
        if fh is None:
            return
        try:
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
            fh.flush()
        except OSError as exc:
            self.error = f"cannot write transcript {self.path}: {exc.strerror or exc}"

    def append(self, message: dict[str, Any]) -> None:
        if self._open() is not None:
            self._write({"type": "message", "message": message})

    def mark(self, kind: str, **data: Any) -> None:
        """A non-message record (clear, model change) that replay understands."""
        if self._open() is not None:
            self._write({"type": kind, **data})

    def sync(self) -> None:
        if self._fh is not None:
            try:
                self._fh.flush()
                os.fsync(self._fh.fileno())
            except OSError:
                pass

    def close(self) -> None:
        if self._fh is not None:
            self.sync()
            self._fh.close()
            self._fh = None


def read_header(path: Path) -> SessionInfo | None:
    try:
        with open(path, encoding="utf-8") as fh:
            head = json.loads(fh.readline())
    except (OSError, ValueError):
        return None
    if not isinstance(head, dict) or head.get("type") != "session":
        return None
    return SessionInfo(str(head.get("id", path.stem)), path, str(head.get("project", "")),
                       float(head.get("created", 0)), head.get("model"))  # fmt: skip


def load_messages(path: Path) -> list[dict[str, Any]]:
    """Messages of a transcript, replaying `clear` marks, repairing a dangling tool call."""
    messages: list[dict[str, Any]] = []
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            try:
                rec = json.loads(line)
            except ValueError:
                continue  # a truncated last line from a killed process
            if not isinstance(rec, dict):
                continue
            if rec.get("type") == "message" and isinstance(rec.get("message"), dict):
                messages.append(rec["message"])
            elif rec.get("type") == "clear":
                messages.clear()
    return repair(messages)


def repair(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Give every tool call a result, so the history is valid for any provider."""
    out: list[dict[str, Any]] = []
    pending: list[str] = []
    for m in messages:
        if m.get("role") != "tool" and pending:
            out.extend(_interrupted(pending))
            pending = []
        out.append(m)
        if m.get("role") == "assistant" and m.get("tool_calls"):
            pending = [c["id"] for c in m["tool_calls"] if isinstance(c, dict) and "id" in c]
        elif m.get("role") == "tool" and m.get("tool_call_id") in pending:
            pending.remove(m["tool_call_id"])
    if pending:
        out.extend(_interrupted(pending))
    return out


def _interrupted(ids: list[str]) -> list[dict[str, Any]]:
    return [{"role": "tool", "tool_call_id": i, "content": "[interrupted: this tool call did not finish]"} for i in ids]


def find_sessions(sessions_dir: Path, project: Path | None = None) -> list[SessionInfo]:
    """Sessions, newest first (by last write), optionally only those of one project."""
    found: list[tuple[float, SessionInfo]] = []
    try:
        files = list(sessions_dir.glob("*.jsonl"))
    except OSError:
        return []
    for f in files:
        info = read_header(f)
        if info is None or (project is not None and info.project != str(project)):
            continue
        try:
            found.append((f.stat().st_mtime, info))
        except OSError:
            continue
    found.sort(key=lambda t: t[0], reverse=True)
    return [i for _, i in found]
