"""What the skills browser shows: one row per skill (winners and the shadowed), its state,
its listing cost and what is wrong with it. Plain data, no widgets.

Every text field of a Row is terminal-safe (`display.strip_escapes`): names,
descriptions, reasons and diagnostics come from skill files, and an escape sequence in
one could clear a row or write the clipboard. `cost` counts the raw listing text (what
the model gets); `spec` keeps the exact data for actions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from codebot.config import OVERRIDE_VALUES, Settings
from codebot.display import strip_escapes
from codebot.skills.catalog import Snapshot
from codebot.skills.catalog.hosts import family_label
from codebot.skills.files import Spec
from codebot.skills.invoke import Actor, decide
from codebot.skills.prompt import listing as lst
from codebot.ui.commands import shadowed_by_builtin

if TYPE_CHECKING:
    from codebot.skills.catalog.snapshot import Shadowed


@dataclass(frozen=True, slots=True)
class Row:
    key: str  # unique within one table
    spec: Spec
    name: str
    source: str  # source tag: "project", "user", "bundled", "plugin:x"
    state: str  # the override (on/off/...), "shadowed", or a file restriction
    cost: int  # characters in the model's listing; 0 when not listed
    line: str  # the listing text itself ("" when not listed)
    description: str
    shadowed_by: str = ""  # "bundled review" or "built-in /help"
    shadows: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    path: str = ""
    host: str = ""  # the folder's host family: "claude", "gemini", … (`catalog/hosts.py`)

    @property
    def origin(self) -> str:
        """The Source column: `project/gemini`, `user/claude`, `bundled`, `plugin:x`."""
        return family_label(self.host, self.source) if self.host else self.source

    @property
    def editable(self) -> bool:
        """Overrides apply to a name, so only the winner of a clash carries one."""
        return not self.key.startswith("shadowed:")


def next_override(value: str) -> str:
    """on → off → user-only → model-only → name-only → on."""
    i = OVERRIDE_VALUES.index(value) if value in OVERRIDE_VALUES else -1
    return OVERRIDE_VALUES[(i + 1) % len(OVERRIDE_VALUES)]


def listing_line(spec: Spec, settings: Settings, describe: bool = True) -> str:
    """The skill's text in the model's listing: `- name [hint]: description` (at most
    `listing_line` characters) and its `when:` line; the name and hint alone for name-only."""
    bare = "- " + lst._field(spec.name)
    if not describe:
        return lst._head(spec, bare, settings.listing_line)
    line, described = lst._short(spec, bare, settings.listing_line)
    return line + lst._when(spec, settings.listing_when) if described else line


def show_path(path: Path, project: Path, home: Path, bundled: Path | None = None) -> str:
    """A path short enough to read, and the same on every machine (for snapshots too)."""
    for base, label in ((bundled, "<bundled>"), (project, "."), (home, "~")):
        if base is None:
            continue
        try:
            return f"{label}/{path.relative_to(base).as_posix()}"
        except ValueError:
            continue
    return str(path)


def _tag(spec: Spec) -> str:
    return f"plugin:{spec.plugin}" if spec.plugin else spec.source.value


def _state(spec: Spec, overrides: Mapping[str, str]) -> tuple[str, bool, bool]:
    override = overrides.get(spec.key, "on")
    human = decide(spec, Actor.HUMAN, overrides).allowed
    model = decide(spec, Actor.MODEL, overrides)
    if override == "on" and not (human and model.allowed):
        why = "user-only" if human else "model-only" if model.allowed else "off"
        return f"on · file: {why}", model.allowed, model.describe
    return override, model.allowed, model.describe


def _safe(text: str) -> str:
    """One line of skill-file text as the terminal may show it (newlines too are escaped)."""
    return strip_escapes(text).replace("\n", " ")


def skill_rows(
    snapshot: Snapshot, settings: Settings, *, home: Path, bundled: Path | None = None
) -> list[Row]:
    """Every skill in listing order of precedence, each shadowed entry after its winner."""
    overrides = settings.overrides
    losers: dict[int, list[Shadowed]] = {}
    for s in snapshot.shadowed:
        losers.setdefault(id(s.winner), []).append(s)

    def where(spec: Spec) -> str:
        return show_path(spec.path, settings.project_dir, home, bundled)

    rows: list[Row] = []
    for spec in snapshot:
        state, listed, describe = _state(spec, overrides)
        by_builtin = shadowed_by_builtin(spec)
        line = listing_line(spec, settings, describe) if listed else ""
        rows.append(
            Row(
                key=f"skill:{spec.key}",
                spec=spec,
                name=_safe(spec.name),
                source=_safe(_tag(spec)),
                state="shadowed" if by_builtin else state,
                cost=len(line),
                line=strip_escapes(line),
                description=_safe(lst.one_line(spec.description)),
                shadowed_by=_safe(f"built-in /{spec.key}") if by_builtin else "",
                shadows=tuple(
                    _safe(f"{_tag(s.spec)} {s.spec.name} ({where(s.spec)})")
                    for s in losers.get(id(spec), [])
                ),
                problems=tuple(strip_escapes(d.format()) for d in spec.diagnostics),
                path=_safe(where(spec)),
                host=spec.root.family,
            )
        )
        for i, s in enumerate(losers.get(id(spec), [])):
            rows.append(
                Row(
                    key=f"shadowed:{spec.key}:{i}",
                    spec=s.spec,
                    name=_safe(s.spec.name),
                    source=_safe(_tag(s.spec)),
                    state="shadowed",
                    cost=0,
                    line="",
                    description=_safe(lst.one_line(s.spec.description)),
                    shadowed_by=_safe(f"{_tag(spec)} {spec.name} ({s.reason})"),
                    problems=tuple(strip_escapes(d.format()) for d in s.spec.diagnostics),
                    path=_safe(where(s.spec)),
                    host=s.spec.root.family,
                )
            )
    return rows


def filter_rows(rows: list[Row], query: str) -> list[Row]:
    """Rows whose name, source, state or description contain every word of `query`."""
    words = query.lower().split()
    if not words:
        return rows
    out = []
    for row in rows:
        hay = f"{row.name} {row.origin} {row.state} {row.description}".lower()
        if all(w in hay for w in words):
            out.append(row)
    return out


def current_listing(session, context_window: int | None = None) -> lst.Listing:
    """The listing the model would get on its next turn (without touching the session)."""
    usage = session.usage_tracker.scores() if session.usage_tracker is not None else {}
    s = session.settings
    options = lst.ListingOptions(s.listing_budget, s.listing_line, s.listing_when, context_window)
    return lst.listing_for(
        session.catalog.snapshot,
        overrides=s.overrides,
        active=session.active_keys(),
        usage=usage,
        options=options,
    )
