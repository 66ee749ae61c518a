"""The environment of the programs codebot runs, without the person's secrets.

What a command prints goes to the model's provider, so a key in the environment is one
`env` away from leaving the machine. Every Bash call and every skill `` !`cmd` `` gets
`command_env`: the environment codebot was started with, less every variable whose name
says it holds a secret (`is_secret`), plus what the person's own config keeps or sets
(`shell.env`, read by `read_shell_env`). Pure functions, no I/O, so MCP servers and hooks
can start from the same environment.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from types import MappingProxyType

__all__ = [
    "SECRET_NAMES",
    "SECRET_WORDS",
    "ShellEnv",
    "added_env",
    "command_env",
    "is_secret",
    "read_shell_env",
]

#: A variable whose name contains one of these (in any case) is left out.
SECRET_WORDS = ("KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIAL")
#: And these globs: provider settings whose names do not say they are secret (litellm
#: reads `AZURE_AD_TOKEN` but also `AZURE_CLIENT_ID`, `AZURE_TENANT_ID`, ...). Every
#: variable of `agent/model/providers.py`'s tables is checked to be left out
#: (tests/test_environment.py): this module sits below the agent and cannot import them.
SECRET_NAMES = ("AZURE_*",)

_WORDS = re.compile("|".join(SECRET_WORDS), re.IGNORECASE)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass(frozen=True)
class ShellEnv:
    """`shell.env` of the person's own config: variable names or globs to keep although
    they look secret, and variables to set."""

    keep: tuple[str, ...] = ()
    set: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))


def is_secret(name: str) -> bool:
    """Whether the variable `name` is left out of a command's environment by default."""
    return bool(_WORDS.search(name)) or any(fnmatchcase(name.upper(), p) for p in SECRET_NAMES)


def _kept(name: str, keep: Iterable[str]) -> bool:
    return any(fnmatchcase(name, pattern) for pattern in keep)


def command_env(
    environ: Mapping[str, str], keep: Iterable[str] = (), set: Mapping[str, str] | None = None
) -> dict[str, str]:
    """`environ` without its secret variables, except those a name or glob of `keep`
    matches (case-sensitive, as variable names are), then `set` on top."""
    keep = tuple(keep)
    out = {
        name: value for name, value in environ.items() if not is_secret(name) or _kept(name, keep)
    }
    out.update(set or {})
    return out


def added_env(environ: Mapping[str, str], shell_env: ShellEnv) -> dict[str, str]:
    """What `shell_env` adds to `command_env(environ)`: the secret variables it keeps, with
    their values in `environ`, and those it sets."""
    kept = {
        name: value
        for name, value in environ.items()
        if is_secret(name) and _kept(name, shell_env.keep)
    }
    return {**kept, **shell_env.set}


def read_shell_env(cfg: Mapping[str, object], where: str, warnings: list[str]) -> ShellEnv:
    """`shell.env` of one config file (the person's own: a project's is never read), each
    problem reported with `where` and left out: nothing is kept or set by mistake."""
    shell = cfg.get("shell")
    env = shell.get("env") if isinstance(shell, Mapping) else None
    if env is None:
        return ShellEnv()
    if not isinstance(env, Mapping):
        warnings.append(f"{where}: shell.env must be a mapping with `keep` and `set`; ignoring it")
        return ShellEnv()
    for key in env:
        if key not in ("keep", "set"):
            warnings.append(
                f"{where}: shell.env.{key} is not a setting (only keep and set); ignoring it"
            )
    keep_raw, set_raw = env.get("keep") or [], env.get("set") or {}
    keep: list[str] = []
    if not isinstance(keep_raw, list):
        warnings.append(
            f"{where}: shell.env.keep must be a list of variable names or globs; ignoring it"
        )
        keep_raw = []
    for i, item in enumerate(keep_raw):
        if isinstance(item, str) and item.strip() and "=" not in item and "\x00" not in item:
            keep.append(item.strip())
        else:
            warnings.append(
                f"{where}: shell.env.keep[{i}]: {item!r} is not a variable name or glob; ignoring "
                "it"
            )
    values: dict[str, str] = {}
    if not isinstance(set_raw, Mapping):
        warnings.append(
            f"{where}: shell.env.set must be a mapping of variable names to values; ignoring it"
        )
        set_raw = {}
    for name, value in set_raw.items():
        scalar = isinstance(value, str | int | float) and not isinstance(value, bool)
        if not isinstance(name, str) or not _NAME.match(name) or not scalar or "\x00" in str(value):
            warnings.append(
                f"{where}: shell.env.set.{name}: {value!r} is not a variable name with a text "
                "or number value; ignoring it"
            )
            continue
        values[name] = str(value)
    return ShellEnv(tuple(keep), MappingProxyType(values))
