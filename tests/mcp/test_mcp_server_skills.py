"""Servers' SEP-2640 skills in codebot's catalog (codebot/mcp/server_skills.py), through
real processes: against a SEP-2640 server written for the tests (sep2640_server.py: a
supporting file, a tampered digest, drifted frontmatter, a `!` line, duplicate names) and
against `codebot mcp serve` (the round trip)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from codebot.mcp.server_skills import ServerSkills, skill_source
from codebot.skills.catalog import Catalog, SkillSource, SourceError, with_sources
from codebot.skills.files import Root, Source
from codebot.skills.invoke import Request, process_invocation

SERVER = Path(__file__).with_name("sep2640_server.py")


def _env() -> dict[str, str]:
    env = {k: os.environ[k] for k in ("HOME", "CODEBOT_HOME", "PATH") if k in os.environ}
    return env | {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "CODEBOT_NO_PROBE": "1"}


def _run(params: StdioServerParameters, name: str, test) -> None:
    async def main() -> None:
        with anyio.fail_after(60):
            async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
                await s.initialize()
                source = await skill_source(s, name)
                await test(source)

    anyio.run(main)


@pytest.fixture
def test_server(tmp_path: Path) -> tuple[StdioServerParameters, Path, Path]:
    reads, marker = tmp_path / "reads.log", tmp_path / "ran"
    reads.write_text("")
    params = StdioServerParameters(
        command=sys.executable, args=[str(SERVER), str(reads), str(marker)], env=_env()
    )
    return params, reads, marker


def test_listing_at_connect_fetches_no_file(test_server) -> None:
    params, reads, _ = test_server

    async def check(src: ServerSkills | None) -> None:
        assert src is not None
        assert isinstance(src, SkillSource)
        assert src.label == "mcp:docs"
        names = sorted(s.name for s in src.specs())
        # every page read; same-named entries both named by their whole path
        assert names == [
            "docs:acme/refunds",
            "docs:drift",
            "docs:good",
            "docs:shop/refunds",
            "docs:tampered",
        ]
        assert all(s.source is Source.MCP and s.root.family == "mcp:docs" for s in src.specs())
        assert any("dynamic" in p and "mcp:docs" in p for p in src.problems)
        (broken,) = [p for p in src.problems if "broken" in p]
        assert broken.startswith("mcp:docs: ") and "resources" in broken
        (evil,) = [p for p in src.problems if "name is missing or not a skill name" in p]
        assert "\x1b" not in evil and "\u202e" not in evil  # shown escaped, never raw

    _run(params, "docs", check)
    assert reads.read_text() == ""  # nothing prefetched: not on connect, not on listing


def test_invocation_checks_digest_and_frontmatter(test_server, project) -> None:
    params, reads, marker = test_server

    async def check(src: ServerSkills | None) -> None:
        assert src is not None
        by = {s.name: s for s in src.specs()}
        good = by["docs:good"]
        assert good.allowed_tools == () and good.model is None and good.effort is None
        assert "hooks" not in good.extra
        body = await src.fetch_body(good)
        assert body.startswith("Write the notes.")
        with pytest.raises(SourceError, match=r"digest.*refused") as err:
            await src.fetch_body(by["docs:tampered"])
        assert "'docs'" in str(err.value)
        with pytest.raises(SourceError, match=r"'docs'.*frontmatter"):
            await src.fetch_body(by["docs:drift"])
        # a supporting file only when asked, only listed ones, each checked
        assert await src.read_file(good, "references/guide.md") == b"# Guide\nUse headings.\n"
        for bad in ("secret.md", "../tampered/SKILL.md", "references/../../x", "skill://x/y"):
            with pytest.raises(SourceError, match="not a file it lists"):
                await src.read_file(good, bad)
        assert await src.read_directory(good) == ["SKILL.md", "references/"]  # not secret.md
        # the body is data: its `!` line does not run, and says why
        snap = with_sources(Catalog([]).load(), [src])
        req = Request(
            "docs:good", shell="run", trusted_project=True, project_dir=project, body=body
        )
        result = process_invocation(req, snap.skills)
        assert result.ok, result
        assert "skills from MCP servers may not run shell commands" in result.prompt
        assert result.delta.allowed_tools == () and result.delta.model is None

    _run(params, "docs", check)
    assert not marker.exists()
    read = reads.read_text().split()
    assert "skill://good/secret.md" not in read  # an unlisted file was never asked for
    assert "skill://tampered/SKILL.md" in read


def test_a_server_that_never_answers_is_an_error_in_time(test_server) -> None:
    params, _, _ = test_server

    async def check(src: ServerSkills | None) -> None:
        assert src is not None
        src.timeout = 1.0
        spec = next(s for s in src.specs() if s.name == "docs:acme/refunds")
        with pytest.raises(SourceError, match=r"'docs' did not answer skills/get within 1 s"):
            await src.fetch_body(spec)

    _run(params, "docs", check)


def test_a_server_without_the_extension_has_no_skills(tmp_path: Path) -> None:
    script = tmp_path / "plain.py"
    script.write_text(
        "import anyio\nfrom mcp.server.lowlevel.server import Server\n"
        "from mcp.server.stdio import stdio_server\n"
        "async def main():\n    s = Server('plain')\n"
        "    async with stdio_server() as (r, w):\n"
        "        await s.run(r, w, s.create_initialization_options())\n"
        "anyio.run(main)\n"
    )
    got = []

    async def check(src: ServerSkills | None) -> None:
        got.append(src)

    _run(StdioServerParameters(command=sys.executable, args=[str(script)], env=_env()), "p", check)
    assert got == [None]


def test_round_trip_through_codebot_mcp_serve(tmp_path: Path, project, write_skill) -> None:
    skills = tmp_path / "skills"
    marker = tmp_path / "ran"
    md = write_skill(
        skills,
        "release-notes",
        "name: release-notes\ndescription: Write release notes\nallowed-tools: Bash",
        f"Notes.\n!`touch {marker}`\n",
    )
    (md.parent / "templates").mkdir()
    (md.parent / "templates" / "notes.md").write_text("## Added\n")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "codebot", "mcp", "serve", "--skills-dir", str(skills)],
        env=_env(),
        cwd=str(project),
    )

    async def check(src: ServerSkills | None) -> None:
        assert src is not None and src.directory_read
        local = Catalog([Root(skills, Source.PROJECT, "extra", (0, 1, 0))]).load()
        snap = with_sources(local, [src])
        spec = snap.get("codebot:release-notes")
        assert spec is not None and snap.get("release-notes") is not None  # both, no shadow
        body = await src.fetch_body(spec)
        assert body == f"Notes.\n!`touch {marker}`\n"
        assert await src.read_file(spec, "templates/notes.md") == b"## Added\n"
        assert await src.read_directory(spec, "templates") == ["notes.md"]
        req = Request(spec.name, shell="run", project_dir=project, body=body)
        result = process_invocation(req, snap.skills)
        assert result.ok and "may not run shell commands" in result.prompt

    _run(params, "codebot", check)
    assert not marker.exists()


def test_a_clash_with_a_local_name_is_shown_never_silent(tmp_path: Path, write_skill) -> None:
    class Fake:
        label = "mcp:x"

        def __init__(self, specs):
            self._specs = specs

        def specs(self):
            return self._specs

        async def fetch_body(self, spec):
            return ""

    from codebot.skills.catalog import external_spec

    root = tmp_path / "skills"
    write_skill(root, "x:review", "name: x:review\ndescription: local one")
    local = Catalog([Root(root, Source.PROJECT, "extra", (0, 1, 0))]).load()
    theirs = external_spec("mcp:x", "x:review", "theirs", "review/SKILL.md")
    snap = with_sources(local, [Fake([theirs])])
    assert snap.get("x:review").description == "local one"
    (lost,) = [s for s in snap.shadowed if s.spec is theirs]
    assert "mcp:x" in lost.reason
    with pytest.raises(OSError, match="MCP server"):
        theirs.read_body()
