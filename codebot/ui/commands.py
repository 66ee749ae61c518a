"""Slash commands shared by every front end: built-ins, skill completion, parsing.

`BUILTINS` is the one table of built-in commands: name, argument hint, help, the
`Controller` method that handles it and how a front end runs it. A handler returns a
`Reply` (text and an `Action`); the TUI and line mode only show the text and perform the
action, so neither decides which command exists or what it means.

Built-ins win over skills with the same name (the skill is reported as shadowed by the
built-in). Completion lists built-ins and the skills the *person* may invoke, ordered by
usage, each with its argument hint and description, fuzzy matched.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from codebot.display import strip_escapes
from codebot.skills.files import Spec, normalize_name
from codebot.skills.invoke import Actor, eligible


class Front(enum.Enum):
    """The front end a command runs in: what `/help` lists and which keys it names."""

    TUI = "tui"
    LINE = "line"  # line mode at a terminal
    PLAIN = "plain"  # line mode reading a pipe: one message per line


class Action(enum.Enum):
    """What a front end does with a built-in's reply, besides showing its text."""

    NONE = enum.auto()  # show the text
    EXIT = enum.auto()  # quit
    CLEAR = enum.auto()  # the conversation was cleared: empty the view, then the text
    COMPACT = enum.auto()  # run `controller.compact(reply.arg)` as a turn (cancellable)
    OPEN_SKILLS = enum.auto()  # the skills browser (line mode: the table), filtered by reply.arg
    SKILLS_CHANGED = enum.auto()  # an override was saved: the text, then refresh skill lists
    SKILLS_RELOADED = enum.auto()  # /reload ran: the text (the TUI also toasts it), refresh
    PICK_MODEL = enum.auto()  # the text lists the models; the TUI opens its picker
    MODEL_SWITCHED = enum.auto()  # a new client: the text, then warm it up
    PICK_SESSION = (
        enum.auto()
    )  # the text lists the sessions; each front end's picker runs /resume ID
    RESUMED = enum.auto()  # another session replaced this one: show its history instead of the text
    OPEN_TRANSCRIPT = enum.auto()  # the whole session: a screen in the TUI, the text in line mode
    TURN = enum.auto()  # the text, then `reply.arg` is sent to the model as a turn (cancellable)


@dataclass(frozen=True, slots=True)
class Reply:
    """The outcome of a built-in: text to show, an action, and the action's argument."""

    text: str = ""
    action: Action = Action.NONE
    arg: str = ""  # the filter of OPEN_SKILLS, the focus of COMPACT


@dataclass(frozen=True, slots=True)
class Command:
    """One built-in. `handler` names the `Controller` method (`(args) -> Reply`) that
    decides what it does; `codebot.ui.builtins.HANDLERS` resolves every name at import."""

    name: str
    hint: str
    help: str
    handler: str
    runs_turn: bool = False  # sends a model request: runs as a turn (busy, Ctrl+C cancels)
    not_while_busy: bool = False  # refused while a turn runs (the TUI accepts input then)
    off_loop: bool = False  # may import a client, rescan folders or read files: a thread in the TUI
    view: bool = False  # opens a view: the TUI does not echo it into the conversation
    background: bool = False  # may take seconds (connects to servers): the TUI keeps taking input
    tui_only: bool = False
    line_only: bool = False

    def available(self, front: Front) -> bool:
        return not (self.tui_only and front is not Front.TUI) and not (
            self.line_only and front is Front.TUI
        )


BUILTINS: tuple[Command, ...] = (
    Command("help", "", "show commands, skills and keys", "cmd_help"),
    Command(
        "skills", "[filter]", "browse skills: sources, shadowing, diagnostics, on/off", "cmd_skills"
    ),
    Command(
        "reload",
        "",
        "rescan every skill folder now",
        "cmd_reload",
        not_while_busy=True,
        off_loop=True,
    ),
    Command(
        "model",
        "[name]",
        "show, pick or switch the model for this session",
        "cmd_model",
        not_while_busy=True,
        off_loop=True,
    ),
    Command(
        "clear",
        "",
        "start a fresh conversation (the old one stays in its transcript)",
        "cmd_clear",
        not_while_busy=True,
    ),
    Command(
        "context",
        "",
        "how full the context is: system, tools, listing, skills, conversation",
        "cmd_context",
    ),
    Command(
        "compact",
        "[focus]",
        "summarize the conversation now, keeping the skills in force",
        "cmd_compact",
        runs_turn=True,
        not_while_busy=True,
    ),
    Command("usage", "", "tokens and cost so far", "cmd_usage"),
    Command("exit", "", "quit codebot", "cmd_exit"),
    Command(
        "sandbox", "", "whether Bash commands run inside the bubblewrap sandbox", "cmd_sandbox"
    ),
    Command(
        "hooks", "", "the hooks configured: event, matcher, command, source, state", "cmd_hooks"
    ),
    Command(
        "resume",
        "[id]",
        "switch to another saved session of this project",
        "cmd_resume",
        off_loop=True,
    ),
    Command(
        "local",
        "[model]",
        "look for a local server again and use it (Ollama, llama.cpp, LM Studio)",
        "cmd_local",
        off_loop=True,
    ),
    Command(
        "transcript",
        "",
        "the whole session: every message, tool call with its full result, compaction",
        "cmd_transcript",
        off_loop=True,
        view=True,
    ),
    Command(
        "written",
        "[accept PATH|all · revert PATH]",
        "files codebot's agent wrote among skills, config and instructions: review, accept, revert",
        "cmd_written",
    ),
    Command(
        "mcp",
        "[probe | reconnect NAME]",
        "MCP servers: source, approval, ready/failed with tool, prompt and skill counts",
        "cmd_mcp",
        off_loop=True,
        background=True,
    ),
    Command(
        "init",
        "[--force] [--draft]",
        "write a starting AGENTS.md from the repository (then the model improves it)",
        "cmd_init",
        not_while_busy=True,
        off_loop=True,
    ),
)
BY_NAME: dict[str, Command] = {c.name: c for c in BUILTINS}
BUILTIN_NAMES = frozenset(BY_NAME)

# The keys each front end binds (the TUI's are its `CodebotApp.BINDINGS` and the prompt's).
KEYS = {
    Front.TUI: "Keys: Enter send · Shift+Enter or Ctrl+J new line · Up/Down history · "
    "Ctrl+P palette · Ctrl+O expand/collapse the latest result · "
    "Ctrl+T transcript of the session · Esc cancel the turn, or close a picker or dialog · "
    "Ctrl+C cancel turn (twice to quit) · Ctrl+D quit",
    Front.LINE: "Keys: Enter send · Esc Enter or Ctrl+J new line · Up/Down history · "
    "Tab complete · Ctrl+C cancel the turn (twice on an empty prompt to quit; Esc does not "
    "cancel here) · Ctrl+D quit",
    Front.PLAIN: "Input: one message per line; end of input quits.",
}
SKILLS_HELP = (
    "Skills: type / and a name (Tab completes), e.g. /review src/. "
    "The model also picks skills itself."
)


def help_text(front: Front) -> str:
    """`/help`: the built-ins this front end has, from the table, then skills and keys."""
    lines = ["Commands:"]
    lines += [
        f"  /{c.name}{' ' + c.hint if c.hint else ''}  — {c.help}"
        for c in BUILTINS
        if c.available(front)
    ]
    return "\n".join([*lines, "", SKILLS_HELP, KEYS[front]])


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


def complete(
    prefix: str,
    specs: Sequence[Spec],
    usage: Mapping[str, float],
    overrides: Mapping[str, str] | None = None,
    limit: int = 50,
    front: Front = Front.TUI,
    more: Sequence[Completion] = (),
) -> list[Completion]:
    """Completions for what the person typed after `/` (without the slash); `more` are
    further commands (MCP prompts), matched like skills."""
    query = prefix.strip().lower()
    items: list[tuple[float, float, int, str, Completion]] = []
    for i, cmd in enumerate(BUILTINS):
        s = fuzzy_score(query, cmd.name) if cmd.available(front) else None
        if s is not None:
            items.append(
                (
                    s,
                    1e9 if not query else 0.0,
                    i,
                    cmd.name,
                    Completion(cmd.name, cmd.hint, cmd.help, "builtin"),
                )
            )
    for spec, _ in eligible(specs, Actor.HUMAN, overrides):
        if spec.key in BUILTIN_NAMES:
            continue  # shadowed by the built-in
        s = fuzzy_score(query, spec.name)
        if s is None:
            continue
        items.append(
            (
                s,
                usage.get(spec.key, 0.0),
                1000,
                spec.name,
                # hint and description come from a skill file: no escape sequences on screen
                Completion(
                    spec.name,
                    strip_escapes(spec.argument_hint or ""),
                    strip_escapes(spec.description),
                    "skill",
                    spec.source.value,
                ),
            )
        )
    for c in more:
        if (s := fuzzy_score(query, c.name)) is not None:
            items.append((s, 0.0, 1001, c.name, c))
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
