"""The built-in tools and the registry, on real files in tmp_path."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from codebot.agent.tools import (
    BashTool,
    PathOutsideProject,
    Tool,
    ToolContext,
    ToolRegistry,
    ToolResult,
    builtin_tools,
    glob_regex,
    resolve_path,
    subject_path,
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    p = tmp_path / "proj"
    p.mkdir()
    return p


@pytest.fixture
def ctx(project: Path) -> ToolContext:
    return ToolContext(project_dir=project)


@pytest.fixture
def reg() -> ToolRegistry:
    return ToolRegistry(builtin_tools())


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is as good as dead
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def _wait_dead(pid: int, within: float = 3.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


def _kill(pid: int) -> None:
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)


# --------------------------------------------------------------------------- registry


def test_builtin_tools_order_and_schemas(reg: ToolRegistry) -> None:
    assert reg.names() == ["Read", "Write", "Edit", "Glob", "Grep", "Bash"]
    schemas = reg.schemas()
    assert [s["function"]["name"] for s in schemas] == reg.names()
    for s in schemas:
        assert s["type"] == "function"
        assert s["function"]["description"]
        assert s["function"]["parameters"]["type"] == "object"
    assert [s["function"]["name"] for s in reg.schemas(hidden={"Bash", "Write"})] == [
        "Read",
        "Edit",
        "Glob",
        "Grep",
    ]
    ro = {t.name for t in reg if t.read_only}
    assert ro == {"Read", "Glob", "Grep"}
    with pytest.raises(ValueError):
        reg.add(BashTool())


def test_parameter_contract(reg: ToolRegistry) -> None:
    def props(name: str) -> tuple[set[str], set[str]]:
        p = reg.get(name).parameters  # type: ignore[union-attr]
        return set(p["properties"]), set(p["required"])

    assert props("Read") == ({"path", "offset", "limit"}, {"path"})
    assert props("Write") == ({"path", "content"}, {"path", "content"})
    assert props("Edit") == ({"path", "old", "new", "replace_all"}, {"path", "old", "new"})
    assert props("Glob") == ({"pattern", "path"}, {"pattern"})
    assert props("Grep") == ({"pattern", "path", "glob"}, {"pattern"})
    assert props("Bash") == ({"command", "timeout"}, {"command"})


async def test_invalid_arguments_name_the_field(reg: ToolRegistry, ctx: ToolContext) -> None:
    r = await reg.call("Edit", {"path": "a.txt", "new": "x"}, ctx)
    assert r.status == "error"
    assert "Edit: 'old' is a required property" in r.content
    r = await reg.call("Read", '{"path": "a.txt", "limit": "x"}', ctx)
    assert r.status == "error"
    assert "Read.limit: 'x' is not of type 'integer'" in r.content
    r = await reg.call("Read", {"file_path": "a.txt"}, ctx)
    assert r.status == "error"
    assert "'path' is a required property" in r.content
    assert "file_path" in r.content  # additional properties are named too
    assert reg.invalid("Read", {"path": "a"}) is None
    assert "required" in (reg.invalid("Write", {"path": "a"}) or "")


async def test_invalid_json_and_non_objects(reg: ToolRegistry, ctx: ToolContext) -> None:
    r = await reg.call("Read", '{"path": ', ctx)
    assert r.status == "error"
    assert "not valid JSON" in r.content
    r = await reg.call("Read", "[1, 2]", ctx)
    assert r.status == "error"
    assert "JSON object" in r.content
    # empty arguments are an empty object: the schema then names what is missing
    r = await reg.call("Read", "", ctx)
    assert "'path' is a required property" in r.content


async def test_unknown_tool_lists_names(reg: ToolRegistry, ctx: ToolContext) -> None:
    r = await reg.call("Delete", {}, ctx)
    assert r.status == "error"
    assert "Delete" in r.content
    for name in ("Read", "Write", "Edit", "Glob", "Grep", "Bash"):
        assert name in r.content


class _Boom(Tool):
    name = "Boom"
    description = "raises"
    parameters = {"type": "object", "properties": {"how": {"type": "string"}}}  # noqa: RUF012
    read_only = True

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if args.get("how") == "cancel":
            raise asyncio.CancelledError
        if args.get("how") == "wait":
            await asyncio.sleep(30)
        raise RuntimeError("kaboom")


async def test_exceptions_become_error_results(ctx: ToolContext) -> None:
    reg = ToolRegistry([_Boom()])
    r = await reg.call("Boom", {}, ctx)
    assert r == ToolResult("Boom failed: kaboom", "error")


async def test_cancelled_error_propagates(ctx: ToolContext) -> None:
    reg = ToolRegistry([_Boom()])
    with pytest.raises(asyncio.CancelledError):
        await reg.call("Boom", {"how": "cancel"}, ctx)
    task = asyncio.create_task(reg.call("Boom", {"how": "wait"}, ctx))
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def test_approval_subjects(project: Path, ctx: ToolContext, reg: ToolRegistry) -> None:
    (project / "src").mkdir()
    (project / "docs").mkdir()
    (project / "docs" / "link.md").symlink_to(project / "src" / "main.py")
    bash = reg.get("Bash")
    edit = reg.get("Edit")
    assert bash is not None and edit is not None
    assert bash.approval_subject({"command": "  git diff  "}) == "git diff"
    assert edit.approval_subject({"path": "./src/../src/a.py"}) == "src/a.py"
    assert edit.approval_subject({"path": "src/../../x"}, ctx) == str(
        (project.parent / "x").resolve()
    )
    assert edit.approval_subject({"path": str(project / "src" / "a.py")}, ctx) == "src/a.py"
    # with the context, a symlink is judged by where it leads
    assert edit.approval_subject({"path": "docs/link.md"}, ctx) == "src/main.py"
    assert subject_path("docs/link.md") == "docs/link.md"
    glob = reg.get("Glob")
    assert glob is not None and glob.approval_subject({"pattern": "*"}, ctx) == "."


# --------------------------------------------------------------------------- paths


def test_resolve_path_refuses_outside(tmp_path: Path, project: Path, ctx: ToolContext) -> None:
    assert resolve_path(ctx, "a/b.txt") == (project / "a" / "b.txt").resolve()
    with pytest.raises(PathOutsideProject) as e:
        resolve_path(ctx, "/etc/passwd")
    assert "/etc/passwd is outside the project" in str(e.value)
    assert "--add-dir" in str(e.value)
    with pytest.raises(PathOutsideProject):
        resolve_path(ctx, "../secret.txt")
    with pytest.raises(PathOutsideProject):
        resolve_path(ctx, "sub/../../secret.txt")
    # a sibling whose name starts with the project's is still outside
    (tmp_path / "proj2").mkdir()
    with pytest.raises(PathOutsideProject):
        resolve_path(ctx, str(tmp_path / "proj2" / "x"))
    other = tmp_path / "other"
    other.mkdir()
    ctx2 = ToolContext(project_dir=project, extra_roots=(other,))
    assert resolve_path(ctx2, str(other / "x.txt")) == (other / "x.txt").resolve()


async def test_read_outside_refused(
    tmp_path: Path, project: Path, ctx: ToolContext, reg: ToolRegistry
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET\n")
    (project / "escape").symlink_to(secret)
    (project / "dirlink").symlink_to(tmp_path)
    for path in (str(secret), "../secret.txt", "escape", "dirlink/secret.txt", "/etc/passwd"):
        r = await reg.call("Read", {"path": path}, ctx)
        assert r.status == "error", path
        assert "outside the project" in r.content, path
        assert "TOP SECRET" not in r.content
    # allowed once the folder is an extra root
    ctx2 = ToolContext(project_dir=project, extra_roots=(tmp_path,))
    r = await reg.call("Read", {"path": "escape"}, ctx2)
    assert r.status == "ok" and "TOP SECRET" in r.content


# --------------------------------------------------------------------------- Read


async def test_read_numbers_lines(project: Path, ctx: ToolContext, reg: ToolRegistry) -> None:
    (project / "a.txt").write_text("alpha\nbeta\ngamma\n")
    r = await reg.call("Read", {"path": "a.txt"}, ctx)
    assert r.status == "ok"
    assert r.content == "     1\talpha\n     2\tbeta\n     3\tgamma"


async def test_read_offset_limit(project: Path, ctx: ToolContext, reg: ToolRegistry) -> None:
    (project / "n.txt").write_text("".join(f"line {i}\n" for i in range(1, 101)))
    r = await reg.call("Read", {"path": "n.txt", "offset": 10, "limit": 3}, ctx)
    lines = r.content.splitlines()
    assert lines[:3] == ["    10\tline 10", "    11\tline 11", "    12\tline 12"]
    assert "offset=13" in r.content
    r = await reg.call("Read", {"path": "n.txt", "offset": 99}, ctx)
    assert r.content == "    99\tline 99\n   100\tline 100"
    r = await reg.call("Read", {"path": "n.txt", "offset": 500}, ctx)
    assert r.status == "ok" and "past the end" in r.content
    r = await reg.call("Read", {"path": "n.txt", "offset": 0}, ctx)
    assert r.status == "error" and "Read.offset" in r.content


async def test_read_default_limit_and_long_lines(
    project: Path, ctx: ToolContext, reg: ToolRegistry
) -> None:
    (project / "big.txt").write_text("".join(f"{i}\n" for i in range(1, 2501)))
    r = await reg.call("Read", {"path": "big.txt"}, ctx)
    assert "  2000\t2000" in r.content
    assert "  2001\t" not in r.content
    assert "offset=2001" in r.content
    (project / "wide.txt").write_text("x" * 5000 + "\nshort\n")
    r = await reg.call("Read", {"path": "wide.txt"}, ctx)
    first = r.content.splitlines()[0]
    assert first.startswith("     1\t" + "x" * 2000)
    assert "x" * 2001 not in first
    assert "line cut" in first
    assert r.content.splitlines()[1] == "     2\tshort"


async def test_read_errors(project: Path, ctx: ToolContext, reg: ToolRegistry) -> None:
    r = await reg.call("Read", {"path": "nope/missing.txt"}, ctx)
    assert r.status == "error"
    assert "nope/missing.txt" in r.content and "not found" in r.content
    (project / "img.bin").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    r = await reg.call("Read", {"path": "img.bin"}, ctx)
    assert r.status == "error" and "binary" in r.content
    (project / "folder").mkdir()
    r = await reg.call("Read", {"path": "folder"}, ctx)
    assert r.status == "error" and "directory" in r.content
    (project / "empty.txt").write_text("")
    r = await reg.call("Read", {"path": "empty.txt"}, ctx)
    assert r.status == "ok" and "empty" in r.content
    os.mkfifo(project / "pipe")  # reading it would block forever
    r = await reg.call("Read", {"path": "pipe"}, ctx)
    assert r.status == "error" and "not a regular file" in r.content


# --------------------------------------------------------------------------- Write


async def test_write_creates_folders(project: Path, ctx: ToolContext, reg: ToolRegistry) -> None:
    r = await reg.call("Write", {"path": "deep/er/new.txt", "content": "héllo\n"}, ctx)
    assert r == ToolResult("wrote 7 bytes to deep/er/new.txt")
    assert (project / "deep" / "er" / "new.txt").read_text(encoding="utf-8") == "héllo\n"
    assert os.listdir(project / "deep" / "er") == ["new.txt"]  # no temp file left behind


async def test_write_overwrites_and_keeps_mode(
    project: Path, ctx: ToolContext, reg: ToolRegistry
) -> None:
    script = project / "run.sh"
    script.write_text("old\n")
    script.chmod(0o755)
    r = await reg.call("Write", {"path": "run.sh", "content": "#!/bin/sh\necho new\n"}, ctx)
    assert r.status == "ok"
    assert script.read_text() == "#!/bin/sh\necho new\n"
    assert script.stat().st_mode & 0o777 == 0o755


async def test_write_refuses_outside_and_directories(
    tmp_path: Path, project: Path, ctx: ToolContext, reg: ToolRegistry
) -> None:
    r = await reg.call("Write", {"path": "../evil.txt", "content": "x"}, ctx)
    assert r.status == "error" and "outside the project" in r.content
    assert not (tmp_path / "evil.txt").exists()
    (project / "d").mkdir()
    r = await reg.call("Write", {"path": "d", "content": "x"}, ctx)
    assert r.status == "error" and "directory" in r.content


# --------------------------------------------------------------------------- Edit


async def test_edit_replaces_and_diffs(project: Path, ctx: ToolContext, reg: ToolRegistry) -> None:
    f = project / "m.py"
    f.write_text("def f():\n    return 1\n\n\ndef g():\n    return 2\n")
    r = await reg.call("Edit", {"path": "m.py", "old": "return 1", "new": "return 10"}, ctx)
    assert r.status == "ok", r.content
    assert f.read_text() == "def f():\n    return 10\n\n\ndef g():\n    return 2\n"
    assert "--- a/m.py" in r.content and "+++ b/m.py" in r.content
    assert "-    return 1\n+    return 10" in r.content


async def test_edit_missing_old(project: Path, ctx: ToolContext, reg: ToolRegistry) -> None:
    (project / "a.txt").write_text("abc\n")
    r = await reg.call("Edit", {"path": "a.txt", "old": "xyz", "new": "q"}, ctx)
    assert r.status == "error"
    assert "old text not found in a.txt" in r.content
    assert (project / "a.txt").read_text() == "abc\n"
    r = await reg.call("Edit", {"path": "missing.txt", "old": "a", "new": "b"}, ctx)
    assert r.status == "error" and "missing.txt" in r.content


async def test_edit_not_unique_and_replace_all(
    project: Path, ctx: ToolContext, reg: ToolRegistry
) -> None:
    f = project / "a.txt"
    f.write_text("x = 1\nx = 1\nx = 1\n")
    r = await reg.call("Edit", {"path": "a.txt", "old": "x = 1", "new": "x = 2"}, ctx)
    assert r.status == "error"
    assert "old text occurs 3 times in a.txt" in r.content
    assert "replace_all" in r.content
    assert f.read_text() == "x = 1\nx = 1\nx = 1\n"
    r = await reg.call(
        "Edit", {"path": "a.txt", "old": "x = 1", "new": "x = 2", "replace_all": True}, ctx
    )
    assert r.status == "ok" and "3 replacements" in r.content
    assert f.read_text() == "x = 2\nx = 2\nx = 2\n"


async def test_edit_crlf_file(project: Path, ctx: ToolContext, reg: ToolRegistry) -> None:
    f = project / "w.txt"
    f.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    r = await reg.call("Edit", {"path": "w.txt", "old": "one\ntwo", "new": "1\n2"}, ctx)
    assert r.status == "ok", r.content
    assert f.read_bytes() == b"1\r\n2\r\nthree\r\n"


async def test_edit_identical_and_empty(project: Path, ctx: ToolContext, reg: ToolRegistry) -> None:
    (project / "a.txt").write_text("abc\n")
    r = await reg.call("Edit", {"path": "a.txt", "old": "abc", "new": "abc"}, ctx)
    assert r.status == "error" and "identical" in r.content
    r = await reg.call("Edit", {"path": "a.txt", "old": "", "new": "x"}, ctx)
    assert r.status == "error" and "Edit.old" in r.content


# --------------------------------------------------------------------------- Glob


def _touch(path: Path, mtime: float, text: str = "x\n") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.utime(path, (mtime, mtime))


async def test_glob_recursive_sorted_by_mtime(
    project: Path, ctx: ToolContext, reg: ToolRegistry
) -> None:
    now = time.time()
    _touch(project / "old.py", now - 300)
    _touch(project / "src" / "mid.py", now - 200)
    _touch(project / "src" / "pkg" / "new.py", now - 100)
    _touch(project / "src" / "notes.md", now)
    _touch(project / ".git" / "hook.py", now)
    _touch(project / "node_modules" / "lib" / "x.py", now)
    r = await reg.call("Glob", {"pattern": "**/*.py"}, ctx)
    assert r.status == "ok"
    assert r.content.splitlines() == ["src/pkg/new.py", "src/mid.py", "old.py"]
    r = await reg.call("Glob", {"pattern": "*.py"}, ctx)
    assert r.content.splitlines() == ["old.py"]
    r = await reg.call("Glob", {"pattern": "*.{py,md}", "path": "src"}, ctx)
    assert r.content.splitlines() == ["src/notes.md", "src/mid.py"]
    r = await reg.call("Glob", {"pattern": "**/*.rs"}, ctx)
    assert r.status == "ok" and "no files match" in r.content
    r = await reg.call("Glob", {"pattern": "*", "path": "../"}, ctx)
    assert r.status == "error" and "outside the project" in r.content


async def test_glob_caps_results(project: Path, ctx: ToolContext, reg: ToolRegistry) -> None:
    for i in range(510):
        (project / f"f{i:03}.txt").write_text("")
    r = await reg.call("Glob", {"pattern": "*.txt"}, ctx)
    lines = r.content.splitlines()
    assert len(lines) == 501
    assert "10 more files" in lines[-1]


def test_glob_regex() -> None:
    assert glob_regex("**/*.py").match("a.py")
    assert glob_regex("**/*.py").match("a/b/c.py")
    assert not glob_regex("*.py").match("a/b.py")
    assert glob_regex("src/**").match("src/a/b")
    assert glob_regex("src/**/test_*.py").match("src/test_a.py")
    assert glob_regex("src/**/test_*.py").match("src/x/y/test_a.py")
    assert not glob_regex("src/**/test_*.py").match("lib/test_a.py")
    assert glob_regex("*.{ts,tsx}").match("a.tsx")
    assert glob_regex("[ab].txt").match("a.txt") and not glob_regex("[!ab].txt").match("a.txt")


# --------------------------------------------------------------------------- Grep


@pytest.fixture(params=["rg", "python"])
def grep_mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "rg":
        if shutil.which("rg") is None:
            pytest.skip("ripgrep is not installed")
    else:
        real_which = shutil.which
        monkeypatch.setattr(
            shutil, "which", lambda cmd, *a, **k: None if cmd == "rg" else real_which(cmd, *a, **k)
        )
    return request.param


@pytest.fixture
def grep_tree(project: Path) -> Path:
    (project / "src" / "pkg").mkdir(parents=True)
    (project / "src" / "a.py").write_text("import os\n\ndef needle():\n    return 'needle'\n")
    (project / "src" / "pkg" / "b.py").write_text("# no match here\nneedle = 3\n")
    (project / "src" / "c.txt").write_text("a needle in text\n")
    (project / "src" / "blob.bin").write_bytes(b"needle\x00\x01\x02")
    (project / ".git").mkdir()
    (project / ".git" / "config").write_text("needle\n")
    (project / "node_modules").mkdir()
    (project / "node_modules" / "m.js").write_text("needle\n")
    os.mkfifo(project / "src" / "pipe")  # must be skipped, not read
    (project / "src" / "link.txt").symlink_to(
        project / "src" / "c.txt"
    )  # symlinks are not followed
    return project


async def test_grep_finds_matches(
    grep_mode: str, grep_tree: Path, ctx: ToolContext, reg: ToolRegistry
) -> None:
    r = await reg.call("Grep", {"pattern": "needle"}, ctx)
    assert r.status == "ok", r.content
    assert r.content.splitlines() == [
        "src/a.py:3:def needle():",
        "src/a.py:4:    return 'needle'",
        "src/c.txt:1:a needle in text",
        "src/pkg/b.py:2:needle = 3",
    ]


async def test_grep_glob_and_path(
    grep_mode: str, grep_tree: Path, ctx: ToolContext, reg: ToolRegistry
) -> None:
    r = await reg.call("Grep", {"pattern": r"needle\b", "glob": "*.py"}, ctx)
    assert r.content.splitlines() == [
        "src/a.py:3:def needle():",
        "src/a.py:4:    return 'needle'",
        "src/pkg/b.py:2:needle = 3",
    ]
    r = await reg.call("Grep", {"pattern": "needle", "path": "src/pkg"}, ctx)
    assert r.content.splitlines() == ["src/pkg/b.py:2:needle = 3"]
    r = await reg.call("Grep", {"pattern": "needle", "path": "src/c.txt"}, ctx)
    assert r.content.splitlines() == ["src/c.txt:1:a needle in text"]
    r = await reg.call("Grep", {"pattern": "needle", "glob": "src/**/*.py"}, ctx)
    assert "src/pkg/b.py:2:needle = 3" in r.content and "c.txt" not in r.content


async def test_grep_no_match_and_errors(
    grep_mode: str, grep_tree: Path, ctx: ToolContext, reg: ToolRegistry
) -> None:
    r = await reg.call("Grep", {"pattern": "haystack"}, ctx)
    assert r.status == "ok" and "no matches" in r.content
    r = await reg.call("Grep", {"pattern": "(unclosed"}, ctx)
    assert r.status == "error"
    assert r.content.startswith("Grep failed:")
    r = await reg.call("Grep", {"pattern": "x", "path": "nowhere"}, ctx)
    assert r.status == "error" and "nowhere" in r.content
    r = await reg.call("Grep", {"pattern": "root", "path": "/etc"}, ctx)
    assert r.status == "error" and "outside the project" in r.content


async def test_grep_output_capped(grep_mode: str, project: Path, reg: ToolRegistry) -> None:
    (project / "many.txt").write_text("".join(f"match number {i}\n" for i in range(5000)))
    ctx = ToolContext(project_dir=project, output_cap=2000)
    r = await reg.call("Grep", {"pattern": "match"}, ctx)
    assert r.status == "ok"
    assert len(r.content) < 2200
    assert "capped" in r.content
    assert r.content.splitlines()[0] == "many.txt:1:match number 0"


# --------------------------------------------------------------------------- Bash


async def test_bash_runs_in_project(project: Path, ctx: ToolContext, reg: ToolRegistry) -> None:
    r = await reg.call("Bash", {"command": "pwd; echo out; echo err >&2"}, ctx)
    assert r.status == "ok"
    lines = r.content.splitlines()
    assert lines[0] == "exit code 0"
    assert Path(lines[1]).resolve() == project.resolve()
    assert "out" in lines and "err" in lines


async def test_bash_nonzero_exit_is_error_status(ctx: ToolContext, reg: ToolRegistry) -> None:
    # A failed command is a failed call (`-p` JSON, --fail-on-denial); the text is unchanged.
    r = await reg.call("Bash", {"command": "echo failing; exit 3"}, ctx)
    assert r.status == "error"
    assert r.content.startswith("exit code 3\n")
    assert "failing" in r.content


async def test_bash_stdin_is_empty_and_env_passes(project: Path, reg: ToolRegistry) -> None:
    ctx = ToolContext(project_dir=project, env={"CODEBOT_TEST_VAR": "hello-env"})
    r = await reg.call("Bash", {"command": "cat; echo $CODEBOT_TEST_VAR"}, ctx)
    assert r.content == "exit code 0\nhello-env\n"


async def test_bash_timeout_kills_group(project: Path, ctx: ToolContext, reg: ToolRegistry) -> None:
    pidfile = project / "child.pid"
    t0 = time.monotonic()
    r = await reg.call(
        "Bash", {"command": f"sleep 30 & echo $! > {pidfile}; sleep 30; echo x", "timeout": 1}, ctx
    )
    elapsed = time.monotonic() - t0
    assert r.status == "error"
    assert "timed out after 1s" in r.content
    assert "\nx" not in r.content
    assert elapsed < 15  # the 1 s timeout fired, not the 30 s sleep
    child = int(pidfile.read_text())
    try:
        assert _wait_dead(child), "the backgrounded child survived the timeout"
    finally:
        _kill(child)


async def test_bash_default_timeout_from_context(project: Path, reg: ToolRegistry) -> None:
    ctx = ToolContext(project_dir=project, bash_timeout=0.5)
    t0 = time.monotonic()
    r = await reg.call("Bash", {"command": "sleep 30; echo x"}, ctx)
    assert r.status == "error" and "timed out" in r.content
    assert time.monotonic() - t0 < 15  # the 0.5 s timeout fired, not the 30 s sleep


async def test_bash_background_child_does_not_hang(ctx: ToolContext, reg: ToolRegistry) -> None:
    t0 = time.monotonic()
    r = await reg.call("Bash", {"command": "sleep 30 & echo $!"}, ctx)
    elapsed = time.monotonic() - t0
    lines = r.content.splitlines()
    pid = int(lines[1])
    _kill(pid)
    assert r.status == "ok"
    assert lines[0] == "exit code 0"
    assert elapsed < 15  # it did not wait for the 30 s background child


async def test_bash_output_cap(ctx: ToolContext, reg: ToolRegistry) -> None:
    t0 = time.monotonic()
    r = await reg.call("Bash", {"command": "yes | head -c 10000000"}, ctx)
    assert r.status == "ok"
    assert r.content.startswith("exit code 0\ny\ny\n")
    assert len(r.content) < ctx.output_cap + 300
    assert "truncated" in r.content
    assert time.monotonic() - t0 < 20


async def test_bash_cap_keeps_head_and_tail(project: Path, reg: ToolRegistry) -> None:
    ctx = ToolContext(project_dir=project, output_cap=1000)
    r = await reg.call("Bash", {"command": "echo FIRST; seq 1 5000; echo LAST"}, ctx)
    assert "FIRST" in r.content and "LAST" in r.content
    assert "truncated" in r.content
    assert len(r.content) < 1300


async def test_bash_cancel_stops_promptly(
    project: Path, ctx: ToolContext, reg: ToolRegistry
) -> None:
    pidfile = project / "bash.pid"
    task = asyncio.create_task(reg.call("Bash", {"command": f"echo $$ > {pidfile}; sleep 30"}, ctx))
    for _ in range(100):
        if pidfile.exists() and pidfile.read_text().strip():
            break
        await asyncio.sleep(0.05)
    t0 = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - t0 < 15  # cancelled, not the 30 s sleep
    pid = int(pidfile.read_text())
    try:
        assert _wait_dead(pid), "the command survived the cancellation"
    finally:
        _kill(pid)


async def test_bash_timeout_is_capped(reg: ToolRegistry, ctx: ToolContext) -> None:
    # a timeout given in milliseconds by mistake is clamped to the maximum, not rejected
    r = await reg.call("Bash", {"command": "echo ok", "timeout": 120000}, ctx)
    assert r.content == "exit code 0\nok\n"
    r = await reg.call("Bash", {"command": "echo ok", "timeout": 0}, ctx)
    assert r.status == "error" and "Bash.timeout" in r.content
