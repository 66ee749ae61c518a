"""How a skill run's outcome is written down (issue 35): the transcript mark that
`codebot skills runs` and `skills stats` read back, the turn record's entry (`-p` JSON),
and an inline run's outcome from how its turn ended."""

from __future__ import annotations

import dataclasses
import json
import time
from typing import TYPE_CHECKING

from codebot.agent.session.outcomes import OutcomeSink, shorten
from codebot.skills.outcome import Outcome, Status

if TYPE_CHECKING:
    from codebot.agent.session.turn import TurnRecord
    from codebot.skills.invoke import Invocation

#: What a transcript mark keeps: arguments and summary (characters), data (as JSON).
MARK_ARGS = 500
MARK_SUMMARY = 2000
MARK_DATA = 4000


def mark_fields(inv: Invocation, mode: str, outcome: Outcome, depth: int) -> dict[str, object]:
    """The `skill_outcome` record: who ran what with which arguments (shortened), and how
    it ended; data only when small (its size otherwise)."""
    fields: dict[str, object] = {
        "time": round(time.time(), 3),
        "name": inv.spec.name,
        "actor": inv.decision.actor.value,
        "mode": mode,
        "args": shorten(" ".join(inv.arguments), MARK_ARGS),
        "status": outcome.status.value,
        "summary": shorten(outcome.summary, MARK_SUMMARY),
        "ms": round(outcome.ms, 1),
        "depth": depth,
    }
    if outcome.timed_out:
        fields["timed_out"] = True
    if outcome.data is not None:
        data = json.dumps(outcome.data, ensure_ascii=False, default=str)
        if len(data) <= MARK_DATA:
            fields["data"] = outcome.data
        else:
            fields["data_chars"] = len(data)
    for key in ("note", "errors", "tries", "attempt"):
        if key in outcome.extra:
            fields[key] = outcome.extra[key]
    return fields


def entry_update(record: TurnRecord, name: str, outcome: Outcome) -> None:
    """Add the outcome to the turn record's entry for this run (the last one of that name
    without one), so `-p --output-format json` shows `skills: [{name, status, summary, ms}]`
    beside the fields it always had."""
    entry: dict[str, object] = {"name": name}
    for old in reversed(record.skills):
        if old.get("name") == name and "status" not in old:
            entry = old
            break
    else:
        record.skills.append(entry)
    fill_entry(entry, outcome)


def fill_entry(entry: dict[str, object], outcome: Outcome) -> None:
    """A turn record entry gains the outcome: status, summary, ms (and timed_out, data,
    note, a workflow step's attempt and tries, when there are)."""
    entry.update(status=outcome.status.value, summary=outcome.summary, ms=round(outcome.ms, 1))
    if outcome.timed_out:
        entry["timed_out"] = True
    if outcome.data is not None:
        entry["data"] = outcome.data
    for key in ("note", "attempt", "tries"):
        if key in outcome.extra:
            entry[key] = outcome.extra[key]


def turn_outcome(sink: OutcomeSink | None, record: TurnRecord) -> Outcome:
    """An inline run's outcome: what it reported; else failed when the turn was cancelled
    or failed; else what a required report left (`partial`), or success."""
    if sink is not None and sink.outcome is not None:
        extra = {**sink.outcome.extra, "tries": sink.tries} if sink.tries > 1 else None
        return sink.outcome if extra is None else dataclasses.replace(sink.outcome, extra=extra)
    if record.cancelled:
        return Outcome(Status.FAILED, "cancelled")
    if record.error:
        return Outcome(Status.FAILED, shorten(record.error, 500))
    if sink is not None and sink.required:
        return sink.final(record.text)
    first = record.text.strip().splitlines()[0] if record.text.strip() else ""
    return Outcome(Status.SUCCESS, shorten(first, 200))
