"""`/resume`: the setup of the session switched to, as far as a running codebot can take
it on. Its model and endpoint (a new client), its reasoning effort and its `--add-dir`
folders come back; its
allow rules come back with the session itself (`agent/session/setup_keep`, this project's
only). Its skills folders are not loaded into a running catalog: that is said, with the
command that starts with them.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from codebot.agent.session.setup_record import existing_dirs, folders, one_line, read_setup
from codebot.config import Settings

if TYPE_CHECKING:
    from codebot.agent.model import ModelClient


@dataclasses.dataclass
class Switched:
    client: ModelClient  # the client to go on with: the current one unless the session used another
    extra_dirs: list[Path]
    said: list[str]
    settings: Settings | None = None  # the settings to go on with (its effort); None: as they are


def setup_for_switch(
    settings: Settings, session_id: str, client: ModelClient, extra_dirs: Sequence[Path]
) -> Switched:
    """What `/resume SESSION_ID` starts the session with, and the lines that say it."""
    dirs = [Path(d).expanduser().resolve() for d in extra_dirs]
    record, said = read_setup(settings.home / "sessions" / f"{session_id}.jsonl")
    if record is None:
        return Switched(client, dirs, said)
    restored: list[str] = []
    current = (client.model, getattr(client, "api_base", None))
    if record.model and (record.model, record.api_base) != current:
        client = _client(settings, record.model, record.api_base, client, restored, said)
    effort = _effort(settings, record.effort, restored, said)
    for d in existing_dirs(record.add_dirs, "--add-dir folder", settings.project_dir, said):
        if d not in dirs:
            dirs.append(d)
            restored.append(f"--add-dir {folders([d], settings.project_dir)}")
    given = [str(d) for d in settings.skills_dirs_given]
    if record.skills_dirs and list(record.skills_dirs) != given:
        said.append(
            f"the session used skills folder {folders(record.skills_dirs, settings.project_dir)}; "
            f"a running codebot keeps its skills: `codebot --resume {one_line(session_id)}` "
            "starts with them"
        )
    if record.plugin_dirs and list(record.plugin_dirs) != [
        str(d) for d in settings.plugin_dirs_given
    ]:
        said.append(
            f"the session used plugin folder {folders(record.plugin_dirs, settings.project_dir)}; "
            f"a running codebot keeps its plugins: `codebot --resume {one_line(session_id)}` "
            "starts with them"
        )
    if restored:
        said.insert(0, "restored from the session: " + " · ".join(restored))
    return Switched(client, dirs, said, effort)


def _effort(
    settings: Settings, effort: str | None, restored: list[str], said: list[str]
) -> Settings | None:
    """The settings with the session's recorded effort, when it had one of its own."""
    from codebot.model_config import EFFORTS

    if not effort or effort == settings.requests.effort:
        return None
    if effort not in EFFORTS:
        said.append(f"the session's effort {one_line(effort)} is not one of {', '.join(EFFORTS)}")
        return None
    restored.append(f"effort {effort}")
    return dataclasses.replace(
        settings, requests=dataclasses.replace(settings.requests, effort=effort)
    )


def _client(
    settings: Settings,
    model: str,
    api_base: str | None,
    client: ModelClient,
    restored: list[str],
    said: list[str],
) -> ModelClient:
    from codebot.agent.model import key_problem
    from codebot.agent.session import select_client

    problem = key_problem(model, os.environ, api_base=api_base)
    if problem:
        said.append(f"the session used {one_line(model)}, not restored: {problem}")
        return client
    restored.append(f"model {one_line(model)}")
    if api_base:
        restored.append(f"endpoint {one_line(api_base)}")
    return select_client(dataclasses.replace(settings, model=model, api_base=api_base))
