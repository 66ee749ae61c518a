"""`commands/resume_setup`: what --continue / --resume take from the session's setup record
and what a flag given with them keeps; the restored line shows recorded text escaped."""

from __future__ import annotations

import json
from pathlib import Path

from codebot.agent.model import ScriptedModel
from codebot.agent.session import ResumeChoice, build_session
from codebot.cli import build_parser
from codebot.commands.args import settings_from
from codebot.commands.resume_setup import restore_setup
from codebot.workspace import open_catalog


def session_file(project: Path, setup: object, *, name: str = "20260101-000000-aaaaaaaa") -> Path:
    settings = settings_from(build_parser().parse_args(["--cwd", str(project)]))
    sessions = settings.home / "sessions"
    sessions.mkdir(parents=True, exist_ok=True)
    header = {"type": "session", "format": 1, "id": name, "project": str(project), "created": 1}
    path = sessions / f"{name}.jsonl"
    records = [header, {"type": "setup", "setup": setup}]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def restore(project: Path, *argv: str):
    args = build_parser().parse_args(["--cwd", str(project), *argv])
    settings, said = restore_setup(args, settings_from(args))
    return args, settings, said


def test_nothing_is_restored_without_continue_or_resume(project: Path) -> None:
    session_file(project, {"model": "openai/x", "api_base": "http://127.0.0.1:9/v1"})
    _args, settings, said = restore(project)
    assert settings.model is None and settings.api_base is None and said == []


def test_continue_restores_model_endpoint_and_add_dirs(project: Path, tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    session_file(
        project,
        {"model": "openai/x", "api_base": "http://127.0.0.1:9/v1", "add_dirs": [str(extra)]},
    )
    args, settings, said = restore(project, "--continue")
    assert (settings.model, settings.api_base) == ("openai/x", "http://127.0.0.1:9/v1")
    assert args.add_dir == [extra]
    assert said == [
        "restored from the session: model openai/x · endpoint http://127.0.0.1:9/v1 · "
        f"--add-dir {extra}"
    ]


def test_resume_by_id_reads_that_session(project: Path) -> None:
    session_file(project, {"model": "openai/a"}, name="20260101-000000-aaaaaaaa")
    session_file(project, {"model": "openai/b"}, name="20260101-000000-bbbbbbbb")
    _args, settings, _said = restore(project, "--resume", "20260101-000000-aaaaaaaa")
    assert settings.model == "openai/a"
    _args, settings, said = restore(project, "--resume", "../../etc/passwd")
    assert settings.model is None and said == []


def test_a_recorded_endpoint_with_escapes_is_shown_escaped(project: Path) -> None:
    session_file(project, {"model": "openai/x", "api_base": "http://h/\x1b]0;pwned\x07\nv1"})
    _args, _settings, said = restore(project, "--continue")
    assert len(said) == 1 and "\x1b" not in said[0] and "\x07" not in said[0]
    assert "\n" not in said[0]


def test_a_hostile_record_is_named_and_the_rest_restored(project: Path) -> None:
    session_file(project, {"model": ["x"], "api_base": "http://127.0.0.1:9/v1"})
    _args, settings, said = restore(project, "--continue")
    assert settings.model is None and settings.api_base == "http://127.0.0.1:9/v1"
    assert any("field 'model' is not a text" in s for s in said)
    session_file(project, "not an object")
    _args, settings, said = restore(project, "--continue")
    assert settings.api_base is None and "not an object" in said[0]


def test_model_given_keeps_its_own_endpoint_and_says_so(project: Path) -> None:
    session_file(project, {"model": "openai/x", "api_base": "http://127.0.0.1:9/v1"})
    _args, settings, said = restore(project, "--continue", "--model", "openai/y")
    assert settings.model == "openai/y" and settings.api_base is None
    assert "--model given: using openai/y, the session used openai/x" in said
    assert any("endpoint http://127.0.0.1:9/v1 is not restored" in s for s in said)


def test_api_base_given_keeps_the_recorded_model(project: Path) -> None:
    session_file(project, {"model": "openai/x", "api_base": "http://127.0.0.1:9/v1"})
    _args, settings, said = restore(project, "--continue", "--api-base", "http://127.0.0.1:7/v1")
    assert (settings.model, settings.api_base) == ("openai/x", "http://127.0.0.1:7/v1")
    assert said[0] == "restored from the session: model openai/x"
    assert (
        "--api-base given: using http://127.0.0.1:7/v1, the session used http://127.0.0.1:9/v1"
        in said
    )


def test_skills_dir_given_wins(project: Path) -> None:
    (project / "a").mkdir()
    (project / "b").mkdir()
    session_file(project, {"skills_dirs": [str(project / "a")]})
    _args, settings, said = restore(project, "--continue", "--skills-dir", str(project / "b"))
    assert settings.skills_dirs_given == ((project / "b").resolve(),)
    assert said == ["--skills-dir given: using b, the session used a"]
    _args, settings, said = restore(project, "--continue")
    assert settings.skills_dirs[0] == project / "a" and said == [
        "restored from the session: skills folder a"
    ]


def test_a_relative_or_missing_folder_is_skipped_with_a_note(project: Path) -> None:
    session_file(project, {"skills_dirs": ["skills", str(project / "gone")]})
    _args, settings, said = restore(project, "--continue")
    assert settings.skills_dirs_given == ()
    assert said == [
        "the session's skills folder skills is not an absolute path; skipped",
        "the session's skills folder gone no longer exists; skipped",
    ]


def test_the_restored_line_comes_first_among_the_start_notices(project: Path) -> None:
    session_file(project, {"model": "scripted"})
    _args, settings, said = restore(project, "--continue")
    session = build_session(
        settings,
        open_catalog(settings),
        client=ScriptedModel([]),
        resume=ResumeChoice(True, None, tuple(said)),
    )
    assert session.transcript is not None
    assert session.transcript.notices[0] == "restored from the session: model scripted"


# -- the session's reasoning effort -----------------------------------------------------------


def test_continue_restores_the_effort_and_a_flag_wins(project: Path) -> None:
    session_file(project, {"model": "openai/x", "effort": "high"})
    _args, settings, said = restore(project, "--continue")
    assert settings.requests.effort == "high"
    assert said == ["restored from the session: model openai/x · effort high"]
    _args, settings, said = restore(project, "--continue", "--effort", "low")
    assert settings.requests.effort == "low"
    assert "--effort given: using low, the session used high" in said


def test_a_recorded_effort_that_is_no_effort_is_not_restored(project: Path) -> None:
    session_file(project, {"effort": "\x1b[31mextreme"})
    _args, settings, said = restore(project, "--continue")
    assert settings.requests.effort is None
    assert len(said) == 1 and "not restored" in said[0] and "\x1b" not in said[0]


def test_the_effort_reaches_every_request_unless_a_skill_sets_its_own(
    project: Path, write_skill
) -> None:
    import asyncio

    from codebot.agent.session.setup_keep import setup_of

    write_skill(project / ".codebot" / "skills", "think", "description: Think hard.\neffort: low")
    args = build_parser().parse_args(["--cwd", str(project), "--effort", "high", "--trust"])
    settings = settings_from(args)
    client = ScriptedModel(["plain answer", "after the skill"])
    session = build_session(settings, open_catalog(settings), client=client)
    asyncio.run(session.run_turn("hello"))
    asyncio.run(session.run_turn("/think now"))
    assert [r.effort for r in client.requests] == ["high", "low"]
    assert setup_of(session).effort == "high"  # what --continue will restore


def test_config_effort_is_checked(project: Path, tmp_path: Path) -> None:
    from codebot.config import load_settings

    home = Path(__import__("os").environ["CODEBOT_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text("effort: medium\n")
    assert load_settings(cwd=project).requests.effort == "medium"
    (home / "config.yaml").write_text("effort: ludicrous\n")
    settings = load_settings(cwd=project)
    assert settings.requests.effort is None
    assert any("config effort: 'ludicrous' is not one of" in w for w in settings.warnings)
