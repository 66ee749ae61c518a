"""The hook tests' fixture: a `HookKit` in the project (`hookkit.py`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hookkit import HookKit


@pytest.fixture
def kit(project: Path) -> HookKit:
    return HookKit(project)
