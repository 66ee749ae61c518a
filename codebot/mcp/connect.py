"""Connecting to an approved MCP server, with the official SDK (`mcp`), to see that it
answers: initialize, count its tools and prompts, close. Streamable HTTP servers go through
`http_transport.py` (`_probe_http`); the rest of this module is stdio, whose `open_stdio`
a session's servers use too (`session_servers.py`).

The process is started here, not by the SDK's `stdio_client`, for two reasons: the SDK
adds variables of its own to the server's environment (SHELL, TERM, USER, ...), and it
kills the process group only when the server itself does not exit; here the server gets
exactly `server_environment` and its whole process group is killed on every close (a
server that exits and leaves a child behind leaves nothing). The SDK's `ClientSession`
speaks the protocol over the two pipes; its message types parse each line.

- The server runs in its own session and process group (`start_new_session`), in its
  `cwd` (relative to the project), with stdin/stdout as the protocol and stderr appended
  to `$CODEBOT_HOME/logs/mcp/<name>.log` (0600).
- Everything up to the lists is bounded by the definition's `startup_timeout`: a server
  that never answers `initialize` fails with that in its error, and is killed.
- A line longer than `MAX_LINE` bytes from the server ends the connection (a server that
  never writes a newline cannot fill memory).

The SDK is imported inside the functions: `import codebot` and every command that does
not connect never load it (tests/test_imports.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from codebot.mcp.approval import server_environment
from codebot.mcp.config import ServerDef

if TYPE_CHECKING:
    from anyio.abc import Process
    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
    from mcp.client.session import ClientSession
    from mcp.shared.message import SessionMessage

__all__ = [
    "MAX_LINE",
    "ConnectError",
    "Pipe",
    "Probe",
    "log_path",
    "open_stdio",
    "probe",
    "probe_all",
    "said",
]

#: The longest line read from a server (a message); longer ends the connection.
MAX_LINE = 16 * 1024 * 1024
#: A line longer than this (bytes) is parsed in a worker thread, off the servers' loop.
BIG_LINE = 256 * 1024
#: Seconds between SIGTERM to the server's process group and SIGKILL.
KILL_GRACE = 1.0


@dataclass(frozen=True)
class Probe:
    """What connecting to one server found: ready with counts, or failed with why."""

    name: str
    ready: bool
    tools: int | None = None
    prompts: int | None = None
    server: str = ""  # the server's name and version, as it says
    error: str = ""
    skills: int | None = None  # SEP-2640 skills listed; None when they could not be read
    tool_names: tuple[str, ...] = ()  # its tools' own names, for the names the model sees


def log_path(home: Path, name: str) -> Path:
    """Where a server's stderr goes: `$CODEBOT_HOME/logs/mcp/<name>.log`."""
    return Path(home) / "logs" / "mcp" / f"{name}.log"


def probe_all(
    servers: Sequence[ServerDef], *, home: Path, project: Path, environ: Mapping[str, str]
) -> dict[str, Probe]:
    """Probe these (approved) servers in parallel; one result per name."""
    import anyio

    from codebot.mcp.host import HTTP_MODULES, SDK_MODULES, import_now

    if not servers:
        return {}
    # a session's servers may be importing the SDK in a thread now: one importer at a time
    http = any(d.transport == "http" for d in servers)
    import_now([*SDK_MODULES, *(HTTP_MODULES if http else ())])
    results: dict[str, Probe] = {}

    async def one(d: ServerDef) -> None:
        results[d.name] = await probe(d, home=home, project=project, environ=environ)

    async def every() -> None:
        async with anyio.create_task_group() as tg:
            for d in servers:
                tg.start_soon(one, d)

    anyio.run(every)
    return results


class ConnectError(Exception):
    """A server that cannot be started (its cwd, its log); the message says why."""


@dataclass
class Pipe:
    """A started stdio server: the two message streams `ClientSession` reads and writes,
    the process (its own group) and where its stderr goes."""

    read: MemoryObjectReceiveStream[SessionMessage | Exception]
    write: MemoryObjectSendStream[SessionMessage]
    process: Process
    log: Path
    ended: asyncio.Event  # set when the server's output ends (it exited or closed it)


@contextlib.asynccontextmanager
async def open_stdio(
    d: ServerDef, *, home: Path, project: Path, environ: Mapping[str, str]
) -> AsyncIterator[Pipe]:
    """Start a stdio server (own process group, `server_environment`, stderr appended to
    its log) and yield its `Pipe`; on exit its whole process group is killed. ConnectError
    when its cwd or log is unusable; OSError when the command cannot start."""
    from codebot.home import private_dir, private_open

    if d.error or d.transport != "stdio":
        raise ConnectError(d.error or f"transport {d.transport} is not stdio")
    cwd = project / d.cwd if d.cwd else project
    if not cwd.is_dir():
        raise ConnectError(f"its cwd {cwd} is not a folder")
    log = log_path(home, d.name)
    try:
        private_dir(log.parent)
        errlog = private_open(log, "ab")
    except OSError as exc:
        raise ConnectError(f"cannot open its log {log}: {exc.strerror or exc}") from None
    try:
        env = server_environment(d, environ)
        ended = asyncio.Event()
        async with _stdio(d, env, cwd, errlog.fileno(), ended) as (read, write, process):
            yield Pipe(read, write, process, log, ended)
    finally:
        errlog.close()


async def probe(d: ServerDef, *, home: Path, project: Path, environ: Mapping[str, str]) -> Probe:
    """Start the server, initialize, list its tools and prompts, close; never raises for
    the server's faults (they are the Probe's `error`)."""
    import anyio

    if d.error:
        return Probe(d.name, False, error=d.error)
    if d.transport == "http":
        return await _probe_http(d)
    if d.transport != "stdio":
        return Probe(d.name, False, error=f"transport {d.transport} is not connected")
    log = log_path(home, d.name)
    try:
        with anyio.fail_after(d.startup_timeout):
            async with open_stdio(d, home=home, project=project, environ=environ) as pipe:
                return await _talk(d, pipe)
    except ConnectError as exc:
        return Probe(d.name, False, error=str(exc))
    except TimeoutError:
        return Probe(
            d.name,
            False,
            error=f"did not answer initialize and the lists within its startup_timeout "
            f"({d.startup_timeout:g} s); its stderr is in {log}",
        )
    except Exception as exc:  # the server's fault, whatever the SDK raised for it
        return Probe(d.name, False, error=f"{said(exc)}; its stderr is in {log}")


def said(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(said(e) for e in exc.exceptions)
    if isinstance(exc, FileNotFoundError):
        return f"cannot start it: {exc.strerror}: {exc.filename}"
    if isinstance(exc, OSError):
        return f"cannot start it: {exc.strerror or exc}"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


async def _talk(d: ServerDef, pipe: Pipe) -> Probe:
    from mcp.client.session import ClientSession

    async with ClientSession(pipe.read, pipe.write) as session:
        return await _ask(d, session)


async def _probe_http(d: ServerDef) -> Probe:
    """Connect over Streamable HTTP (http_transport.py), initialize and count, all within
    its startup_timeout; closing (the session's DELETE) is bounded by what is left of it
    and does not undo a server that answered."""
    import anyio
    from mcp.client.session import ClientSession

    from codebot.mcp.http_transport import Exchange, describe, open_http

    exchange, found = Exchange(), None
    try:
        with anyio.move_on_after(d.startup_timeout):
            async with open_http(d, exchange) as (read, write), ClientSession(read, write) as s:
                found = await _ask(d, s)
    except Exception as exc:  # the server's fault, whatever the SDK or httpx2 raised for it
        return found or Probe(d.name, False, error=describe(d, exchange, exc))
    return found or Probe(d.name, False, error=describe(d, exchange, None))


async def _ask(d: ServerDef, session: ClientSession) -> Probe:
    """Initialize, then count the tools (keeping their names) and prompts it declares."""
    init = await session.initialize()
    caps = init.capabilities
    names: list[str] = []
    tools = await _count(session, "tools", names) if caps.tools is not None else 0
    prompts = await _count(session, "prompts") if caps.prompts is not None else 0
    info = init.server_info
    skills = await _skills(d, session)
    server = f"{info.name} {info.version}".strip()
    return Probe(d.name, True, tools, prompts, server, skills=skills, tool_names=tuple(names))


async def _skills(d: ServerDef, session: ClientSession) -> int | None:
    """How many SEP-2640 skills the server lists (0 without the extension; None when its
    skills/list fails: the server is still ready)."""
    from codebot.mcp.server_skills import skill_source
    from codebot.skills.catalog import SourceError

    try:
        source = await skill_source(session, d.name, timeout=d.startup_timeout)
    except SourceError:
        return None
    return 0 if source is None else len(source.specs())


async def _count(session: ClientSession, what: str, names: list[str] | None = None) -> int:
    """The server's tools or prompts over every page (at most 100 pages); the tools'
    names go in `names`."""
    from mcp_types import PaginatedRequestParams

    total, cursor = 0, None
    for _ in range(100):
        params = PaginatedRequestParams(cursor=cursor) if cursor else None
        if what == "tools":
            result = await session.list_tools(params=params)
            total += len(result.tools)
            if names is not None:
                names += [t.name for t in result.tools]
        else:
            result = await session.list_prompts(params=params)
            total += len(result.prompts)
        cursor = result.next_cursor
        if not cursor:
            break
    return total


@contextlib.asynccontextmanager
async def _stdio(
    d: ServerDef, env: dict[str, str], cwd: Path, errlog: int, ended: asyncio.Event
) -> AsyncIterator[
    tuple[
        MemoryObjectReceiveStream[SessionMessage | Exception],
        MemoryObjectSendStream[SessionMessage],
        Process,
    ]
]:
    """The server process and the two message streams `ClientSession` reads and writes."""
    import anyio

    process = await anyio.open_process(
        [d.command, *d.args], env=env, cwd=cwd, stderr=errlog, start_new_session=True
    )
    try:  # the SDK is imported once the server is spawned: it boots meanwhile
        from mcp.shared.message import SessionMessage
    except BaseException:
        with anyio.CancelScope(shield=True):
            await _kill_group(process)
        raise

    read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](0)
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(_read_lines, process, read_send, ended)
            tg.start_soon(_write_lines, process, write_recv)
            try:
                yield read_recv, write_send, process
            finally:
                tg.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            await _kill_group(process)
            for stream in (read_recv, write_send, read_send, write_recv):
                await stream.aclose()


async def _read_lines(
    process: Process, out: MemoryObjectSendStream[SessionMessage | Exception], ended: asyncio.Event
) -> None:
    """Each line the server writes, as a message (or the error it is) for the session;
    `ended` is set when its output ends (it exited or closed it)."""
    import anyio
    import anyio.to_thread

    assert process.stdout is not None
    buffer = b""
    async with out:
        with contextlib.suppress(anyio.EndOfStream, anyio.ClosedResourceError, OSError):
            async for chunk in process.stdout:
                *lines, buffer = (buffer + chunk).split(b"\n")
                if len(buffer) > MAX_LINE:
                    await out.send(ValueError(f"the server wrote a line over {MAX_LINE} bytes"))
                    return
                for line in lines:
                    if not line.strip():
                        continue
                    if len(line) > BIG_LINE:  # not on the loop: a front end's may be it
                        item = await anyio.to_thread.run_sync(_message, line)
                    else:
                        item = _message(line)
                    await out.send(item)
        ended.set()


def _message(line: bytes) -> SessionMessage | Exception:
    import mcp_types
    from mcp.shared.message import SessionMessage

    try:
        text = line.decode("utf-8")
        message = mcp_types.jsonrpc_message_adapter.validate_json(text, by_name=False)
        return SessionMessage(message)
    except ValueError as exc:  # not JSON-RPC (pydantic's errors are ValueErrors)
        return exc


async def _write_lines(process: Process, inbox: MemoryObjectReceiveStream[SessionMessage]) -> None:
    import anyio

    assert process.stdin is not None
    async with inbox:
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            async for message in inbox:
                data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                await process.stdin.send(data.encode("utf-8") + b"\n")


async def _kill_group(process: Process) -> None:
    """SIGTERM the server's whole process group, SIGKILL what is left after KILL_GRACE
    seconds, and reap the leader."""
    import anyio

    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGTERM)
    with anyio.move_on_after(KILL_GRACE):
        while _group_alive(process.pid):
            _ = process.returncode
            await anyio.sleep(0.01)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with anyio.move_on_after(KILL_GRACE):
        await process.wait()


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True
