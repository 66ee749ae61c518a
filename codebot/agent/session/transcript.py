"""Session transcripts: one JSONL file per session, appended as messages happen.

`$CODEBOT_HOME/sessions/<id>.jsonl`: a header line, then one line per message. Every
line is flushed when written and the file is fsynced when a turn ends, so a killed
process loses at most the message in flight. Loading tolerates a truncated last line
and repairs the history (`repair`) so that a resumed session is valid for strict
providers. One process writes a session at a time: `<id>.lock` beside it is held
(flock, released by the OS if the process dies) for as long as the transcript is open.
A write that fails (full disk, read-only home) is reported once through `on_error` and
ends the writing: the turn goes on, and the file keeps what was written before.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codebot.home import FILE_MODE, private_dir, private_fd, private_open
from codebot.skills.files.safe_read import open_own

if TYPE_CHECKING:
    import filelock

FORMAT = 1
ROLES = frozenset({"system", "user", "assistant", "tool"})
_SURROGATE = re.compile("[\ud800-\udfff]")


def new_session_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:8]


def clean_text(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD.

    Python hands undecodable bytes (an argv or file name with `\\xff`) over as lone
    surrogates (surrogateescape); UTF-8 cannot encode them, so a transcript write or a
    model request with one fails. Replacing is explicit and visible (`�`); the bytes on
    disk are never touched."""
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


def clean(value: Any) -> Any:
    """`clean_text` applied to every string inside a message (dicts, lists)."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean(k): clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean(v) for v in value]
    return value


class DamagedSession(ValueError):
    """A session file that cannot be resumed; the message says why."""


@dataclass(frozen=True, slots=True)
class SessionInfo:
    id: str
    path: Path
    project: str
    created: float
    model: str | None


class Transcript:
    def __init__(
        self, sessions_dir: Path, session_id: str, project: Path, model: str | None = None
    ) -> None:
        self.id = session_id
        self.path = sessions_dir / f"{session_id}.jsonl"
        self.lock_path = sessions_dir / f"{session_id}.lock"
        self.project = project
        self.model = model
        self._fh = None
        self._lock: filelock.FileLock | None = None
        self.error: str | None = None  # set when the transcript cannot be written
        #: What choosing this transcript had to say (a session in use, a damaged file
        #: skipped); every front end shows these once at start.
        self.notices: list[str] = []
        #: Called once, with `error`, when the first write fails (setup: a Notice).
        self.on_error: Callable[[str], None] | None = None
        #: The session's setup (`setup_record`), written after the header and again when
        #: it changes; `_setup_written` is the last one in the file.
        self.setup: dict[str, object] | None = None
        self._setup_written: dict[str, object] | None = None

    def claim(self) -> bool:
        """Take this session's lock; False when another process holds it. Kept until
        `close`. A lock that cannot even be created counts as taken: the transcript write
        will fail as well, and say so."""
        if self._lock is not None:
            return True
        import filelock

        try:
            private_dir(self.path.parent)
            os.close(private_fd(self.lock_path))  # 0600 under any umask
            # thread_local=False: the TUI builds the session in a worker thread and closes
            # it on the main one.
            lock = filelock.FileLock(self.lock_path, timeout=0, mode=FILE_MODE, thread_local=False)
            lock.acquire()
        except filelock.Timeout:
            return False
        except OSError:
            return True
        self._lock = lock
        return True

    def _fail(self, exc: BaseException) -> None:
        """Stop writing after the first failure: appending past a lost line would leave a
        history with a hole in it. Said once."""
        first = self.error is None
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        self.error = (
            f"cannot write transcript {self.path}: {why}; this session is not saved from here on"
        )
        if self._fh is not None:
            with contextlib.suppress(OSError, ValueError):
                self._fh.close()  # closes the file even when flushing what is buffered fails
            self._fh = None
        if first and self.on_error is not None:
            self.on_error(self.error)

    def _open(self):
        if self._fh is None and self.error is None:
            try:
                self.claim()
                # Private (0700 folder, 0600 file): a transcript holds every file the model read.
                private_dir(self.path.parent)
                new = not self.path.exists()
                self._fh = private_open(self.path, "a", encoding="utf-8")
                if new:
                    self._write(
                        {
                            "type": "session",
                            "format": FORMAT,
                            "id": self.id,
                            "project": str(self.project),
                            "created": time.time(),
                            "model": self.model,
                        }
                    )
            except OSError as exc:
                self._fail(exc)
            self._write_setup()
        return self._fh

    def note_setup(self, setup: dict[str, object]) -> None:
        """Record the session's setup: now when the file is open, else with its first line
        (an untouched session leaves no file behind)."""
        self.setup = setup
        if self._fh is not None:
            self._write_setup()

    def _write_setup(self) -> None:
        if self.setup is not None and self.setup != self._setup_written and self._fh is not None:
            self._write({"type": "setup", "setup": self.setup})
            self._setup_written = self.setup

    def _write(self, record: dict[str, object]) -> None:
        fh = self._fh
        if fh is None:
            return
        try:
            fh.write(json.dumps(clean(record), ensure_ascii=False) + "\n")
            fh.flush()
        except (OSError, ValueError) as exc:  # ValueError: a value JSON cannot hold
            self._fail(exc)

    def append(self, message: dict[str, Any]) -> None:
        if self._open() is not None:
            self._write({"type": "message", "message": message})

    def mark(self, kind: str, **data: object) -> None:
        """A non-message record (clear, turn, model change) that replay understands."""
        if self._open() is not None:
            self._write({"type": kind, **data})

    def sync(self) -> None:
        if self._fh is not None:
            try:
                self._fh.flush()
                os.fsync(self._fh.fileno())
            except OSError as exc:
                self._fail(exc)

    def close(self) -> None:
        """Never raises: a transcript problem must not cost the person the answer."""
        if self._fh is not None:
            self.sync()
        if self._fh is not None:
            with contextlib.suppress(OSError, ValueError):
                self._fh.close()
            self._fh = None
        if self._lock is not None:
            with contextlib.suppress(OSError):
                self._lock.release()
            self._lock = None


#: A header line longer than this is not a session's header.
MAX_HEADER_CHARS = 64 * 1024


def read_header(path: Path) -> SessionInfo | None:
    """The header of a session file; None when it is not one (unreadable, empty, no
    header line). Raises DamagedSession for a header with wrong field types."""
    try:
        with open_own(path) as fh:
            head = json.loads(fh.readline(MAX_HEADER_CHARS))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(head, dict) or head.get("type") != "session":
        return None
    created, project, sid = head.get("created"), head.get("project"), head.get("id", path.stem)
    if not isinstance(project, str):
        raise DamagedSession(f"its header has no project ({project!r})")
    if isinstance(created, bool) or not isinstance(created, int | float):
        raise DamagedSession(f"its header has a bad 'created' time ({created!r})")
    model = head.get("model")
    return SessionInfo(
        str(sid), path, project, float(created), model if isinstance(model, str) else None
    )


@dataclass
class Loaded:
    """What a transcript replays to: the history to send (the compacted view after a
    compaction, then what followed), the skills in force, and the last compaction."""

    messages: list[dict[str, Any]]
    in_force: list[dict[str, Any]]
    compaction: dict[str, Any] | None


def load_messages(path: Path) -> list[dict[str, Any]]:
    """Messages of a transcript (see `load_state`)."""
    return load_state(path).messages


def load_state(path: Path) -> Loaded:
    """Replay a transcript: messages, `clear` marks (forget everything), `skill` marks
    (skills in force) and `compact` marks (the history becomes the compacted view they
    hold; the messages before stay in the file). Repaired (see `repair`).
    Raises OSError when it cannot be read, DamagedSession when a message is malformed."""
    messages: list[dict[str, Any]] = []
    in_force: list[dict[str, Any]] = []
    compaction: dict[str, Any] | None = None
    with open(path, encoding="utf-8", errors="replace") as fh:
        for n, line in enumerate(fh, 1):
            try:
                rec = json.loads(line)
            except ValueError:
                continue  # a truncated last line from a killed process
            if not isinstance(rec, dict):
                continue
            kind = rec.get("type")
            if kind == "message" and isinstance(rec.get("message"), dict):
                problem = _malformed(rec["message"])
                if problem:
                    raise DamagedSession(f"line {n}: {problem}")
                # JSON may spell a lone surrogate as an escape: clean it on the way in too.
                messages.append(clean(rec["message"]))
            elif kind == "clear":
                messages.clear()
                in_force.clear()
                compaction = None
            elif kind == "skill" and all(
                isinstance(rec.get(k), str) for k in ("key", "name", "text")
            ):
                in_force.append(
                    clean({k: rec[k] for k in ("key", "name", "text")} | {"at": rec.get("at")})
                )
            elif kind == "compact" and isinstance(rec.get("messages"), list):
                view = rec["messages"]
                problem = next(
                    (
                        _malformed(m) if isinstance(m, dict) else "a message that is not an object"
                        for m in view
                        if not isinstance(m, dict) or _malformed(m)
                    ),
                    None,
                )
                if problem:
                    raise DamagedSession(f"line {n}: the compaction record holds {problem}")
                messages = [clean(m) for m in view]
                compaction = clean({k: v for k, v in rec.items() if k not in ("type", "messages")})
    return Loaded(repair(messages), in_force, compaction)


def _malformed(m: dict[str, Any]) -> str | None:
    """Why a message cannot be sent to a provider, or None."""
    if m.get("role") not in ROLES:
        return f"a message with role {m.get('role')!r}"
    if not isinstance(m.get("content"), str | list | type(None)):
        return f"a message whose content is {type(m.get('content')).__name__}"
    calls = m.get("tool_calls")
    if calls is None:
        return None
    if m["role"] != "assistant" or not isinstance(calls, list):
        return f"'tool_calls' is {calls!r}"
    for c in calls:
        if not (
            isinstance(c, dict)
            and isinstance(c.get("id"), str)
            and isinstance(c.get("function"), dict)
            and isinstance(c["function"].get("name"), str)
        ):
            return f"a tool call without an id and a function name: {c!r}"[:200]
    return None


def repair(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A history strict providers accept: every tool message answers a tool call of the
    assistant message just before it, exactly once; every tool call gets a result.

    Tool results that answer nothing (orphans, duplicates left by two processes writing
    one session, a result that arrived after the next user message) are dropped; a tool
    call without a result gets an "interrupted" one.
    """
    out: list[dict[str, Any]] = []
    pending: list[str] = []  # ids of the last assistant message still waiting for a result
    for m in messages:
        if m.get("role") == "tool":
            if m.get("tool_call_id") in pending:
                pending.remove(m["tool_call_id"])
                out.append(m)
            continue
        out.extend(_interrupted(pending))
        pending = []
        out.append(m)
        if m.get("role") == "assistant" and isinstance(m.get("tool_calls"), list):
            ids = [
                c["id"]
                for c in m["tool_calls"]
                if isinstance(c, dict) and isinstance(c.get("id"), str)
            ]
            pending = list(dict.fromkeys(ids))
    out.extend(_interrupted(pending))
    return out


def _interrupted(ids: list[str]) -> list[dict[str, Any]]:
    return [
        {
            "role": "tool",
            "tool_call_id": i,
            "content": "[interrupted: this tool call did not finish]",
        }
        for i in ids
    ]


def find_sessions(
    sessions_dir: Path, project: Path | None = None, damaged: list[tuple[Path, str]] | None = None
) -> list[SessionInfo]:
    """Sessions, newest first (by last write), optionally only those of one project.

    A file whose header is damaged is skipped; when `damaged` is given, it receives
    (path, why) for those that may belong to `project` (another project's broken file
    is none of this one's business)."""
    found: list[tuple[float, SessionInfo]] = []
    try:
        files = list(sessions_dir.glob("*.jsonl"))
    except OSError:
        return []
    for f in files:
        try:
            info = read_header(f)
        except DamagedSession as exc:
            if damaged is not None and (project is None or _names_project(f, project)):
                damaged.append((f, str(exc)))
            continue
        if info is None or (project is not None and info.project != str(project)):
            continue
        try:
            found.append((f.stat().st_mtime, info))
        except OSError:
            continue
    found.sort(key=lambda t: t[0], reverse=True)
    return [i for _, i in found]


def _names_project(path: Path, project: Path) -> bool:
    try:
        with open_own(path) as fh:
            head = json.loads(fh.readline(MAX_HEADER_CHARS))
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(head, dict) and head.get("project") in (str(project), None)


def summarize(path: Path) -> tuple[str, int, bool]:
    """(first prompt, turns, typed) of a transcript, read without loading its messages.
    A `turn` record holds what was typed (typed=True); transcripts written before those
    records give their first user message as sent (typed=False: reminders and skill
    blocks in it, for the caller to show as it likes) and count user messages."""
    first, turns, users, first_user = "", 0, 0, ""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                # Cheap prefix tests first: a long session has many large tool results.
                if line.startswith('{"type": "turn"'):
                    turns += 1
                    text = _record(line).get("text")
                    if not first and isinstance(text, str):
                        first = text
                elif line.startswith('{"type": "message", "message": {"role": "user"'):
                    users += 1
                    if not first_user:
                        message = _record(line).get("message")
                        content = message.get("content") if isinstance(message, dict) else None
                        first_user = content if isinstance(content, str) else ""
    except OSError:
        pass
    return (first, turns, True) if turns else (first_user, users, False)


def _record(line: str) -> dict[str, Any]:
    try:
        rec = json.loads(line)
    except ValueError:
        return {}
    return rec if isinstance(rec, dict) else {}
