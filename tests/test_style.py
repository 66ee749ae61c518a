"""The style gates, as tests: the tree is formatted by ruff without packing, and lints clean
with the complexity limits in pyproject.toml (C901 <= 12, PLR0915).

The type gate (pyright, basic mode) runs in `.ci/run` rather than here: pyright fetches its
own runtime on first use, and tests never touch the network.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TREES = ("codebot", "tests", "bench")
# Written in two halves so this file does not match its own search.
PACKING = ("fmt: " + "skip", "fmt: " + "off")

pytest.importorskip("ruff", reason="ruff is in the dev extra: pip install -e '.[dev]'")


def ruff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def python_files() -> list[Path]:
    return [p for tree in TREES for p in sorted((ROOT / tree).rglob("*.py"))]


def test_no_line_is_packed_past_the_formatter() -> None:
    packed = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in python_files()
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if any(marker in line for marker in PACKING)
    ]
    assert packed == []


def test_the_tree_is_formatted() -> None:
    done = ruff("format", "--check", *TREES)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_tree_lints_clean_with_the_complexity_limits() -> None:
    done = ruff("check", "--output-format", "concise", *TREES)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_complexity_gate_is_on() -> None:
    """A function over the limit fails the lint (the gate is configured, not just listed)."""
    branches = "\n".join(f"    if x == {i}:\n        return {i}" for i in range(14))
    probe = f"def f(x):\n{branches}\n    return -1\n"
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--stdin-filename", "probe.py", "-"],
        cwd=ROOT,
        input=probe,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "C901" in done.stdout, done.stdout + done.stderr
