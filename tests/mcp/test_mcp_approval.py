"""Which MCP servers may start: trust, per-definition approval (fingerprinted after
`${VAR}` expansion), an agent-written .mcp.json, and the restricted server environment."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import pytest

from codebot.mcp import approval
from codebot.mcp.approval import (
    AGENT_WRITTEN,
    APPROVALS_FILE,
    APPROVED,
    INVALID,
    NOT_APPROVED,
    NOT_TRUSTED,
    ApprovalError,
    Approvals,
    agent_written,
    approve,
    fingerprint,
    forget,
    server_environment,
    standing,
)
from codebot.mcp.config import ServerDef, load_servers
from codebot.provenance import Provenance


def defs(project: Path, servers: dict, env: dict[str, str] | None = None) -> dict[str, ServerDef]:
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    cfg = load_servers(project, {}, Path("/x/config.yaml"), environ=env or {})
    return {d.name: d for d in cfg.servers}


def status(d: ServerDef, home: Path, project: Path, trusted: bool = True, **kw) -> str:
    return standing(
        d, project=project, trusted=trusted, approvals=Approvals.load(home), **kw
    ).status


def test_untrusted_project_servers_do_not_start(project: Path, codebot_home: Path) -> None:
    d = defs(project, {"s": {"command": "srv"}})["s"]
    approve(codebot_home, project, [d])  # even an approved one
    assert status(d, codebot_home, project, trusted=False) == NOT_TRUSTED


def test_a_trusted_project_server_needs_its_approval(project: Path, codebot_home: Path) -> None:
    d = defs(project, {"s": {"command": "srv", "args": ["a"]}})["s"]
    assert status(d, codebot_home, project) == NOT_APPROVED
    assert approve(codebot_home, project, [d]) == ["s"]
    assert status(d, codebot_home, project) == APPROVED
    assert approve(codebot_home, project, [d]) == []  # already so: nothing written


@pytest.mark.parametrize(
    "changed",
    [
        {"command": "srv2", "args": ["a"]},
        {"command": "srv", "args": ["a", "b"]},
        {"command": "srv", "args": ["a"], "env": {"X": "1"}},
        {"command": "srv", "args": ["a"], "cwd": "elsewhere"},
        {"type": "http", "url": "http://127.0.0.1:1/"},
    ],
)
def test_a_changed_definition_is_unapproved_again(
    project: Path, codebot_home: Path, changed: dict
) -> None:
    approve(codebot_home, project, [defs(project, {"s": {"command": "srv", "args": ["a"]}})["s"]])
    d = defs(project, {"s": changed})["s"]
    got = standing(d, project=project, trusted=True, approvals=Approvals.load(codebot_home))
    assert got.status == NOT_APPROVED and "changed since it was approved" in got.reason


def test_a_changed_variable_is_a_changed_definition(project: Path, codebot_home: Path) -> None:
    """Fingerprinted after expansion: `${BIN}` now naming another program asks again."""
    servers = {"s": {"command": "${BIN}"}}
    approve(codebot_home, project, [defs(project, servers, {"BIN": "/usr/bin/good"})["s"]])
    assert status(defs(project, servers, {"BIN": "/usr/bin/good"})["s"], codebot_home, project) == (
        APPROVED
    )
    assert status(defs(project, servers, {"BIN": "/tmp/evil"})["s"], codebot_home, project) == (
        NOT_APPROVED
    )


def test_name_and_timeouts_are_not_the_fingerprint_but_everything_run_is(project: Path) -> None:
    a = defs(project, {"s": {"command": "srv", "timeout": 5}})["s"]
    b = defs(project, {"t": {"command": "srv"}})["t"]
    assert fingerprint(a) == fingerprint(b)
    http1 = defs(project, {"h": {"url": "http://h/", "headers": {"A": "1"}}})["h"]
    http2 = defs(project, {"h": {"url": "http://h/", "headers": {"A": "2"}}})["h"]
    assert fingerprint(http1) != fingerprint(http2)


def test_approval_is_per_project(project: Path, codebot_home: Path, tmp_path: Path) -> None:
    d = defs(project, {"s": {"command": "srv"}})["s"]
    approve(codebot_home, project, [d])
    other = tmp_path / "other"
    other.mkdir()
    e = defs(other, {"s": {"command": "srv"}})["s"]
    assert status(e, codebot_home, other) == NOT_APPROVED


def test_user_and_flag_servers_are_approved_and_invalid_ones_never(
    project: Path, codebot_home: Path, tmp_path: Path
) -> None:
    flag = tmp_path / "f.json"
    flag.write_text(json.dumps({"mcpServers": {"f": {"command": "x"}, "bad": {"command": 1}}}))
    user = {"mcp": {"servers": {"u": {"command": "x"}}}}
    cfg = load_servers(None, user, tmp_path / "config.yaml", [flag], environ={})
    got = {d.name: status(d, codebot_home, project, trusted=False) for d in cfg.servers}
    assert got == {"u": APPROVED, "f": APPROVED, "bad": INVALID}


def test_an_agent_written_mcp_json_starts_nothing(project: Path, codebot_home: Path) -> None:
    d = defs(project, {"s": {"command": "srv"}})["s"]
    approve(codebot_home, project, [d])
    assert not agent_written(codebot_home, project)
    Provenance(codebot_home, project).record(
        [(".mcp.json", "changed", "MCP servers")], by="Bash", detail="echo > .mcp.json", session="x"
    )
    assert agent_written(codebot_home, project)
    assert status(d, codebot_home, project, written_by_agent=True) == AGENT_WRITTEN


def test_the_store_is_owner_only_and_atomic(project: Path, codebot_home: Path) -> None:
    approve(codebot_home, project, [defs(project, {"s": {"command": "srv"}})["s"]])
    path = codebot_home / APPROVALS_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    doc = json.loads(path.read_text())
    entry = doc["approvals"][os.path.realpath(project)]["s"]
    assert len(entry["sha256"]) == 64 and entry["at"]
    assert [p.name for p in codebot_home.iterdir() if p.name.endswith(".tmp")] == []


def test_forget(project: Path, codebot_home: Path) -> None:
    d = defs(project, {"s": {"command": "srv"}})["s"]
    approve(codebot_home, project, [d])
    assert forget(codebot_home, project, ["s", "nope"]) == ["s"]
    assert status(d, codebot_home, project) == NOT_APPROVED


def test_concurrent_approvals_keep_each_other(project: Path, codebot_home: Path) -> None:
    servers = {f"s{i}": {"command": f"srv{i}"} for i in range(8)}
    found = defs(project, servers)
    threads = [
        threading.Thread(target=approve, args=(codebot_home, project, [d])) for d in found.values()
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(status(d, codebot_home, project) == APPROVED for d in found.values())


@pytest.mark.parametrize(
    "damage",
    ["garbage", '{"approvals": []}', "[" * 50_000, "symlink", "fifo", "world-writable"],
)
def test_a_damaged_store_approves_nothing_and_is_not_overwritten(
    project: Path, codebot_home: Path, tmp_path: Path, damage: str
) -> None:
    d = defs(project, {"s": {"command": "srv"}})["s"]
    path = codebot_home / APPROVALS_FILE
    if damage == "symlink":
        real = tmp_path / "elsewhere.json"
        approve(codebot_home, project, [d])
        os.replace(path, real)
        path.symlink_to(real)
    elif damage == "fifo":
        os.mkfifo(path)
    else:
        approve(codebot_home, project, [d])
        if damage == "world-writable":
            path.chmod(0o666)
        else:
            path.write_text(damage)
    loaded = Approvals.load(codebot_home)
    assert loaded.warning and str(path) in loaded.warning
    assert status(d, codebot_home, project) == NOT_APPROVED
    with pytest.raises(ApprovalError, match="fix or remove it"):
        approve(codebot_home, project, [d])


def test_a_bad_entry_is_skipped_the_others_count(project: Path, codebot_home: Path) -> None:
    d = defs(project, {"s": {"command": "srv"}})["s"]
    approve(codebot_home, project, [d])
    path = codebot_home / APPROVALS_FILE
    doc = json.loads(path.read_text())
    doc["approvals"]["/elsewhere"] = "not an object"
    doc["approvals"][os.path.realpath(project)]["t"] = {"sha256": 5}
    path.write_text(json.dumps(doc))
    assert status(d, codebot_home, project) == APPROVED


# -- the server's environment -----------------------------------------------------------------


SECRETS = {
    "OPENAI_API_KEY": "sk-1",
    "ANTHROPIC_API_KEY": "sk-2",
    "CODEBOT_API_KEY": "sk-3",
    "GITHUB_TOKEN": "ghp",
    "AWS_SECRET_ACCESS_KEY": "aws",
    "MY_SECRET_THING": "s",
    "DEPLOY_KEY": "k",
    "SESSION_COOKIE": "c",
    "AZURE_CLIENT_ID": "az",
}


def test_server_environment_is_its_env_plus_a_minimal_base(project: Path) -> None:
    d = defs(project, {"s": {"command": "srv", "env": {"MODE": "x", "GITHUB_TOKEN": "own"}}})["s"]
    os_env = {"PATH": "/bin", "HOME": "/h", "LANG": "C.UTF-8", "TMPDIR": "/t", "USER": "me"}
    env = server_environment(d, {**os_env, **SECRETS})
    assert env == {
        "PATH": "/bin",
        "HOME": "/h",
        "LANG": "C.UTF-8",
        "TMPDIR": "/t",
        "MODE": "x",
        "GITHUB_TOKEN": "own",  # named in its env: the definition's own value
    }


def test_no_secret_of_codebot_ever_passes(project: Path) -> None:
    d = defs(project, {"s": {"command": "srv"}})["s"]
    env = server_environment(d, {**SECRETS, "PATH": "/bin"})
    assert env == {"PATH": "/bin"}
    assert not set(env) & set(SECRETS)


def test_server_environment_works_from_the_real_environment(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for k, v in SECRETS.items():
        monkeypatch.setenv(k, v)
    d = defs(project, {"s": {"command": "srv"}})["s"]
    env = server_environment(d, os.environ)
    assert set(env) <= set(approval.BASE_VARIABLES)


# -- the project files a command line names (what the agent could rewrite after approval) --


def _script_server(project: Path, codebot_home: Path) -> ServerDef:
    (project / "tools").mkdir(exist_ok=True)
    (project / "tools" / "server.py").write_text("print('v1')\n", encoding="utf-8")
    d = defs(project, {"s": {"command": "python3", "args": ["tools/server.py"]}})["s"]
    approve(codebot_home, project, [d])
    assert status(d, codebot_home, project) == "approved"
    return d


def test_a_rewritten_script_is_a_new_definition(project: Path, codebot_home: Path) -> None:
    d = _script_server(project, codebot_home)
    (project / "tools" / "server.py").write_text("import os; os.system('curl evil')\n")
    assert status(d, codebot_home, project) == "not approved"


def test_a_script_swapped_for_a_link_elsewhere_is_a_new_definition(
    project: Path, codebot_home: Path, tmp_path: Path
) -> None:
    d = _script_server(project, codebot_home)
    elsewhere = tmp_path / "evil.py"
    elsewhere.write_text("print('v1')\n", encoding="utf-8")  # even with the same content
    (project / "tools" / "server.py").unlink()
    (project / "tools" / "server.py").symlink_to(elsewhere)
    assert status(d, codebot_home, project) == "not approved"


def test_a_named_file_that_appears_later_is_a_new_definition(
    project: Path, codebot_home: Path
) -> None:
    d = defs(project, {"s": {"command": "node", "args": ["index.js"]}})["s"]
    approve(codebot_home, project, [d])
    (project / "index.js").write_text("require('child_process').exec('x')\n")
    assert status(d, codebot_home, project) == "not approved"


def test_words_outside_the_project_and_options_are_not_files(project: Path) -> None:
    (project / "--flag").write_text("x")
    d = defs(project, {"s": {"command": "srv", "args": ["--flag", "../outside", "/etc/hostname"]}})
    assert approval.project_files(d["s"], project) == {}


def test_a_fifo_on_the_command_line_never_hangs(project: Path) -> None:
    os.mkfifo(project / "pipe")
    d = defs(project, {"s": {"command": "srv", "args": ["pipe"]}})["s"]
    assert approval.project_files(d, project) == {
        "pipe": f"{(project / 'pipe').resolve()} not a file"
    }


def test_the_cwd_is_where_relative_words_are_read(project: Path) -> None:
    (project / "sub").mkdir()
    (project / "sub" / "run.sh").write_text("echo hi\n")
    d = defs(project, {"s": {"command": "./run.sh", "cwd": "sub"}})["s"]
    stamp = approval.project_files(d, project)["./run.sh"]
    assert stamp.endswith(approval._file_stamp(project / "sub" / "run.sh"))
    assert stamp.split()[1].startswith("sha256:")
