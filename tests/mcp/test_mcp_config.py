"""MCP server definitions: `.mcp.json`, `mcp.servers` in config.yaml, `--mcp-config`
files; `${VAR}` expansion; every bad input named by file and field (codebot/mcp/config.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from codebot.config import load_settings
from codebot.mcp.config import load_servers, read_server_file
from codebot.mcp.expand import UnsetVariable, expand

ENV = {"HOME": "/home/me", "TOKEN": "t0k", "EMPTY": "", "NESTED": "${TOKEN}"}


def write_json(path: Path, doc: object) -> Path:
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def project_servers(project: Path, servers: object, env: dict[str, str] | None = None):
    write_json(project / ".mcp.json", {"mcpServers": servers})
    return load_servers(project, {}, Path("/nowhere/config.yaml"), environ=env or ENV)


# -- expansion ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("${TOKEN}", "t0k"),
        ("a-${TOKEN}-b", "a-t0k-b"),
        ("${MISSING:-dflt}", "dflt"),
        ("${EMPTY:-dflt}", "dflt"),  # the shell's `:-`: empty takes the default
        ("${EMPTY}", ""),
        ("${MISSING:-}", ""),
        ("$TOKEN and $ and ${", "$TOKEN and $ and ${"),  # only ${...} is expanded
        ("${NESTED}", "${TOKEN}"),  # a value is never expanded again
        ("${1BAD}", "${1BAD}"),
    ],
)
def test_expand(text: str, want: str) -> None:
    assert expand(text, ENV) == want


def test_an_unset_variable_without_default_names_it() -> None:
    with pytest.raises(UnsetVariable) as info:
        expand("x ${NOPE} y", ENV)
    assert info.value.name == "NOPE"


# -- the project's .mcp.json --------------------------------------------------------------


def test_stdio_and_http_definitions_expand_and_record_their_source(project: Path) -> None:
    cfg = project_servers(
        project,
        {
            "files": {
                "command": "${HOME}/bin/srv",
                "args": ["--token", "${TOKEN}", "${MISSING:-x}"],
                "env": {"API": "${TOKEN}"},
                "cwd": "sub",
            },
            "web": {
                "type": "http",
                "url": "https://example.test/${TOKEN}",
                "headers": {"Authorization": "Bearer ${TOKEN}"},
            },
            "plain": {"type": "stdio", "command": "srv"},
            "streamed": {"type": "streamable-http", "url": "http://127.0.0.1:9/mcp"},
        },
    )
    assert cfg.problems == () and cfg.clashes == ()
    files, web = cfg.get("files"), cfg.get("web")
    assert files is not None and web is not None
    assert (files.command, files.args, dict(files.env), files.cwd) == (
        "/home/me/bin/srv",
        ("--token", "t0k", "x"),
        {"API": "t0k"},
        "sub",
    )
    assert files.transport == "stdio" and files.source == "project" and files.error == ""
    assert files.path == str(project / ".mcp.json")
    assert files.written["command"] == "${HOME}/bin/srv"  # as written, for display
    assert files.variables == ("HOME", "TOKEN", "MISSING")
    assert (web.transport, web.url, dict(web.headers)) == (
        "http",
        "https://example.test/t0k",
        {"Authorization": "Bearer t0k"},
    )
    assert cfg.get("streamed").transport == "http"  # type: ignore[union-attr]
    assert (files.startup_timeout, files.timeout) == (10.0, 60.0)


def test_an_unset_variable_is_an_error_naming_server_field_and_variable(project: Path) -> None:
    cfg = project_servers(project, {"s": {"command": "x", "args": ["ok", "${NOPE}"]}})
    err = cfg.get("s").error  # type: ignore[union-attr]
    assert str(project / ".mcp.json") in err
    assert "mcpServers.s.args[1]" in err and "${NOPE} is not set" in err


@pytest.mark.parametrize(
    ("entry", "field", "what"),
    [
        ("not an object", "mcpServers.s", "must be an object, not a string"),
        (["x"], "mcpServers.s", "must be an object, not a list"),
        (
            {"command": "x", "args": ["a", 3]},
            "mcpServers.s.args[1]",
            "must be a string, not a number",
        ),
        ({"command": "x", "args": "a b"}, "mcpServers.s.args", "must be a list of strings"),
        ({"command": "x", "url": "http://h"}, "mcpServers.s", "both command and url"),
        ({}, "mcpServers.s", "needs a command (stdio) or a url (http)"),
        ({"command": "x", "bogus": 1}, "mcpServers.s", "unknown key(s) 'bogus'"),
        ({"command": ""}, "mcpServers.s.command", "must not be empty"),
        ({"command": 7}, "mcpServers.s.command", "must be a string, not a number"),
        ({"command": "x", "env": {"A": 1}}, "mcpServers.s.env.A", "must be a string"),
        ({"command": "x", "env": {"A=B": "1"}}, "mcpServers.s.env", "is not a variable name"),
        ({"command": "x", "env": ["A"]}, "mcpServers.s.env", "must be an object"),
        ({"command": "x\u0000y"}, "mcpServers.s.command", "NUL"),
        ({"type": "sse", "url": "http://h"}, "mcpServers.s.type", '"sse"'),
        ({"type": "ws", "url": "http://h"}, "mcpServers.s.type", "must be"),
        ({"type": "http", "url": "file:///etc/passwd"}, "mcpServers.s.url", "http:// or"),
        ({"type": "http", "url": "http://h/a b"}, "mcpServers.s.url", "space or a control"),
        ({"type": "http", "url": "http://h", "command": "x"}, "mcpServers.s", "both command"),
        ({"type": "http", "url": "http://h", "env": {}}, "mcpServers.s", "env do(es) not go"),
        ({"command": "x", "headers": {}}, "mcpServers.s", "headers do(es) not go"),
        (
            {"url": "http://h", "headers": {"X": "a\r\nInjected: 1"}},
            "mcpServers.s.headers.X",
            "one line",
        ),
        ({"url": "http://h", "headers": {"Bad Name": "v"}}, "mcpServers.s.headers", "header name"),
        ({"command": "x", "timeout": 0}, "mcpServers.s.timeout", "above 0"),
        ({"command": "x", "startup_timeout": True}, "mcpServers.s.startup_timeout", "seconds"),
        ({"command": "x", "timeout": 1e308}, "mcpServers.s.timeout", "at most"),
    ],
)
def test_bad_definitions_name_file_and_field(
    project: Path, entry: object, field: str, what: str
) -> None:
    cfg = project_servers(project, {"s": entry, "good": {"command": "srv"}})
    bad, good = cfg.get("s"), cfg.get("good")
    assert bad is not None and good is not None
    assert str(project / ".mcp.json") in bad.error
    assert f"{field}:" in bad.error or f"{field}." in bad.error, bad.error
    assert what in bad.error, bad.error
    assert good.error == "" and good.command == "srv"  # one bad server hides no other


@pytest.mark.parametrize(
    "name", ["", "a b", "x" * 65, "../evil", "srv\x1b[2J", "caf\u00e9", "a\u202eb", "a.b"]
)
def test_names_outside_the_rule_are_errors(project: Path, name: str) -> None:
    cfg = project_servers(project, {name: {"command": "x"}})
    (d,) = cfg.servers
    assert "the name must be 1-64 letters, digits, '_' or '-'" in d.error


def test_names_inside_the_rule_are_accepted(project: Path) -> None:
    cfg = project_servers(project, {"A-z_09": {"command": "x"}, "y" * 64: {"command": "x"}})
    assert [d.error for d in cfg.servers] == ["", ""]


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("not json", "cannot be read as MCP servers"),
        ("[1, 2]", "not an object"),
        ('{"other": 1}', 'has no "mcpServers" object'),
        ('{"mcpServers": [1]}', "mcpServers must be an object of servers"),
        ("\xff\xfe", "cannot be read as MCP servers"),
        ("[" * 100_000 + "]" * 100_000, ".mcp.json"),
    ],
)
def test_bad_files_are_problems_not_crashes(project: Path, content: str, problem: str) -> None:
    (project / ".mcp.json").write_bytes(content.encode("utf-8", "surrogateescape"))
    cfg = load_servers(project, {}, Path("/x/config.yaml"), environ=ENV)
    assert cfg.servers == ()
    (said,) = cfg.problems
    assert str(project / ".mcp.json") in said and problem in said


def test_a_fifo_is_not_waited_on(project: Path) -> None:
    os.mkfifo(project / ".mcp.json")
    cfg = load_servers(project, {}, Path("/x/config.yaml"), environ=ENV)
    assert cfg.servers == () and "FIFO" in cfg.problems[0]


def test_a_huge_file_is_refused(project: Path) -> None:
    (project / ".mcp.json").write_text(" " * (1024 * 1024 + 1) + "{}")
    cfg = load_servers(project, {}, Path("/x/config.yaml"), environ=ENV)
    assert cfg.servers == () and "limit" in cfg.problems[0]


def test_no_file_is_no_problem(project: Path) -> None:
    assert load_servers(project, {}, Path("/x/config.yaml"), environ=ENV).problems == ()


# -- the person's config and --mcp-config, precedence ---------------------------------------


def test_user_config_servers(project: Path, tmp_path: Path) -> None:
    user = {"mcp": {"servers": {"mine": {"command": "${HOME}/srv"}, "bad": {"args": []}}}}
    cfg = load_servers(project, user, tmp_path / "config.yaml", environ=ENV)
    mine, bad = cfg.get("mine"), cfg.get("bad")
    assert mine is not None and mine.command == "/home/me/srv" and mine.source == "user"
    assert bad is not None and "mcp.servers.bad" in bad.error
    assert str(tmp_path / "config.yaml") in bad.error


@pytest.mark.parametrize(
    ("user", "problem"),
    [
        ({"mcp": "yes"}, "mcp must be a mapping"),
        ({"mcp": {"servers": ["a"]}}, "mcp.servers must be an object"),
    ],
)
def test_bad_user_sections(tmp_path: Path, user: dict, problem: str) -> None:
    cfg = load_servers(None, user, tmp_path / "config.yaml", environ=ENV)
    assert cfg.servers == () and problem in cfg.problems[0]


def test_yaml_keys_that_are_not_strings_are_named(tmp_path: Path) -> None:
    cfg = load_servers(None, {"mcp": {"servers": {1: {"command": "x"}}}}, tmp_path / "c", {})
    (d,) = cfg.servers
    assert d.name == "1" and d.error == ""  # a YAML int key 1 is the name "1"


def test_precedence_project_user_flag_and_the_clash_is_reported(
    project: Path, tmp_path: Path
) -> None:
    write_json(project / ".mcp.json", {"mcpServers": {"s": {"command": "proj"}}})
    user = {"mcp": {"servers": {"s": {"command": "user"}, "u": {"command": "u"}}}}
    f1 = write_json(tmp_path / "one.json", {"mcpServers": {"s": {"command": "flag1"}}})
    f2 = write_json(tmp_path / "two.json", {"mcpServers": {"s": {"command": "flag2"}}})
    cfg = load_servers(project, user, tmp_path / "config.yaml", [f1, f2], environ=ENV)
    s = cfg.get("s")
    assert s is not None and (s.command, s.source, s.path) == ("flag2", "flag", str(f2))
    assert len(cfg.clashes) == 3
    assert "user" in cfg.clashes[0] and "project" in cfg.clashes[0]
    assert str(f2) in cfg.clashes[2] and str(f1) in cfg.clashes[2]
    assert [d.name for d in cfg.servers] == ["s", "u"]


def test_user_beats_project(project: Path, tmp_path: Path) -> None:
    write_json(project / ".mcp.json", {"mcpServers": {"s": {"command": "proj"}}})
    user = {"mcp": {"servers": {"s": {"command": "user"}}}}
    cfg = load_servers(project, user, tmp_path / "config.yaml", environ=ENV)
    assert cfg.get("s").command == "user"  # type: ignore[union-attr]


def test_a_missing_flag_file_is_a_problem(tmp_path: Path) -> None:
    cfg = load_servers(None, {}, tmp_path / "c.yaml", [tmp_path / "nope.json"], environ=ENV)
    assert cfg.problems == (f"--mcp-config {tmp_path / 'nope.json'}: no such file",)


def test_flag_file_reader_reports_the_file(tmp_path: Path) -> None:
    f = write_json(tmp_path / "f.json", {"mcpServers": {"x": {"command": 1}}})
    (d,), problems = read_server_file(f, source="flag", environ={}, missing_ok=False)
    assert problems == [] and d.source == "flag" and str(f) in d.error


def test_a_project_config_may_not_define_mcp_servers(project: Path) -> None:
    """`mcp.servers` is read only from the person's own config: a project's
    .codebot/config.yaml would otherwise start programs without .mcp.json's approval."""
    (project / ".codebot").mkdir()
    (project / ".codebot" / "config.yaml").write_text(
        "mcp:\n  servers:\n    evil:\n      command: /bin/evil\n"
    )
    settings = load_settings(cwd=project, trust=True)
    assert "servers" not in (settings.raw.get("mcp") or {})
    assert any("mcp.servers is read only from your own config" in w for w in settings.warnings)
