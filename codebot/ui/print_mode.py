"""`codebot -p PROMPT`: one user turn with tools, for scripts. No approvals can be asked,
so a tool call that no rule grants is denied and the model is told so.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import os
import re
import shlex
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

from codebot.agent.session import events as ev
from codebot.agent.session.transcript import clean
from codebot.config import Settings
from codebot.display import json_text, strip_escapes
from codebot.skills.catalog.lookalike import lookalike_note

if TYPE_CHECKING:
    from codebot.agent.model import Usage
    from codebot.agent.permissions import ApprovalRequest, Approvals
    from codebot.agent.session.emit import Emit
    from codebot.agent.session.loop import Session
    from codebot.agent.session.turn import TurnRecord


def _event_json(e: ev.Event | ApprovalRequest) -> dict[str, object]:
    d: dict[str, object] = {"type": type(e).__name__}
    for f in dataclasses.fields(e):
        v = getattr(e, f.name)
        if f.name == "future":
            continue
        d[f.name] = v.to_json() if hasattr(v, "to_json") else v
    return clean(d)  # stdout stays valid UTF-8 JSON whatever bytes a file name had


def _line(obj: dict[str, object]) -> None:
    """One JSON object on a line of stdout (stream-json)."""
    sys.stdout.write(json_text(clean(obj), default=str) + "\n")
    sys.stdout.flush()


def init_json(session: Session) -> dict[str, object]:
    """stream-json's first line: which session this is and what it can do, before any event."""
    from codebot.agent.tools import META_TOOLS

    tools = [n for n in (*session.registry.names(), *META_TOOLS) if session.tool_filter(n)]
    return {
        "type": "init",
        "session_id": session.id,
        "model": session.client.model,
        "cwd": str(session.settings.cwd),
        "tools": tools,
        "skills": len(session.catalog.snapshot),
    }


def usage_by_model(session: Session) -> dict[str, object]:
    return {model: u.to_json() for model, u in session.usage_by_model.items()}


def result_json(
    session: Session,
    text: str,
    *,
    error: tuple[str, str] | None = None,
    usage: Usage | None = None,
    stop_reason: str = "end_turn",
) -> dict[str, object]:
    """stream-json's last line: the answer, whether it failed, and what it cost.
    `error`: (kind, message). `usage`: this turn's (the session's usage by model also
    counts a compaction run before it)."""
    out: dict[str, object] = {
        "type": "result",
        "session_id": session.id,
        "result": text,
        "is_error": error is not None,
        "stop_reason": stop_reason,  # "max_tokens": the answer was cut at its limit
        "usage": (usage if usage is not None else session.total_usage).to_json(),
        "usage_by_model": usage_by_model(session),
    }
    if error is not None:
        out["error"] = {"kind": error[0], "message": error[1]}
    return out


def question(record: TurnRecord) -> dict[str, str] | None:
    """The first skill run of the turn that ended `needs_confirmation`: its question. A
    workflow step's entry is not one: its workflow's own `on:` decided what that meant."""
    for entry in record.skills:
        if entry.get("status") == "needs_confirmation" and "step" not in entry:
            return {"skill": str(entry.get("name")), "question": str(entry.get("summary") or "")}
    return None


def _say(text: str) -> None:
    """One line for the person on stderr. Skill names, notices, commands and provider
    errors can carry terminal escapes; none reaches the terminal (`strip_escapes`)."""
    print(strip_escapes(text), file=sys.stderr)


class _Answer:
    """The streamed answer on stdout. With NO_COLOR set it is cleaned of terminal escapes
    a line at a time, so a sequence split across two deltas is still caught whole."""

    def __init__(self) -> None:
        self.clean = bool(os.environ.get("NO_COLOR"))  # no-color.org: set and not empty
        self.pending = ""
        self.streamed = False

    def write(self, text: str) -> None:
        self.streamed = self.streamed or bool(text)
        if self.clean:
            done, newline, self.pending = (self.pending + text).rpartition("\n")
            text = strip_escapes(done + newline)
        sys.stdout.write(text)
        sys.stdout.flush()

    def end(self) -> None:
        if self.pending:
            sys.stdout.write(strip_escapes(self.pending))
            self.pending = ""


def _routes(prompt: str) -> bool:
    """Whether the turn of `prompt` may rank the whole catalog (so a cold index build is
    worth preparing while the catalog loads). Small talk and commands never route."""
    from codebot.skills.route import request_shape
    from codebot.ui import commands

    return commands.parse(prompt).kind != "builtin" and request_shape(prompt) != "chat"


def run_print(
    prompt: str,
    settings: Settings,
    *,
    output_format: str = "text",
    allow=(),
    deny=(),
    continue_latest: bool = False,
    resume_id: str | None = None,
    extra_dirs=(),
    compact: str | None = None,
    fail_on_denial: bool = False,
) -> int:
    """Exit codes: 0 done, 1 the turn failed (`is_error`), 2 it could not start, 3 a skill
    ended with `needs_confirmation` (the question in the JSON), 4 with
    `fail_on_denial` a tool call of the turn (a sub-agent's too) was denied or failed,
    130 cancelled."""
    from codebot.agent.session import ResumeChoice, SetupError, build_session
    from codebot.workspace import open_catalog

    answer = _Answer()
    _replace_unencodable_output()
    if prompt.strip().split(" ", 1)[0].lower() == "/init":  # `-p "/init"`: the draft only
        return _init_only(settings, prompt.strip()[5:], output_format)
    catalog = open_catalog(settings, prefetch=_routes(prompt))
    # One turn, then exit: what the load made stays, so no collection need walk it (the first
    # full one, which a large load soon triggers, walked 50,000 skills' objects for 0.5 s).
    gc.freeze()
    try:
        session = build_session(
            settings,
            catalog,
            emit=_emitter(output_format, answer),
            interactive=False,
            allow=allow,
            deny=deny,
            resume=ResumeChoice(continue_latest, resume_id),
            extra_dirs=extra_dirs,
        )
    except SetupError as exc:
        _say(f"codebot: {exc}")
        return 2
    _startup_warnings(session)
    learn = getattr(session.client, "learn_server", None)
    if learn is not None:  # no paint to wait for: the server's window and model id now
        learn()
    if output_format == "stream-json":
        _line(init_json(session))
    from codebot.ui import commands

    parsed = commands.parse(prompt)
    if parsed.kind == "builtin" and parsed.name == "compact":  # `-p "/compact focus"`: only that
        return _compact_only(session, parsed.args, output_format)
    try:
        record = asyncio.run(_turn(session, prompt, compact))
    except KeyboardInterrupt:
        _say("codebot: cancelled")
        if output_format == "stream-json":
            _line(result_json(session, "", error=("cancelled", "cancelled (Ctrl+C)")))
        return 130
    finally:
        from codebot.agent.tools.shell import kill_all

        kill_all()  # no command outlives the turn it ran in
        from codebot.agent.session.mcp_setup import close_servers

        close_servers(session)
        if session.transcript is not None:
            session.transcript.close()
    _print_result(session, record, output_format, answer)
    return _exit_code(session, record, fail_on_denial)


def _replace_unencodable_output() -> None:
    """No write to stdout may end on a codec error: unencodable characters are replaced."""
    # Looked up: `TextIO` does not declare `reconfigure`, and a stdout swapped in by a caller
    # may lack it or be detached (ValueError); either way it stays as it is.
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    with contextlib.suppress(AttributeError, ValueError):
        if reconfigure is not None:
            reconfigure(errors="replace")


def _emitter(output_format: str, answer: _Answer) -> Emit:
    """The session's `emit`: what each event prints in `output_format`."""

    def emit(e: ev.Event | ApprovalRequest) -> None:
        if output_format == "stream-json":
            _line(_event_json(e))
        elif output_format == "text":
            if isinstance(e, ev.TextDelta) and e.depth == 0:
                answer.write(e.text)
            elif isinstance(e, ev.SkillActivated):
                _say(f"[skill {e.name} · {e.mode} · {e.actor}]")
            elif isinstance(e, ev.SkillEnded):
                from codebot.ui.activation import ended_line

                _say(f"[{ended_line(e)}]")
            elif isinstance(e, ev.WorkflowStep):  # as line mode shows it, on stderr
                from codebot.ui.workflow_steps import step_line

                _say(f"{'  ' * e.depth}{step_line(e)}")
            elif isinstance(e, ev.Notice):
                _say(f"codebot: {e.text}")
        if output_format != "text" and isinstance(e, ev.Notice) and e.level == "warning":
            # A warning (a transcript that cannot be written) reaches the person in every
            # format; stdout keeps only the result.
            _say(f"codebot: warning: {e.text}")

    return emit


def _startup_warnings(session: Session) -> None:
    for warning in session.approvals.warnings:  # a malformed rule is never silent, here either
        _say(f"codebot: warning: {warning}")
    if session.sandbox_notice:
        _say(f"codebot: {session.sandbox_notice}")
    for notice in session.transcript.notices if session.transcript is not None else ():
        _say(f"codebot: warning: {notice}")


def _print_result(
    session: Session, record: TurnRecord, output_format: str, answer: _Answer
) -> None:
    """The turn's answer on stdout, in `output_format`."""
    if output_format == "json":
        out: dict[str, object] = {
            "result": record.text,
            "session_id": session.id,
            "model": session.client.model,
            "skills": record.skills,
            "tool_calls": record.tool_calls,
            "usage": record.usage.to_json(),
            "usage_by_model": usage_by_model(session),
            "is_error": record.error is not None,
            "stop_reason": record.stop_reason,  # "max_tokens": cut at its limit
        }
        if record.error:
            out["error"] = {"kind": record.error_kind, "message": record.error}
        if (asked := question(record)) is not None:
            out["needs_confirmation"] = asked
        print(json_text(clean(out), default=str))
    elif output_format == "stream-json":
        error = (record.error_kind or "error", record.error) if record.error is not None else None
        last = result_json(
            session, record.text, error=error, usage=record.usage, stop_reason=record.stop_reason
        )
        if (asked := question(record)) is not None:
            last["needs_confirmation"] = asked
        _line(last)
    elif output_format == "text":
        if record.text and not answer.streamed:
            answer.write(record.text)
        answer.end()
        if record.text or answer.streamed:
            sys.stdout.write("\n")


def _exit_code(session: Session, record: TurnRecord, fail_on_denial: bool) -> int:
    """0, 1 when the turn failed, 3 when a skill needs the person's confirmation (its
    question in the JSON), 4 for a denied or failed call under `--fail-on-denial`;
    what the person should know about it goes to stderr."""
    for hint in denial_hints(record.tool_calls, session):
        _say(f"codebot: {hint}")
    if record.error:
        if record.error_kind != "budget":  # a budget stop was said as it happened (a Notice)
            _say(f"codebot: {record.error.splitlines()[0] if record.error else ''}")
        return 1
    if (asked := question(record)) is not None:
        _say(
            f"codebot: skill {asked['skill']} needs confirmation: {asked['question']}; exit code 3"
        )
        if said := lookalike_note(asked["question"]):
            _say(f"codebot: the question has look-alike characters: {said}")
        return 3
    if fail_on_denial and (record.denied_calls or record.failed_calls):
        _say(
            f"codebot: --fail-on-denial: {record.denied_calls} tool call(s) denied "
            f"and {record.failed_calls} failed in this turn (sub-agents included); exit code 4"
        )
        return 4
    return 0


async def _turn(session: Session, prompt: str, compact: str | None) -> TurnRecord:
    """`--compact [FOCUS]`: compact the resumed conversation, then run the turn. The MCP
    servers run on this loop (a call costs what the SDK's does), closed at its end."""
    from codebot.agent.session.mcp_setup import aclose_servers, start_servers

    start_servers(session, asyncio.get_running_loop())
    try:
        if compact is not None:
            from codebot.agent.model import ModelError

            try:
                await session.compact(compact)
            except ModelError as exc:  # the turn still runs; its own request may say more
                _say(f"codebot: cannot compact: {exc.message}")
        return await session.run_turn(prompt)
    finally:
        await aclose_servers(session)


def _compact_only(session: Session, focus: str, output_format: str) -> int:
    from codebot.agent.model import ModelError

    error, kind = None, "error"
    try:
        record = asyncio.run(session.compact(focus))
    except ModelError as exc:
        record, error, kind = None, exc.message, exc.kind
    finally:
        if session.transcript is not None:
            session.transcript.close()
    text = error or (record.describe() if record is not None else "nothing to compact yet")
    if output_format == "json":
        out: dict[str, object] = {
            "result": text,
            "session_id": session.id,
            "model": session.client.model,
            "compaction": record.to_json() if record is not None else None,
            "is_error": error is not None,
            "usage_by_model": usage_by_model(session),
        }
        print(json_text(clean(out), default=str))
    elif output_format == "stream-json":
        _line(result_json(session, text, error=(kind, error) if error else None))
    elif output_format == "text":
        print(text)
    return 1 if error else 0


def _init_only(settings: Settings, args: str, output_format: str) -> int:
    """`-p "/init"`: write the draft AGENTS.md, no model turn (print mode cannot ask the
    person about the model's edits to it). 0 when written, 1 when not."""
    from codebot.ui.init_draft import run_init

    done = run_init(settings.project_dir, args, model=False)
    if output_format == "text":
        print(done.text)
    else:
        out = {"type": "result", "result": done.text, "is_error": not done.written}
        print(json_text(out))
    return 0 if done.written else 1


# -- denied calls: print mode cannot ask, so it says which rule would have allowed them -------


def denial_hints(tool_calls: list[dict[str, object]], session: Session) -> list[str]:
    """One line per distinct denied call (`TurnRecord.tool_calls`, status "denied")."""
    hints: list[str] = []
    for call in tool_calls:
        if call.get("status") == "denied":
            hint = denial_hint(call, session)
            if hint not in hints:
                hints.append(hint)
    return hints


_BY_RULE = re.compile(r"denied by rule (.+?): ")  # the loop's wording for a deny rule's verdict


def denial_hint(call: Mapping[str, object], session: Session) -> str:
    raw = call.get("arguments")
    name, args = str(call.get("name")), raw if isinstance(raw, Mapping) else {}
    what = _call_text(name, args)
    by_rule = _BY_RULE.match(str(call.get("reason") or ""))
    if by_rule and by_rule.group(1) != "None":
        return (
            f"{what} was denied by the rule {by_rule.group(1)}; "
            "a deny rule wins over --allow, so remove it "
            "(--deny, or permissions.deny in the config) to let such calls run"
        )
    subject = _subject(session, name, args)
    rules, why = allow_rules_for(name, subject, session.approvals)
    if not rules:
        return (
            f"{what} was denied: print mode cannot ask, and no --allow rule can allow it ({why}); "
            "run it where you can approve it: codebot, or codebot --plain"
        )
    hint = f"{what} was denied: print mode cannot ask. To allow it, add {_flags(rules[0])}"
    return hint + (f" (or exactly this call: {_flags(rules[1])})" if len(rules) > 1 else "")


def _flags(rules: list[str]) -> str:
    return " ".join(f"--allow {shlex.quote(rule)}" for rule in rules)


def _call_text(name: str, args: Mapping[str, object]) -> str:
    """The call as the person should recognise it: Bash and its command, Write and its path."""
    from codebot.skills.prompt import one_line, truncate

    shown = args.get("command") if name == "Bash" else args.get("path")
    return f"{name} `{truncate(one_line(str(shown)), 120)}`" if shown else name


def _subject(session: Session, name: str, args: Mapping[str, object]) -> str:
    """What the permission rules matched, computed as the session did (`approval_subject`)."""
    tool = session.registry.get(name)
    try:
        return tool.approval_subject(args, session.context) if tool is not None else ""
    except Exception:  # arguments the tool cannot read: a rule on the bare name is all there is
        return ""


def allow_rules_for(tool: str, subject: str, approvals: Approvals) -> tuple[list[list[str]], str]:
    """Rule sets that would allow this call under the session's deny rules, each checked
    by the permission engine itself: for Bash a prefix per command, then each command
    exactly; for other tools the exact path or subject, else the bare tool name. None
    found: the reason the engine gives."""
    from codebot.agent.permissions import Approvals, session_patterns_for

    if tool == "Bash":
        exact = [p.text for p in session_patterns_for("Bash", subject)]
        candidates = [_bash_prefixes(exact), exact]
    elif subject:
        candidates = [[f"{tool}({subject})"], [tool]]
    else:
        candidates = [[tool]]
    found: list[list[str]] = []
    why = "needs approval"
    for rules in candidates:
        probe = Approvals(allow=rules, deny=[r.text for r in approvals.deny_rules])
        probe.project_dir = approvals.project_dir
        verdict = probe.check(tool, subject)
        if verdict.outcome == "allow" and rules not in found:
            found.append(rules)
            if tool != "Bash":
                break  # the bare tool name is offered only when the exact rule cannot do it
        why = verdict.reason if verdict.outcome != "allow" else why
    return found, why


_SUBCOMMAND = re.compile(
    r"[a-z][a-z0-9-]*"
)  # `git push`, `npm test`: the second word names the action


def _bash_prefixes(exact: list[str]) -> list[str]:
    """`Bash(git push:*)` for `Bash(git push origin main)`: the program and its subcommand."""
    out: list[str] = []
    for text in exact:
        try:
            words = shlex.split(text[len("Bash(") : -1])
        except ValueError:
            return []
        keep = words[:2] if len(words) > 1 and _SUBCOMMAND.fullmatch(words[1]) else words[:1]
        rule = f"Bash({shlex.join(keep)}:*)"
        if keep and rule not in out:
            out.append(rule)
    return out
