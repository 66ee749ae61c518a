"""What the built-in commands report, as pure functions of what they are given:
`/usage`, `/context`, and what a reload changed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from codebot.config import Settings
from codebot.display import strip_escapes
from codebot.skills.catalog import Change

if TYPE_CHECKING:
    from codebot.skills.files import Diagnostic


def usage_report(total, by_model, local: frozenset[str] | set[str] = frozenset()) -> str:
    """`/usage`: tokens in and out and cost (litellm's price table), per model and in all;
    `local`: models served on this machine, which cost nothing."""

    def line(name: str, u) -> str:
        free = name in local or (name == "all models" and set(by_model) <= set(local))
        cost = (
            "local, no cost"  # whatever litellm's table says of a model of the same name
            if free
            else f"${u.cost:.4f}"
            if u.cost is not None
            else "cost unknown (not in litellm's price table)"
        )
        return f"  {name:<28} {u.prompt_tokens:>10,} in {u.completion_tokens:>9,} out   {cost}"

    lines = ["Usage this session:"] + [line(m, u) for m, u in sorted(by_model.items())]
    if len(by_model) != 1:
        lines.append(line("all models", total))
    return "\n".join(lines)


WINDOW_SOURCES = {
    "config": "from the config (model_context_window)",
    "litellm": "litellm's table",
    "default": "default: neither the server, litellm nor the config knows the model",
}


def window_words(source: str) -> str:
    """Where a window came from, in words (`resolve_window`'s source key)."""
    from codebot.agent.model.server_window import SOURCE_WORDS

    return WINDOW_SOURCES.get(source) or SOURCE_WORDS.get(source) or source


def context_report(use, session, settings: Settings) -> str:
    """`/context`: tokens by part against the window, the threshold, the last compaction."""

    def k(n: int) -> str:
        return f"{n / 1000:.1f}k" if n >= 1000 else str(n)

    lines = [
        f"Context: {use.total:,} of {use.window:,} tokens ({use.fraction:.0%}); "
        f"window {use.window:,} tokens ({window_words(use.source)})"
    ]
    for name, n in use.parts().items():
        if name == "instructions" and not n:
            continue
        row = f"  {name:<17}{n:>9,} tokens  {100 * n / use.window:5.1f}%  ({k(n)})"
        if name == "instructions":
            row += f"  {instruction_files(session, settings)}"
        lines.append(row)
    comp = settings.compaction
    auto = f"at {comp.threshold:.0%} of the window" if comp.auto else "off (compaction.auto: false)"
    lines.append(f"  automatic compaction: {auto}; /compact [focus] compacts now")
    in_force = {s.key: s.name for s in session.in_force}
    if in_force:
        lines.append(f"  skills in force: {', '.join(in_force.values())}")
    if session.last_compaction is not None:
        lines.append(f"  {session.last_compaction.describe()}")
    mcp = getattr(getattr(session, "toolset", None), "mcp", None)
    if mcp is not None:  # MCP servers, their tools, deferred and renamed ones
        from codebot.display import visible

        lines += [f"  {visible(line)}" for line in mcp.summary()]
    if not settings.trusted:
        lines.append(
            f"  untrusted: {settings.project_dir} (project config limited, project skills run no "
            "commands; `codebot trust` to change)"
        )
    return "\n".join(lines)


def instruction_files(session, settings: Settings) -> str:
    """The instruction files in force, relative to the project (else home-short), escaped."""
    from codebot.display import home_short, visible

    source = getattr(getattr(session, "toolset", None), "instructions", None)
    if source is None:
        return ""
    shown = []
    for path in source.current().paths:
        try:
            shown.append(str(path.relative_to(settings.project_dir)))
        except ValueError:
            shown.append(home_short(str(path)))
    return visible(", ".join(shown))


def format_change(change: Change, total: int, problems: Sequence[Diagnostic] = ()) -> str:
    """`skills: +1 ~0 −0 (12 loaded) · + new-skill`, and the new problems with file, line
    and fix (a skill file that no longer parses is a problem, not a silent −1)."""
    from codebot.skills.validate import count_of

    head = (
        f"skills: +{len(change.added)} ~{len(change.changed)} −{len(change.removed)} ({total} "
        "loaded)"
    )
    names = [
        *(f"+ {n}" for n in change.added),
        *(f"~ {n}" for n in change.changed),
        *(f"− {n}" for n in change.removed),
    ]
    if names:
        more = f" and {len(names) - 5} more" if len(names) > 5 else ""
        head += " · " + ", ".join(names[:5]) + more
    if problems:
        head += f"\n{count_of(len(problems), 'new problem')}:"
        head += "".join(f"\n  {d.format()}" for d in problems[:5])
    return strip_escapes(head)


def new_problems(before: Sequence[Diagnostic], after: Sequence[Diagnostic]) -> list[Diagnostic]:
    """Diagnostics in `after` that were not in `before` (by file, line, code, message)."""
    seen = {(d.path, d.line, d.code, d.message) for d in before}
    return [d for d in after if (d.path, d.line, d.code, d.message) not in seen]
