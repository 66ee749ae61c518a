"""Which MCP servers a session starts: every definition in force (`.mcp.json`, the
person's `mcp.servers`, `--mcp-config` files) that `approval.standing` lets start, and a
line for each that it does not (untrusted, unapproved, changed, agent-written, invalid)."""

from __future__ import annotations

from codebot.config import Settings
from codebot.mcp.config import ServerDef

__all__ = ["DEFAULT_BUDGET_PERCENT", "budget_percent", "startable"]

#: The share of the context window MCP tool definitions may take before they are deferred.
DEFAULT_BUDGET_PERCENT = 10.0


def startable(settings: Settings, *, asked: bool = False) -> tuple[list[ServerDef], list[str]]:
    """(the servers to start, notices about the others and about the files).

    When the front end asks about unapproved servers at start (`asked`: the TUI, line
    mode), no notice for those, nor for an untrusted project's (its trust screen came
    first; `/mcp` and `codebot mcp list` say why they are not started). Every notice is escaped:
    names and paths come from files a repository holds."""
    from codebot.display import visible
    from codebot.mcp.approval import NOT_APPROVED, NOT_TRUSTED, Approvals, agent_written, standing
    from codebot.mcp.config import load_servers

    cfg = load_servers(
        settings.project_dir, settings.raw, settings.config_path, settings.mcp_configs
    )
    notices = [visible(n) for n in (*cfg.problems, *cfg.clashes)]
    if not cfg.servers:
        return [], notices
    approvals = Approvals.load(settings.home)
    if approvals.warning:
        notices.append(approvals.warning)
    marked = any(s.source == "project" for s in cfg.servers) and agent_written(
        settings.home, settings.project_dir
    )
    chosen: list[ServerDef] = []
    for d in cfg.servers:
        st = standing(
            d,
            project=settings.project_dir,
            trusted=settings.trusted,
            approvals=approvals,
            written_by_agent=marked,
        )
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
