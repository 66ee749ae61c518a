"""What every interactive front end shares: the catalog, the session, built-in commands.

The TUI and line mode render events and collect keys; this object does the rest, so the
two behave the same and both stay thin.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from codebot.config import OVERRIDE_VALUES, Settings
from codebot.display import strip_escapes
from codebot.home import private_dir, private_temp
from codebot.skills.catalog import Change
from codebot.ui import commands


@dataclass(frozen=True, slots=True)
class Reply:
    """The outcome of a built-in command: text to show, and an action for the front end."""

    text: str = ""
    action: str | None = None  # "exit" | "skills" | "clear" | None


class Controller:
    def __init__(self, settings: Settings, *, emit: Callable[[Any], None] | None = None, client=None,
                 interactive: bool = True, allow: Sequence[str] = (), deny: Sequence[str] = (),
                 resume=None, extra_dirs: Sequence[Any] = ()) -> None:  # fmt: skip
        from codebot.agent.session import build_session
        from codebot.workspace import open_catalog

        self.settings = settings
        self.catalog = open_catalog(settings)
        self._emit = emit or (lambda _e: None)
        self.session = build_session(settings, self.catalog, client=client, emit=self._relay,
                                     interactive=interactive, allow=allow, deny=deny, resume=resume,
                                     extra_dirs=extra_dirs)  # fmt: skip
        self._diagnostics = self.catalog.snapshot.diagnostics  # reload messages name the new ones
        transcript = self.session.transcript
        # Said once at start by each front end (a session in use, a damaged file skipped).
        self._notices = list(transcript.notices) if transcript is not None else []

    def _relay(self, event: Any) -> None:
        self._emit(event)

    def set_emit(self, emit: Callable[[Any], None]) -> None:
        self._emit = emit

    # -- facts for the UI ----------------------------------------------------------------

    @property
    def model_name(self) -> str:
        return self.session.client.model

    def take_notices(self) -> list[str]:
        """The start-up notices not shown yet (each front end shows them once)."""
        notices, self._notices = self._notices, []
        return notices

    @property
    def transcript_error(self) -> str | None:
        """Why the transcript is not being written, once a write failed."""
        transcript = self.session.transcript
        return transcript.error if transcript is not None else None

    @property
    def offline(self) -> bool:
        return bool(getattr(self.session.client, "offline", False))

    def skill_count(self) -> int:
        return len(self.catalog.snapshot)

    def completions(self, prefix: str, limit: int = 50) -> list[commands.Completion]:
        usage = self.session.usage_tracker.scores() if self.session.usage_tracker else {}
        return commands.complete(prefix, list(self.catalog.snapshot), usage, self.settings.overrides, limit)

    def context_use(self, *, may_import: bool = True):
        """Tokens the next request would spend, by part (`ContextUse`). `may_import=False`
        before litellm is warm: the window then comes from the config or the default."""
        return self.session.context_use(may_import=may_import)

    # -- commands --------------------------------------------------------------------------

    def builtin(self, name: str, args: str) -> Reply:
        handler = getattr(self, f"_cmd_{name}", None)
        if handler is None:
            return Reply(f"unknown command /{name}; type /help")
        return handler(args)

    def _cmd_help(self, _args: str) -> Reply:
        lines = ["Commands:"]
        lines += [f"  /{c.name}{' ' + c.hint if c.hint else ''}  — {c.help}" for c in commands.BUILTINS]
        lines += ["", "Skills: type / and a name (Tab completes), e.g. /review src/. The model also picks skills itself.",
                  "Keys: Enter send · Shift+Enter or Ctrl+J new line · Up/Down history · Ctrl+P palette · "
                  "Ctrl+C cancel turn (twice to quit) · Ctrl+D quit"]  # fmt: skip
        return Reply("\n".join(lines))

    def _cmd_exit(self, _args: str) -> Reply:
        return Reply("", "exit")

    def _cmd_skills(self, args: str) -> Reply:
        return Reply(args, "skills")

    def _cmd_clear(self, _args: str) -> Reply:
        self.session.clear()
        return Reply("conversation cleared (the transcript keeps the old one)", "clear")

    def _cmd_reload(self, _args: str) -> Reply:
        return Reply(self.reload_message(self.reload())[0])

    def _cmd_model(self, args: str) -> Reply:
        if not args:
            return Reply(f"model: {self.model_name}{' (offline)' if self.offline else ''}")
        from codebot.agent.session import select_client

        client = select_client(dataclasses.replace(self.settings, model=args.strip()))
        self.session.client = client
        return Reply(f"model switched to {client.model}")

    def _cmd_context(self, _args: str) -> Reply:
        return Reply(context_report(self.context_use(), self.session, self.settings))

    def _cmd_compact(self, args: str) -> Reply:
        return Reply(args, "compact")  # a model call: the front end runs `compact` as a turn

    def _cmd_sandbox(self, _args: str) -> Reply:
        return Reply(f"sandbox: {self.session.sandbox_state}")

    def _cmd_usage(self, _args: str) -> Reply:
        return Reply(usage_report(self.session.total_usage, self.session.usage_by_model))

    # -- actions ---------------------------------------------------------------------------

    def reload(self) -> Change:
        return self.catalog.reload()

    def reload_message(self, change: Change) -> tuple[str, bool]:
        """What a reload changed, with the problems it brought (file, line, fix), and
        whether there are such problems. Problems are new relative to the last message."""
        from codebot.skills.files import Severity
        from codebot.skills.validate import check_spec

        snapshot = self.catalog.snapshot
        seen = getattr(self, "_diagnostics", None)
        fresh = new_problems(seen if seen is not None else (), snapshot.diagnostics)
        self._diagnostics = snapshot.diagnostics
        for name in (*change.added, *change.changed):  # only these were read again: cheap
            spec = snapshot.get(name)
            if spec is not None:
                fresh += [d for d in check_spec(spec, hints=False) if d.severity is Severity.ERROR]
        return format_change(change, len(snapshot), fresh), bool(fresh)

    def toggle_from_args(self, args: str) -> str | None:
        """`/skills off NAME` (or on, user-only, model-only, name-only): set the override and
        say so; None when `args` is not such a command (then it is a filter)."""
        word, _, rest = args.strip().partition(" ")
        value, name = word.lower(), rest.strip()
        if value not in OVERRIDE_VALUES or not name:
            return None
        spec = self.catalog.snapshot.get(name)
        if spec is None:
            return f"no skill named {strip_escapes(repr(name))}; /skills lists them"
        try:
            self.set_override(spec.key, value)
        except ValueError as exc:
            return f"error: {exc}"
        return f"{strip_escapes(spec.name)}: {value} (saved in {self.settings.config_path})"

    async def run_turn(self, text: str):
        return await self.session.run_turn(text)

    async def compact(self, focus: str = "") -> str:
        """`/compact [focus]`: "" when done (the session said what it did, as a Notice), else
        why nothing was compacted."""
        from codebot.agent.model import ModelError

        try:
            record = await self.session.compact(focus)
        except ModelError as exc:
            return f"cannot compact: {exc.message}"
        finally:
            if self.session.transcript is not None:
                self.session.transcript.sync()
        return "" if record is not None else "nothing to compact yet"

    def set_override(self, skill_key: str, value: str) -> None:
        """Save `skills.overrides.<skill>` to $CODEBOT_HOME/config.yaml (atomically)."""
        import yaml

        if value not in OVERRIDE_VALUES:
            raise ValueError(f"override must be one of {', '.join(OVERRIDE_VALUES)}")
        path = self.settings.config_path
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8")) if path.exists() else {}
        except (OSError, yaml.YAMLError) as exc:
            raise ValueError(f"{path} cannot be read ({exc}); fix it before changing skills here") from exc
        data = data if isinstance(data, dict) else {}
        if not isinstance(data.get("skills"), dict):
            data["skills"] = {}
        skills = data["skills"]
        overrides = skills.get("overrides") if isinstance(skills.get("overrides"), dict) else {}
        if value == "on":
            overrides.pop(skill_key, None)
        else:
            overrides[skill_key] = value
        skills["overrides"] = overrides
        # 0600 like everything in $CODEBOT_HOME (permission rules, endpoints, overrides);
        # os.replace gives config.yaml the temp file's mode.
        private_dir(path.parent)
        fd, tmp = private_temp(path.parent, prefix=".config.", suffix=".yaml")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            yaml.safe_dump(data, fh, sort_keys=False, allow_unicode=True)
        os.replace(tmp, path)
        new = dict(self.settings.overrides)
        if value == "on":
            new.pop(skill_key, None)
        else:
            new[skill_key] = value
        self.settings = dataclasses.replace(self.settings, overrides=MappingProxyType(new))
        self.session.settings = self.settings

    def override_of(self, skill_key: str) -> str:
        return self.settings.overrides.get(skill_key, "on")

    def close(self) -> None:
        if self.session.transcript is not None:
            self.session.transcript.close()


def usage_report(total, by_model) -> str:
    """`/usage`: tokens in and out and cost (litellm's price table), per model and in all."""
    def line(name: str, u) -> str:
        cost = f"${u.cost:.4f}" if u.cost is not None else "cost unknown (not in litellm's price table)"
        return f"  {name:<28} {u.prompt_tokens:>10,} in {u.completion_tokens:>9,} out   {cost}"

    lines = ["Usage this session:"] + [line(m, u) for m, u in sorted(by_model.items())]
    if len(by_model) != 1:
        lines.append(line("all models", total))
    return "\n".join(lines)


WINDOW_SOURCES = {"config": "the config (model_context_window)", "litellm": "litellm's model table",
                  "default": "the default (the model is unknown to litellm and to the config)"}  # fmt: skip


def context_report(use, session, settings: Settings) -> str:
    """`/context`: tokens by part against the window, the threshold, the last compaction."""
    def k(n: int) -> str:
        return f"{n / 1000:.1f}k" if n >= 1000 else str(n)

    lines = [f"Context: {use.total:,} of {use.window:,} tokens ({use.fraction:.0%}); window from "
             f"{WINDOW_SOURCES.get(use.source, use.source)}"]  # fmt: skip
    for name, n in use.parts().items():
        lines.append(f"  {name:<17}{n:>9,} tokens  {100 * n / use.window:5.1f}%  ({k(n)})")
    comp = settings.compaction
    auto = f"at {comp.threshold:.0%} of the window" if comp.auto else "off (compaction.auto: false)"
    lines.append(f"  automatic compaction: {auto}; /compact [focus] compacts now")
    in_force = {s.key: s.name for s in session.in_force}
    if in_force:
        lines.append(f"  skills in force: {', '.join(in_force.values())}")
    if session.last_compaction is not None:
        lines.append(f"  {session.last_compaction.describe()}")
    if not settings.trusted:
        lines.append(f"  untrusted: {settings.project_dir} (project config limited, project skills run no "
                     "commands; `codebot trust` to change)")  # fmt: skip
    return "\n".join(lines)


def format_change(change: Change, total: int, problems: Sequence[Any] = ()) -> str:
    """`skills: +1 ~0 −0 (12 loaded) · + new-skill`, and the new problems with file, line
    and fix (a skill file that no longer parses is a problem, not a silent −1)."""
    from codebot.skills.validate import count_of

    head = f"skills: +{len(change.added)} ~{len(change.changed)} −{len(change.removed)} ({total} loaded)"
    names = [*(f"+ {n}" for n in change.added), *(f"~ {n}" for n in change.changed),
             *(f"− {n}" for n in change.removed)]  # fmt: skip
    if names:
        more = f" and {len(names) - 5} more" if len(names) > 5 else ""
        head += " · " + ", ".join(names[:5]) + more
    if problems:
        head += f"\n{count_of(len(problems), 'new problem')}:"
        head += "".join(f"\n  {d.format()}" for d in problems[:5])
    return strip_escapes(head)


def new_problems(before: Sequence[Any], after: Sequence[Any]) -> list[Any]:
    """Diagnostics in `after` that were not in `before` (by file, line, code, message)."""
    seen = {(d.path, d.line, d.code, d.message) for d in before}
    return [d for d in after if (d.path, d.line, d.code, d.message) not in seen]
