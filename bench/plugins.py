"""Benchmark plugin discovery. Prints ONE JSON object on stdout.

    .venv/bin/python bench/plugins.py

`workspace.plugins_for` runs when a session opens its catalog, when it collects hooks and
when a Task or fork looks up a plugin agent. Measured with 0 and 20 installed plugins
(each with a manifest, three skills, a command, an agent and hooks), next to
`load_settings` in the same run (the baseline): the ratio is what discovery adds to it.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests" / "plugins"))

TARGET_MS = 10.0  # 20 installed plugins, one discovery


def median_ms(fn: Callable[[], object], n: int = 60) -> float:
    fn()
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def main() -> int:
    from plugin_kit import make_plugin

    from codebot.config import load_settings
    from codebot.workspace import plugins_for

    out: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        project = Path(tmp) / "proj"
        (project / ".git").mkdir(parents=True)
        os.environ["CODEBOT_HOME"] = str(home)
        settings = load_settings(cwd=project)
        baseline = median_ms(lambda: load_settings(cwd=project))
        out["load_settings_ms_baseline"] = baseline
        out["plugins_for_ms_0"] = median_ms(lambda: plugins_for(settings))
        for i in range(20):
            make_plugin(home / "plugins" / f"p{i}", f"p{i}")
        twenty = median_ms(lambda: plugins_for(settings))
        out["plugins_for_ms_20"] = twenty
        out["ratio_20_to_baseline"] = twenty / baseline if baseline else None
        out["target_ms_20"] = TARGET_MS
        out["ok"] = twenty <= TARGET_MS
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
