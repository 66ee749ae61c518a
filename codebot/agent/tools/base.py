"""What every tool shares: results, the run context, the Tool base class, the registry, paths.

The turn loop talks to tools only through `ToolRegistry.call`, which never raises (except
`asyncio.CancelledError`): bad JSON, arguments that fail the tool's JSON Schema, unknown
tool names and failures inside a tool all come back as a `ToolResult` with status "error"
and a message written for the model to read and correct itself.
"""

from __future__ import annotations

import abc
import json
import os
import posixpath
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator

    from codebot.agent.tools.sandbox import SandboxPolicy
    from codebot.mcp.results import Image

__all__ = [
    "PathOutsideProject",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolRegistry",
    "ToolResult",
    "display_path",
    "is_binary",
    "path_subject",
    "resolve_path",
    "subject_path",
]


@dataclass(frozen=True)
class ToolResult:
    content: str
    status: str = "ok"  # "ok" | "error" | "denied"
    # Set by Bash when the sandbox explains a failure: the person may run it outside once.
    sandbox_failure: str | None = None
    # Images for a model that takes images (an MCP tool's, when `ToolContext.images`):
    # the session sends them as image parts after the step's tool results.
    images: tuple[Image, ...] = ()

    @property
    def ok(self) -> bool:
        return self.status == "ok"


@dataclass
class ToolContext:
    project_dir: Path
    extra_roots: tuple[Path, ...] = ()
    bash_timeout: float = 120.0
    output_cap: int = 30_000
    env: dict[str, str] = field(default_factory=dict)
    # Bash runs inside this bubblewrap policy (tools/sandbox.py) when set; None runs it bare.
    sandbox: SandboxPolicy | str | None = None  # a str: required, but it cannot run here
    # A deny-rule check on project-relative paths (Read/Edit denies), for the sandbox's masks.
    path_denied: Callable[[str], str | None] | None = None
    # Shown a running tool's output as it arrives (Bash): whole lines, display-safe text
    # (tools/live_output.py), at most about ten calls a second. For the screen only; the
    # ToolResult is the same with or without it. The session sets it for each call.
    progress: Callable[[str], None] | None = None
    # The session's model takes images: a tool may return some (`ToolResult.images`).
    images: bool = False


class ToolError(Exception):
    """An expected failure, in plain words for the model (the registry adds "<Tool> failed: ")."""


class PathOutsideProject(ToolError):
    pass


class Tool(abc.ABC):
    name: str
    description: str
    parameters: dict[str, Any]  # a JSON Schema object
    read_only: bool = False

    @abc.abstractmethod
    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult: ...

    def schema(self) -> dict[str, Any]:
        """The OpenAI function-tool format."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }

    def approval_subject(self, args: Mapping[str, Any], ctx: ToolContext | None = None) -> str:
        """What a permission pattern is matched against (see `codebot.agent.permissions.approvals`).

        Path tools return the project-relative path; pass `ctx` so that `..` and symlinks
        are resolved (without it the path is only normalised lexically).
        """
        return ""

    def approval_note(self) -> str:
        """What the question about a call adds (an MCP tool's unverified hints), or ""."""
        return ""


class PathTool(Tool):
    """A tool whose `path` argument is what permission patterns are matched against."""

    path_default = ""  # the subject when `path` is absent (Glob and Grep search the project)

    def approval_subject(self, args: Mapping[str, Any], ctx: ToolContext | None = None) -> str:
        return path_subject(args, ctx, default=self.path_default)


def object_schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    """The JSON Schema every tool uses for its arguments: an object, no unknown keys."""
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


# --------------------------------------------------------------------------- paths


def _real(path: Path | str) -> Path:
    return Path(os.path.realpath(os.path.expanduser(str(path))))


def _roots(ctx: ToolContext) -> list[Path]:
    return [_real(ctx.project_dir), *(_real(r) for r in ctx.extra_roots)]


def _inside(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


def resolve_path(ctx: ToolContext, path: str) -> Path:
    """`path` (relative to the project, `~` expanded) with `..` and symlinks resolved.

    Raises PathOutsideProject unless the result lies inside the project folder or one of
    `ctx.extra_roots`. The file itself need not exist.
    """
    if not isinstance(path, str) or not path.strip():
        raise ToolError("path must not be empty")
    if "\x00" in path:
        raise ToolError("path must not contain NUL characters")
    raw = Path(os.path.expanduser(path))
    if not raw.is_absolute():
        raw = Path(ctx.project_dir) / raw
    real = _real(raw)
    roots = _roots(ctx)
    if any(_inside(real, root) for root in roots):
        return real
    shown = path if real == Path(os.path.abspath(raw)) else f"{path} (resolves to {real})"
    raise PathOutsideProject(
        f"path {shown} is outside the project {roots[0]}; ask the user to allow it with --add-dir"
    )


def display_path(ctx: ToolContext, real: Path) -> str:
    """How a resolved path is shown to the model: project-relative when inside, else absolute."""
    root = _real(ctx.project_dir)
    if _inside(real, root):
        return real.relative_to(root).as_posix() or "."
    return real.as_posix()


def subject_path(path: str, ctx: ToolContext | None = None) -> str:
    """The approval subject for a path argument: project-relative (posix) when inside the
    project, absolute otherwise. With `ctx`, `..` and symlinks are resolved as at run time."""
    if not isinstance(path, str) or not path:
        return ""
    if ctx is not None:
        raw = Path(os.path.expanduser(path))
        if not raw.is_absolute():
            raw = Path(ctx.project_dir) / raw
        return display_path(ctx, _real(raw))
    norm = posixpath.normpath(os.path.expanduser(path).replace(os.sep, "/"))
    return norm


def path_subject(
    args: Mapping[str, Any], ctx: ToolContext | None, key: str = "path", default: str = ""
) -> str:
    """`approval_subject` for a tool whose `key` argument is a path (`default` when absent)."""
    value = args.get(key) or default
    return subject_path(value, ctx) if isinstance(value, str) else ""


def is_binary(chunk: bytes) -> bool:
    """Whether the start of a file looks binary: it holds a NUL byte."""
    return b"\x00" in chunk


# --------------------------------------------------------------------------- registry


def _error_location(tool: str, err: ValidationError) -> str:
    loc = tool
    for part in err.absolute_path:
        loc += f"[{part}]" if isinstance(part, int) else f".{part}"
    return loc


class ToolRegistry:
    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self._validators: dict[str, Validator] = {}
        #: a plain schema's fast yes (`arg_check`), None for the others
        self._fast: dict[str, Callable[[Mapping[str, object]], bool] | None] = {}
        for tool in tools:
            self.add(tool)

    def add(self, tool: Tool) -> None:
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool
        self._validators.pop(tool.name, None)
        self._fast.pop(tool.name, None)

    def remove(self, name: str) -> None:
        """Forget a tool (an MCP server's tool that is gone); no error when unknown."""
        self._tools.pop(name, None)
        self._validators.pop(name, None)
        self._fast.pop(name, None)

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self):
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def names(self) -> list[str]:
        return list(self._tools)

    def schemas(self, hidden: Collection[str] = ()) -> list[dict[str, Any]]:
        return [t.schema() for t in self._tools.values() if t.name not in hidden]

    def _validator(self, tool: Tool) -> Validator:
        v = self._validators.get(tool.name)
        if v is None:
            import jsonschema.validators  # lazy: only needed once a tool is actually called

            cls = jsonschema.validators.validator_for(
                tool.parameters, default=jsonschema.Draft202012Validator
            )
            v = self._validators[tool.name] = cls(tool.parameters)
        return v

    def parse_arguments(
        self, name: str, raw_arguments: str | Mapping[str, Any] | None
    ) -> dict[str, Any] | ToolResult:
        """Parse and validate; returns the argument dict or an error ToolResult."""
        tool = self._tools.get(name)
        if tool is None:
            available = ", ".join(self._tools) or "(none)"
            return ToolResult(f"unknown tool {name!r}; available tools: {available}", "error")
        if raw_arguments is None:
            args: Any = {}
        elif isinstance(raw_arguments, str):
            if not raw_arguments.strip():
                args = {}
            else:
                try:
                    args = json.loads(raw_arguments)
                except (json.JSONDecodeError, RecursionError) as e:
                    snippet = (
                        raw_arguments if len(raw_arguments) <= 200 else raw_arguments[:200] + "…"
                    )
                    return ToolResult(
                        f"{name}: the arguments were not valid JSON ({e}); send one JSON object "
                        f"matching the tool's parameters. Received: {snippet}",
                        "error",
                    )
        else:
            args = raw_arguments
        if not isinstance(args, Mapping):
            return ToolResult(
                f"{name}: the arguments must be a JSON object, not {type(args).__name__}", "error"
            )
        args = dict(args)
        if tool.name not in self._fast:
            from codebot.agent.tools.arg_check import fast_check

            self._fast[tool.name] = fast_check(tool.parameters)
        fast = self._fast[tool.name]
        if fast is not None and fast(args):  # surely valid: jsonschema would say the same
            return args
        validator = self._validator(tool)
        errors = sorted(
            validator.iter_errors(args), key=lambda e: (list(map(str, e.absolute_path)), e.message)
        )
        if errors:
            lines = [f"{_error_location(name, e)}: {e.message}" for e in errors[:5]]
            if len(errors) > 5:
                lines.append(f"... and {len(errors) - 5} more problems")
            props = tool.parameters.get("properties", {})
            required = set(tool.parameters.get("required", ()))
            if props:
                shown = ", ".join(p if p in required else p + "?" for p in props)
                lines.append(f"(expected {name}{{{shown}}})")
            return ToolResult("\n".join(lines), "error")
        return args

    def invalid(self, name: str, args: str | Mapping[str, Any] | None) -> str | None:
        """The problem with a call's arguments (unknown tool, bad JSON, schema), or None."""
        try:
            parsed = self.parse_arguments(name, args)
        except Exception as e:
            return f"{name}: could not check the arguments: {type(e).__name__}: {e}"
        return parsed.content if isinstance(parsed, ToolResult) else None

    async def call(
        self, name: str, raw_arguments: str | Mapping[str, Any] | None, ctx: ToolContext
    ) -> ToolResult:
        """Run a tool call. Never raises, except asyncio.CancelledError (and KeyboardInterrupt)."""
        try:
            parsed = self.parse_arguments(name, raw_arguments)
        except Exception as e:  # a broken schema, say: still never raise into the loop
            return ToolResult(
                f"{name} failed: could not check the arguments: {type(e).__name__}: {e}", "error"
            )
        if isinstance(parsed, ToolResult):
            return parsed
        tool = self._tools[name]
        try:
            result = await tool.run(parsed, ctx)
        except ToolError as e:
            return ToolResult(f"{name} failed: {e}", "error")
        except Exception as e:
            detail = str(e) or type(e).__name__
            if isinstance(e, OSError) or not str(e):
                detail = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
            return ToolResult(f"{name} failed: {detail}", "error")
        if not isinstance(result, ToolResult):
            return ToolResult(
                f"{name} failed: the tool returned {type(result).__name__}, not a ToolResult",
                "error",
            )
        return result
