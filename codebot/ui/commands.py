"""Slash commands shared by every front end: built-ins, skill completion, parsing.

Built-ins win over skills with the same name (the skill is reported as shadowed by the
built-in). Completion lists built-ins and the skills the *person* may invoke, ordered by
usage, each with its argument hint and description, fuzzy matched.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from codebot.display import strip_escapes
from codebot.skills.files import Spec, normalize_name
from codebot.skills.invoke import Actor, eligible


@dataclass(frozen=True, slots=True)
class Command:
    name: str
    hint: str
    help: str


BUILTINS: tuple[Command, ...] = (
    Command("help", "", "show commands, skills and keys"),
    Command("skills", "[filter]", "browse skills: sources, shadowing, diagnostics, on/off"),
    Command("reload", "", "rescan every skill folder now"),
    Command("model", "[name]", "show, pick or switch the model for this session"),
    Command("clear", "", "start a fresh conversation (the old one stays in its transcript)"),
    Command("context", "", "how full the context is: system, tools, listing, skills, conversation"),
    Command("compact", "[focus]", "summarize the conversation now, keeping the skills in force"),
    Command("usage", "", "tokens and cost so far"),
    Command("exit", "", "quit codebot"),
    Command("sandbox", "", "whether Bash commands run inside the bubblewrap sandbox"),
    Command("resume", "[id]", "switch to another saved session of this project"),
    Command("local", "[model]", "use the local server found at start (Ollama, llama.cpp, LM Studio)"),
    Command("transcript", "", "the whole session: every message, tool call with its full result, compaction"),
    Command("written", "[accept PATH|all · revert PATH]",
            "files codebot's agent wrote among skills, config and instructions: review, accept, revert"),
)
BUILTIN_NAMES = frozenset(c.name for c in BUILTINS)


@dataclass(frozen=True, slots=True)
class Completion:
    name: str
    hint: str
    description: str
    kind: str  # "builtin" | "skill"
    source: str = ""


@dataclass(frozen=True, slots=True)
class Parsed:
    kind: str  # "builtin" | "skill" | "text"
    name: str = ""
    args: str = ""


def parse(text: str) -> Parsed:
    """`/help` → builtin; `/review src/` → skill; anything else (or `//x`) → plain text."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//") or len(stripped) == 1:
        return Parsed("text", args=text)
    name, _, args = stripped[1:].partition(" ")
    if name.lower() in BUILTIN_NAMES:
        return Parsed("builtin", name.lower(), args.strip())
    return Parsed("skill", name, args.strip())


def fuzzy_score(query: str, candidate: str) -> float | None:
    """Prefix beats substring beats in-order subsequence; None when the letters are not there."""
    q, c = query.lower(), candidate.lower()
    if not q:
        return 0.0
    if c.startswith(q):
        return 3.0 + len(q) / max(len(c), 1)
    if q in c:
        return 2.0 + len(q) / max(len(c), 1)
    pos = 0
    gaps = 0
    for ch in q:
        found = c.find(ch, pos)
        if found < 0:
            return None
        gaps += found - pos
        pos = found + 1
    return 1.0 / (1 + gaps)


def complete(prefix: str, specs: Sequence[Spec], usage: Mapping[str, float],
             overrides: Mapping[str, str] | None = None, limit: int = 50) -> list[Completion]:  # fmt: skip
    """Completions for what the person typed after `/` (without the slash)."""
    query = prefix.strip().lower()
    items: list[tuple[float, float, int, str, Completion]] = []
    for i, cmd in enumerate(BUILTINS):
        s = fuzzy_score(query, cmd.name)
        if s is not None:
            items.append((s, 1e9 if not query else 0.0, i, cmd.name, Completion(cmd.name, cmd.hint, cmd.help, "builtin")))
    for spec, _ in eligible(specs, Actor.HUMAN, overrides):
        if spec.key in BUILTIN_NAMES:
            continue  # shadowed by the built-in
        s = fuzzy_score(query, spec.name)
        if s is None:
            continue
        items.append((s, usage.get(spec.key, 0.0), 1000, spec.name,
                      # hint and description come from a skill file: no escape sequences on screen
                      Completion(spec.name, strip_escapes(spec.argument_hint or ""), strip_escapes(spec.description),
                                 "skill", spec.source.value)))  # fmt: skip
    items.sort(key=lambda t: (-t[0], -t[1], t[2], t[3]))
    return [t[4] for t in items[:limit]]


MAX_STACK = 5  # skills in one `/a /b args` message (the session enforces it too)


def stacked_query(before_cursor: str) -> tuple[int, str] | None:
    """`/review /te` → (8, "te"): the person is typing a further skill of a stack, which
    begins at that offset. None when the line is not a stack of `/name` words so far (a
    built-in first, a path such as `/tmp/x`, arguments already typed, five skills)."""
    if not before_cursor.startswith("/") or before_cursor.startswith("//"):
        return None
    words = before_cursor.split(" ")
    last = words[-1]
    if not 2 <= len(words) <= MAX_STACK or not last.startswith("/") or "/" in last[1:]:
        return None
    if any(len(w) < 2 or not w.startswith("/") or "/" in w[1:] for w in words[:-1]):
        return None
    if words[0][1:].lower() in BUILTIN_NAMES:
        return None
    return len(before_cursor) - len(last), last[1:]


def shadowed_by_builtin(spec: Spec) -> bool:
    return normalize_name(spec.name) in BUILTIN_NAMES
