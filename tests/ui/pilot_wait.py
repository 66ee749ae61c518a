"""`until`: wait in a Pilot test until the UI shows what the test expects (imported by the
tests beside it: tests/ is not a package, and pytest puts this folder on sys.path)."""

from __future__ import annotations

import time
from collections.abc import Callable


async def until(
    pilot, predicate: Callable[[], object], timeout: float = 5.0, step: float = 0.02
) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the UI")
        await pilot.pause(step)
