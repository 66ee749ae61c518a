"""MCP server definitions: a project's `.mcp.json`, the person's `mcp.servers` in
`$CODEBOT_HOME/config.yaml`, and `--mcp-config FILE` files (docs/mcp.md).

All three use Claude Code's shape::

    {"mcpServers": {"NAME": {"command": "...", "args": [...], "env": {...}, "cwd": "..."}}}
    {"mcpServers": {"NAME": {"type": "http", "url": "...", "headers": {...}}}}

(`mcp.servers` in config.yaml holds the inner mapping.) `${VAR}` and `${VAR:-default}`
expand in command, args, env, url and headers (`expand.py`). Every definition records its
source ("project", "user" or "flag") and its file. A bad definition is kept with its
`error` (naming the file and the field) so it is shown, never started, and never hides the
others; a bad file is a problem of its own. Files are read with `read_json_object` (a
regular file, size-bounded: a FIFO never blocks). On a name clash the later source wins
(project < user < flag, flag files in the order given) and the clash is reported.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from codebot.mcp.expand import UnsetVariable, expand, variables_in

__all__ = [
    "MAX_BYTES",
    "PROJECT_FILE",
    "McpConfig",
    "ServerDef",
    "load_servers",
    "read_server_file",
    "servers_from",
]

PROJECT_FILE = ".mcp.json"
#: The largest definitions file read.
MAX_BYTES = 1024 * 1024
NAME = re.compile(r"[A-Za-z0-9_-]{1,64}\Z")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_HEADER_NAME = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+\Z")
STDIO_KEYS = frozenset({"type", "command", "args", "env", "cwd"})
HTTP_KEYS = frozenset({"type", "url", "headers"})
COMMON_KEYS = frozenset({"startup_timeout", "timeout"})
KNOWN_KEYS = STDIO_KEYS | HTTP_KEYS | COMMON_KEYS
TYPES = {"stdio": "stdio", "http": "http", "streamable-http": "http"}
#: (default, largest) seconds of the per-server timeouts.
TIMEOUTS = {"startup_timeout": (10.0, 600.0), "timeout": (60.0, 3600.0)}
_EMPTY: Mapping[str, str] = MappingProxyType({})


@dataclass(frozen=True)
class ServerDef:
    """One server definition, expanded. `written` is the entry as the file has it (before
    `${VAR}` expansion), for display; `error` says why it cannot be used ("" when it can)."""

    name: str
    source: str  # "project" | "user" | "flag"
    path: str  # the file it was read from
    transport: str = "stdio"  # "stdio" | "http"
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=lambda: _EMPTY)
    cwd: str | None = None
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=lambda: _EMPTY)
    startup_timeout: float = TIMEOUTS["startup_timeout"][0]
    timeout: float = TIMEOUTS["timeout"][0]
    written: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))
    variables: tuple[str, ...] = ()  # the environment variables it reads
    error: str = ""

    @property
    def where(self) -> str:
        """ "project (/p/.mcp.json)", "user (~/.codebot/config.yaml)", "flag (FILE)"."""
        return f"{self.source} ({self.path})"


@dataclass(frozen=True)
class McpConfig:
    """The definitions in force (one per name), problems with whole files, and clashes."""

    servers: tuple[ServerDef, ...] = ()
    problems: tuple[str, ...] = ()
    clashes: tuple[str, ...] = ()

    def get(self, name: str) -> ServerDef | None:
        return next((s for s in self.servers if s.name == name), None)


class _Bad(ValueError):
    """One field of one definition is wrong; the message names the field."""


def servers_from(
    servers: object, *, source: str, path: str, prefix: str, environ: Mapping[str, str]
) -> tuple[list[ServerDef], list[str]]:
    """The definitions of a `mcpServers` mapping (`prefix` is its dotted name in the
    file, for messages), and the problem when the mapping itself is wrong."""
    if servers is None:
        return [], []
    if not isinstance(servers, Mapping):
        return [], [f"{path}: {prefix} must be an object of servers by name; ignoring it"]
    out = [
        _definition(str(name), entry, source, path, f"{prefix}.{name}", environ)
        for name, entry in servers.items()
    ]
    return out, []


def read_server_file(
    path: Path, *, source: str, environ: Mapping[str, str], missing_ok: bool
) -> tuple[list[ServerDef], list[str]]:
    """The definitions in a `.mcp.json`-shaped file, and problems with the file."""
    from codebot.skills.files.safe_read import read_json_object

    shown = os.fspath(path)
    try:
        doc = read_json_object(path, MAX_BYTES)
    except FileNotFoundError:
        return [], [] if missing_ok else [f"{shown}: no such file"]
    except RecursionError:
        return [], [f"{shown}: is nested too deeply to be a server list; ignoring it"]
    except (OSError, ValueError) as exc:
        return [], [f"{shown}: cannot be read as MCP servers ({exc}); ignoring it"]
    if "mcpServers" not in doc:
        return [], [f'{shown}: has no "mcpServers" object; nothing defined there']
    return servers_from(
        doc["mcpServers"], source=source, path=shown, prefix="mcpServers", environ=environ
    )


def load_servers(
    project_dir: Path | None,
    user_config: Mapping[str, object],
    user_path: Path,
    flag_files: Sequence[Path] = (),
    environ: Mapping[str, str] | None = None,
) -> McpConfig:
    """Every definition in force: the project's `.mcp.json` (when `project_dir`), the
    person's `mcp.servers` (`user_config` is their parsed config.yaml), then each
    `--mcp-config` file; a later one replaces an earlier one of the same name."""
    environ = os.environ if environ is None else environ
    found: list[ServerDef] = []
    problems: list[str] = []
    if project_dir is not None:
        defs, bad = read_server_file(
            project_dir / PROJECT_FILE, source="project", environ=environ, missing_ok=True
        )
        found += defs
        problems += bad
    section = user_config.get("mcp")
    if section is not None and not isinstance(section, Mapping):
        problems.append(f"{user_path}: mcp must be a mapping (with servers:); ignoring it")
    elif section is not None:
        defs, bad = servers_from(
            section.get("servers"),
            source="user",
            path=os.fspath(user_path),
            prefix="mcp.servers",
            environ=environ,
        )
        found += defs
        problems += bad
    for flag in flag_files:
        defs, bad = read_server_file(flag, source="flag", environ=environ, missing_ok=False)
        found += defs
        problems += [f"--mcp-config {p}" for p in bad]
    servers, clashes = _resolve(found)
    return McpConfig(tuple(servers), tuple(problems), tuple(clashes))


def _resolve(found: Iterable[ServerDef]) -> tuple[list[ServerDef], list[str]]:
    by_name: dict[str, ServerDef] = {}
    clashes: list[str] = []
    for d in found:
        old = by_name.get(d.name)
        if old is not None:
            clashes.append(f"server {d.name}: the definition in {d.where} replaces {old.where}")
        by_name[d.name] = d
    return list(by_name.values()), clashes


# -- one definition --------------------------------------------------------------------------


def _definition(
    name: str, entry: object, source: str, path: str, where: str, environ: Mapping[str, str]
) -> ServerDef:
    base = ServerDef(name=name, source=source, path=path)
    if not isinstance(entry, Mapping):
        return _with_error(base, f"{path}: {where}: must be an object, not {_kind(entry)}")
    written = MappingProxyType({str(k): v for k, v in entry.items()})
    base = ServerDef(name=name, source=source, path=path, written=written)
    errors: list[str] = []
    if not NAME.match(name):
        errors.append(f"{where}: the name must be 1-64 letters, digits, '_' or '-'")
    try:
        parsed = _fields(base, written, where, environ)
    except _Bad as exc:
        errors.append(str(exc))
        parsed = base
    if errors:
        return _with_error(base, "; ".join(f"{path}: {e}" for e in errors))
    return parsed


def _with_error(d: ServerDef, error: str) -> ServerDef:
    return ServerDef(name=d.name, source=d.source, path=d.path, written=d.written, error=error)


def _kind(value: object) -> str:
    names = {list: "a list", str: "a string", bool: "a boolean", int: "a number", float: "a number"}
    if value is None:
        return "null"
    if isinstance(value, Mapping):
        return "an object"
    return names.get(type(value), f"a {type(value).__name__}")


def _fields(
    base: ServerDef, entry: Mapping[str, object], where: str, environ: Mapping[str, str]
) -> ServerDef:
    unknown = sorted(set(entry) - KNOWN_KEYS)
    if unknown:
        raise _Bad(
            f"{where}: unknown key(s) {', '.join(map(repr, unknown))} "
            f"(known: {', '.join(sorted(KNOWN_KEYS))})"
        )
    transport = _transport(entry, where)
    wrong = sorted(set(entry) & ((HTTP_KEYS if transport == "stdio" else STDIO_KEYS) - {"type"}))
    if wrong:
        raise _Bad(f"{where}: {', '.join(wrong)} do(es) not go with a {transport} server")
    texts = [t for t in _strings(entry) if isinstance(t, str)]
    common = {
        "name": base.name,
        "source": base.source,
        "path": base.path,
        "written": base.written,
        "variables": tuple(dict.fromkeys(v for t in texts for v in variables_in(t))),
    }
    startup = _seconds(entry, "startup_timeout", where)
    timeout = _seconds(entry, "timeout", where)
    if transport == "http":
        return ServerDef(
            **common,
            transport="http",
            url=_url(entry.get("url"), f"{where}.url", environ),
            headers=MappingProxyType(_headers(entry.get("headers"), f"{where}.headers", environ)),
            startup_timeout=startup,
            timeout=timeout,
        )
    cwd = entry.get("cwd")
    return ServerDef(
        **common,
        transport="stdio",
        command=_text(entry.get("command"), f"{where}.command", environ, required=True),
        args=tuple(_text_list(entry.get("args"), f"{where}.args", environ)),
        env=MappingProxyType(_env(entry.get("env"), f"{where}.env", environ)),
        cwd=None if cwd is None else _text(cwd, f"{where}.cwd", None, required=True),
        startup_timeout=startup,
        timeout=timeout,
    )


def _transport(entry: Mapping[str, object], where: str) -> str:
    if "command" in entry and "url" in entry:
        raise _Bad(f"{where}: has both command and url; a server is one or the other")
    kind = entry.get("type")
    if kind is None:
        if "url" in entry:
            return "http"
        if "command" not in entry:
            raise _Bad(f"{where}: needs a command (stdio) or a url (http)")
        return "stdio"
    if kind == "sse":
        raise _Bad(
            f'{where}.type: "sse" (the old HTTP+SSE transport) is not supported; '
            'use a Streamable HTTP endpoint with "type": "http"'
        )
    if not isinstance(kind, str) or kind not in TYPES:
        raise _Bad(f'{where}.type: must be "stdio", "http" or "streamable-http", not {kind!r}')
    return TYPES[kind]


def _strings(entry: Mapping[str, object]) -> Iterable[object]:
    """Every string value a definition holds (where variables may be read)."""
    for key in ("command", "url"):
        yield entry.get(key)
    args = entry.get("args")
    if isinstance(args, list):
        yield from args
    for key in ("env", "headers"):
        value = entry.get(key)
        if isinstance(value, Mapping):
            yield from value.values()


def _text(
    value: object, where: str, environ: Mapping[str, str] | None, *, required: bool = False
) -> str:
    if not isinstance(value, str):
        raise _Bad(f"{where}: must be a string, not {_kind(value)}")
    if required and not value.strip():
        raise _Bad(f"{where}: must not be empty")
    if environ is not None:
        try:
            value = expand(value, environ)
        except UnsetVariable as exc:
            raise _Bad(
                f"{where}: ${{{exc.name}}} is not set; set it, or write ${{{exc.name}:-default}}"
            ) from None
    if "\0" in value:
        raise _Bad(f"{where}: holds a NUL character")
    return value


def _text_list(value: object, where: str, environ: Mapping[str, str]) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise _Bad(f"{where}: must be a list of strings, not {_kind(value)}")
    return [_text(v, f"{where}[{i}]", environ) for i, v in enumerate(value)]


def _env(value: object, where: str, environ: Mapping[str, str]) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise _Bad(f"{where}: must be an object of variable names to strings, not {_kind(value)}")
    out: dict[str, str] = {}
    for k, v in value.items():
        if not isinstance(k, str) or not _ENV_NAME.match(k):
            raise _Bad(f"{where}: {k!r} is not a variable name (letters, digits, '_')")
        out[k] = _text(v, f"{where}.{k}", environ)
    return out


def _url(value: object, where: str, environ: Mapping[str, str]) -> str:
    url = _text(value, where, environ, required=True)
    if not url.lower().startswith(("http://", "https://")):
        raise _Bad(f"{where}: must be an http:// or https:// URL")
    if any(c.isspace() or ord(c) < 0x20 or ord(c) == 0x7F for c in url):
        raise _Bad(f"{where}: holds a space or a control character")
    return url


def _headers(value: object, where: str, environ: Mapping[str, str]) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise _Bad(f"{where}: must be an object of header names to strings, not {_kind(value)}")
    out: dict[str, str] = {}
    for k, v in value.items():
        if not isinstance(k, str) or not _HEADER_NAME.match(k):
            raise _Bad(f"{where}: {k!r} is not a header name")
        text = _text(v, f"{where}.{k}", environ)
        if any(c in text for c in "\r\n"):
            raise _Bad(f"{where}.{k}: a header value must be one line")
        out[k] = text
    return out


def _seconds(entry: Mapping[str, object], key: str, where: str) -> float:
    default, cap = TIMEOUTS[key]
    value = entry.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= cap:
        raise _Bad(f"{where}.{key}: must be a number of seconds above 0 and at most {cap:g}")
    return float(value)
