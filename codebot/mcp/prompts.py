"""A connected server's prompts as slash commands (docs/mcp.md, issue 34 §5).

- `list_prompts(session)` reads every page of `prompts/list` (at connect, and again on
  `notifications/prompts/list_changed`) into `RemotePrompt`s; a server that does not
  declare the `prompts` capability has none (it is not asked).
- `command_names(prompts)`: each prompt is `/mcp__<server>__<prompt>`, sanitised like a
  tool's name (`names.tool_names`: the same characters, 64 at most, clashes get `_2`).
- `bind(prompt, args)`: what the person typed after the command, as the prompt's declared
  arguments: `name=value` words for a declared name, the other words positional in the
  declared order (the last argument takes the rest of the line); shell quoting groups
  words; a `word=...` whose word is no declared name is a positional value. A required
  argument left out, words left over, or a quote left open is an `ArgumentError` naming it.
- `render(prompt, result)`: `prompts/get`'s messages as the text that enters the
  conversation, inside a `<skill>` block like an inline skill's body; the server's text is
  untrusted: control characters dropped and codebot's tags escaped; an image, audio or a
  resource becomes a one-line note.
- `hint(prompt)`: its arguments for completion, `<required> [optional]`.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from codebot.mcp.names import tool_names

if TYPE_CHECKING:
    from mcp.client.session import ClientSession

__all__ = [
    "ArgumentError",
    "PromptArg",
    "RemotePrompt",
    "bind",
    "command_names",
    "hint",
    "list_prompts",
    "render",
    "shown",
]

#: The most prompts read from one server, and pages of `prompts/list`.
MAX_PROMPTS = 1000
MAX_PAGES = 100
#: The most characters of a prompt's rendered text that enter the conversation.
TEXT_MAX = 100_000
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


@dataclass(frozen=True)
class PromptArg:
    name: str
    description: str = ""
    required: bool = False


@dataclass(frozen=True)
class RemotePrompt:
    """One prompt as its server lists it."""

    server: str
    name: str
    description: str = ""
    arguments: tuple[PromptArg, ...] = ()


class ArgumentError(ValueError):
    """The typed arguments do not fit the prompt (the message names the argument)."""


def untrusted(text: str) -> str:
    """A server's text as the model is shown it: no control characters, tags escaped."""
    from codebot.skills.invoke import escape_tags

    return escape_tags(_CONTROL.sub("", text))


def shown(text: str, limit: int = 200) -> str:
    """A server's text on one line of the screen (a hint, a description, a name)."""
    one = " ".join(_CONTROL.sub(" ", text).split())
    return one if len(one) <= limit else one[: limit - 1] + "…"


async def list_prompts(session: ClientSession, server: str) -> tuple[RemotePrompt, ...]:
    """Every page of the server's `prompts/list` (none when it declares no `prompts`)."""
    from mcp_types import PaginatedRequestParams

    caps = getattr(session, "server_capabilities", None)
    if caps is not None and getattr(caps, "prompts", None) is None:
        return ()
    found: list[RemotePrompt] = []
    cursor = None
    for _ in range(MAX_PAGES):
        params = PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_prompts(params=params)
        for p in page.prompts:
            args = tuple(
                PromptArg(a.name, a.description or "", bool(a.required))
                for a in (p.arguments or ())
            )
            found.append(RemotePrompt(server, p.name, p.description or "", args))
        cursor = page.next_cursor
        if not cursor or len(found) >= MAX_PROMPTS:
            break
    return tuple(found[:MAX_PROMPTS])


def command_names(prompts: Iterable[RemotePrompt]) -> dict[str, RemotePrompt]:
    """{`mcp__<server>__<prompt>`: the prompt}, in the servers' order."""
    listed = list(prompts)
    names = tool_names((p.server, p.name) for p in listed)
    return {names[(p.server, p.name)]: p for p in listed}


def hint(prompt: RemotePrompt) -> str:
    """`<code> [language]`: the prompt's arguments, required ones in angle brackets."""
    return " ".join(
        f"<{shown(a.name, 40)}>" if a.required else f"[{shown(a.name, 40)}]"
        for a in prompt.arguments
    )


def bind(prompt: RemotePrompt, typed: str) -> dict[str, str]:
    """The typed arguments as the prompt's declared ones (see the module docstring)."""
    declared = [a.name for a in prompt.arguments]
    try:
        words = shlex.split(typed)
    except ValueError as exc:  # an unbalanced quote
        raise ArgumentError(f"cannot read the arguments ({exc}); quote each value once") from None
    named: dict[str, str] = {}
    loose: list[str] = []
    for word in words:
        key, eq, value = word.partition("=")
        if eq and key in declared:
            named[key] = value
        else:
            loose.append(word)
    free = [n for n in declared if n not in named]
    if loose and not free:
        if not declared:
            raise ArgumentError("takes no arguments")
        raise ArgumentError(
            f"too many arguments: {shown(' '.join(loose), 80)!r} is left over "
            f"(its arguments are {', '.join(declared)})"
        )
    for i, name in enumerate(free):
        if i >= len(loose):
            break
        named[name] = " ".join(loose[i:]) if i == len(free) - 1 else loose[i]
    missing = [a.name for a in prompt.arguments if a.required and a.name not in named]
    if missing:
        usage = hint(prompt)
        raise ArgumentError(
            f"missing required argument{'s' if len(missing) > 1 else ''} "
            f"{', '.join(shown(m, 40) for m in missing)} (usage: {usage}, or NAME=VALUE)"
        )
    return named


def _part(content: Any) -> str:
    kind = getattr(content, "type", "")
    if kind == "text":
        return untrusted(str(getattr(content, "text", "")))
    if kind in ("image", "audio"):
        mime = shown(str(getattr(content, "mime_type", "") or "unknown type"), 60)
        data = getattr(content, "data", "")
        size = len(data) * 3 // 4 if isinstance(data, str) else 0
        return f"[{kind} {mime}, {size:,} bytes; not included]"
    if kind == "resource":
        uri = shown(str(getattr(getattr(content, "resource", None), "uri", "")), 200)
        return f"[resource {escape(uri)}; not included]"
    if kind == "resource_link":
        return f"[resource link {escape(shown(str(getattr(content, 'uri', '')), 200))}]"
    return f"[content of type {shown(str(kind), 40) or 'unknown'} not included]"


def escape(text: str) -> str:
    from codebot.skills.invoke import escape_tags

    return escape_tags(text)


def render(command: str, prompt: RemotePrompt, result: Any, args: Mapping[str, str]) -> str:
    """The messages of `prompts/get` (`GetPromptResult`) as the conversation's text."""
    from codebot.skills.invoke.escape import attr

    lines: list[str] = []
    for message in getattr(result, "messages", None) or ():
        role = shown(str(getattr(message, "role", "user")), 20)
        lines.append(f"[{escape(role)}]\n{_part(getattr(message, 'content', None))}")
    body = "\n\n".join(lines) if lines else "(the prompt has no messages)"
    if len(body) > TEXT_MAX:
        body = body[: TEXT_MAX - 1] + "…"
    given = ", ".join(f"{k}={v}" for k, v in args.items())
    head = (
        f'<skill name="{attr(command)}" source="mcp-prompt:{attr(prompt.server)}"'
        f' prompt="{attr(prompt.name)}"'
        + (f' arguments="{attr(_CONTROL.sub("", given))}"' if given else "")
        + ">"
    )
    return f"{head}\n{body}\n</skill>"


def describe(prompts: Sequence[RemotePrompt]) -> str:
    """For errors: the prompts known, by command."""
    return ", ".join("/" + n for n in command_names(prompts)) or "none"
