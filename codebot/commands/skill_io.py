"""What the `codebot skills` subcommands share: the catalog snapshot they read, the skills
active in the project, and `say`, which prints text that came from skill files."""

from __future__ import annotations

from typing import TextIO

from codebot.config import Settings
from codebot.display import strip_escapes
from codebot.skills.catalog import Snapshot


def say(*parts: object, file: TextIO | None = None, sep: str = " ", end: str = "\n") -> None:
    """`print` for text output: names, descriptions, bodies and reasons come from skill
    files, so terminal escape sequences in them are removed and other controls shown
    escaped (`display.strip_escapes`); a hostile skill cannot clear its own line or write
    the clipboard. JSON output is printed with `print`/`json.dump`, exactly."""
    print(strip_escapes(sep.join(str(p) for p in parts)), file=file, end=end)


def snapshot(settings: Settings) -> Snapshot:
    from codebot.workspace import open_catalog

    return open_catalog(settings).snapshot


def active_keys_of(snap: Snapshot, settings: Settings) -> frozenset[str]:
    from codebot.skills.catalog import active_keys

    return active_keys(snap, settings.project_dir)
