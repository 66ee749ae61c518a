"""Where everything codebot writes lives: `$CODEBOT_HOME`, default `~/.codebot`.

Its own module, below every layer, because the skill system (its caches) and the config
both need it and the skill system must not import the config.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def codebot_home(env: Mapping[str, str] | None = None) -> Path:
    """`$CODEBOT_HOME`, default `~/.codebot`."""
    env = os.environ if env is None else env
    value = env.get("CODEBOT_HOME")
    return Path(value).expanduser() if value else Path.home() / ".codebot"
