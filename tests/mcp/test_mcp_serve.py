"""`codebot mcp serve` driven by the official SDK's own `ClientSession`, over stdio in a
subprocess (and over Streamable HTTP on 127.0.0.1): SEP-2640 skills/list (true digests,
pages), skills/get, resources/read, resources/directory/read, the skill_search tool; and
what it must never do: read outside a skill's folder (links, `..`), open a FIFO, serve
hidden files, or run a skill's `!` line."""

from __future__ import annotations

import hashlib
import os
import socket
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from codebot.mcp import sep2640
from codebot.mcp.serve_files import SkillTree, TreeError
from codebot.skills.catalog import Catalog
from codebot.skills.files import Root, Source

BODY = "Fill the PDF invoice form.\nRun !`touch {marker}` first.\nSee references/guide.md.\n"


@pytest.fixture
def served(tmp_path: Path, write_skill) -> dict[str, Path]:
    skills = tmp_path / "skills"
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET\n")
    marker = tmp_path / "ran"
    md = write_skill(
        skills,
        "pdf-invoices",
        "name: pdf-invoices\ndescription: Fill and check PDF invoice forms\nversion: 1.10\n"
        "allowed-tools: Bash",
        BODY.format(marker=marker),
    )
    d = md.parent
    (d / "references").mkdir()
    (d / "references" / "guide.md").write_text("# Guide\n")
    (d / "templates" / "regional").mkdir(parents=True)
    (d / "templates" / "invoice.md").write_text("invoice\n")
    (d / "templates" / "regional" / "eu.md").write_text("eu\n")
    (d / "scripts").mkdir()
    (d / "scripts" / "tool.bin").write_bytes(b"\x00\xff\xfe binary")
    (d / "references" / "outside.md").symlink_to(secret)  # a link out: never served
    (d / "references" / "again.md").symlink_to(d / "references" / "guide.md")  # inside: served
    (d / ".env").write_text("TOKEN=x\n")  # hidden: never served
    os.mkfifo(d / "references" / "pipe.md")  # a FIFO: never listed nor opened
    (tmp_path / "outside-skill").mkdir()
    (d / "linked-folder").symlink_to(tmp_path / "outside-skill")
    (tmp_path / "outside-skill" / "x.md").write_text("outside\n")
    for i in range(60):  # more than one page of skills/list
        write_skill(skills, f"filler-{i:02d}", f"name: filler-{i:02d}\ndescription: filler {i}")
    return {"skills": skills, "skill": d, "marker": marker, "secret": secret}


def _params(served: dict[str, Path], project: Path, *extra: str) -> StdioServerParameters:
    env = {k: os.environ[k] for k in ("HOME", "CODEBOT_HOME", "PATH") if k in os.environ}
    env |= {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "CODEBOT_NO_PROBE": "1"}
    args = ["-m", "codebot", "mcp", "serve", "--skills-dir", str(served["skills"]), *extra]
    return StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(project))


def _session(served: dict[str, Path], project: Path, test, *, discover: bool = False):
    async def main() -> None:
        with anyio.fail_after(60):
            async with (
                stdio_client(_params(served, project)) as (r, w),
                ClientSession(r, w) as s,
            ):
                await (s.discover() if discover else s.initialize())
                await test(s)

    anyio.run(main)


def test_declares_the_extension_on_both_wires(served, project) -> None:
    seen = []

    async def check(s: ClientSession) -> None:
        seen.append(sep2640.declared(s))

    _session(served, project, check)  # 2025-11-25 initialize: mirrored under experimental
    _session(served, project, check, discover=True)  # 2026-07-28: capabilities.extensions
    assert seen == [{"directoryRead": True}, {"directoryRead": True}]


def test_list_all_pages_with_true_digests_and_get(served, project) -> None:
    d = served["skill"]

    async def check(s: ClientSession) -> None:
        entries, problems = await sep2640.list_skills(s)
        assert problems == []
        by_uri = {e.uri: e for e in entries}
        assert len(by_uri) == len(entries) >= 61  # 60 fillers + ours (+ bundled), no duplicate
        e = by_uri["skill://pdf-invoices/SKILL.md"]
        assert e.frontmatter["name"] == "pdf-invoices"
        assert e.frontmatter["allowed-tools"] == "Bash"  # verbatim, every field
        assert isinstance(e.resources, list)
        files = {f.uri.removeprefix("skill://pdf-invoices/"): f for f in e.resources}
        assert set(files) == {
            "SKILL.md",
            "references/again.md",
            "references/guide.md",
            "scripts/tool.bin",
            "templates/invoice.md",
            "templates/regional/eu.md",
        }
        for rel, f in files.items():
            data = (d / rel).read_bytes()
            assert f.digest == "sha256:" + hashlib.sha256(data).hexdigest()
            assert f.size == len(data)
            assert sep2640.valid_digest(f.digest)
        got = await sep2640.get_skill(s, "skill://pdf-invoices/SKILL.md")
        assert got == e
        for bad in ("skill://nope/SKILL.md", "skill://pdf-invoices/references/guide.md", "x"):
            with pytest.raises(MCPError) as err:
                await sep2640.get_skill(s, bad)
            assert err.value.error.code == -32602

    _session(served, project, check)


def test_reads_only_listed_files_inside_the_skill(served, project) -> None:
    async def check(s: ClientSession) -> None:
        got = await s.read_resource("skill://pdf-invoices/references/guide.md")
        assert got.contents[0].text == "# Guide\n"  # type: ignore[union-attr]
        blob = await s.read_resource("skill://pdf-invoices/scripts/tool.bin")
        assert blob.contents[0].blob  # type: ignore[union-attr]
        for uri in (
            "skill://pdf-invoices/references/outside.md",  # a link out of the folder
            "skill://pdf-invoices/linked-folder/x.md",  # through a linked folder
            "skill://pdf-invoices/references/pipe.md",  # a FIFO: would block an open()
            "skill://pdf-invoices/.env",  # hidden
            "skill://pdf-invoices/../../secret.txt",
            "skill://pdf-invoices/references/../../../secret.txt",
            "file:///etc/passwd",
            "skill://no-such-skill/SKILL.md",
        ):
            with pytest.raises(MCPError) as err:
                await s.read_resource(uri)
            assert err.value.error.code == -32602, uri

    _session(served, project, check)


def test_directory_read(served, project) -> None:
    async def check(s: ClientSession) -> None:
        top = await sep2640.read_directory(s, "skill://pdf-invoices")
        rows = {r.name: r.mime_type for r in top.resources}
        assert rows == {
            "SKILL.md": "text/markdown",
            "references": sep2640.DIRECTORY_MIME,
            "scripts": sep2640.DIRECTORY_MIME,
            "templates": sep2640.DIRECTORY_MIME,
        }
        sub = await sep2640.read_directory(s, "skill://pdf-invoices/templates")
        assert [(r.uri, r.mime_type) for r in sub.resources] == [
            ("skill://pdf-invoices/templates/invoice.md", "text/markdown"),
            ("skill://pdf-invoices/templates/regional", sep2640.DIRECTORY_MIME),
        ]
        for bad in ("skill://pdf-invoices/SKILL.md", "skill://pdf-invoices/nope"):
            with pytest.raises(MCPError) as err:
                await sep2640.read_directory(s, bad)
            assert err.value.error.code == -32602

    _session(served, project, check)


def test_skill_search_and_no_command_ever_runs(served, project) -> None:
    async def check(s: ClientSession) -> None:
        tools = await s.list_tools()
        assert [t.name for t in tools.tools] == ["skill_search"]
        r = await s.call_tool("skill_search", {"query": "fill a pdf invoice form", "limit": 3})
        assert not r.is_error
        data = r.structured_content
        top = data["skills"][0]
        assert top["name"] == "pdf-invoices"
        assert top["uri"] == "skill://pdf-invoices/SKILL.md"
        assert "pdf" in top["why"]
        assert len(data["skills"]) <= 3
        await s.read_resource("skill://pdf-invoices/SKILL.md")
        for bad in ({"query": ""}, {"query": "x", "limit": 0}, {"query": "x", "limit": "9"}):
            r = await s.call_tool("skill_search", bad)
            assert r.is_error
        r = await s.call_tool("Bash", {"command": "true"})
        assert r.is_error

    _session(served, project, check)
    assert not served["marker"].exists()  # the `!` line was served as text, never run


def test_a_link_swapped_in_after_listing_reads_nothing(served) -> None:
    root = Root(served["skills"], Source.PROJECT, "extra", (0, 1, 0), explicit=True)
    tree = SkillTree(Catalog([root]).load())
    skill = tree.skills["skill://pdf-invoices"]
    assert tree.entry(skill).resources
    guide = served["skill"] / "references" / "guide.md"
    guide.unlink()
    guide.symlink_to(served["secret"])
    with pytest.raises(TreeError):
        tree.read("skill://pdf-invoices/references/guide.md")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_http_on_localhost(served, project, wait_until) -> None:
    from mcp.client.streamable_http import streamable_http_client

    port = _free_port()
    p = _params(served, project, "--http", str(port))
    proc = subprocess.Popen(
        [p.command, *p.args], env=p.env, cwd=p.cwd, stderr=subprocess.PIPE, text=True
    )
    try:

        def listening() -> bool:
            with socket.socket() as s:
                return s.connect_ex(("127.0.0.1", port)) == 0

        wait_until(listening, timeout=30, what="the HTTP server listening")
        found: list[str] = []

        async def main() -> None:
            with anyio.fail_after(60):
                async with (
                    streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (r, w),
                    ClientSession(r, w) as s,
                ):
                    await s.initialize()
                    found.extend(e.uri for e in (await sep2640.list_skills(s))[0])

        anyio.run(main)
        assert "skill://pdf-invoices/SKILL.md" in found
        # bound to the loopback address only
        listens = Path("/proc/net/tcp").read_text().lower()
        assert f"0100007f:{port:04x}" in listens
        assert f"00000000:{port:04x}" not in listens
    finally:
        proc.terminate()
        proc.wait(10)


def test_bad_port_is_a_usage_error(served, project) -> None:
    p = _params(served, project, "--http", "70000")
    r = subprocess.run(
        [p.command, *p.args], env=p.env, cwd=p.cwd, capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 2
    assert "--http 70000" in r.stderr


def test_only_dirs_serves_the_given_folders_alone(served, project, tmp_path: Path) -> None:
    user = Path(os.environ["CODEBOT_HOME"]) / "skills" / "mine"
    user.mkdir(parents=True)
    (user / "SKILL.md").write_text("---\nname: mine\ndescription: a user skill\n---\nx\n")
    seen: dict[str, set[str]] = {}

    def run(key: str, *extra: str) -> None:
        async def main() -> None:
            with anyio.fail_after(60):
                async with (
                    stdio_client(_params(served, project, *extra)) as (r, w),
                    ClientSession(r, w) as s,
                ):
                    await s.initialize()
                    seen[key] = {e.uri for e in (await sep2640.list_skills(s))[0]}

        anyio.run(main)

    run("all")
    run("only", "--only-dirs")
    assert "skill://mine/SKILL.md" in seen["all"]  # the catalog `skills list` shows
    assert "skill://mine/SKILL.md" not in seen["only"]
    assert "skill://pdf-invoices/SKILL.md" in seen["only"]
    assert len(seen["only"]) == 61


def test_a_cursor_it_did_not_give_is_invalid_params() -> None:
    from codebot.mcp.serve import page_start

    assert page_start(None, 10) == 0
    assert page_start("5", 10) == 5
    for bad in ("9" * 5000, "-1", "x", "11", "1e3", "٣"):
        with pytest.raises(MCPError) as err:
            page_start(bad, 10)
        assert err.value.error.code == -32602


def test_mcp_list_counts_the_skills_of_codebot_mcp_serve(served, project) -> None:
    """codebot's own client against codebot's server, through `codebot mcp list`."""
    import json

    conf = project / "servers.json"
    args = ["-m", "codebot", "mcp", "serve", "--only-dirs", "--skills-dir", str(served["skills"])]
    conf.write_text(json.dumps({"mcpServers": {"cb": {"command": sys.executable, "args": args}}}))
    env = dict(os.environ, LITELLM_LOCAL_MODEL_COST_MAP="True")
    r = subprocess.run(
        [sys.executable, "-m", "codebot", "mcp", "list", "--json", "--mcp-config", str(conf)],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    (row,) = [x for x in json.loads(r.stdout) if x["name"] == "cb"]
    assert row["status"] == "ready", row
    assert (row["tools"], row["skills"]) == (1, 61)
