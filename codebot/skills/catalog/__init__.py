"""Stage 2: the skill roots, the bounded scan, the persistent index, and the Catalog.

Owns where skills come from (roots, precedence), the scan and its folder cache, the
index that makes a warm start cheap, dedupe and shadowing, the immutable `Snapshot`
with its thread-safe swap, `paths:` activation, and the `SkillSource` protocol through
which skills that do not come from folders (an MCP server's) join a snapshot.
May import: `skills.files`.
"""

from typing import TYPE_CHECKING

from codebot._exports import lazy_exports

if TYPE_CHECKING:  # what the lazy table loads, spelled out for the type checker
    from codebot.skills.catalog.activation import active_keys, glob_error
    from codebot.skills.catalog.catalog import Catalog
    from codebot.skills.catalog.discover import scan_root
    from codebot.skills.catalog.folder_cache import DirCache
    from codebot.skills.catalog.index import Index, default_path
    from codebot.skills.catalog.listing import SKIP_DIRS
    from codebot.skills.catalog.roots import bundled_dir, default_roots, project_root
    from codebot.skills.catalog.snapshot import Change, Snapshot
    from codebot.skills.catalog.source_set import SourceSet
    from codebot.skills.catalog.sources import (
        SkillSource,
        SourceError,
        external_spec,
        with_sources,
    )


_EXPORTS = {
    "Catalog": "catalog",
    "Change": "snapshot",
    "DirCache": "folder_cache",
    "Index": "index",
    "SkillSource": "sources",
    "SKIP_DIRS": "listing",
    "Snapshot": "snapshot",
    "SourceError": "sources",
    "SourceSet": "source_set",
    "active_keys": "activation",
    "bundled_dir": "roots",
    "default_path": "index",
    "default_roots": "roots",
    "external_spec": "sources",
    "glob_error": "activation",
    "project_root": "roots",
    "scan_root": "discover",
    "with_sources": "sources",
}
__all__ = [
    "SKIP_DIRS",
    "Catalog",
    "Change",
    "DirCache",
    "Index",
    "SkillSource",
    "Snapshot",
    "SourceError",
    "SourceSet",
    "active_keys",
    "bundled_dir",
    "default_path",
    "default_roots",
    "external_spec",
    "glob_error",
    "project_root",
    "scan_root",
    "with_sources",
]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
