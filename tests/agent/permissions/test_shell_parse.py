"""codebot.shell.parse.analyze: plainness (with the construct and column in the reason), every
simple command found anywhere (wrappers, scripts, substitutions), what cannot be resolved, the
limits on hostile input, and differential checks against the real bash where it exists."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codebot.shell.parse import (
    MAX_CHARS,
    MAX_SCRIPT_DEPTH,
    MAX_SPECIALS,
    analyze,
)
from codebot.shell.words import decode_ansi_c

ROOT = Path(__file__).resolve().parents[3]
BASH = shutil.which("bash")
needs_bash = pytest.mark.skipif(BASH is None, reason="no bash to compare with")


def names(command: str) -> set[str | None]:
    return {c.name for c in analyze(command).commands}


def test_import_does_not_load_tree_sitter(tmp_path: Path) -> None:
    code = "import sys, codebot.shell.parse; print('tree_sitter' in sys.modules)"
    env = {**os.environ, "HOME": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


# --------------------------------------------------------------------------- plain


@pytest.mark.parametrize(
    ("command", "words"),
    [
        ("git status", [("git", "status")]),
        ("ls -la", [("ls", "-la")]),
        ('echo "hello world"', [("echo", "hello world")]),
        (
            "git diff HEAD -- a.py | head -5",
            [("git", "diff", "HEAD", "--", "a.py"), ("head", "-5")],
        ),
        ("pytest -q && ruff check .", [("pytest", "-q"), ("ruff", "check", ".")]),
        ("a || b; c", [("a",), ("b",), ("c",)]),
        ("echo 'it''s' \"a\\\"b\" a\\ b", [("echo", "its", 'a"b', "a b")]),
        ("find . -exec echo {} +", [("find", ".", "-exec", "echo", "{}", "+"), ("echo", "{}")]),
        ("git status\nls -la", [("git", "status"), ("ls", "-la")]),
        ("git status &&\n  ls", [("git", "status"), ("ls",)]),
        ("docker run \\\n  -v x:y img", [("docker", "run", "-v", "x:y", "img")]),
        ("echo $'plain'", [("echo", "plain")]),  # no escapes: a literal (decision)
        ('echo "a$" $', [("echo", "a$", "$")]),  # a lone `$` is literal
        ("ls *.py", [("ls", "*.py")]),  # a glob argument: plain, but not literal
        ("\\rm x", [("rm", "x")]),
    ],
)
def test_plain(command: str, words: list[tuple[str, ...]]) -> None:
    a = analyze(command)
    assert a.plain, a.reason
    assert a.reason is None
    assert [c.words for c in a.commands] == words


@pytest.mark.parametrize(
    ("command", "construct", "where"),
    [
        ("echo $x", "a parameter expansion `$x`", "column 6"),
        ("echo ${x}", "a parameter expansion `${x}`", "column 6"),
        ("echo ok ${x:=a}", "a parameter expansion `${x:=a}`", "column 9"),
        ("echo ${x@P}", "a parameter expansion `${x@P}`", "column 6"),
        ("echo $((1+2))", "an arithmetic expansion `$((1+2))`", "column 6"),
        ("echo $[x]", "an arithmetic expansion `$[x]`", "column 6"),
        ("echo $(id)", "a command substitution `$(id)`", "column 6"),
        ("echo `id`", "a command substitution ``id``", "column 6"),
        ('echo "a $(id)"', "a command substitution `$(id)`", "column 9"),
        ("diff <(ls) b", "a process substitution `<(ls)`", "column 6"),
        ("echo a > f", "a redirection `> f`", "column 8"),
        ("cat < f", "a redirection `< f`", "column 5"),
        ("echo a >> f", "a redirection `>> f`", "column 8"),
        ("ls 2>&1", "a redirection `2>&1`", "column 4"),
        ("ls &> f", "a redirection `&> f`", "column 4"),
        ("cat <<EOF\nhi\nEOF", "a heredoc", "line 1, column 5"),
        ("cat <<< hi", "a here-string `<<< hi`", "column 5"),
        ("(ls)", "a subshell `(ls)`", "column 1"),
        ("{ ls; }", "a group `{ ls; }`", "column 1"),
        ("f() { ls; }", "a function definition", "column 1"),
        ("x=1 ls", "a variable assignment `x=1`", "column 1"),
        ("ls; x=1", "a variable assignment `x=1`", "column 5"),
        ("echo $'a\\nb'", "an ANSI-C string with escapes `$'a\\nb'`", "column 6"),
        ('echo $"hi"', 'a locale-translated string `$"hi"`', "column 6"),
        ("*rm x", "a glob in the command name `*rm`", "column 1"),
        ("echo {a,b}", "a brace expansion `{a,b}`", "column 6"),
        ("echo a{1..3}", "a brace expansion", "column 7"),
        ("sleep 1 &", "a background `&`", "column 9"),
        ("! ls", "a negation `! ls`", "column 1"),
        ("if true; then ls; fi", "an if statement", "column 1"),
        ("for i in a; do ls; done", "a for loop", "column 1"),
        ("while true; do ls; done", "a loop", "column 1"),
        ("case x in a) ls;; esac", "a case statement", "column 1"),
        ("git status # hi", "a comment `# hi`", "column 12"),
        ("echo a;; b", "a `;;`", "column 7"),
        ("a |& b", "a `|&` pipe", "column 3"),
        ("export A=1", "a declaration `export A=1`", "column 1"),
        ("[[ -f x ]]", "a test command", "column 1"),
        ("ls\recho", "a control character U+000D", "column 3"),
        ("ls \x1b[1m", "a control character U+001B", "column 4"),
        ("ls \u202eabc", "a control character U+202E", "column 4"),
        ("echo é $x", "a parameter expansion `$x`", "column 8"),  # columns count characters
        ("ls\necho $x", "a parameter expansion `$x`", "line 2, column 6"),
        ("echo a\\\nb", "a line continuation inside a word", "line 1, column 7"),
    ],
)
def test_not_plain_names_the_construct_and_column(command: str, construct: str, where: str) -> None:
    a = analyze(command)
    assert not a.plain
    assert a.reason is not None and a.reason.startswith("not plain: ")
    assert construct in a.reason
    assert f"at {where}" in a.reason


def test_the_first_construct_is_reported() -> None:
    a = analyze("echo ${x:=$'\\x24(id \\x3e /tmp/q)'} ${x@P}")
    assert a.reason is not None
    assert a.reason.startswith("not plain: contains a parameter expansion `${x:=$'\\x24(id")
    assert a.reason.endswith("at column 6")


@pytest.mark.parametrize(
    ("command", "what"),
    [
        ("ls | |", "does not parse: unexpected"),
        ("rm x &&", "does not parse: missing"),
        ('echo "unterminated', "does not parse"),
        ("echo \\", "does not parse"),
        ("", "an empty command"),
        ("   \n ", "an empty command"),
    ],
)
def test_parse_errors_and_empty(command: str, what: str) -> None:
    a = analyze(command)
    assert not a.plain
    assert a.reason is not None and what in a.reason
    if command.strip():
        assert any("does not parse" in u for u in a.unresolved)


# --------------------------------------------------------------------------- names


@pytest.mark.parametrize(
    "command",
    [
        "/bin/rm x",
        "\\rm x",
        "'rm' x",
        '"rm" x',
        '"r""m" x',
        "r\\m x",
        "$'\\x72m' x",
        "$'\\162m' x",
        "r''m x",
        "rm\tx",
        "ls && rm x",
        "rm$'' x",
    ],
)
def test_names_resolve_through_quotes_escapes_and_paths(command: str) -> None:
    assert "rm" in names(command)


@pytest.mark.parametrize(
    "command", ["$c x", "rm${IFS}x", "$(echo rm) x", "`echo rm` x", "*rm x", "r?m x", "${x:-rm} x"]
)
def test_names_that_are_not_literals_are_unresolved(command: str) -> None:
    a = analyze(command)
    assert a.commands[0].name is None
    assert any("command name" in u for u in a.unresolved)


def test_a_fullwidth_letter_is_another_program() -> None:
    # `rｍ` (fullwidth m) is not `rm`: it names a program that does not exist (documented)
    a = analyze("rｍ x")
    assert a.plain
    assert a.commands[0].name == "rｍ"


def test_start_columns_and_lines() -> None:
    a = analyze("ls && git status\n  pwd")
    assert [(c.name, c.start_line, c.start_column) for c in a.commands] == [
        ("ls", 1, 1),
        ("git", 1, 7),
        ("pwd", 2, 3),
    ]


# --------------------------------------------------------------------------- wrappers


@pytest.mark.parametrize(
    ("command", "inner", "via"),
    [
        ("env -i rm x", ("rm", "x"), ("env",)),
        ("env -u HOME -i A=1 B=2 rm x", ("rm", "x"), ("env",)),
        ("env - rm x", ("rm", "x"), ("env",)),
        ("command -p rm x", ("rm", "x"), ("command",)),
        ("command\trm x", ("rm", "x"), ("command",)),
        ("exec -a name rm x", ("rm", "x"), ("exec",)),
        ("nice -n 1 rm x", ("rm", "x"), ("nice",)),
        ("nice -5 rm x", ("rm", "x"), ("nice",)),
        ("nohup rm x", ("rm", "x"), ("nohup",)),
        ("timeout 5 rm x", ("rm", "x"), ("timeout",)),
        ("timeout -s KILL -k 1 5 rm x", ("rm", "x"), ("timeout",)),
        ("timeout --signal=KILL 5 rm x", ("rm", "x"), ("timeout",)),
        ("sudo -u root -E rm x", ("rm", "x"), ("sudo",)),
        ("sudo A=1 rm x", ("rm", "x"), ("sudo",)),
        ("doas -u root rm x", ("rm", "x"), ("doas",)),
        ("time -p rm x", ("rm", "x"), ("time",)),
        ("stdbuf -oL -e0 rm x", ("rm", "x"), ("stdbuf",)),
        ("ionice -c 3 rm x", ("rm", "x"), ("ionice",)),
        ("chrt -f 10 rm x", ("rm", "x"), ("chrt",)),
        ("setsid -f rm x", ("rm", "x"), ("setsid",)),
        ("xargs -0 -n 1 rm -f", ("rm", "-f"), ("xargs",)),
        ("xargs -I{} rm {}", ("rm", "{}"), ("xargs",)),
        ("xargs -i{} rm {}", ("rm", "{}"), ("xargs",)),
        ("find . -exec rm {} \\;", ("rm", "{}"), ("find -exec",)),
        ("find . -execdir rm {} +", ("rm", "{}"), ("find -execdir",)),
        ("find . -ok rm {} ';'", ("rm", "{}"), ("find -ok",)),
        ("bash -c 'rm x'", ("rm", "x"), ("bash -c",)),
        ('sh -c "echo; rm x"', ("rm", "x"), ("sh -c",)),
        ("bash -lc 'rm x'", ("rm", "x"), ("bash -c",)),
        ("zsh -c 'rm x'", ("rm", "x"), ("zsh -c",)),
        ("busybox rm x", ("rm", "x"), ("busybox",)),
        ("busybox sh -c 'rm x'", ("rm", "x"), ("busybox", "sh -c")),
        ("eval rm x", ("rm", "x"), ("eval",)),
        ("eval 'rm x'", ("rm", "x"), ("eval",)),
        ("watch -n 1 rm x", ("rm", "x"), ("watch",)),
        ("ssh -p 22 host rm x", ("rm", "x"), ("ssh",)),
        ("flock /tmp/l rm x", ("rm", "x"), ("flock",)),
        ("flock /tmp/l -c 'rm x'", ("rm", "x"), ("flock -c",)),
        ("su -c 'rm x' root", ("rm", "x"), ("su -c",)),
        ("env -S 'rm x'", ("rm", "x"), ("env -S",)),
        ("trap 'rm x' EXIT", ("rm", "x"), ("trap",)),
        ("! ! rm x", ("rm", "x"), ("!",)),
        ("sudo env -i timeout 5 nice rm x", ("rm", "x"), ("sudo", "env", "timeout", "nice")),
        ("script -qc 'rm x' /dev/null", ("rm", "x"), ("script -c",)),
        ("fakeroot rm x", ("rm", "x"), ("fakeroot",)),
        ("faketime '2020-01-01' rm x", ("rm", "x"), ("faketime",)),
        ("runuser -u bob -- rm x", ("rm", "x"), ("runuser",)),
        ("perf stat -e cycles rm x", ("rm", "x"), ("perf",)),
    ],
)
def test_wrappers_are_looked_through(
    command: str, inner: tuple[str, ...], via: tuple[str, ...]
) -> None:
    a = analyze(command)
    found = [c for c in a.commands if c.words == inner]
    assert found, [c.words for c in a.commands]
    assert found[0].via[-len(via) :] == via
    assert found[0].name == "rm"


def test_git_c_is_not_a_wrapper() -> None:
    a = analyze("git -c core.pager=rm log")
    assert [c.name for c in a.commands] == ["git"]


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("eval $x", "not a literal"),
        ("source env.sh", "runs the commands in a file"),
        (". env.sh", "runs the commands in a file"),
        ('bash -c "$x"', "not a literal"),
        ("bash script.sh", "runs a script file"),
        ("bash", "reads from its input"),
        ("echo rm x | at now", "read from its input"),
        ("sudo $cmd", "not a literal"),
        ("env -Z rm x", "unknown option `-Z` of env"),
        ("alias ls=rm", "alias"),
        ('trap "$x" EXIT', "not a literal"),
        ("hash -p /bin/rm ls", "hash -p"),
        ("mapfile -C cb arr", "callback"),
        ("let x=y+1", "arithmetic"),
        ("printf -v 'a[$(id)]' x", "subscript"),
        ("[[ $x -eq 1 ]]", "arithmetic"),
        ("echo $((x))", "arithmetic"),
        ("echo ${!x}", "indirect"),
        ("echo ${a[i]}", "subscript"),
        ("echo ${x:$y}", "substring"),
        ("echo ${x@P}", "prompt"),
        ("--a=b rm x", "not an assignment"),
        ("echo ] [ x", "split it differently"),
        (">`echo x`\\rm y", "split its words differently"),
        ("git >x push", "part of it"),
        ("echo\n\\\nrm x", "read the text"),
        ("if x; then", "does not parse"),
    ],
)
def test_unresolved(command: str, why: str) -> None:
    a = analyze(command)
    assert any(why in u for u in a.unresolved), a.unresolved


@pytest.mark.parametrize(
    ("command", "variable"),
    [
        ("PATH=/x ls", "PATH"),
        ("x=1", "x"),
        ("export PATH=/x", "PATH"),
        ("env LD_PRELOAD=a ls", "LD_PRELOAD"),
        ("read PATH", "PATH"),
        ("read -r -a arr -p x PATH", "PATH"),
        ("printf -v PATH x", "PATH"),
        ("getopts ab LD_PRELOAD", "LD_PRELOAD"),
        ("mapfile -t lines", "lines"),
        ("a[1]=x", "a"),
    ],
)
def test_assigned_variables(command: str, variable: str) -> None:
    assert variable in analyze(command).assignments


def test_assignment_words_after_time_follow_the_source() -> None:
    # `time a=b rm x` assigns a; `time 'a'=b` runs a program named `a=b`, as bash does
    assert "rm" in names("time a=b rm x")
    assert "a=b" in names("time 'a'=b")


def test_a_line_continuation_joining_a_name_is_resolved_as_bash_reads_it() -> None:
    a = analyze("ls && r\\\nm x")
    assert "rm" in {c.name for c in a.commands}
    assert any("joins two words" in u for u in a.unresolved)


def test_nested_scripts_stop_at_the_depth_limit() -> None:
    deep = "eval " * (MAX_SCRIPT_DEPTH + 2) + "rm x"  # each eval parses its words again
    a = analyze(deep)
    assert not a.plain
    assert any(f"nested more than {MAX_SCRIPT_DEPTH} levels" in u for u in a.unresolved)
    assert "rm" not in names(deep)  # too deep to reach; unresolved says so
    assert "rm" in names("eval " * MAX_SCRIPT_DEPTH + "rm x")
    script = "rm x"
    for _ in range(4):  # quoting grows fast; four levels of real bash -c
        script = f"bash -c {shlex.quote(script)}"
    assert [c.via for c in analyze(script).commands if c.name == "rm"] == [("bash -c",) * 4]
    shallow = "bash -c " + shlex.quote("sh -c " + shlex.quote("rm x"))
    found = [c for c in analyze(shallow).commands if c.name == "rm"]
    assert found and found[0].via == ("bash -c", "sh -c")


def test_a_script_that_is_not_plain_makes_the_command_not_plain() -> None:
    a = analyze("bash -c 'echo $HOME'")
    assert not a.plain
    assert a.reason is not None and "a script for `bash -c`" in a.reason
    assert "parameter expansion" in a.reason


# --------------------------------------------------------------------------- limits


def test_too_long() -> None:
    a = analyze("echo " + "a" * MAX_CHARS)
    assert not a.plain
    assert any("too long to analyze" in u for u in a.unresolved)


def test_too_many_metacharacters() -> None:
    a = analyze("echo " + "'a' " * MAX_SPECIALS)
    assert not a.plain
    assert any("too complex" in u for u in a.unresolved)


@pytest.mark.parametrize(
    "command",
    [
        ")" * 1000,
        "x=(" * 300,
        "a|" * 500,
        "$(" * 400 + ")" * 400,
        "echo " + "a " * 20000,
        "a && " * 400 + "b",
        "bash -c '" + ")" * 900 + "'",
    ],
)
def test_hostile_input_is_bounded(command: str) -> None:
    # The node budget bounds the work, whatever the machine's load; how long that takes
    # is a figure in bench/shell_parse.py (`hostile_max_ms`).
    a = analyze(command)
    assert not a.plain
    assert a.unresolved


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.text(
        alphabet=st.sampled_from([*"ab ;|&$`'\"\\(){}[]<>=*?!#~\n\t\r-", "é", "\x00", "ｍ"]),
        max_size=40,
    )
)
def test_never_raises(command: str) -> None:
    a = analyze(command)
    assert a.reason is None or "could not be analysed" not in a.reason
    assert a.plain == (a.reason is None)


def test_ansi_c_decoding() -> None:
    assert decode_ansi_c("\\x72m") == "rm"
    assert decode_ansi_c("\\162m") == "rm"
    assert decode_ansi_c("\\u0072m") == "rm"
    assert decode_ansi_c("a\\nb\\t\\'") == "a\nb\t'"
    assert decode_ansi_c("\\cA") == "\x01"
    assert decode_ansi_c("r\\0m") == "r"  # bash ends the string at a NUL
    assert decode_ansi_c("\\q") == "\\q"


# --------------------------------------------------------------------------- against bash


def _bash(
    script: str, cwd: Path, path: str = "/usr/bin:/bin"
) -> subprocess.CompletedProcess[bytes]:
    env = {"PATH": path, "HOME": str(cwd), "LC_ALL": "C.UTF-8"}
    return subprocess.run(
        [BASH or "bash", "--norc", "--noprofile", "-c", script],
        cwd=cwd,
        env=env,
        capture_output=True,
        timeout=10,
        stdin=subprocess.DEVNULL,
    )


_WORD_PIECES = [
    "a",
    "-",
    "=",
    ".",
    "/",
    ",",
    ":",
    "@",
    "%",
    "+",
    "^",
    "!",
    "#",
    "{",
    "}",
    "*",
    "?",
    "[",
    "]",
    "\\",
    "\\\\",
    "\\ ",
    "'",
    '"',
    "$",
    "$'",
    "{a,b}",
    "x..y",
    "é",
    "\t",
    " ",
]


@needs_bash
@settings(max_examples=80, deadline=None, derandomize=True)
@given(
    st.lists(
        st.lists(st.sampled_from(_WORD_PIECES), min_size=1, max_size=6).map("".join),
        min_size=1,
        max_size=4,
    )
)
def test_plain_words_are_the_words_bash_passes(
    tmp_path_factory: pytest.TempPathFactory, words: list[str]
) -> None:
    cwd = tmp_path_factory.mktemp("words")
    command = "printf %s\\\\0 " + " ".join(words)
    a = analyze(command)
    if not a.plain or len(a.commands) != 1 or len(a.commands[0].words) < 3:
        return
    out = _bash("set -f; " + command, cwd)
    assert out.returncode == 0
    assert out.stdout.decode("utf-8", "surrogateescape").split("\0")[:-1] == list(
        a.commands[0].words[2:]
    )


_HANDLER = 'command_not_found_handle() { printf "%s\\0" "$1" >> "$HOME/looked-up"; return 127; }\n'
_TRICKY = [
    "! ! rm x",
    ">o`echo x`\\rm y",
    "echo\n\\\nrm x",
    "--a=b rm",
    '"r""m" x',
    "r\\m x",
    "$'\\x72m' x",
    "eval 'rm x'",
    "command rm x",
    "builtin eval rm x",
    "time rm x",
    "f() { rm x; }; f",
    "if true; then rm x; fi",
    "{ rm x; }",
    "(rm x)",
    "echo $(rm x)",
    "cat <<E\n$(rm x)\nE",
    "x=$(rm y) foo",
    "echo ] [ ; rm x",
    "echo } } && rm y",
    "case x in x) rm y;; esac",
    "trap 'rm x' EXIT",
    "echo ${x:-$(rm y)}",
    "r\\\nm x",
    "c=rm; $c x",
    "rm${IFS}x",
    "'rm' x",
    "a=(`rm x`)",
    "echo `rm x`",
    "declare x=$(rm y)",
    "<<<`rm x` cat",
    "echo a; rm x & wait",
    "time  a=b ${x:-rm}",
    "time $'\\x72m'c=rm; 'rm'a=b",
    "time a=b rm x",
    "?mc=rm; ls",
]


@needs_bash
@pytest.mark.parametrize("command", _TRICKY)
def test_every_program_bash_looks_up_is_found_or_unresolved(tmp_path: Path, command: str) -> None:
    # With no PATH, every external command bash tries to run reaches command_not_found_handle.
    _bash(_HANDLER + command, tmp_path, path="/nonexistent")
    log = tmp_path / "looked-up"
    looked = [n for n in log.read_text().split("\0") if n] if log.exists() else []
    a = analyze(command)
    ours = {c.name for c in a.commands} | {c.words[0] for c in a.commands if c.words}
    missing = [n for n in looked if n not in ours]
    assert not missing or a.unresolved, (looked, sorted(map(str, ours)))


@pytest.mark.parametrize(
    "command", ["git status", "x=(" * 1024, "a|" * 1024, "echo " + "a " * 30000, ")" * 1000]
)
def test_the_budget_counts_work_not_time(monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    """The same command is analysed the same way on a loaded machine: a clock that runs a
    millisecond per look changes nothing (only the 2 s safety net reads it)."""
    import codebot.shell.grammar as grammar

    calm = analyze(command)
    ticks = iter(range(10**9))
    monkeypatch.setattr(grammar.time, "perf_counter", lambda: next(ticks) / 1000)
    assert analyze(command) == calm
