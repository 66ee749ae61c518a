"""A server's SEP-2640 skills in a session, end to end: `codebot -p` as a real process, the
scripted model (`fake_openai`), and real servers (`tests/mcp/sep2640_server.py`, `codebot
mcp serve`) named in a trusted, approved project's `.mcp.json`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from codebot.mcp.approval import approve
from codebot.mcp.config import load_servers

SEP = Path(__file__).with_name("sep2640_server.py")


def setup(project: Path, tmp_path: Path, server: dict | None = None) -> Path:
    """`srv` (the SEP-2640 test server) in the project's .mcp.json, approved; its marker."""
    marker = tmp_path / "marker"
    srv = server or {
        "command": sys.executable,
        "args": [str(SEP), str(tmp_path / "reads"), str(marker)],
    }
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"srv": srv}}))
    home = Path(os.environ["CODEBOT_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text("sandbox:\n  mode: off\n")
    assert approve(home, project, load_servers(project, {}, home / "config.yaml").servers)
    return marker


def run(project: Path, fake, prompt: str, *args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "codebot", "--cwd", str(project), "-p", prompt, "--trust"]
    cmd += ["--api-base", fake.url, "--model", "openai/x", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=90, cwd=project)


def sent(request: dict) -> str:
    return "\n".join(str(m.get("content") or "") for m in request["messages"])


def skill_call(name: str) -> dict:
    return {"tool_calls": [{"name": "Skill", "arguments": json.dumps({"skill": name})}]}


def tool_result(request: dict) -> str:
    return next(m["content"] for m in request["messages"] if m["role"] == "tool")


def test_a_persons_slash_reaches_the_servers_skill_and_its_command_never_runs(
    project: Path, fake_openai, tmp_path: Path
) -> None:
    marker = setup(project, tmp_path)
    fake_openai.script([{"text": "done"}])
    out = run(project, fake_openai, "/srv:good do it")
    assert out.returncode == 0, out.stderr
    text = sent(fake_openai.requests[0])
    assert "Write the notes." in text and "See references/guide.md." in text
    assert "may not run shell commands" in text
    assert not marker.exists()
    reads = (tmp_path / "reads").read_text().split()
    assert reads == ["skill://good/SKILL.md"]  # the body only: no supporting file prefetched
    usage = Path(os.environ["CODEBOT_HOME"]) / "skill-usage.json"
    assert "srv:good" in usage.read_text()  # counted like any skill


def test_the_listing_sent_to_the_model_names_the_servers_skills(
    project: Path, fake_openai, tmp_path: Path
) -> None:
    setup(project, tmp_path)
    fake_openai.script([{"text": "done"}])
    out = run(project, fake_openai, "hello")
    assert out.returncode == 0, out.stderr
    text = sent(fake_openai.requests[0])
    assert "srv:good" in text and "Format release notes from the changelog" in text
    assert "srv:dynamic" not in text  # not loaded (no digests)


def test_the_models_skill_call_fetches_the_checked_body(
    project: Path, fake_openai, tmp_path: Path
) -> None:
    marker = setup(project, tmp_path)
    fake_openai.script([skill_call("srv:good"), {"text": "done"}])
    out = run(project, fake_openai, "write release notes")
    assert out.returncode == 0, out.stderr
    result = tool_result(fake_openai.requests[1])
    assert "Write the notes." in result and "may not run shell commands" in result
    assert not marker.exists()


def test_a_plain_name_reaches_the_servers_skill_when_no_other_has_it(
    project: Path, fake_openai, tmp_path: Path
) -> None:
    setup(project, tmp_path)
    fake_openai.script([skill_call("good"), {"text": "done"}])
    out = run(project, fake_openai, "/good now")
    assert out.returncode == 0, out.stderr
    assert "Write the notes." in sent(fake_openai.requests[0])
    assert "Write the notes." in tool_result(fake_openai.requests[1])


def test_a_local_skill_keeps_its_plain_name_and_the_servers_keeps_its_full_one(
    project: Path, fake_openai, tmp_path: Path, write_skill
) -> None:
    setup(project, tmp_path)
    write_skill(
        project / ".codebot" / "skills",
        "good",
        "name: good\ndescription: Local one",
        "LOCAL BODY\n",
    )
    fake_openai.script([{"text": "a"}, {"text": "b"}])
    out = run(project, fake_openai, "/good x")
    assert out.returncode == 0, out.stderr
    assert "LOCAL BODY" in sent(fake_openai.requests[0])
    out = run(project, fake_openai, "/srv:good x")
    assert out.returncode == 0, out.stderr
    assert "Write the notes." in sent(fake_openai.requests[1])


def test_a_tampered_digest_is_refused_naming_the_server(
    project: Path, fake_openai, tmp_path: Path
) -> None:
    setup(project, tmp_path)
    fake_openai.script([skill_call("srv:tampered"), {"text": "done"}])
    out = run(project, fake_openai, "/srv:tampered go")
    assert out.returncode != 0
    assert "'srv'" in out.stderr and "digest" in out.stderr, out.stderr
    assert fake_openai.requests == []  # refused before anything reached the model
    out = run(project, fake_openai, "use tampered")
    assert out.returncode == 0, out.stderr
    result = tool_result(fake_openai.requests[1])
    assert "'srv'" in result and "digest" in result and "Body" not in result


def test_changed_frontmatter_is_refused(project: Path, fake_openai, tmp_path: Path) -> None:
    setup(project, tmp_path)
    out = run(project, fake_openai, "/srv:drift go")
    assert out.returncode != 0
    assert "'srv'" in out.stderr and "frontmatter" in out.stderr, out.stderr


def test_codebot_mcp_serve_as_the_server(
    project: Path, fake_openai, tmp_path: Path, write_skill
) -> None:
    served = tmp_path / "served"
    marker = tmp_path / "served-marker"
    write_skill(
        served,
        "deploy",
        "name: deploy\ndescription: Deploy the service",
        f"Deploy with care.\nNow: !`touch {marker}`\n",
    )
    cmd = [
        sys.executable,
        "-m",
        "codebot",
        "mcp",
        "serve",
        "--skills-dir",
        str(served),
        "--only-dirs",
    ]
    setup(project, tmp_path, {"command": cmd[0], "args": cmd[1:]})
    fake_openai.script([{"text": "done"}])
    out = run(project, fake_openai, "/srv:deploy it")
    assert out.returncode == 0, out.stderr
    text = sent(fake_openai.requests[0])
    assert "Deploy with care." in text and "may not run shell commands" in text
    assert not marker.exists()


def read_call(path: str) -> dict:
    return {"tool_calls": [{"name": "Read", "arguments": json.dumps({"path": path})}]}


def tool_results(request: dict) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def test_supporting_files_are_read_through_the_server_only_when_listed(
    project: Path, fake_openai, tmp_path: Path
) -> None:
    setup(project, tmp_path)
    (project / "mcp:srv" / "good").mkdir(parents=True)  # a look-alike folder: never read
    (project / "mcp:srv" / "good" / "secret.md").write_text("LOCAL LOOKALIKE\n")
    fake_openai.script(
        [
            skill_call("srv:good"),
            read_call("mcp:srv/good/references/guide.md"),
            read_call("mcp:srv/good/secret.md"),
            read_call("mcp:srv/good/../tampered/SKILL.md"),
            {"text": "done"},
        ]
    )
    out = run(project, fake_openai, "notes please")
    assert out.returncode == 0, out.stderr
    results = tool_results(fake_openai.requests[4])
    assert "# Guide" in results[1] and "Use headings." in results[1]
    assert "'srv'" in results[2] and "not a file it lists" in results[2]
    assert "LOCAL LOOKALIKE" not in results[2]
    assert "not a file it lists" in results[3]
    reads = (tmp_path / "reads").read_text().split()
    assert "skill://good/secret.md" not in reads and "skill://tampered/SKILL.md" not in reads


def test_a_deny_rule_holds_for_the_plain_name(project: Path, fake_openai, tmp_path: Path) -> None:
    setup(project, tmp_path)
    fake_openai.script([skill_call("good"), {"text": "done"}])
    out = run(project, fake_openai, "notes", "--deny", "Skill(srv:good)")
    assert out.returncode == 0, out.stderr
    result = tool_result(fake_openai.requests[1])
    assert "denied" in result and "Write the notes." not in result


def test_a_fork_skill_from_a_server_runs_its_body_in_the_sub_agent(
    project: Path, fake_openai, tmp_path: Path, write_skill
) -> None:
    served = tmp_path / "served"
    write_skill(
        served,
        "survey",
        "name: survey\ndescription: Survey the code\ncontext: fork",
        "SURVEY BODY\n",
    )
    cmd = [sys.executable, "-m", "codebot", "mcp", "serve", "--skills-dir", str(served)]
    setup(project, tmp_path, {"command": cmd[0], "args": [*cmd[1:], "--only-dirs"]})
    fake_openai.script(
        [{"text": "surveyed"}, skill_call("srv:survey"), {"text": "sub"}, {"text": "ok"}]
    )
    out = run(project, fake_openai, "/srv:survey all")
    assert out.returncode == 0, out.stderr
    assert "SURVEY BODY" in sent(fake_openai.requests[0]) and "surveyed" in out.stdout
    out = run(project, fake_openai, "survey it")
    assert out.returncode == 0, out.stderr
    assert "SURVEY BODY" in sent(fake_openai.requests[2])  # the model's call: a sub-agent too
    assert "sub" in tool_result(fake_openai.requests[3])


def test_line_mode_lists_the_servers_skills_and_shows_a_shadowed_one(
    project: Path, fake_openai, tmp_path: Path, write_skill
) -> None:
    setup(project, tmp_path)
    plugin = tmp_path / "plug"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "srv"}))
    write_skill(plugin / "skills", "tampered", "name: tampered\ndescription: Plugin one", "P\n")
    fake_openai.script([{"text": "noted"}])
    cmd = [sys.executable, "-m", "codebot", "--cwd", str(project), "--plain", "--trust"]
    cmd += ["--api-base", fake_openai.url, "--model", "openai/x", "--plugin-dir", str(plugin)]
    done = subprocess.run(
        cmd,
        input="/srv:good now\n/skills srv\n/mcp\n/exit\n",
        capture_output=True,
        text=True,
        timeout=90,
        cwd=project,
    )
    assert done.returncode == 0, done.stderr
    assert "Write the notes." in sent(fake_openai.requests[0])
    table = done.stdout[done.stdout.index("/skills srv") : done.stdout.index("> /mcp")]
    assert "srv:good" in table and "mcp:srv" in table
    row = next(line for line in table.splitlines() if "srv:tampered" in line and "mcp" in line)
    assert "shadowed by" in row
    live = done.stdout[done.stdout.index("> /mcp") :]
    srv = next(line for line in live.splitlines() if line.startswith("srv "))
    assert "ready" in srv and srv.split()[-1] == "5", live  # tools, prompts, skills


def test_a_server_that_never_answers_is_refused_within_its_timeout(
    project: Path, fake_openai, tmp_path: Path
) -> None:
    args = [str(SEP), str(tmp_path / "reads"), str(tmp_path / "marker")]
    setup(project, tmp_path, {"command": sys.executable, "args": args, "timeout": 2})
    out = run(project, fake_openai, "/srv:acme/refunds go")  # its skills/get never answers
    assert out.returncode != 0
    assert "'srv' did not answer skills/get within 2 s" in out.stderr, out.stderr
    assert fake_openai.requests == []


def test_the_models_skill_search_finds_a_servers_skill(
    project: Path, fake_openai, tmp_path: Path
) -> None:
    setup(project, tmp_path)
    search = {"query": "format release notes from the changelog"}
    fake_openai.script(
        [{"tool_calls": [{"name": "SkillSearch", "arguments": json.dumps(search)}]}, {"text": "ok"}]
    )
    out = run(project, fake_openai, "find a skill")
    assert out.returncode == 0, out.stderr
    result = tool_result(fake_openai.requests[1])
    assert "srv:good" in result and "Format release notes" in result, result


def test_an_http_servers_skill_is_invoked_the_same_way(
    project: Path, fake_openai, tmp_path: Path, write_skill, wait_until
) -> None:
    import socket

    served = tmp_path / "served"
    marker = tmp_path / "http-marker"
    body = f"Ship over HTTP.\nNow: !`touch {marker}`\n"
    write_skill(served, "ship", "name: ship\ndescription: Ship it", body)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [sys.executable, "-m", "codebot", "--cwd", str(tmp_path), "mcp", "serve"]
    cmd += ["--skills-dir", str(served), "--only-dirs", "--http", str(port)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:

        def listening() -> bool:
            with socket.socket() as s:
                return s.connect_ex(("127.0.0.1", port)) == 0

        wait_until(listening, timeout=30, what="the HTTP server listening")
        setup(project, tmp_path, {"type": "http", "url": f"http://127.0.0.1:{port}/mcp"})
        fake_openai.script([skill_call("srv:ship"), {"text": "done"}])
        out = run(project, fake_openai, "ship it")
        assert out.returncode == 0, out.stderr
        result = tool_result(fake_openai.requests[1])
        assert "Ship over HTTP." in result and "may not run shell commands" in result
        assert not marker.exists()
    finally:
        proc.kill()
        proc.wait()
