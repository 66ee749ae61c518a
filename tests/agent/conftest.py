"""Fixtures for the agent tests. The scripted OpenAI-compatible server (`fake_openai`)
lives in tests/conftest.py, shared with tests/e2e; provider keys are removed for every
test there too."""

from __future__ import annotations

from pathlib import Path

import pytest

TERRAFORM = "terraform-drift"


@pytest.fixture
def over_budget(write_skill):
    """`over_budget(skills_dir, n)`: n generic helpers, far over the listing's 8,000-character
    budget, and one specific skill (`TERRAFORM`) the listing must still find by rank."""

    def write(skills: Path, n: int) -> None:
        for i in range(n):
            write_skill(
                skills,
                f"generic-helper-{i:04d}",
                f"description: Helps with generic task number {i}. Not for anything specific.",
                "Do it.",
            )
        write_skill(
            skills,
            TERRAFORM,
            "description: Detect drift between terraform state and cloud resources. "
            "Not for writing new modules.",
            "Run terraform plan.",
        )

    return write
