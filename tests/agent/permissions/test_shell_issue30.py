"""Issue 30: `--` in every wrapper, git's dashed programs, new rows of the dangerous-options
table, and git commands that print committed files while a Read(...) deny rule is in force.

Each attack here worked before the fix; each has a control showing the ordinary case still
works."""

from __future__ import annotations

import pytest

from codebot.agent.permissions import Approvals
from codebot.shell.decide import decide
from codebot.shell.parse import analyze
from codebot.shell.rules import deny_match
from codebot.shell.wrapper_specs import WRAPPERS, Spec

DENY_RM = [("prefix", "rm")]
DENY_PUSH = [("prefix", "git push")]


def _verdict(command: str, allow=(), deny=(), allow_any: bool = False) -> str:  # type: ignore[no-untyped-def]
    return decide(command, list(allow), list(deny), allow_any).verdict


# --------------------------------------------------------------------------- `--` in wrappers


@pytest.mark.parametrize(
    "command",
    [
        "timeout -- 5 rm f",
        "taskset -- 1 rm x",
        "flock -- L rm x",
        "chrt -o -- 0 rm x",
        "chroot -- /new rm x",
        "flock -- L -c 'rm x'",
        "env -- A=1 rm x",
        "sudo -- A=1 rm x",
        "timeout -s KILL -- 5 rm x",
        "nice -n 1 -- rm x",
        "timeout -- 5 timeout -- 5 rm x",
        "sudo -- timeout -- 5 rm x",
    ],
)
def test_deny_sees_the_command_after_a_wrappers_end_of_options(command: str) -> None:
    d = decide(command, [], DENY_RM, True)
    assert d.verdict == "deny", d.reason
    assert "Bash(rm:*)" in d.reason


def test_deny_rm_from_the_command_line_denies_timeout_dash_dash(tmp_path) -> None:  # type: ignore[no-untyped-def]
    a = Approvals(allow=["Bash"], deny=["Bash(rm:*)"])
    for command in (
        "timeout -- 5 rm f",
        "taskset -- 1 rm x",
        "flock -- L rm x",
        "chrt -o -- 0 rm x",
    ):
        v = a.check("Bash", command)
        assert v.outcome == "deny" and v.rule == "Bash(rm:*)", (command, v.reason)
    assert a.check("Bash", "timeout -- 5 ls").outcome == "allow"  # the control


@pytest.mark.parametrize(
    ("command", "rules"),
    [
        ("timeout -- 5 pytest -q", [("prefix", "timeout"), ("prefix", "pytest")]),
        ("timeout 5 -- pytest -q", [("prefix", "timeout"), ("prefix", "pytest")]),
        ("flock -- /tmp/l make", [("prefix", "flock"), ("prefix", "make")]),
        ("env -- LANG=C ls", [("prefix", "env"), ("prefix", "ls")]),
    ],
)
def test_control_wrappers_with_dash_dash_are_still_allowed_by_covering_rules(
    command: str, rules: list
) -> None:  # type: ignore[type-arg]
    d = decide(command, rules, DENY_RM, False)
    assert d.verdict == "allow", d.reason


def _spelled(name: str) -> str:
    """How the wrapper is written as a command (the second `!` of `! !` is a command name)."""
    return "! !" if name == "!" else name


@pytest.mark.parametrize("name", sorted(WRAPPERS))
@pytest.mark.parametrize("where", ["before", "after"])
def test_every_wrapper_in_the_table_supports_dash_dash(name: str, where: str) -> None:
    """`<wrapper> -- [positionals] rm x` and `<wrapper> [positionals] -- rm x` run `rm`.
    Parametrised over the table: a new wrapper without `--` support fails here."""
    positionals = " ".join(["1"] * WRAPPERS[name].positionals)
    args = f"-- {positionals}" if where == "before" else f"{positionals} --"
    command = f"{_spelled(name)} {args.strip()} rm x"
    a = analyze(command)
    found = [c for c in a.commands if c.name == "rm"]
    assert found and found[0].words == ("rm", "x"), command
    assert deny_match(a, "rm", "prefix").ok, command
    assert decide(command, [], DENY_RM, True).verdict == "deny", command


def _unknown_short(spec: Spec) -> str:
    known = spec.flags + spec.valued + spec.optional + spec.script + spec.no_command
    return next(ch for ch in "QZJYKWjkyz" if ch not in known)


@pytest.mark.parametrize("name", sorted(WRAPPERS))
@pytest.mark.parametrize("kind", ["long", "short"])
def test_an_unknown_option_of_a_wrapper_makes_it_unresolved(name: str, kind: str) -> None:
    spec = WRAPPERS[name]
    option = "--no-such-option" if kind == "long" else f"-{_unknown_short(spec)}"
    positionals = " ".join(["1"] * spec.positionals)
    command = f"{_spelled(name)} {option} {positionals} ls".replace("  ", " ")
    a = analyze(command)
    assert any("unknown option" in u for u in a.unresolved), (command, a.unresolved)
    # never allowed by a prefix rule, asked under any Bash deny rule, even with a bare allow
    rules = [("prefix", name), ("prefix", "ls")]
    assert _verdict(command, rules) == "ask", command
    assert _verdict(command, deny=[("prefix", "shred")], allow_any=True) == "ask", command


def test_control_known_options_of_a_wrapper_resolve() -> None:
    assert not analyze("timeout -s KILL -k 5 10 ls").unresolved
    assert _verdict("timeout -s KILL 10 ls", [("prefix", "timeout"), ("prefix", "ls")]) == "allow"


# --------------------------------------------------------------------------- git's dashed programs


@pytest.mark.parametrize(
    "command",
    [
        "git-push origin",
        "/usr/lib/git-core/git-push origin",
        "/usr/libexec/git-core/git-push origin main",
        "sudo git-push origin",
        "timeout -- 5 git-push origin",
        "GIT-PUSH origin",
        "bash -c 'git-push x'",
        "git send-pack ../other main",
        "/usr/libexec/git-core/git-send-pack ../other main",
        "git-send-pack x",
    ],
)
def test_deny_git_push_hits_the_dashed_program_and_send_pack(command: str) -> None:
    d = decide(command, [], DENY_PUSH, True)
    assert d.verdict == "deny", d.reason
    assert "Bash(git push:*)" in d.reason


def test_git_push_deny_from_the_command_line_denies_the_git_core_path() -> None:
    a = Approvals(allow=["Bash(git:*)"], deny=["Bash(git push:*)"])
    v = a.check("Bash", "/usr/lib/git-core/git-push origin")
    assert v.outcome == "deny" and v.rule == "Bash(git push:*)", v.reason
    assert a.check("Bash", "git status").outcome == "allow"  # the control


def test_a_dashed_program_resolves_to_git_and_its_subcommand() -> None:
    cmds = analyze("/usr/libexec/git-core/git-send-pack --all ../x").commands
    assert [(c.name, c.words) for c in cmds][1] == ("git", ("git", "send-pack", "--all", "../x"))
    assert cmds[1].via == ("git-send-pack",)
    assert analyze("git-receive-pack .").commands[1].words == ("git", "receive-pack", ".")


def test_a_dashed_deny_rule_means_the_git_subcommand_too() -> None:
    deny = [("prefix", "git-push")]
    assert _verdict("git push origin", deny=deny, allow_any=True) == "deny"
    assert _verdict("git-push origin", deny=deny, allow_any=True) == "deny"
    assert _verdict("git pull", deny=deny, allow_any=True) == "allow"  # the control


@pytest.mark.parametrize(
    "command",
    [
        "git status",
        "git pull origin",
        "git receive-pack .",
        "git-lfs pull",
        "git-pull origin",
        "/usr/lib/git-core/git-fetch origin",
    ],
)
def test_control_other_git_commands_are_not_denied_as_push(command: str) -> None:
    d = decide(command, [], DENY_PUSH, False)
    assert d.verdict != "deny", d.reason


@pytest.mark.parametrize(
    "command",
    [
        "git send-pack ../other main",
        "git receive-pack .",
        "git upload-pack .",
        "git -C . send-pack x",
        "git-upload-pack .",
        "/usr/lib/git-core/git-receive-pack .",
    ],
)
def test_send_receive_upload_pack_are_not_allowed_by_git_prefix(command: str) -> None:
    d = decide(command, [("prefix", "git"), ("prefix", "git -C .")], [], False)
    assert d.verdict == "ask", d.reason
    assert "talks to a remote" in d.reason or "is not covered" in d.reason, d.reason
    assert _verdict(command, deny=DENY_RM, allow_any=True) == "ask"
    if not command.startswith(("git-", "/")):
        assert "talks to a remote" in d.reason


def test_control_a_rule_naming_the_plumbing_allows_it() -> None:
    assert _verdict("git send-pack ../other main", [("prefix", "git send-pack")]) == "allow"
    assert _verdict("git-upload-pack .", [("prefix", "git-upload-pack")]) == "allow"


def test_the_dangerous_options_table_applies_to_dashed_programs() -> None:
    rules = [("prefix", "git-push"), ("prefix", "git-clone")]
    assert _verdict("git-push origin main", rules) == "allow"  # the control
    for command in (
        "git-push --receive-pack=/tmp/evil origin",
        "git-clone -u /tmp/evil url",
        "/usr/lib/git-core/git-push --exec=/tmp/evil origin",
    ):
        d = decide(command, [*rules, ("prefix", "/usr/lib/git-core/git-push")], [], False)
        assert d.verdict == "ask" and "runs the program it names" in d.reason, (command, d.reason)
        assert _verdict(command, deny=DENY_RM, allow_any=True) == "ask", command
    # naming the option in the rule grants it, as for `git` itself
    assert (
        _verdict("git-push --receive-pack=x o", [("prefix", "git-push --receive-pack=x")])
        == "allow"
    )


def test_allow_rules_compare_dashed_programs_as_written() -> None:
    assert _verdict("git-push origin", [("prefix", "git")]) == "ask"
    assert _verdict("git-push origin", [("prefix", "git push")]) == "ask"
    assert _verdict("/tmp/evil/git-push origin", [("prefix", "git-push")]) == "ask"


# --------------------------------------------------------------------------- new rows


@pytest.mark.parametrize(
    ("command", "rule", "why"),
    [
        ("zip -TT 'sh -c x' a.zip b", "zip", "runs the program it names"),
        ("zip -T -TT 'sh -c x' a.zip b", "zip", "runs the program it names"),
        ("zip -T -qTT 'sh -c x' a.zip b", "zip", "runs the program it names"),
        ("zip -T '-TTsh -c x' a.zip b", "zip", "runs the program it names"),
        ("zip -T --unzip-command='sh -c x' a.zip b", "zip", "runs the program it names"),
        ("ssh-keygen -D /tmp/evil.so", "ssh-keygen", "provider library"),
        ("ssh-keygen -t ed25519-sk -w /tmp/evil.so", "ssh-keygen", "provider library"),
        (
            "cargo --config 'target.x86_64-unknown-linux-gnu.runner=\"sh -c evil\"' run",
            "cargo",
            "runner",
        ),
        ("cargo run --config=build.rustc-wrapper=/tmp/x", "cargo", "runner"),
        ("tar -tvf a.tar --index-file=/tmp/out", "tar", "writes to the file"),
        ("tar -tvf a.tar --volno-file /tmp/out", "tar", "writes to the file"),
        ("less -k keys f", "less", "key file"),
        ("less -Rkkeys f", "less", "key file"),
        ("less --lesskey-file=keys f", "less", "key file"),
        ("less --lesskey-src keys f", "less", "key file"),
        ("less '--lesskey-content=#env' f", "less", "key file"),
    ],
)
def test_new_rows_are_not_allowed_by_a_prefix_rule(command: str, rule: str, why: str) -> None:
    d = decide(command, [("prefix", rule)], [], False)
    assert d.verdict == "ask" and why in d.reason, d.reason
    assert _verdict(command, deny=DENY_RM, allow_any=True) == "ask"


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        ("zip -r a.zip src", "zip"),
        ("zip -T a.zip b", "zip"),
        ("ssh-keygen -l -f key.pub", "ssh-keygen"),
        ("cargo build --release", "cargo"),
        ("cargo test", "cargo"),
        ("tar -tvf a.tar", "tar"),
        ("less -R f", "less"),
        ("less -K f", "less"),
    ],
)
def test_control_ordinary_uses_are_still_allowed(command: str, rule: str) -> None:
    d = decide(command, [("prefix", rule)], [], False)
    assert d.verdict == "allow", d.reason


# ---------------------------------------------------------------------- git prints the object store

PRINTS = [
    "git show HEAD:.env",
    "git show",
    "git cat-file -p HEAD:.env",
    "git log -p",
    "git log --patch -- .env",
    "git log -u",
    "git log -U1",
    "git log -L1,5:.env",
    "git diff HEAD~1",
    "git grep SECRET HEAD",
    "git archive HEAD",
    "git blame .env",
    "git annotate .env",
    "git stash show -p",
    "git stash show",
    "git stash list -p",
    "git format-patch -1 --stdout",
    "git whatchanged -p",
    "git --no-pager show HEAD:.env",
    "git -C . show HEAD:.env",
    "git-show HEAD:.env",
    "/usr/lib/git-core/git-cat-file -p HEAD:.env",
    "git status && git show HEAD:.env",
    "timeout -- 5 git show HEAD:.env",
    "git diff-tree -p HEAD",
]


@pytest.mark.parametrize("command", PRINTS)
@pytest.mark.parametrize("allow", ["Bash(git:*)", "Bash", "Bash(git show:*)"])
def test_with_a_read_deny_git_printing_repository_contents_is_asked(
    command: str, allow: str
) -> None:
    a = Approvals(
        allow=[
            allow,
            "Bash(git-show:*)",
            "Bash(/usr/lib/git-core/git-cat-file:*)",
            "Bash(timeout:*)",
        ],
        deny=["Read(.env)"],
    )
    v = a.check("Bash", command)
    assert v.outcome == "ask", (command, v.reason)
    assert "prints repository contents" in v.reason and "Read(.env)" in v.reason
    assert "object store" in v.reason


def test_the_reason_names_the_git_command() -> None:
    a = Approvals(allow=["Bash(git:*)"], deny=["Read(.env)"])
    assert a.check("Bash", "git show HEAD:.env").reason == (
        "needs approval: `git show` prints repository contents, "
        "and a Read(...) deny rule (Read(.env)) "
        "is in force: a file it denies, once committed, can be read from git's object store"
    )
    assert "`git log -p`" in a.check("Bash", "git log -p").reason


@pytest.mark.parametrize(
    "command",
    [
        "git status",
        "git log --oneline",
        "git log --format=%H%n%s",
        "git log --stat",
        "git stash -u",
        "git stash list",
        "git branch -a",
        "git rev-parse HEAD",
    ],
)
def test_control_with_a_read_deny_other_git_commands_are_allowed(command: str) -> None:
    for allow in ("Bash(git:*)", "Bash"):
        a = Approvals(allow=[allow], deny=["Read(.env)"])
        v = a.check("Bash", command)
        assert v.outcome == "allow", (command, allow, v.reason)


def test_control_without_a_read_deny_git_show_is_allowed() -> None:
    for deny in ([], ["Edit(.env)"], ["Bash(rm:*)"]):
        a = Approvals(allow=["Bash(git:*)"], deny=deny)
        assert a.check("Bash", "git show HEAD").outcome == "allow", deny
        assert a.check("Bash", "git log -p").outcome == "allow", deny


def test_a_bare_read_deny_counts_too() -> None:
    a = Approvals(allow=["Bash"], deny=["Read"])
    assert a.check("Bash", "git show HEAD:.env").outcome == "ask"
