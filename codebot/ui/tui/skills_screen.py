"""The skills browser: filter, source tags, state, listing cost, shadowing, diagnostics,
and per-skill overrides saved to config (`o` cycles on → off → user-only → model-only →
name-only).
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Input, Static
from textual.worker import Worker, WorkerState

from codebot.display import strip_escapes
from codebot.skills.catalog import bundled_dir
from codebot.skills.prompt import truncate
from codebot.skills.validate import count_of, problem_count
from codebot.ui.tui.rows import Row, current_listing, filter_rows, next_override, skill_rows

STATE_STYLES = {
    "on": "green",
    "off": "red",
    "user-only": "yellow",
    "model-only": "cyan",
    "name-only": "magenta",
    "shadowed": "dim",
}
COLUMNS = (
    ("Name", "name"),
    ("Source", "source"),
    ("State", "state"),
    ("Listing", "cost"),
    ("Description", "description"),
)
NAME_MAX = 28  # a long name is cut (the details below show it whole)


def column_widths(rows: list[Row], screen_width: int) -> list[int]:
    """Widths of the five columns: name, source (with the host) and state as wide as their
    longest value (the name at most NAME_MAX and half of what is left), listing cost 8,
    and the description the rest (at least 10). A cell costs its width plus 2 of padding."""

    def widest(field: str, cap: int) -> int:
        title = "Source" if field == "origin" else field.title()
        return min(cap, max([len(title), *(len(getattr(r, field)) for r in rows)]))

    # `project/codebot` whole from 80 columns; narrower, cut (the details show it whole)
    source = widest("origin", min(16, max(7, screen_width // 5)))
    state, cost = widest("state", 12), 8
    room = (
        screen_width - 6 - 2 * len(COLUMNS) - source - state - cost
    )  # margins, scrollbar, padding
    name = min(widest("name", NAME_MAX), max(10, room // 2))
    return [name, source, state, cost, max(10, room - name)]


HELP = (
    "type to filter · ↓ to the table · o cycles on/off/user-only/model-only/name-only · Esc closes"
)


class SkillsScreen(Screen[None]):
    DEFAULT_CSS = """
    SkillsScreen { layout: vertical; }
    SkillsScreen > .head { height: 1; padding: 0 1; background: $panel; text-style: bold; }
    SkillsScreen Input { margin: 0 1; }
    SkillsScreen DataTable { height: 1fr; margin: 0 1; }
    SkillsScreen #details { height: auto; max-height: 12; padding: 0 1; border-top: solid $panel; }
    SkillsScreen > .help { height: 1; padding: 0 1; color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "close"),
        Binding("ctrl+o", "cycle", "cycle override", priority=True),
    ]

    def __init__(self, controller, query: str = "", context_window: int | None = None) -> None:
        super().__init__()
        self.controller = controller
        self.query_text = query
        self.context_window = context_window
        self.rows: list[Row] = []
        self.shown: list[Row] = []

    def compose(self) -> ComposeResult:
        yield Static("", classes="head", id="head")
        yield Input(self.query_text, placeholder="filter skills…", id="filter")
        yield DataTable(
            cursor_type="row", zebra_stripes=True, id="table"
        )  # columns: `apply_filter`
        with Vertical(id="details"):
            yield Static("", id="detail-text")
        yield Static(HELP, classes="help")

    def on_mount(self) -> None:
        if self.app.is_headless:
            self.query_one(Input).cursor_blink = False
        self.reload_rows()
        self.query_one(Input).focus()

    # -- data ------------------------------------------------------------------------------

    def reload_rows(self) -> None:
        c = self.controller
        snapshot = c.catalog.snapshot
        self.rows = skill_rows(snapshot, c.settings, home=Path.home(), bundled=bundled_dir())
        self.listing = current_listing(c.session, self.context_window)
        self._problems: int | None = None
        self._show_head()
        # The count is the one `skills list` and `skills validate` give (one function); it
        # reads every skill's file, so it runs off the UI thread and the header fills in.
        self.run_worker(
            lambda: problem_count(snapshot), thread=True, name="problems", exit_on_error=False
        )
        self.apply_filter()

    def _show_head(self) -> None:
        snapshot = self.controller.catalog.snapshot
        shadowed = sum(1 for r in self.rows if r.shadowed_by)
        problems = (
            "counting problems…" if self._problems is None else count_of(self._problems, "problem")
        )
        cost = sum(r.cost for r in self.rows)
        # Most telling first: at 60 columns the end of the line is what is cut.
        self.query_one("#head", Static).update(
            f"Skills · {len(snapshot)} loaded · {problems} · {shadowed} shadowed · listing "
            f"{self.listing.chars:,}/{self.listing.budget:,} chars (skills {cost:,})"
        )

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.name == "problems" and event.state == WorkerState.SUCCESS:
            self._problems = event.worker.result
            self._show_head()

    def apply_filter(self, keep: str | None = None) -> None:
        table = self.query_one(DataTable)
        keep = keep or self._current_key()
        self.shown = filter_rows(self.rows, self.query_one(Input).value)
        widths = column_widths(self.rows, self.app.size.width)
        # Columns are made again each time with widths that fit the screen, and every cell
        # is cut to its column with an ellipsis: a table only clips (mid-word, silently).
        table.clear(columns=True)
        for (label, key), width in zip(COLUMNS, widths, strict=True):
            table.add_column(label, key=key, width=width)
        cut = set(self.listing.cut)
        for row in self.shown:
            cost = "—" if not row.cost else f"{row.cost}{' cut' if row.spec.name in cut else ''}"
            state = Text(
                truncate(row.state, widths[2]), style=STATE_STYLES.get(row.state.split(" ")[0], "")
            )
            # Text, not str: a plain string cell is read as Rich markup, and a skill named
            # `[reverse]x` must show those characters. Row fields are already escape-free.
            table.add_row(
                Text(truncate(row.name, widths[0])),
                Text(truncate(row.origin, widths[1])),
                state,
                cost,
                Text(truncate(row.description, widths[4])),
                key=row.key,
            )
        index = next((i for i, r in enumerate(self.shown) if r.key == keep), 0)
        if self.shown:
            table.move_cursor(row=index)
        self.show_details()

    def _current_key(self) -> str | None:
        row = self.current_row()
        return row.key if row else None

    def current_row(self) -> Row | None:
        table = self.query_one(DataTable)
        if (
            not self.shown
            or table.cursor_row is None
            or not 0 <= table.cursor_row < len(self.shown)
        ):
            return None
        return self.shown[table.cursor_row]

    def show_details(self) -> None:
        row = self.current_row()
        text = Text()
        if row is not None:
            text.append(f"{row.name}", style="bold")
            text.append(f"  {row.origin} · {row.path}\n")
            if row.editable:
                text.append(f"state {row.state} (o to change) · ")
            text.append(
                f"listing {row.cost} chars\n" if row.cost else "not in the model's listing\n"
            )
            if row.line:
                text.append(row.line + "\n", style="dim")
            if row.shadowed_by:
                text.append(f"shadowed by {row.shadowed_by}\n", style="yellow")
            for s in row.shadows:
                text.append(f"shadows {s}\n", style="dim")
            for p in row.problems:
                text.append(p + "\n", style="red")
        diags = self.controller.catalog.snapshot.diagnostics
        if diags:
            text.append(f"catalog: {count_of(len(diags), 'problem')}\n", style="bold red")
            for d in diags[:5]:
                text.append("  " + strip_escapes(d.format()) + "\n", style="red")
        text.rstrip()
        self.query_one("#detail-text", Static).update(text)

    # -- events ----------------------------------------------------------------------------

    def on_input_changed(self, event: Input.Changed) -> None:
        self.apply_filter()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show_details()

    def on_key(self, event: events.Key) -> None:
        table = self.query_one(DataTable)
        if self.focused is self.query_one(Input) and event.key in ("down", "enter", "tab"):
            table.focus()
            event.stop()
        elif self.focused is table and event.key == "o":
            self.action_cycle()
            event.stop()
        elif self.focused is table and event.is_printable and event.character:
            box = self.query_one(Input)
            box.focus()
            box.insert_text_at_cursor(event.character)
            event.stop()

    def action_cycle(self) -> None:
        row = self.current_row()
        if row is None or not row.editable:
            self.app.notify("a shadowed skill has no override of its own", severity="warning")
            return
        value = next_override(self.controller.override_of(row.spec.key))
        try:
            said = self.controller.set_override(row.spec.key, value)
        except ValueError as exc:
            self.app.notify(str(exc), severity="error")
            return
        self.app.notify(
            f"{row.spec.name}: {value} ({said})", title="skills", timeout=3
        )  # where it went
        self.reload_rows()

    def action_close(self) -> None:
        self.dismiss(None)
