"""Keeping a session's setup in its transcript, and bringing back the part that lives in
the session itself: its "allow for this session" rules.

`setup_record` holds the record (pure); this module reads it off a live session, writes
it when the session starts and whenever the model or the session rules change, and, on
a resume, grants the recorded rules again when the session belongs to this project.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from codebot.agent.session.setup_record import SetupRecord, read_setup, read_setups, rules_for
from codebot.agent.session.setup_record import one_line as _shown
from codebot.agent.session.transcript import read_header

if TYPE_CHECKING:
    from codebot.agent.session.loop import Session


def setup_of(session: Session) -> SetupRecord:
    """What `session` runs with now, paths absolute."""
    client = session.client
    return SetupRecord(
        model=client.model,
        api_base=getattr(client, "api_base", None),
        effort=session.settings.requests.effort,
        skills_dirs=tuple(str(d) for d in session.settings.skills_dirs_given),
        plugin_dirs=tuple(str(d) for d in session.settings.plugin_dirs_given),
        add_dirs=tuple(str(d) for d in session.context.extra_roots),
        session_rules=tuple(r.text for r in session.approvals.session_rules),
        project=str(session.settings.project_dir),
    )


def keep_setup(session: Session, *, resumed: bool, notices: list[str]) -> None:
    """Restore the resumed session's rules (this project's only), then record the setup
    now and on every later change."""
    transcript = session.transcript
    if transcript is None:
        return
    if resumed:
        _restore_rules(session, notices)
    transcript.note_setup(setup_of(session).to_json())

    def changed() -> None:
        transcript.note_setup(setup_of(session).to_json())

    session.on_client = changed
    session.approvals.on_grant = changed


def _restore_rules(session: Session, notices: list[str]) -> None:
    from codebot.agent.session.transcript import DamagedSession

    transcript = session.transcript
    assert transcript is not None
    record, problems = read_setup(transcript.path)
    notices.extend(problems)
    if record is None:
        return
    try:
        header = read_header(transcript.path)
    except DamagedSession:
        header = None
    project = header.project if header is not None else ""
    rules = rules_for(read_setups(transcript.path), project, session.settings.project_dir)
    granted = [r for r in rules if session.approvals.grant_session(r) is not None]
    if granted:
        notices.append(
            "restored the session's allow rules: " + ", ".join(_shown(r) for r in granted)
        )
    elif record.session_rules and (record.project or project) != str(session.settings.project_dir):
        notices.append(
            f"the session's {len(record.session_rules)} allow rule(s) for the session were not "
            f"restored: they were given in another project ({_shown(record.project or project)})"
        )
