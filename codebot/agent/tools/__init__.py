"""The built-in tools (Read, Write, Edit, Glob, Grep, Bash) and the schemas of the
meta tools (Skill, SkillSearch, Task). Names and parameters are a contract scripts rely on.

May import: `codebot.skills`, `agent.model`.
"""

from codebot._exports import lazy_exports

_EXPORTS = {
    "BashTool": "shell",
    "META_TOOLS": "meta",
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
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
