"""Line mode as text: session events, tool calls and the skills table as plain lines.

No prompt-toolkit here (and no terminal): a `Sink` takes text, `Renderer` turns events
into it. Kept apart from `line.py` so it can be tested and reused without a terminal.
"""

from __future__ import annotations

import shutil
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from codebot.agent.session import events as ev
from codebot.display import command_lines, has_hidden, strip_escapes, visible
from codebot.skills.catalog.hosts import family_label
from codebot.skills.catalog.lookalike import lookalike_note
from codebot.skills.files import Spec
from codebot.ui import commands
from codebot.ui.activation import ended_line, skill_line
from codebot.ui.approval_reason import always_line, why_asked
from codebot.ui.calls import tool_summary
from codebot.ui.change_diff import SHOWN_LINES, change_diff
from codebot.ui.line.wrap import Wrapper, wrap_text
from codebot.ui.workflow_steps import step_line

if TYPE_CHECKING:
    from codebot.agent.permissions import ApprovalRequest
    from codebot.skills.catalog import Change
    from codebot.skills.files import Spec
    from codebot.skills.watch import SkillWatcher
    from codebot.ui.controller import Controller

OVERRIDE_HELP = "/skills off NAME · /skills on NAME · /skills user-only|model-only|name-only NAME"


def width() -> int:
    return max(40, shutil.get_terminal_size((100, 24)).columns)


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(limit - 1, 1)] + "…"


def first_line(text: str) -> str:
    for line in str(text).splitlines():
        if line.strip():
            return line.strip()
    return ""


def one_line(text: str) -> str:
    """Whitespace (newlines included) collapsed to single spaces."""
    return " ".join(str(text).split())


class Sink:
    """Where line mode writes. `stream=None` means `sys.stdout` looked up at each write, so
    prompt-toolkit's `patch_stdout` (which swaps `sys.stdout`) puts the text above the prompt.
    Thread-safe: the skill watcher writes from its own thread.

    `columns`: the terminal's width when the text goes to a terminal, else None: prose is
    word-wrapped to it (`wrap_width`), and not wrapped at all for a pipe or a log."""

    def __init__(
        self, stream: TextIO | None = None, columns: Callable[[], int] | None = None
    ) -> None:
        self._stream = stream
        self._lock = threading.RLock()
        self.at_line_start = True
        self.columns = columns

    def wrap_width(self) -> int | None:
        """Where prose breaks: one short of the last column, where some terminals wrap early."""
        if self.columns is None:
            return None
        try:
            return max(20, self.columns() - 1)
        except (OSError, ValueError):
            return None

    def write(self, text: str) -> None:
        if not text:
            return
        with self._lock:
            self._put(text)
            self.at_line_start = text.endswith("\n")

    def _put(self, text: str) -> None:
        stream = self._stream if self._stream is not None else sys.stdout
        try:
            stream.write(text)
        except UnicodeEncodeError:
            enc = getattr(stream, "encoding", None) or "ascii"
            stream.write(text.encode(enc, errors="replace").decode(enc, errors="replace"))
        try:
            stream.flush()
        except (OSError, ValueError):
            pass

    def line(self, text: str = "") -> None:
        """`text` on a line of its own (ending whatever partial line is on screen)."""
        with self._lock:
            self.write(("" if self.at_line_start else "\n") + text + "\n")

    def end_line(self) -> None:
        with self._lock:
            if not self.at_line_start:
                self.write("\n")


# -- single lines ---------------------------------------------------------------------------


def tool_result(status: str, name: str, content: str) -> str:
    mark = "✓" if status == "ok" else "✗"
    text = first_line(content)
    if status == "ok" and name == "Skill" and text.startswith("<skill "):
        text = "skill instructions loaded"
    if status == "denied" and not text:
        text = "denied"
    return f"{mark} {text}".rstrip()


def error_line(e: ev.ErrorEvent) -> str:
    if e.kind in ("error", "skill", "tool", "unknown"):
        return f"error: {e.message}"
    return f"error ({e.kind}): {e.message}"


# -- events ---------------------------------------------------------------------------------


class Renderer:
    """Turns session events into lines on a `Sink`. Approval requests are not handled here."""

    def __init__(self, sink: Sink) -> None:
        self.sink = sink
        self._streamed = False

    @property
    def sink(self) -> Sink:
        return self._sink

    @sink.setter
    def sink(self, sink: Sink) -> None:
        # The answer goes through a word wrapper (a no-op unless the sink is a terminal).
        self._sink = sink
        self._answer = Wrapper(sink.write, sink.wrap_width)

    def prose(self, text: str) -> None:
        """A whole line of words (a notice, an error) on its own line, wrapped like the answer."""
        self._answer.flush()
        self.sink.line(wrap_text(text, self.sink.wrap_width()))

    def output(self, text: str, indent: str = "") -> None:
        """Lines a running tool printed, as they come: indented under its call, escape
        sequences stripped, each cut to the terminal's width (whole to a pipe or a log)."""
        columns = self.sink.wrap_width()
        lines = [
            f"{indent}  │ {strip_escapes(line).expandtabs(4)}".rstrip() for line in text.split("\n")
        ]
        self.sink.line("\n".join(clip(line, columns) if columns else line for line in lines))

    def begin_turn(self) -> None:
        self._streamed = False

    def end_turn(self) -> None:
        self._answer.flush()
        self.sink.end_line()
        self.sink.write("\n")

    def render(self, e: ev.Event) -> None:
        if isinstance(e, ev.TextDelta | ev.AssistantText):
            self._text(e)
            return
        self._answer.flush()  # a word held back for wrapping goes out before anything else
        sink = self.sink
        indent = "  " * getattr(e, "depth", 0)
        if isinstance(e, ev.ToolStarted):
            sink.line(clip(f"{indent}→ {tool_summary(e.name, e.arguments)}", width() - 1))
        elif isinstance(e, ev.ToolOutput):
            self.output(e.text, indent)
        elif isinstance(e, ev.ToolFinished):
            self._tool_finished(e, indent)
        elif isinstance(e, ev.SkillActivated):
            sink.line(f"{indent}{skill_line(e)}")
        elif isinstance(e, ev.WorkflowStep):
            sink.line(clip(f"{indent}{step_line(e)}", width() - 1))
        elif isinstance(e, ev.SkillEnded):
            sink.line(f"{indent}{ended_line(e)}")
        elif isinstance(e, ev.Notice):
            self.prose(("warning: " if e.level == "warning" else "note: ") + e.text)
        elif isinstance(e, ev.ErrorEvent):
            self.prose(error_line(e))
        elif isinstance(e, ev.TurnEnded) and e.cancelled:
            sink.line("(turn cancelled)")

    def _text(self, e: ev.TextDelta | ev.AssistantText) -> None:
        """The answer: streamed deltas, then the whole text (shown only if not streamed).
        A sub-agent's text (depth > 0) is not shown."""
        if e.depth != 0:
            return
        if isinstance(e, ev.TextDelta):
            self._streamed = True
            self._answer.write(e.text)
            return
        if not self._streamed and e.text:
            self._answer.write(e.text)  # not streamed (e.g. a forked skill's answer)
        self._answer.flush()
        self.sink.end_line()
        self._streamed = False

    def _tool_finished(self, e: ev.ToolFinished, indent: str) -> None:
        # After streamed output only the summary (`✓ exit code 0`): the lines are on screen.
        sink = self.sink
        sink.line(clip(f"{indent}  {tool_result(e.status, e.name, e.content)}", width() - 1))
        diff = change_diff(e.name, e.status, e.content, SHOWN_LINES)  # what an Edit/Write changed
        if diff:
            sink.line("\n".join(f"{indent}    {ln}" for ln in diff.split("\n")))


def question_notes(question: str) -> list[str]:
    """The warnings under a skill's question: hidden characters shown as escapes, words
    that pose as ASCII words in other scripts (`lookalike_note`)."""
    notes = []
    if has_hidden(question):
        notes.append("  [it contains hidden or control characters, shown above as escapes]")
    if said := lookalike_note(question):
        notes.append(f"  [look-alike characters: {visible(said)}]")
    return notes


def approval_text(request: ApprovalRequest) -> str:
    """What is asked about, printed whole above the question: a command as `command_lines`
    shows it (every line, runs of blank lines as one `⏎ ×N` line, so its first line is on
    screen with the question), other subjects whole; control, invisible or bidirectional
    characters as visible escapes; why it is asked, the preview and what "always" saves."""
    subject = str(request.subject or "")
    bash = request.tool == "Bash"
    outside = getattr(request, "outside_sandbox", None)
    head = f"? {request.tool} needs approval:"
    if request.tool == "SkillOutcome":  # a skill's question (`needs_confirmation`)
        head = f"? the skill {visible(subject)} asks:"
        question = str(request.arguments.get("question", ""))
        lines = [head, *("  " + ln for ln in visible(question).split("\n"))]
        return "\n".join(lines + question_notes(question))
    if outside is not None:
        head = f"? {request.tool} failed inside the sandbox: {visible(outside)}"
    shown = command_lines(subject).lines if bash else visible(subject).split("\n")
    lines = [head, *("  " + ln for ln in shown)]
    if has_hidden(subject):
        lines.append(
            "  [it contains hidden or control characters, shown above as \\x.. / \\u.... escapes]"
        )
    why = why_asked(getattr(request, "reason", ""))
    if why:
        lines.append(f"  why: {visible(why)}")
    preview = str(request.preview or "").rstrip("\n")
    if preview and preview != subject and not bash:  # a command's preview is the command
        lines.extend("  " + ln for ln in visible(preview).split("\n"))
    always = always_line(request)
    if always:
        lines.append(f"  {always}")
    return "\n".join(lines)


# -- /skills --------------------------------------------------------------------------------


def skill_state(spec: Spec, controller: Controller, active: frozenset[str]) -> str:
    override = controller.override_of(spec.key)
    if override != "on":
        return override
    flags = []
    if not spec.user_invocable:
        flags.append("model-only")
    if spec.disable_model_invocation or not spec.allow_implicit_invocation:
        flags.append("user-only")
    if spec.paths and spec.key not in active:
        flags.append("inactive")
    if spec.context == "fork":
        flags.append("fork")
    return ", ".join(flags) or "on"


def _shown(text: str) -> str:
    """A name or description from a skill file as one terminal-safe line: escape sequences
    removed, other controls shown escaped (a skill must not clear its own table row)."""
    return strip_escapes(one_line(text))


def _origin(spec: Spec) -> str:
    """`project/gemini`: the source and the host whose folder the skill came from."""
    return family_label(spec.root.family, spec.source.value)


def skills_table(controller: Controller, query: str = "") -> str:
    """Every skill with its source and state; shadowed ones say by what. `query` filters."""
    snap = controller.catalog.snapshot
    try:
        active = controller.session.active_keys()
    except Exception:
        active = frozenset()
    q = query.strip().lower()
    rows: list[tuple[str, str, str, str]] = []
    for spec in snap:
        if commands.shadowed_by_builtin(spec):
            state = f"shadowed by /{spec.key}"
        else:
            state = skill_state(spec, controller, active)
        rows.append((_shown(spec.name), _origin(spec), state, _shown(spec.description)))
    for sh in snap.shadowed:
        rows.append(
            (
                _shown(sh.spec.name),
                _origin(sh.spec),
                f"shadowed by {_origin(sh.winner)}",
                _shown(sh.spec.description),
            )
        )
    # `/skills user` or `/skills gemini`: a source or a host family alone is a filter too
    shown = [r for r in rows if not q or q in r[0].lower() or q in r[1].split("/")]
    if q and not shown:  # no name matches: look in the descriptions
        shown = [r for r in rows if q in r[3].lower()]
    if not rows:
        return (
            "no skills found. "
            "Put skills in .codebot/skills/<name>/SKILL.md (or use --skills-dir DIR)."
        )
    if not shown:
        return f"no skill matches {query.strip()!r} ({len(rows)} in all)"
    nw = min(28, max(len("name"), *(len(r[0]) for r in shown)))
    sw = max(len("source"), *(len(r[1]) for r in shown))
    tw = min(28, max(len("state"), *(len(r[2]) for r in shown)))  # "shadowed by project/opencode"
    w = width() - 1
    lines = [f"{'name':<{nw}}  {'source':<{sw}}  {'state':<{tw}}  description"]
    for name, source, state, desc in shown:
        lines.append(
            clip(f"{clip(name, nw):<{nw}}  {source:<{sw}}  {clip(state, tw):<{tw}}  {desc}", w)
        )
    count = (
        f"{len(shown)} of {len(rows)} skills" if len(shown) != len(rows) else f"{len(rows)} skills"
    )
    lines.append(f"{count} · change: {OVERRIDE_HELP}")
    problems = [d for d in snap.diagnostics if d.severity.value != "info"]
    if problems:
        lines.append(
            f"{len(problems)} problem(s) in skill files; run 'codebot skills validate' for details"
        )
    return "\n".join(lines)


def start_watcher(controller: Controller, sink: Sink) -> SkillWatcher | None:
    """Hot reload in a thread when `codebot.skills.watch.watcher` is there; each reload is one line
    (`skills: +1 ~0 −0 (12 loaded)`). None when there is no watcher or it cannot start."""
    try:
        from codebot.skills.watch import SkillWatcher
    except ImportError:
        return None

    def on_reload(change: Change | None = None, *_: object) -> None:
        if change is not None and hasattr(change, "added"):
            text, _shown = controller.reload_message(
                change
            )  # names what changed, new and fixed problems
            if text:
                sink.line(text)
        else:
            sink.line(f"skills reloaded ({controller.skill_count()} loaded)")

    try:
        watcher = SkillWatcher(controller.catalog, on_reload)
        watcher.run_in_thread()
    except Exception as exc:
        sink.line(f"warning: skills will not reload by themselves ({exc}); use /reload")
        return None
    return watcher
