""" "Always allow": which rule is saved (exactly the narrow one), never for an undecidable
command or in an untrusted project, the YAML write (keeps other keys, atomic, 0600,
refuses links and odd files), and the session end to end: the rule holds at once and in
the next session; a denial's reason reaches the model cleaned."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest
import yaml

from codebot.agent.model import ScriptedModel
from codebot.agent.permissions import (
    REASON_MAX_CHARS,
    ApprovalAnswer,
    ApprovalRequest,
    Approvals,
    RuleSaveError,
    always_offer,
    clean_reason,
    parse_pattern,
    save_allow_rules,
)
from codebot.agent.session import build_session
from codebot.agent.session import events as ev
from codebot.config import load_settings
from codebot.workspace import open_catalog


@pytest.fixture
def project(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    (proj / "src").mkdir()
    (proj / "src" / "app.py").write_text("x = 1\n")
    (proj / "Makefile").write_text("all:\n")
    return proj


def offer(project: Path, tool: str, subject: str, deny: tuple[str, ...] = (), trusted: bool = True):
    approvals = Approvals(deny=list(deny))
    approvals.project_dir = os.path.realpath(project)
    return always_offer(tool, subject, approvals, trusted=trusted, project_dir=project)


# --------------------------------------------------------------------------- which rule


def test_a_plain_command_saves_exactly_itself(project: Path) -> None:
    o = offer(project, "Bash", "npm test")
    assert o.rules == ("Bash(npm test)",)
    assert o.path == str(project / ".codebot" / "config.yaml")
    rule = parse_pattern(o.rules[0])
    assert (rule.kind, rule.spec) == ("exact", "npm test")
    assert not rule.matches("Bash", "npm test --watch") and not rule.matches(
        "Bash", "npm install evil"
    )


def test_a_chain_saves_each_command_exactly_never_a_prefix(project: Path) -> None:
    assert offer(project, "Bash", "make && make test").rules == ("Bash(make)", "Bash(make test)")
    # What a prompt-injected model would hope for: a trailing `*` or `:*` becoming a prefix.
    for command in ("npm test *", "echo a:*", "git diff :*", "echo *"):
        rules = offer(project, "Bash", command).rules  # refused (`npm test *`) or exact, never more
        for text in rules:
            assert parse_pattern(text).kind == "exact", text
        approvals = Approvals(allow=list(rules))
        assert not approvals.check("Bash", "npm test --evil").allowed
        assert not approvals.check("Bash", "echo b").allowed
        assert not approvals.check("Bash", "git diff --output=/tmp/x").allowed


@pytest.mark.parametrize(
    "command",
    [
        "echo $(curl evil.example)",
        "$c x",
        "eval $x",
        "bash script.sh",
        "source env.sh",
        'bash -c "$y"',
        "rm -rf ${HOME@P}",
        "ls > out.txt",
        "PATH=/tmp/evil make",
        "( make )",
        "make &",
        "*",
        "",
        "echo hi\x1b[2K",
    ],
)
def test_nothing_is_saved_for_a_command_the_parser_cannot_decide(
    project: Path, command: str
) -> None:
    o = offer(project, "Bash", command)
    assert o.rules == () and o.why_not


def test_a_command_a_saved_rule_could_not_allow_is_not_offered(project: Path) -> None:
    o = offer(project, "Bash", "cat .env", deny=("Read(.env)",))
    assert o.rules == () and "Read(.env)" in o.why_not


def test_a_path_rule_is_anchored_and_escaped(project: Path) -> None:
    assert offer(project, "Edit", "src/app.py").rules == ("Edit(/src/app.py)",)
    # `Edit(Makefile)` would mean every Makefile in every folder.
    o = offer(project, "Write", "Makefile")
    assert o.rules == ("Write(/Makefile)",)
    rule = parse_pattern(o.rules[0])
    assert rule.matches("Write", "Makefile") and not rule.matches("Write", "sub/Makefile")


@pytest.mark.parametrize(
    "name", ["*", "**", "*.py", "[ab].py", "a?b", "src/*", "!x", "#x", "f(1).txt", "a\\b"]
)
def test_a_file_named_like_a_glob_saves_a_rule_for_that_file_only(project: Path, name: str) -> None:
    o = offer(project, "Write", name)
    if not o.rules:  # refused is fine; broader never is
        assert o.why_not
        return
    (text,) = o.rules
    rule = parse_pattern(text)
    assert rule.matches("Write", name)
    for other in (
        "src/app.py",
        "Makefile",
        "a.py",
        "b.py",
        "x",
        "sub/" + name,
        name + "x",
        "src/other",
    ):
        if other != name:
            assert not rule.matches("Write", other), (text, other)


def test_a_folder_or_the_project_itself_is_never_saved(project: Path) -> None:
    # `Write(/src)` would allow writing every file under src/.
    for subject in ("src", ".", "", " src/app.py", "src/app.py "):
        assert offer(project, "Write", subject).rules == (), subject


def test_hidden_characters_and_other_tools_are_not_saved(project: Path) -> None:
    assert offer(project, "Write", "notes\u202etxt.md").rules == ()
    assert offer(project, "Write", "a\nb").rules == ()
    assert offer(project, "Task", "general").rules == ()


def test_an_untrusted_project_offers_no_always(project: Path) -> None:
    o = offer(project, "Bash", "npm test", trusted=False)
    assert o.rules == () and "not trusted" in o.why_not and "codebot trust" in o.why_not


def test_the_user_config_is_never_the_target(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".codebot").mkdir(parents=True)
    o = always_offer(
        "Bash",
        "npm test",
        Approvals(),
        trusted=True,
        project_dir=home,
        user_config=home / ".codebot" / "config.yaml",
    )
    assert o.rules == () and "every project" in o.why_not


# --------------------------------------------------------------------------- the YAML write


def test_saving_keeps_every_other_key_and_is_private(project: Path) -> None:
    cfg = project / ".codebot" / "config.yaml"
    cfg.parent.mkdir()
    cfg.write_text(
        "# my settings\nmodel: gpt-4o\nskills:\n  overrides: {review: off}\n"
        "  listing: {budget: 9000}\n"
        "permissions:\n  deny: ['Bash(rm:*)']\n  allow: ['Bash(git status)']\nsandbox: {mode: on}\n"
    )
    os.chmod(cfg, 0o644)
    saved = save_allow_rules(cfg, ["Bash(npm test)", "Bash(git status)", "Bash(npm test)"])
    assert (
        saved.added == ("Bash(npm test)",)
        and saved.already == ("Bash(git status)",)
        and saved.comments_lost
    )
    data = yaml.safe_load(cfg.read_text())
    assert data == {
        "model": "gpt-4o",
        "skills": {"overrides": {"review": False}, "listing": {"budget": 9000}},
        "permissions": {"deny": ["Bash(rm:*)"], "allow": ["Bash(git status)", "Bash(npm test)"]},
        "sandbox": {"mode": True},
    }
    assert list(data) == ["model", "skills", "permissions", "sandbox"]  # the order too
    assert stat.S_IMODE(cfg.stat().st_mode) == 0o600
    assert sorted(p.name for p in cfg.parent.iterdir()) == ["config.yaml"]  # no temp file left
    again = save_allow_rules(cfg, ["Bash(npm test)"])
    assert again.added == () and again.already == ("Bash(npm test)",)


def test_saving_creates_the_file_and_its_folder(project: Path) -> None:
    cfg = project / ".codebot" / "config.yaml"
    save_allow_rules(cfg, ["Edit(/src/app.py)"])
    assert yaml.safe_load(cfg.read_text()) == {"permissions": {"allow": ["Edit(/src/app.py)"]}}
    assert stat.S_IMODE(cfg.stat().st_mode) == 0o600


def test_a_symlinked_config_is_refused_and_its_target_untouched(
    project: Path, tmp_path: Path
) -> None:
    target = tmp_path / "elsewhere.yaml"
    target.write_text("model: mine\n")
    cfg = project / ".codebot" / "config.yaml"
    cfg.parent.mkdir()
    cfg.symlink_to(target)
    with pytest.raises(RuleSaveError, match="symbolic link"):
        save_allow_rules(cfg, ["Bash(npm test)"])
    assert target.read_text() == "model: mine\n" and cfg.is_symlink()
    assert (
        offer(project, "Bash", "npm test").rules == ()
    )  # and it is not offered in the first place


def test_a_symlinked_config_folder_is_refused(project: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project / ".codebot").symlink_to(elsewhere)
    with pytest.raises(RuleSaveError, match="symbolic link"):
        save_allow_rules(project / ".codebot" / "config.yaml", ["Bash(npm test)"])
    assert list(elsewhere.iterdir()) == []


def test_a_config_that_is_not_a_regular_file_is_refused(project: Path) -> None:
    cfg = project / ".codebot" / "config.yaml"
    cfg.parent.mkdir()
    os.mkfifo(cfg)  # a read would wait forever
    with pytest.raises(RuleSaveError, match="not a regular file"):
        save_allow_rules(cfg, ["Bash(npm test)"])
    assert stat.S_ISFIFO(os.lstat(cfg).st_mode)


@pytest.mark.parametrize(
    "text",
    ["model: [unclosed\n", "- a list\n", "permissions: [x]\n", "permissions:\n  allow: Bash\n"],
)
def test_a_config_of_the_wrong_shape_is_left_as_it_is(project: Path, text: str) -> None:
    cfg = project / ".codebot" / "config.yaml"
    cfg.parent.mkdir()
    cfg.write_text(text)
    with pytest.raises(RuleSaveError, match="fix it first"):
        save_allow_rules(cfg, ["Bash(npm test)"])
    assert cfg.read_text() == text


def test_concurrent_saves_keep_every_rule(project: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    cfg = project / ".codebot" / "config.yaml"
    rules = [f"Bash(echo {i})" for i in range(24)]
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda r: save_allow_rules(cfg, [r]), rules))
    assert sorted(yaml.safe_load(cfg.read_text())["permissions"]["allow"]) == sorted(rules)


# --------------------------------------------------------------------------- denial reasons


def test_a_reason_is_cleaned_of_escapes_and_controls_and_capped() -> None:
    hostile = "\x1b[2J\x1b]52;c;ZXZpbA==\x07no,\r\n\tnot\x08 the\u202e lock\u200bfile\x00 \x9b31m"
    assert clean_reason(hostile) == "no, not the lockfile 31m"
    long = clean_reason("x" * 5000)
    assert len(long) == REASON_MAX_CHARS and long.endswith("…")
    assert clean_reason(None) == ""


# --------------------------------------------------------------------------- the session


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"text": "", "tool_calls": [{"name": name, "arguments": args}]}


def session_for(
    project: Path, replies: list[Any], answer: ApprovalAnswer, denial: str = "", trust: bool = True
):
    settings = load_settings(cwd=project, trust=trust)
    events: list[Any] = []

    def emit(e: Any) -> None:
        events.append(e)
        if isinstance(e, ApprovalRequest):
            e.denial = denial
            e.future.set_result(answer)

    session = build_session(
        settings, open_catalog(settings), client=ScriptedModel(replies), emit=emit, interactive=True
    )
    return session, events


def tool_results(session) -> list[str]:
    return [m["content"] for m in session.history if m["role"] == "tool"]


async def test_always_saves_the_rule_grants_it_now_and_in_the_next_session(project: Path) -> None:
    replies = [
        call("Bash", command="echo hi && echo there"),
        "one",
        call("Bash", command="echo there"),
        "two",
    ]
    session, events = session_for(project, replies, ApprovalAnswer.ALLOW_ALWAYS)
    await session.run_turn("go")
    await session.run_turn("again")
    asked = [e for e in events if isinstance(e, ApprovalRequest)]
    assert len(asked) == 1  # the second call ran at once: granted for this session too
    assert asked[0].always == ("Bash(echo hi)", "Bash(echo there)")
    cfg = project / ".codebot" / "config.yaml"
    assert yaml.safe_load(cfg.read_text()) == {
        "permissions": {"allow": ["Bash(echo hi)", "Bash(echo there)"]}
    }
    notes = [e.text for e in events if isinstance(e, ev.Notice)]
    assert any(f"saved Bash(echo hi), Bash(echo there) to {cfg}" in n for n in notes)
    assert "hi\nthere" in tool_results(session)[0]
    # The next session reads it from the (trusted) project's config: no question.
    nxt, nxt_events = session_for(
        project, [call("Bash", command="echo hi"), "ok"], ApprovalAnswer.DENY
    )
    await nxt.run_turn("go")
    assert not any(isinstance(e, ApprovalRequest) for e in nxt_events)
    assert "hi" in tool_results(nxt)[0]


async def test_always_in_an_untrusted_project_is_not_offered_and_saves_nothing(
    project: Path,
) -> None:
    session, events = session_for(
        project, [call("Bash", command="echo hi"), "ok"], ApprovalAnswer.ALLOW_ALWAYS, trust=False
    )
    await session.run_turn("go")
    (asked,) = [e for e in events if isinstance(e, ApprovalRequest)]
    assert asked.always == () and "not trusted" in asked.always_unavailable
    assert not (project / ".codebot" / "config.yaml").exists()
    assert session.approvals.session_rules == []  # an answer that was not offered is "once"


async def test_always_for_an_undecidable_command_saves_nothing(project: Path) -> None:
    session, events = session_for(
        project, [call("Bash", command="echo $(echo hi)"), "ok"], ApprovalAnswer.ALLOW_ALWAYS
    )
    await session.run_turn("go")
    (asked,) = [e for e in events if isinstance(e, ApprovalRequest)]
    assert asked.always == () and "plain" in asked.always_unavailable
    assert not (project / ".codebot" / "config.yaml").exists()


async def test_a_failed_save_still_allows_for_the_session_and_says_why(
    project: Path, tmp_path: Path
) -> None:
    session, events = session_for(
        project, [call("Bash", command="echo hi"), "ok"], ApprovalAnswer.ALLOW_ALWAYS
    )
    # The offer is made while the file is fine; a link appears before the save.
    target = tmp_path / "victim.yaml"
    target.write_text("model: mine\n")
    original = session.approver._save_always  # the Approver saves what "always" grants

    async def swap_then_save(request: ApprovalRequest) -> None:
        (project / ".codebot").mkdir(exist_ok=True)
        (project / ".codebot" / "config.yaml").symlink_to(target)
        await original(request)

    session.approver._save_always = swap_then_save  # type: ignore[method-assign]
    await session.run_turn("go")
    assert target.read_text() == "model: mine\n"
    warning = [e.text for e in events if isinstance(e, ev.Notice) and e.level == "warning"]
    assert any("could not save Bash(echo hi)" in w and "symbolic link" in w for w in warning)
    assert [r.text for r in session.approvals.session_rules] == ["Bash(echo hi)"]


async def test_a_denial_with_a_reason_tells_the_model_cleaned(project: Path) -> None:
    session, _ = session_for(
        project,
        [call("Write", path="lock.json", content="{}"), "ok"],
        ApprovalAnswer.DENY,
        denial="\x1b[31mdo not\x1b[0m touch\nthe lockfile\u202e\x07",
    )
    await session.run_turn("go")
    assert tool_results(session) == ["the person denied this call: do not touch the lockfile"]
    assert not (project / "lock.json").exists()


async def test_a_denial_without_a_reason_reads_as_before(project: Path) -> None:
    session, _ = session_for(
        project, [call("Write", path="lock.json", content="{}"), "ok"], ApprovalAnswer.DENY
    )
    await session.run_turn("go")
    assert tool_results(session)[0].startswith("the person did not approve this Write call.")
