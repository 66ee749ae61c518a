"""codebot's own prompt against a small window: the system prompt, tool definitions and
skill listing it sends with every request, in tokens (the 4-characters estimate,
`units.CHARS_PER_TOKEN`), in the default mode and in lean mode (`--lean`), for an empty
project with the bundled skills. No model, no network, no timing.

Prints ONE JSON object: `default` and `lean` (each its parts and `total`), the
`baseline` (the default total), `ratio` (lean / default) and, for a 2,048-token window,
the share each takes (`share_of_2048`) and whether it stays under half (`fits_2048`).

    .venv/bin/python bench/local_overhead.py
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
WINDOW = 2048


def measure(lean: bool) -> dict[str, int]:
    from codebot.agent.model import ScriptedModel
    from codebot.agent.session.turn import TurnState
    from codebot.config import load_settings
    from codebot.ui.controller import Controller

    settings = load_settings(cwd=Path.cwd(), trust=True)
    requests = dataclasses.replace(settings.requests, lean=lean)
    settings = dataclasses.replace(settings, requests=requests)
    session = Controller(settings, client=ScriptedModel([]), interactive=True).session
    use = session.context_use(TurnState())
    listing = session.compactor.meter.text(session.current_listing().text)
    parts = {
        "system_prompt": use.system,
        "instructions": use.instructions,
        "tool_definitions": use.tools,
        "listing": listing,
    }
    return {**parts, "total": sum(parts.values())}


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "proj"
        (project / ".git").mkdir(parents=True)
        os.environ.update(HOME=str(home), CODEBOT_HOME=str(home / ".codebot"), CODEBOT_NO_PROBE="1")
        os.chdir(project)
        default, lean = measure(False), measure(True)
    out = {
        "default": default,
        "lean": lean,
        "baseline": default["total"],
        "ratio": round(lean["total"] / default["total"], 3),
        "share_of_2048": {
            "default": round(default["total"] / WINDOW, 3),
            "lean": round(lean["total"] / WINDOW, 3),
        },
        "fits_2048": {
            "default": default["total"] <= WINDOW // 2,
            "lean": lean["total"] <= WINDOW // 2,
        },
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
