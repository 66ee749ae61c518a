"""Front-end tests see colour: NO_COLOR from the developer's shell would change what the
TUI and line mode draw (tests/test_no_color.py sets it where it is the point)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def colour(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
