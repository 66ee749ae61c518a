"""`codebot mcp list|get|add|remove|approve` (in process through `cli.main`, and as a real
process), including a hostile `.mcp.json`."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from codebot.cli import main
from codebot.provenance import Provenance

HIDDEN = ("\x1b", "\x9b", "\u202e", "\r", "\x07", "\x08")


@pytest.fixture
def run(project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    monkeypatch.chdir(project)

    def go(*args: str) -> tuple[int, str, str]:
        code = main(["mcp", *args])
        out = capsys.readouterr()
        return code, out.out, out.err

    return go


def write_mcp(project: Path, servers: object) -> None:
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")


def rows(run) -> dict[str, dict]:
    """`mcp list --json` without connecting (these servers are not real; connecting is
    tests/mcp/test_mcp_connect.py)."""
    code, out, _ = run("list", "--json", "--no-connect")
    assert code == 0
    return {r["name"]: r for r in json.loads(out)}


def trust(project: Path) -> None:
    from codebot import trust as store
    from codebot.home import codebot_home

    store.add(codebot_home(), project)


# -- list / get ---------------------------------------------------------------------------------


def test_list_without_servers(run) -> None:
    code, out, _ = run("list")
    assert code == 0 and "no MCP servers" in out
    assert rows(run) == {}


def test_list_rows_and_statuses(run, project: Path, codebot_home: Path) -> None:
    write_mcp(project, {"p": {"command": "srv"}, "bad": {"command": 3}})
    (codebot_home / "config.yaml").write_text(
        "mcp:\n  servers:\n    u:\n      type: http\n      url: http://127.0.0.1:1/mcp\n"
    )
    got = rows(run)
    assert set(got["p"]) == {
        "name",
        "source",
        "path",
        "transport",
        "status",
        "tools",
        "prompts",
        "skills",
        "server",
        "error",
        "hint",
    }
    assert got["p"]["status"] == "not started: project not trusted"
    assert (got["p"]["tools"], got["p"]["prompts"], got["p"]["skills"]) == (None, None, None)
    assert got["bad"]["status"] == "invalid" and "mcpServers.bad.command" in got["bad"]["error"]
    assert got["u"]["status"] == "approved" and got["u"]["source"] == "user"
    trust(project)
    assert rows(run)["p"]["status"] == "not approved"


def test_mcp_config_flag_files_and_clashes(run, project: Path, tmp_path: Path) -> None:
    write_mcp(project, {"s": {"command": "proj"}})
    flag = tmp_path / "flag.json"
    flag.write_text(json.dumps({"mcpServers": {"s": {"command": "mine"}}}))
    code, out, err = run("list", "--json", "--no-connect", "--mcp-config", str(flag))
    (row,) = json.loads(out)
    assert (row["source"], row["status"], row["path"]) == ("flag", "approved", str(flag))
    assert "replaces" in err and str(flag) in err
    # a file the person named and that is not there is a wrong command line
    code, out, err = run("get", "s", "--mcp-config", str(tmp_path / "missing.json"))
    assert code == 2 and "--mcp-config" in err and "missing.json does not exist" in err


def test_get_unknown_server(run) -> None:
    code, _, err = run("get", "nope")
    assert code == 1 and "no MCP server nope" in err


def test_get_shows_as_written_and_hides_secret_expansions(
    run, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-very-secret")
    monkeypatch.setenv("BIN", "/opt/bin")
    write_mcp(
        project,
        {
            "s": {
                "command": "${BIN}/srv",
                "args": ["--key", "${OPENAI_API_KEY}"],
                "env": {"K": "${OPENAI_API_KEY}"},
            }
        },
    )
    code, out, _ = run("get", "s")
    assert code == 0
    assert "sk-very-secret" not in out
    assert "'${BIN}/srv' --key '${OPENAI_API_KEY}'" in out
    assert "secret-looking variable; not shown" in out
    assert "OPENAI_API_KEY look(s) secret" in out
    write_mcp(project, {"s": {"command": "${BIN}/srv"}})
    code, out, _ = run("get", "s")
    assert "expands to: /opt/bin/srv" in out


HOSTILE_NAME = "evil\x1b[2J\x1b]52;c;cm0gLXJmIH4=\x07\u202e\x9b"


def test_a_hostile_mcp_json_never_reaches_the_terminal_raw(run, project: Path) -> None:
    write_mcp(
        project,
        {
            HOSTILE_NAME: {"command": "x"},
            "ok": {
                "command": "sh\x1b[1A\r",
                "args": ["-c", "echo hi\nrm -rf ~\u202e"],
                "env": {"A": "\x1b]0;title\x07"},
            },
            "web": {"url": "http://h/\u202e", "headers": {"X": "\x1b[31mred"}},
        },
    )
    for args in (("list",), ("get", "ok"), ("get", "web"), ("get", HOSTILE_NAME)):
        _, out, err = run(*args)
        for ch in HIDDEN:
            assert ch not in out and ch not in err, (args, ch)
    _, out, _ = run("get", "ok")
    assert "\\x1b[1A\\r" in out and "echo hi\\nrm -rf" in out  # shown, escaped, one line
    _, out, _ = run("list", "--json")
    assert out.isascii()
    assert HOSTILE_NAME in {r["name"] for r in json.loads(out)}  # the data is intact


# -- approve ------------------------------------------------------------------------------------


def test_approve_refuses_in_an_untrusted_project(run, project: Path, codebot_home: Path) -> None:
    write_mcp(project, {"s": {"command": "srv"}})
    code, _, err = run("approve", "s")
    assert code == 2 and "`codebot trust` first" in err
    assert not (codebot_home / "mcp-approvals.json").exists()


def test_approve_shows_the_whole_command_and_records_it(
    run, project: Path, codebot_home: Path
) -> None:
    write_mcp(project, {"s": {"command": "srv", "args": ["--root", "a b", "\x1b[2J"]}})
    trust(project)
    code, out, err = run("approve", "s")
    assert code == 0, err
    assert "srv --root 'a b' '\\x1b[2J'" in out and "\x1b" not in out
    assert rows(run)["s"]["status"] == "approved"
    mode = stat.S_IMODE((codebot_home / "mcp-approvals.json").stat().st_mode)
    assert mode == 0o600
    write_mcp(project, {"s": {"command": "srv", "args": ["--root", "/"]}})
    assert rows(run)["s"]["status"] == "not approved"
    assert "changed since it was approved" in rows(run)["s"]["hint"]


def test_approve_all_skips_invalid_ones(run, project: Path) -> None:
    write_mcp(project, {"a": {"command": "a"}, "b": {"command": "b"}, "bad": {"args": []}})
    trust(project)
    code, _, err = run("approve", "--all")
    assert code == 1 and "not approved" in err and "bad" in err
    got = rows(run)
    assert (got["a"]["status"], got["b"]["status"], got["bad"]["status"]) == (
        "approved",
        "approved",
        "invalid",
    )


@pytest.mark.parametrize("args", [(), ("s", "--all")])
def test_approve_needs_one_of_name_or_all(run, args: tuple[str, ...]) -> None:
    assert run("approve", *args)[0] == 2


def test_approve_of_a_user_server_needs_nothing(run, project: Path, codebot_home: Path) -> None:
    trust(project)
    (codebot_home / "config.yaml").write_text("mcp:\n  servers:\n    u:\n      command: x\n")
    code, out, _ = run("approve", "u")
    assert code == 0 and "need no approval" in out
    assert run("approve", "nope")[0] == 1


def test_approve_refuses_an_agent_written_mcp_json(run, project: Path, codebot_home: Path) -> None:
    write_mcp(project, {"s": {"command": "srv"}})
    trust(project)
    Provenance(codebot_home, project).record(
        [(".mcp.json", "changed", "MCP")], by="Write", detail="", session="x"
    )
    code, _, err = run("approve", "s")
    assert code == 1 and "codebot written --accept .mcp.json" in err
    assert rows(run)["s"]["status"].startswith("not started: .mcp.json was written by codebot")


# -- add / remove -------------------------------------------------------------------------------


def test_add_user_scope_keeps_the_rest_of_the_config(run, codebot_home: Path) -> None:
    (codebot_home / "config.yaml").write_text("model: gpt-x\nmcp:\n  other: 1\n")
    code, _, err = run("add", "fs", "--env", "MODE=ro", "--", "npx", "-y", "srv", "--scope", "x")
    assert code == 0, err
    data = yaml.safe_load((codebot_home / "config.yaml").read_text())
    assert data["model"] == "gpt-x" and data["mcp"]["other"] == 1
    assert data["mcp"]["servers"]["fs"] == {
        "command": "npx",
        "args": ["-y", "srv", "--scope", "x"],
        "env": {"MODE": "ro"},
    }
    assert rows(run)["fs"]["status"] == "approved"
    code, _, err = run("add", "fs", "--", "other")
    assert code == 1 and "already defines fs" in err


def test_add_http_project_scope(run, project: Path) -> None:
    (project / ".mcp.json").write_text('{"other": true}')
    os.chmod(project / ".mcp.json", 0o640)
    code, out, err = run(
        "add",
        "web",
        "--scope=project",
        "--transport=http",
        "https://h/mcp",
        "--header=Authorization: Bearer ${TOK}",
    )
    assert code == 0, err
    assert "codebot trust" in out and "codebot mcp approve web" in out
    doc = json.loads((project / ".mcp.json").read_text())
    assert doc["other"] is True
    assert doc["mcpServers"]["web"] == {
        "type": "http",
        "url": "https://h/mcp",
        "headers": {"Authorization": "Bearer ${TOK}"},
    }
    assert stat.S_IMODE((project / ".mcp.json").stat().st_mode) == 0o640
    assert rows(run)["web"]["source"] == "project"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("bad name", "--", "x"), "the name must be"),
        (("x\x1b[2J", "--", "x"), "the name must be"),
        (("n", "--transport", "http", "https://h", "--header", "X: a\r\nY: b"), "one line"),
        (("n", "--transport", "http", "https://h", "--header", "novalue"), "NAME: VALUE"),
        (("n", "--env", "NOEQUALS", "--", "x"), "NAME=VALUE"),
        (("n", "--env", "A B=1", "--", "x"), "not a variable name"),
        (("n", "--transport", "http", "ftp://h"), "http:// or https://"),
        (("n", "--transport", "http"), "exactly one URL"),
        (("n",), "give the command after --"),
        (("n", "--header", "X: 1", "--", "cmd"), "--header goes with an http"),
    ],
)
def test_add_refuses_bad_definitions_and_writes_nothing(
    run, project: Path, codebot_home: Path, args: tuple[str, ...], message: str
) -> None:
    code, _, err = run("add", "--scope", "project", *args)
    assert code == 1 and message in err, err
    assert not (project / ".mcp.json").exists()
    for ch in HIDDEN:
        assert ch not in err


@pytest.mark.parametrize("kind", ["symlink", "garbage", "not-servers", "fifo"])
def test_add_leaves_an_unusable_mcp_json_alone(
    run, project: Path, tmp_path: Path, kind: str
) -> None:
    target = project / ".mcp.json"
    if kind == "symlink":
        real = tmp_path / "real.json"
        real.write_text("{}")
        target.symlink_to(real)
    elif kind == "fifo":
        os.mkfifo(target)
    else:
        target.write_text("{nope" if kind == "garbage" else '{"mcpServers": [1]}')
    before = os.lstat(target)
    code, _, err = run("add", "s", "--scope", "project", "--", "srv")
    assert code == 1 and err
    after = os.lstat(target)
    assert (before.st_ino, before.st_mtime_ns) == (after.st_ino, after.st_mtime_ns)
    if kind == "symlink":
        assert (tmp_path / "real.json").read_text() == "{}"


def test_remove(run, project: Path, codebot_home: Path) -> None:
    trust(project)
    assert run("add", "s", "--scope", "project", "--", "srv")[0] == 0
    assert run("approve", "s")[0] == 0
    assert run("add", "s", "--", "mine")[0] == 0
    code, _, err = run("remove", "s")
    assert code == 2 and "--scope" in err
    assert run("remove", "s", "--scope", "project")[0] == 0
    assert json.loads((project / ".mcp.json").read_text()) == {"mcpServers": {}}
    assert "s" not in json.loads((codebot_home / "mcp-approvals.json").read_text())[
        "approvals"
    ].get(os.path.realpath(project), {})
    assert run("remove", "s")[0] == 0  # the user one now
    assert rows(run) == {}
    code, _, err = run("remove", "s")
    assert code == 1 and "no MCP server s" in err


def test_the_real_command_line(project: Path) -> None:
    """`codebot mcp add NAME -- CMD ARGS` through the real entry point: `--` and options
    after NAME reach the right places."""

    def codebot(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "codebot", "mcp", *args],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=project,
            stdin=subprocess.DEVNULL,
        )

    done = codebot("add", "t", "--scope", "project", "--", "python", "-m", "srv", "-v")
    assert done.returncode == 0, done.stderr
    done = codebot("list", "--json")
    (row,) = json.loads(done.stdout)
    assert row["name"] == "t" and row["status"] == "not started: project not trusted"
    doc = json.loads((project / ".mcp.json").read_text())
    assert doc["mcpServers"]["t"] == {"command": "python", "args": ["-m", "srv", "-v"]}


def test_list_connects_approved_servers_and_says_why_one_failed(run, codebot_home: Path) -> None:
    (codebot_home / "config.yaml").write_text(
        'mcp:\n  servers:\n    gone:\n      command: "/nonexistent/srv\\e[2J"\n'
    )
    code, out, _ = run("list", "--json")
    (row,) = json.loads(out)
    assert code == 0 and row["status"] == "failed" and "cannot start it" in row["error"]
    assert row["tools"] is None
    code, out, _ = run("list")
    assert "gone  user  failed" in out and "\x1b" not in out
