"""The outcome record every skill run ends with (issue 35)."""

from __future__ import annotations

import pytest

from codebot.skills.outcome import Outcome, OutcomeError, Status, failed, success, worst


def test_round_trip_keeps_every_field() -> None:
    o = Outcome(Status.PARTIAL, "half", {"n": 2}, timed_out=True, ms=12.34, extra={"step": "a"})
    back = Outcome.from_json(o.to_json())
    assert back == Outcome(Status.PARTIAL, "half", {"n": 2}, True, 12.3, {"step": "a"})


def test_worst_orders_failed_over_confirmation_over_partial() -> None:
    assert worst([]) is Status.SUCCESS
    assert worst([success(), Outcome(Status.PARTIAL)]) is Status.PARTIAL
    both = [Outcome(Status.NEEDS_CONFIRMATION), Outcome(Status.PARTIAL)]
    assert worst(both) is Status.NEEDS_CONFIRMATION
    assert worst([*both, failed("x")]) is Status.FAILED


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ([], "an outcome is an object"),
        ({"status": "ok"}, "status 'ok' is not one of"),
        ({"status": "success", "summary": 3}, "summary must be a string"),
    ],
)
def test_bad_values_name_what_is_wrong(value: object, says: str) -> None:
    with pytest.raises(OutcomeError, match=says):
        Outcome.from_json(value)
