"""`codebot mcp add` and `remove`: a server definition written to, or taken from, the
person's `$CODEBOT_HOME/config.yaml` (`mcp.servers`, scope "user") or the project's
`.mcp.json` (scope "project").

config.yaml is changed by `save_rule.update_config` (locked folder, atomic 0600 replace,
every other key kept). `.mcp.json` is in the protected set: it is read with the safe reader
(a regular file, bounded), refused when it is a link or not a regular file, changed under a
lock and replaced atomically with its own mode (0644 when new), every other key kept. The
person typed this command, so the change is theirs and not marked agent-written; an agent
running it through Bash is recorded by the session's guard like any other command. A
project server written here still starts only in a trusted project after
`codebot mcp approve`.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from codebot.mcp.config import PROJECT_FILE, servers_from

__all__ = ["EditError", "add_server", "defined_in", "entry_for", "remove_server"]

SCOPES = ("user", "project")
#: An edit of a file's servers mapping (the file named for messages); raises EditError.
_Change = Callable[[dict[str, object], Path], None]


class EditError(Exception):
    """A definition that cannot be added or removed; the message says why."""


class _AnyVariable(Mapping[str, str]):
    """Every variable set: a definition is checked for its shape when it is added, and a
    `${VAR}` it reads may be set later."""

    def __getitem__(self, key: str) -> str:
        return "set"

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


def entry_for(
    name: str,
    transport: str,
    target: list[str],
    env: list[str],
    headers: list[str],
) -> dict[str, object]:
    """The definition `codebot mcp add` writes, checked like one read from a file."""
    if transport == "http":
        if len(target) != 1:
            raise EditError("an http server takes exactly one URL: add NAME --transport http URL")
        if env:
            raise EditError("--env goes with a stdio server (a command); use --header for http")
        entry: dict[str, object] = {"type": "http", "url": target[0]}
        if headers:
            entry["headers"] = dict(_pair(h, ":", "--header", "NAME: VALUE") for h in headers)
    else:
        if not target:
            raise EditError("give the command after --: add NAME -- COMMAND [ARGS...]")
        if headers:
            raise EditError("--header goes with an http server (--transport http URL)")
        entry = {"command": target[0], "args": target[1:]}
        if env:
            entry["env"] = dict(_pair(e, "=", "--env", "NAME=VALUE") for e in env)
    (checked,), _ = servers_from(
        {name: entry},
        source="new",
        path="the command line",
        prefix="server",
        environ=_AnyVariable(),
    )
    if checked.error:
        raise EditError(checked.error.removeprefix("the command line: "))
    return entry


def _pair(text: str, sep: str, option: str, shape: str) -> tuple[str, str]:
    key, found, value = text.partition(sep)
    if not found or not key.strip():
        raise EditError(f"{option} {text!r}: write it as {shape}")
    return key.strip(), value.strip() if sep == ":" else value


# -- where a name is defined -----------------------------------------------------------------


def _project_doc(project: Path) -> dict[str, object]:
    """The project's .mcp.json as an object ({} when missing); EditError when unusable."""
    from codebot.skills.files.safe_read import read_json_object

    path = project / PROJECT_FILE
    try:
        return read_json_object(path, 1024 * 1024)
    except FileNotFoundError:
        return {}
    except RecursionError:
        raise EditError(f"{path} is nested too deeply; fix it first") from None
    except (OSError, ValueError) as exc:
        raise EditError(f"{path} cannot be read as JSON ({exc}); fix it first") from None


def _servers(doc: Mapping[str, object], where: str) -> dict[str, object]:
    servers = doc.get("mcpServers")
    if servers is None:
        return {}
    if not isinstance(servers, dict):
        raise EditError(f"{where}: mcpServers is not an object; fix it first")
    return servers


def _user_servers(config: Mapping[str, object]) -> dict[str, object]:
    section = config.get("mcp")
    servers = section.get("servers") if isinstance(section, dict) else None
    return servers if isinstance(servers, dict) else {}


def defined_in(name: str, user_config: Mapping[str, object], project: Path) -> list[str]:
    """The scopes that define `name` now: "user" (`user_config`, the person's parsed
    config.yaml) and/or "project" (.mcp.json)."""
    found = []
    if name in _user_servers(user_config):
        found.append("user")
    try:
        if name in _servers(_project_doc(project), str(project / PROJECT_FILE)):
            found.append("project")
    except EditError:
        pass
    return found


# -- writing -----------------------------------------------------------------------------------


def add_server(scope: str, name: str, entry: dict[str, object], home: Path, project: Path) -> Path:
    """Write the definition; the file written. EditError when the name is taken there."""

    def change(servers: dict[str, object], where: Path) -> None:
        if name in servers:
            raise EditError(
                f"{where} already defines {name}; run `codebot mcp remove {name} --scope {scope}` "
                "first"
            )
        servers[name] = entry

    return _edit(scope, home, project, change)


def remove_server(scope: str, name: str, home: Path, project: Path) -> Path:
    """Take the definition out; the file changed. EditError when it is not there."""

    def change(servers: dict[str, object], where: Path) -> None:
        if name not in servers:
            raise EditError(f"{where} defines no server {name}")
        del servers[name]

    return _edit(scope, home, project, change)


def _edit(scope: str, home: Path, project: Path, change: _Change) -> Path:
    if scope == "user":
        return _edit_user(home, change)
    return _edit_project(home, project, change)


def _edit_user(home: Path, change: _Change) -> Path:
    from codebot.agent.permissions.save_rule import RuleSaveError, update_config
    from codebot.home import private_dir

    path = home / "config.yaml"

    def edit(data: dict[str, object]) -> bool:
        section = data.setdefault("mcp", {})
        if section is None:
            section = data["mcp"] = {}
        if not isinstance(section, dict):
            raise RuleSaveError(f"{path}: mcp is not a mapping; fix it first")
        servers = section.setdefault("servers", {})
        if servers is None:
            servers = section["servers"] = {}
        if not isinstance(servers, dict):
            raise RuleSaveError(f"{path}: mcp.servers is not a mapping; fix it first")
        change(servers, path)
        return True

    try:
        private_dir(home)
        update_config(path, edit)
    except (RuleSaveError, OSError) as exc:
        raise EditError(str(exc)) from None
    return path


def _edit_project(home: Path, project: Path, change: _Change) -> Path:
    import filelock

    from codebot.agent.permissions.save_rule import target_problem
    from codebot.home import FILE_MODE, atomic_file, private_dir

    path = project / PROJECT_FILE
    try:
        private_dir(home)
        with filelock.FileLock(str(home / "mcp-json.lock"), timeout=10, mode=FILE_MODE):
            problem = target_problem(path)
            if problem:
                raise EditError(f"{problem}; {PROJECT_FILE} was left as it is")
            doc = _project_doc(project)
            servers = _servers(doc, str(path))
            change(servers, path)
            doc["mcpServers"] = servers
            try:
                mode = stat.S_IMODE(os.lstat(path).st_mode)
            except FileNotFoundError:
                mode = 0o644 & ~_umask()
            text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
            with atomic_file(path, mode=mode) as fh:
                fh.write(text.encode("utf-8", "surrogateescape"))
    except filelock.Timeout:
        raise EditError("another codebot is changing .mcp.json; try again") from None
    except OSError as exc:
        raise EditError(f"cannot write {path} ({exc.strerror or exc})") from None
    return path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
