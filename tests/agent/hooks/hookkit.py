"""For the hook tests: a hook program inside the project (the sandbox hides /tmp
outside it), commands that call it, and its log."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

HOOKBIN = Path(__file__).with_name("hookbin.py")


class HookKit:
    def __init__(self, project: Path) -> None:
        self.project = project
        self.bin = project / ".hooktools" / "hookbin.py"
        self.bin.parent.mkdir(exist_ok=True)
        shutil.copy(HOOKBIN, self.bin)
        self.logs = project / "hooklog"
        self.logs.mkdir(exist_ok=True)

    def command(self, name: str, mode: str = "ok") -> str:
        log = self.logs / f"{name}.jsonl"
        return " ".join(shlex.quote(p) for p in (sys.executable, str(self.bin), str(log), mode))

    def group(
        self, name: str, mode: str = "ok", matcher: str | None = None, timeout: float | None = None
    ) -> dict[str, Any]:
        entry: dict[str, Any] = {"type": "command", "command": self.command(name, mode)}
        if timeout is not None:
            entry["timeout"] = timeout
        group: dict[str, Any] = {"hooks": [entry]}
        if matcher is not None:
            group["matcher"] = matcher
        return group

    def log(self, name: str) -> list[dict[str, Any]]:
        path = self.logs / f"{name}.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines()]


def write_user_hooks(home: Path, hooks: dict[str, Any]) -> None:
    """`hooks:` in the person's $CODEBOT_HOME/config.yaml (JSON is YAML)."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text(json.dumps({"hooks": hooks}))
