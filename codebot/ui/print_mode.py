"""`codebot -p PROMPT`: one user turn with tools, for scripts. No approvals can be asked,
so a tool call that no rule grants is denied and the model is told so.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import sys
from typing import Any

from codebot.agent.session import events as ev
from codebot.agent.session.transcript import clean
from codebot.config import Settings


def _event_json(e: Any) -> dict[str, Any]:
    d = {"type": type(e).__name__}
    for f in dataclasses.fields(e):
        v = getattr(e, f.name)
        if f.name == "future":
            continue
        d[f.name] = v.to_json() if hasattr(v, "to_json") else v
    return clean(d)  # stdout stays valid UTF-8 JSON whatever bytes a file name had


def run_print(prompt: str, settings: Settings, *, output_format: str = "text", allow=(), deny=(),
              continue_latest: bool = False, resume_id: str | None = None, extra_dirs=()) -> int:
    from codebot.agent.session import ResumeChoice, SetupError, build_session
    from codebot.workspace import open_catalog

    streamed: list[str] = []
    with contextlib.suppress(AttributeError, ValueError):  # no write to stdout may end on a codec error
        sys.stdout.reconfigure(errors="replace")

    def emit(e: Any) -> None:
        if output_format == "stream-json":
            sys.stdout.write(json.dumps(_event_json(e), ensure_ascii=False, default=str) + "\n")
            sys.stdout.flush()
        elif output_format == "text":
            if isinstance(e, ev.TextDelta) and e.depth == 0:
                sys.stdout.write(e.text)
                sys.stdout.flush()
                streamed.append(e.text)
            elif isinstance(e, ev.SkillActivated):
                print(f"[skill {e.name} · {e.mode} · {e.actor}]", file=sys.stderr)
            elif isinstance(e, ev.Notice):
                print(f"codebot: {e.text}", file=sys.stderr)
        if output_format != "text" and isinstance(e, ev.Notice) and e.level == "warning":
            # A warning (a transcript that cannot be written) reaches the person in every
            # format; stdout keeps only the result.
            print(f"codebot: warning: {e.text}", file=sys.stderr)

    catalog = open_catalog(settings)
    try:
        session = build_session(settings, catalog, emit=emit, interactive=False, allow=allow, deny=deny,
                                resume=ResumeChoice(continue_latest, resume_id), extra_dirs=extra_dirs)  # fmt: skip
    except SetupError as exc:
        print(f"codebot: {exc}", file=sys.stderr)
        return 2
    for warning in session.approvals.warnings:  # a malformed rule is never silent, here either
        print(f"codebot: warning: {warning}", file=sys.stderr)
    if session.sandbox_notice:
        print(f"codebot: {session.sandbox_notice}", file=sys.stderr)
    for notice in session.transcript.notices if session.transcript is not None else ():
        print(f"codebot: warning: {notice}", file=sys.stderr)
    try:
        record = asyncio.run(session.run_turn(prompt))
    except KeyboardInterrupt:
        print("codebot: cancelled", file=sys.stderr)
        return 130
    finally:
        from codebot.agent.tools.shell import kill_all

        kill_all()  # no command outlives the turn it ran in
        if session.transcript is not None:
            session.transcript.close()
    if output_format == "json":
        out = {
            "result": record.text,
            "session_id": session.id,
            "model": session.client.model,
            "skills": record.skills,
            "tool_calls": record.tool_calls,
            "usage": record.usage.to_json(),
            "is_error": record.error is not None,
        }
        if record.error:
            out["error"] = {"kind": record.error_kind, "message": record.error}
        print(json.dumps(clean(out), ensure_ascii=False, default=str))
    elif output_format == "text":
        if record.text and not streamed:
            sys.stdout.write(record.text)
        if record.text or streamed:
            sys.stdout.write("\n")
    if record.error:
        print(f"codebot: {record.error.splitlines()[0] if record.error else ''}", file=sys.stderr)
        return 1
    return 0
