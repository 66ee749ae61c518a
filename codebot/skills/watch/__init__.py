"""Stage 3: hot reload. Watches the catalog's roots with watchfiles and turns a burst
of changes into one incremental reload.

May import: `skills.files`, `skills.catalog`.
"""

from typing import TYPE_CHECKING

from codebot._exports import lazy_exports

if TYPE_CHECKING:  # what the lazy table loads, spelled out for the type checker
    from codebot.skills.watch.plan import make_plan
    from codebot.skills.watch.watcher import SkillWatcher


_EXPORTS = {
    "SkillWatcher": "watcher",
    "make_plan": "plan",
}
__all__ = ["SkillWatcher", "make_plan"]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
