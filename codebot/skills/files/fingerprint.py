"""A fingerprint of the code that wrote a cache, so a development tree (whose version
number stays put while the code moves) never reads a cache an older version wrote."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from types import ModuleType


def code_fingerprint(modules: Iterable[ModuleType]) -> str:
    """16 hex digits from each module's name, file size and modification time."""
    h = hashlib.sha1(usedforsecurity=False)
    for mod in modules:
        try:
            st = os.stat(mod.__file__ or "")
            h.update(f"{mod.__name__}:{st.st_size}:{st.st_mtime_ns};".encode())
        except OSError:
            h.update(f"{mod.__name__}:?;".encode())
    return h.hexdigest()[:16]
