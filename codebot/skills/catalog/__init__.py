"""Stage 2: the skill roots, the bounded scan, the persistent index, and the Catalog.

Owns where skills come from (roots, precedence), the scan and its folder cache, the
index that makes a warm start cheap, dedupe and shadowing, the immutable `Snapshot`
with its thread-safe swap, and `paths:` activation.
May import: `skills.files`.
"""

from codebot._exports import lazy_exports

_EXPORTS = {
    "Catalog": "catalog",
    "Change": "snapshot",
    "DirCache": "folder_cache",
    "Index": "index",
    "SKIP_DIRS": "discover",
    "Snapshot": "snapshot",
    "active_keys": "activation",
    "bundled_dir": "roots",
    "default_path": "index",
    "default_roots": "roots",
    "glob_error": "activation",
    "project_root": "roots",
    "scan_root": "discover",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
