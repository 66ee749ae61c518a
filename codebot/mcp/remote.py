"""What an MCP server offers and answers, as a session keeps it (`RemoteTool`,
`CallOutcome`), and small helpers of `session_servers`."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["CallOutcome", "RemoteTool", "client_info", "closed", "first", "timed_out"]


@dataclass(frozen=True)
class RemoteTool:
    """One tool as its server lists it."""

    server: str
    name: str
    description: str
    input_schema: Mapping[str, Any]
    read_only_hint: bool | None = None


@dataclass(frozen=True)
class CallOutcome:
    """A call's answer (`result`, the SDK's CallToolResult) or why there is none (`error`)."""

    result: Any = None
    error: str = ""


async def first(*waits: Any) -> None:
    tasks = [asyncio.ensure_future(w) for w in waits]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for t in tasks:
            t.cancel()


def client_info() -> Any:
    from mcp_types import Implementation

    from codebot import __version__

    return Implementation(name="codebot", version=__version__)


def closed(exc: BaseException) -> bool:
    return "Connection closed" in str(exc)


def timed_out(exc: BaseException) -> bool:
    if isinstance(exc, BaseExceptionGroup):
        return any(timed_out(e) for e in exc.exceptions)
    return isinstance(exc, TimeoutError)
