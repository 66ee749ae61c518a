"""Stage 3: hot reload. Watches the catalog's roots with watchfiles and turns a burst
of changes into one incremental reload.

May import: `skills.files`, `skills.catalog`.
"""

from codebot._exports import lazy_exports

_EXPORTS = {
    "SkillWatcher": "watcher",
    "make_plan": "plan",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
