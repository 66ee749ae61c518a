"""The built-in tools (Read, Write, Edit, Glob, Grep, Bash) and the schemas of the
meta tools (Skill, SkillSearch, Task). Names and parameters are a contract scripts rely on.

May import: `codebot.skills`, `agent.model`.
"""

from typing import TYPE_CHECKING

from codebot._exports import lazy_exports

if TYPE_CHECKING:  # what the lazy table loads, spelled out for the type checker
    from codebot.agent.tools.base import (
        PathOutsideProject,
        Tool,
        ToolContext,
        ToolError,
        ToolRegistry,
        ToolResult,
        display_path,
        resolve_path,
        subject_path,
    )
    from codebot.agent.tools.files import apply_edit, builtin_tools, unified_diff
    from codebot.agent.tools.glob_match import glob_regex
    from codebot.agent.tools.mcp_tools import TOOL_SEARCH, McpTools
    from codebot.agent.tools.meta import (
        META_TOOLS,
        SKILL,
        SKILL_SEARCH,
        TASK,
        skill_search,
        validate_meta,
    )
    from codebot.agent.tools.shell import BashTool


_EXPORTS = {
    "BashTool": "shell",
    "META_TOOLS": "meta",
    "McpTools": "mcp_tools",
    "TOOL_SEARCH": "mcp_tools",
    "PathOutsideProject": "base",
    "SKILL": "meta",
    "SKILL_SEARCH": "meta",
    "TASK": "meta",
    "Tool": "base",
    "ToolContext": "base",
    "ToolError": "base",
    "ToolRegistry": "base",
    "ToolResult": "base",
    "apply_edit": "files",
    "builtin_tools": "files",
    "display_path": "base",
    "glob_regex": "glob_match",
    "resolve_path": "base",
    "skill_search": "meta",
    "subject_path": "base",
    "unified_diff": "files",
    "validate_meta": "meta",
}
__all__ = [
    "META_TOOLS",
    "SKILL",
    "SKILL_SEARCH",
    "TASK",
    "TOOL_SEARCH",
    "BashTool",
    "McpTools",
    "PathOutsideProject",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolRegistry",
    "ToolResult",
    "apply_edit",
    "builtin_tools",
    "display_path",
    "glob_regex",
    "resolve_path",
    "skill_search",
    "subject_path",
    "unified_diff",
    "validate_meta",
]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
