"""`--continue` / `--resume ID`: start with the setup the session was using.

The session's transcript records its model, endpoint, `--skills-dir`, `--plugin-dir` and
`--add-dir` folders (`agent/session/setup_record`). Before the settings build the catalog and the
client, this module reads that record for the session about to be resumed and applies
it, except where a flag was given on this command line: a flag wins, and that is said
("--model given: using X, the session used Y"). What was restored is said in one line.
The session's allow rules are restored by the session itself (`setup_keep`), only into
the same project.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from codebot.agent.session.setup_record import existing_dirs, folders
from codebot.agent.session.setup_record import one_line as shown

if TYPE_CHECKING:
    from codebot.agent.session.setup_record import SetupRecord
    from codebot.config import Settings


def restore_setup(args: argparse.Namespace, settings: Settings) -> tuple[Settings, list[str]]:
    """The settings to start with and the lines to say. Sets `args.add_dir` to the restored
    `--add-dir` folders when none was given. Nothing changes without --continue/--resume,
    for a session without a record (written before records existed), or when no session
    will be resumed."""
    from codebot.agent.session.setup_record import read_setup

    if not (getattr(args, "continue_", False) or getattr(args, "resume", None)):
        return settings, []
    path = _target(settings, args)
    if path is None:
        return settings, []
    record, problems = read_setup(path)
    if record is None:
        return settings, problems
    restored: list[str] = []
    said = list(problems)
    settings = _model(args, settings, record, restored, said)
    settings = _effort(args, settings, record, restored, said)
    settings = _skills(args, settings, record, restored, said)
    settings = _plugins(args, settings, record, restored, said)
    _add_dirs(args, settings, record, restored, said)
    if restored:
        said.insert(0, "restored from the session: " + " · ".join(restored))
    return settings, said


def _target(settings: Settings, args: argparse.Namespace) -> Path | None:
    """The session file that `setup._resume` will resume, or None (none, or in use: then a
    new session starts and there is nothing to restore)."""
    from codebot.agent.session.transcript import Transcript, find_sessions

    sessions = settings.home / "sessions"
    wanted = getattr(args, "resume", None)
    if wanted:
        if "/" in wanted or "\0" in wanted or wanted.startswith("."):
            return None  # not an id; `setup` says so
        path = sessions / f"{wanted}.jsonl"
        return path if path.is_file() else None
    for info in find_sessions(sessions, settings.project_dir):
        transcript = Transcript(sessions, info.path.stem, settings.project_dir)
        free = transcript.claim()
        transcript.close()
        return info.path if free else None
    return None


def _model(
    args: argparse.Namespace,
    settings: Settings,
    record: SetupRecord,
    restored: list[str],
    said: list[str],
) -> Settings:
    """Model and endpoint. They go together: a recorded endpoint is not restored under
    another model given by flag (it served the recorded one)."""
    given_model, given_base = getattr(args, "model", None), getattr(args, "api_base", None)
    if record.model:
        if given_model is None:
            settings = dataclasses.replace(settings, model=record.model)
            restored.append(f"model {shown(record.model)}")
        elif given_model != record.model:
            said.append(
                f"--model given: using {shown(given_model)}, the session used {shown(record.model)}"
            )
    if record.api_base:
        if given_base is not None:
            if given_base != record.api_base:
                said.append(
                    f"--api-base given: using {shown(given_base)}, "
                    f"the session used {shown(record.api_base)}"
                )
        elif given_model is not None and given_model != record.model:
            said.append(
                f"the session's endpoint {shown(record.api_base)} is not restored: it served "
                f"{shown(record.model or 'another model')}, not {shown(given_model)}"
            )
        else:
            settings = dataclasses.replace(settings, api_base=record.api_base)
            restored.append(f"endpoint {shown(record.api_base)}")
    return settings


def _effort(
    args: argparse.Namespace,
    settings: Settings,
    record: SetupRecord,
    restored: list[str],
    said: list[str],
) -> Settings:
    """The session's reasoning effort, unless `--effort` was given (it wins, and is said)."""
    from codebot.model_config import EFFORTS

    if not record.effort:
        return settings
    given = getattr(args, "effort", None)
    if given is not None:
        if given != record.effort:
            said.append(f"--effort given: using {given}, the session used {shown(record.effort)}")
        return settings
    if record.effort not in EFFORTS:
        said.append(
            f"the session's effort {shown(record.effort)} is not one of "
            f"{', '.join(EFFORTS)}; not restored"
        )
        return settings
    restored.append(f"effort {record.effort}")
    return dataclasses.replace(
        settings, requests=dataclasses.replace(settings.requests, effort=record.effort)
    )


def _skills(
    args: argparse.Namespace,
    settings: Settings,
    record: SetupRecord,
    restored: list[str],
    said: list[str],
) -> Settings:
    if not record.skills_dirs:
        return settings
    if getattr(args, "skills_dir", None):
        given = [Path(d).expanduser().resolve() for d in args.skills_dir]
        _flag_wins("--skills-dir", given, record.skills_dirs, settings, said)
        return settings
    found = existing_dirs(record.skills_dirs, "skills folder", settings.project_dir, said)
    if not found:
        return settings
    rest = tuple(d for d in settings.skills_dirs if d not in found)
    for d in found:
        restored.append(f"skills folder {folders([d], settings.project_dir)}")
    return dataclasses.replace(
        settings, skills_dirs=(*found, *rest), skills_dirs_given=tuple(found)
    )


def _plugins(
    args: argparse.Namespace,
    settings: Settings,
    record: SetupRecord,
    restored: list[str],
    said: list[str],
) -> Settings:
    """`--plugin-dir` folders, like `--skills-dir`: a flag wins; each recorded folder must
    still be a plugin folder."""
    from codebot.skills.catalog.plugins import has_manifest

    if not record.plugin_dirs:
        return settings
    if getattr(args, "plugin_dir", None):
        _flag_wins("--plugin-dir", settings.plugin_dirs_given, record.plugin_dirs, settings, said)
        return settings
    found = []
    for d in existing_dirs(record.plugin_dirs, "plugin folder", settings.project_dir, said):
        if has_manifest(d):
            found.append(d)
            restored.append(f"plugin folder {folders([d], settings.project_dir)}")
        else:
            said.append(
                f"the session's plugin folder {folders([d], settings.project_dir)} has no "
                ".claude-plugin/plugin.json any more; skipped"
            )
    if not found:
        return settings
    rest = tuple(d for d in settings.plugin_dirs if d not in found)
    return dataclasses.replace(
        settings, plugin_dirs=(*found, *rest), plugin_dirs_given=tuple(found)
    )


def _add_dirs(
    args: argparse.Namespace,
    settings: Settings,
    record: SetupRecord,
    restored: list[str],
    said: list[str],
) -> None:
    if not record.add_dirs:
        return
    if getattr(args, "add_dir", None):
        given = [Path(d).expanduser().resolve() for d in args.add_dir]
        _flag_wins("--add-dir", given, record.add_dirs, settings, said)
        return
    found = existing_dirs(record.add_dirs, "--add-dir folder", settings.project_dir, said)
    args.add_dir = found
    for d in found:
        restored.append(f"--add-dir {folders([d], settings.project_dir)}")


def _flag_wins(
    flag: str, given: Sequence[Path], recorded: Sequence[str], settings: Settings, said: list[str]
) -> None:
    """A folder flag given with --continue wins over the session's folders: say so when
    they differ."""
    if [str(d) for d in given] != list(recorded):
        said.append(
            f"{flag} given: using {folders(given, settings.project_dir)}, "
            f"the session used {folders(recorded, settings.project_dir)}"
        )
