"""Fixtures for the agent tests: a scripted OpenAI-compatible server on 127.0.0.1.

(Provider keys are removed for every test by tests/conftest.py.)"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

FAKE_OPENAI_PATH = Path(__file__).with_name("fake_openai.py")


def _load_fake_openai() -> ModuleType:
    """tests/ is not a package: load fake_openai.py by path (once) so tests can import it too."""
    module = sys.modules.get("fake_openai")
    if module is None:
        spec = importlib.util.spec_from_file_location("fake_openai", FAKE_OPENAI_PATH)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["fake_openai"] = module
        spec.loader.exec_module(module)
    return module


@pytest.fixture
def fake_openai() -> Iterator[Any]:
    """A running fake server: `.url` (…/v1), `.script([...])`, `.requests` (request bodies)."""
    server = _load_fake_openai().FakeOpenAI().start()
    try:
        yield server
    finally:
        server.stop()
