"""Which MCP servers a session starts: every definition in force (`.mcp.json`, the
person's `mcp.servers`, `--mcp-config` files) that `approval.standing` lets start, and a
line for each that it does not (untrusted, unapproved, changed, agent-written, invalid)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from codebot.config import Settings
from codebot.mcp.config import McpConfig, ServerDef

if TYPE_CHECKING:
    from codebot.mcp.approval import Approvals, Standing

__all__ = ["DEFAULT_BUDGET_PERCENT", "Standings", "budget_percent", "standings", "startable"]

#: The share of the context window MCP tool definitions may take before they are deferred.
DEFAULT_BUDGET_PERCENT = 10.0


@dataclass(frozen=True)
class Standings:
    """Every definition in force with its standing, once: what the session starts
    (`startable`), the question at start (`ui/mcp_start`) and `/mcp` (`ui/mcp_view`) read."""

    config: McpConfig
    rows: tuple[tuple[ServerDef, Standing], ...]
    approvals: Approvals

    @property
    def warning(self) -> str:
        return self.approvals.warning


def standings(settings: Settings, flag_files: Sequence[Path] | None = None) -> Standings:
    """The servers of the project's `.mcp.json`, the person's config and the `--mcp-config`
    files (the session's, unless `flag_files` are given), each with its standing."""
    from codebot.mcp.approval import Approvals, agent_written, standing
    from codebot.mcp.config import load_servers

    files = tuple(settings.mcp_configs if flag_files is None else flag_files)
    cfg = load_servers(settings.project_dir, settings.raw, settings.config_path, files)
    approvals = Approvals.load(settings.home)
    marked = any(s.source == "project" for s in cfg.servers) and agent_written(
        settings.home, settings.project_dir
    )
    found = tuple(
        (
            d,
            standing(
                d,
                project=settings.project_dir,
                trusted=settings.trusted,
                approvals=approvals,
                written_by_agent=marked,
            ),
        )
        for d in cfg.servers
    )
    return Standings(cfg, found, approvals)


def startable(settings: Settings, *, asked: bool = False) -> tuple[list[ServerDef], list[str]]:
    """(the servers to start, notices about the others and about the files).

    When the front end asks about unapproved servers at start (`asked`: the TUI, line
    mode), no notice for those, nor for an untrusted project's (its trust screen came
    first; `/mcp` and `codebot mcp list` say why they are not started). Every notice is
    escaped: names and paths come from files a repository holds."""
    from codebot.display import visible
    from codebot.mcp.approval import NOT_APPROVED, NOT_TRUSTED

    found = standings(settings)
    notices = [visible(n) for n in (*found.config.problems, *found.config.clashes)]
    if found.warning and found.rows:
        notices.append(found.warning)
    chosen: list[ServerDef] = []
    for d, st in found.rows:
        if not st.may_start:
            if asked and st.status in (NOT_TRUSTED, NOT_APPROVED):
                continue
            why = f"{st.status}: {st.reason}" if st.reason else st.status
            notices.append(visible(f"MCP server {d.name} not started ({why})"))
        else:
            chosen.append(d)
    return chosen, notices


def budget_percent(settings: Settings) -> tuple[float, str]:
    """`mcp.tool_budget_percent` of the config (default 10), and a warning when it is bad."""
    section = settings.raw.get("mcp")
    value = section.get("tool_budget_percent") if isinstance(section, dict) else None
    if value is None:
        return DEFAULT_BUDGET_PERCENT, ""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 100:
        return DEFAULT_BUDGET_PERCENT, (
            f"{settings.config_path}: mcp.tool_budget_percent must be a number from 0 to 100; "
            f"using {DEFAULT_BUDGET_PERCENT:g}"
        )
    return float(value), ""
