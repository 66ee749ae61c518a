"""The `SkillOutcome` tool (issue 35 §1): how a fork's sub-agent (or the main agent, while
an inline skill that asks for an outcome is in force) reports how the skill ended.

`OutcomeSink` is one skill run's reporting channel, kept on the turn (`TurnState.outcome`):
it reads the call loosely (a status in another spelling, `data` sent as a JSON string),
checks `data` against the skill's `outputs:` schema and sends the errors back to fix, at
most `MAX_TRIES` times in all; after that the run is `partial` with the errors.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from codebot.display import visible
from codebot.skills.catalog.lookalike import posing_words
from codebot.skills.files.schemas import depth
from codebot.skills.outcome import NO_OUTCOME, Outcome, Status

SKILL_OUTCOME = "SkillOutcome"
MAX_TRIES = 2
#: What a summary keeps (characters), and the largest `data` accepted (as JSON).
MAX_SUMMARY = 4000
MAX_DATA_CHARS = 64_000
#: How deeply `data` may nest lists and objects (deeper breaks the checks and renderers
#: that recurse, and no result needs it).
MAX_DATA_DEPTH = 64
#: The lines a `needs_confirmation` question keeps (`question_text`).
MAX_QUESTION_LINES = 12
#: Errors sent back per try.
MAX_ERRORS = 8

_ALIASES = {
    "ok": Status.SUCCESS,
    "succeeded": Status.SUCCESS,
    "done": Status.SUCCESS,
    "fail": Status.FAILED,
    "failure": Status.FAILED,
    "error": Status.FAILED,
    "partial_success": Status.PARTIAL,
    "need_user_confirm": Status.NEEDS_CONFIRMATION,
    "needs_confirm": Status.NEEDS_CONFIRMATION,
    "confirm": Status.NEEDS_CONFIRMATION,
}

OUTCOME_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": SKILL_OUTCOME,
        "description": (
            "Report how the skill you are running ended; call it once, when you are done. "
            "status: success, failed, partial (part of it done) or needs_confirmation (the "
            "person must answer a question first: put the question in summary). summary: "
            "one short paragraph. data: the skill's structured result (an object), matching "
            "its outputs schema when it has one."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "status": {
                    "type": "string",
                    "enum": [s.value for s in Status],
                },
                "summary": {"type": "string"},
                "data": {"description": "the structured result"},
            },
            "required": ["status", "summary"],
        },
    },
}


def _status(raw: object) -> Status | None:
    word = str(raw or "").strip().lower().replace("-", "_").replace(" ", "_")
    try:
        return Status(word)
    except ValueError:
        return _ALIASES.get(word)


def question_text(text: str) -> str:
    """A `needs_confirmation` question as it is asked: blank lines folded to one and at
    most `MAX_QUESTION_LINES` lines, so its first line (under "the skill X asks:") is on
    screen with the answer prompt and no run of blank lines can push it away to make a
    later line look like a prompt of codebot's own."""
    lines: list[str] = []
    for line in text.strip().splitlines():
        if line.strip() or (lines and lines[-1].strip()):
            lines.append(line.rstrip())
    if len(lines) > MAX_QUESTION_LINES:
        more = len(lines) - MAX_QUESTION_LINES + 1
        lines = [*lines[: MAX_QUESTION_LINES - 1], f"… ({more} more lines not shown)"]
    return "\n".join(lines)


def loose_data(value: object) -> object:
    """`data` as the model meant it: a JSON string holding an object or list is parsed."""
    if isinstance(value, str) and value.strip()[:1] in ("{", "["):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value


def shorten(text: str, limit: int) -> str:
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def schema_errors(data: object, schema: Mapping[str, object]) -> list[str]:
    """Where `data` does not match `schema`, one line each (at most `MAX_ERRORS`); checked
    offline, regexes under a timeout (`codebot.skills.files.schemas`)."""
    from codebot.skills.files.schemas import SchemaRefused, errors

    out: list[str] = []
    try:
        found = sorted(errors(schema, data), key=lambda e: [str(p) for p in e.absolute_path])
    except SchemaRefused as exc:
        return [f"data cannot be checked against the skill's outputs schema: {exc}"]
    for err in found:
        where = "".join(f"[{p!r}]" if isinstance(p, int) else f".{p}" for p in err.absolute_path)
        out.append(f"data{where}: {shorten(err.message, 300)}")
        if len(out) >= MAX_ERRORS:
            break
    return out


@dataclass
class OutcomeSink:
    """One skill run's outcome as the model reports it. `ends` is true for a fork: its
    sub-agent stops once an outcome is accepted."""

    skill: str
    schema: Mapping[str, object] | None = None
    required: bool = False
    ends: bool = False
    tries: int = 0
    outcome: Outcome | None = None
    errors: list[str] = field(default_factory=list)
    reminded: bool = False

    def report(self, args: Mapping[str, object]) -> tuple[str, str]:
        """The tool's answer to one call, and its status ("ok" or "error")."""
        if self.outcome is not None:
            return f"the outcome of {self.skill} was already recorded; do not call again", "error"
        self.tries += 1
        status = _status(args.get("status"))
        summary = shorten(str(args.get("summary") or ""), MAX_SUMMARY)
        data = loose_data(args.get("data"))
        errors = self._check(status, data)
        if not errors and status is not None:
            if status is Status.NEEDS_CONFIRMATION:
                summary = question_text(summary)
            self.outcome = Outcome(status, summary, data)
            return f"recorded: {status.value}", "ok"
        self.errors = errors
        if self.tries >= MAX_TRIES:
            note = "; ".join(errors)
            self.outcome = Outcome(
                Status.PARTIAL,
                summary or note,
                data if _keepable(data) else None,
                extra={"errors": errors, "reported": status.value if status else None},
            )
            return f"recorded as partial (no tries left): {note}", "error"
        left = MAX_TRIES - self.tries
        return (
            "SkillOutcome was not recorded:\n- "
            + "\n- ".join(errors)
            + f"\nfix these and call SkillOutcome again ({left} {'try' if left == 1 else 'tries'}"
            " left)",
            "error",
        )

    def _check(self, status: Status | None, data: object) -> list[str]:
        errors: list[str] = []
        if status is None:
            choices = ", ".join(s.value for s in Status)
            errors.append(f"status must be one of {choices}")
        size = len(_json(data))
        if depth(data, MAX_DATA_DEPTH) > MAX_DATA_DEPTH:
            errors.append(f"data nests deeper than {MAX_DATA_DEPTH} levels; flatten it")
        elif size > MAX_DATA_CHARS:
            errors.append(f"data is {size} characters as JSON; at most {MAX_DATA_CHARS}")
        elif self.schema is not None:
            errors += schema_errors(data, self.schema)
        return errors

    def final(self, text: str) -> Outcome:
        """The run's outcome: the one reported, else `partial` with the final text."""
        if self.outcome is not None:
            return self.outcome
        return Outcome(
            Status.PARTIAL,
            shorten(text, MAX_SUMMARY) or NO_OUTCOME,
            extra={"note": NO_OUTCOME},
        )

    def instructions(self) -> str:
        """What the model is told about reporting, with the schema when there is one."""
        text = (
            f"When you have finished the skill {self.skill!r}, call the SkillOutcome tool once "
            "with status (success, failed, partial or needs_confirmation) and a one-paragraph "
            "summary."
        )
        if self.schema is not None:
            text += " Its data must be a JSON value matching this schema:\n" + shorten(
                json.dumps(self.schema, ensure_ascii=False), 4000
            )
        return f"<system-reminder>\n{text}\n</system-reminder>"

    def reminder(self) -> str | None:
        """Once, when the model would end without reporting a required outcome."""
        if self.outcome is not None or not self.required or self.reminded:
            return None
        self.reminded = True
        return (
            f"<system-reminder>The skill {self.skill!r} needs its outcome: call SkillOutcome "
            "now (status, summary, data) before you finish.</system-reminder>"
        )


def _keepable(data: object) -> bool:
    return depth(data, MAX_DATA_DEPTH) <= MAX_DATA_DEPTH and len(_json(data)) <= MAX_DATA_CHARS


def _json(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (ValueError, RecursionError):
        return str(value)


def render(outcome: Outcome, answer: str = "", limit: int = 20_000) -> str:
    """What the caller (the model or the person) reads of a fork's outcome: the answer
    text when there is one, then a line with the status and the summary, then the data."""
    if outcome.extra.get("note") == NO_OUTCOME:  # no report: the answer, as it always was
        text = outcome.summary if outcome.summary != NO_OUTCOME else ""
        return text or "(the sub-agent finished without an answer)"
    parts = [answer.strip()] if answer.strip() else []
    head = f"[skill outcome: {outcome.status.value}"
    if outcome.timed_out:
        head += ", timed out"
    head += "]"
    if outcome.summary and outcome.summary.strip() != answer.strip():
        head += f" {outcome.summary}"
    parts.append(head)
    if outcome.data is not None:
        parts.append("data: " + shorten(_json(outcome.data), limit))
    errors = outcome.extra.get("errors")
    if isinstance(errors, list) and errors:
        parts.append("outputs errors: " + "; ".join(str(e) for e in errors))
    return "\n".join(parts)


def shown(text: str, limit: int = 200) -> str:
    """A summary or arguments as a screen shows them: control characters escaped, short,
    and marked `[look-alike: ...]` when a word poses as an ASCII word in another script
    (`lookalike_note`; the mark is never cut off)."""
    out = shorten(visible(text.replace("\n", " ")), limit)
    words = posing_words(text, 1)
    return f"{out} [look-alike: {visible(repr(words[0][0]))} ~ {words[0][1]!r}]" if words else out
