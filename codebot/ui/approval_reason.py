"""Shared by the TUI and line mode: how a verdict's reason is shown under the question."""

from __future__ import annotations


def why_asked(reason: str) -> str:
    """The part of a verdict's reason worth showing under the question (not the bare
    "needs approval" the question already says)."""
    if reason.startswith("needs approval"):
        reason = reason[len("needs approval") :].strip().lstrip(":").strip().strip("()")
    return reason
