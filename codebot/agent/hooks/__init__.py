"""Hooks: Claude Code's hook events and format (docs/hooks.md). Reading the settings
shape is pure (`spec`, `output`); `sources` reads the files, `runner` runs one command (in
the Bash sandbox), `engine` fires an event's hooks, `report` says them in words.

May import: `codebot.skills`, `agent.model`, `agent.tools`, `agent.permissions`, config
and below.
"""

from typing import TYPE_CHECKING

from codebot._exports import lazy_exports

if TYPE_CHECKING:  # what the lazy table loads, spelled out for the type checker
    from codebot.agent.hooks.engine import NO_HOOKS, Hooks
    from codebot.agent.hooks.output import HookRun, Outcome
    from codebot.agent.hooks.report import describe, trust_lines
    from codebot.agent.hooks.runner import run_hook
    from codebot.agent.hooks.sources import (
        HookConfig,
        PluginHooks,
        collect_hooks,
        hooks_of,
        installed_plugins,
        load_hooks_file,
        plugin_hooks,
        project_hooks,
        skill_hooks,
    )
    from codebot.agent.hooks.spec import EVENTS, HookCommand, parse_hooks

_EXPORTS = {
    "EVENTS": "spec",
    "HookCommand": "spec",
    "HookConfig": "sources",
    "HookRun": "output",
    "Hooks": "engine",
    "NO_HOOKS": "engine",
    "Outcome": "output",
    "PluginHooks": "sources",
    "collect_hooks": "sources",
    "describe": "report",
    "hooks_of": "sources",
    "installed_plugins": "sources",
    "load_hooks_file": "sources",
    "parse_hooks": "spec",
    "plugin_hooks": "sources",
    "project_hooks": "sources",
    "run_hook": "runner",
    "skill_hooks": "sources",
    "trust_lines": "report",
}
__all__ = [
    "EVENTS",
    "NO_HOOKS",
    "HookCommand",
    "HookConfig",
    "HookRun",
    "Hooks",
    "Outcome",
    "PluginHooks",
    "collect_hooks",
    "describe",
    "hooks_of",
    "installed_plugins",
    "load_hooks_file",
    "parse_hooks",
    "plugin_hooks",
    "project_hooks",
    "run_hook",
    "skill_hooks",
    "trust_lines",
]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
