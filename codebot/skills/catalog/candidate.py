"""A file the scan found that should be parsed as a skill.

Its own module because the scanner and its folder cache both need it, and the cache
must not import the scanner.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from codebot.skills.files import Root, slot_maker


@dataclass(frozen=True, slots=True)
class Candidate:
    """A file that should be parsed as a skill."""

    path: Path
    real_path: Path
    stat: os.stat_result
    root: Root
    # (depth, path) inside the root: shallower first, then by name. The path is str(path),
    # which the catalog and the index use as the candidate's key.
    order: tuple[int, str]
    # False when the file's folder has no `agents` entry, so there is no agents/openai.yaml
    # to look for (the parser and the index skip that probe).
    side: bool = True


new_candidate = slot_maker(Candidate)  # Candidate(...), faster (see spec.slot_maker)
