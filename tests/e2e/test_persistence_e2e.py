"""What lasts between processes, end to end: real `codebot` processes (line mode in tmux,
and `codebot -p`) against the scripted OpenAI-compatible server (tests/agent/fake_openai.py).

* `/resume` in line mode switches to another saved session of the project, and the next
  request carries that session's history (and not the other's);
* "always allow" answered to a Bash approval in line mode is saved to the project's
  `.codebot/config.yaml` by codebot itself, and a new `codebot -p` process runs the same
  command without `--allow`;
* stacked skills: `codebot -p "/alpha /bravo src/"` sends both skills' text in the first request.

Every wait polls the screen, the files or the server's requests; nothing sleeps and then asserts.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow

needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


@pytest.fixture
def server(fake_openai: Any) -> Any:
    """The scripted server (tests/conftest.py), in this process: `.url`, `.script`, `.requests`."""
    return fake_openai


def codebot_p(project: Path, url: str, prompt: str, *args: str) -> subprocess.CompletedProcess:
    cmd = [
        sys.executable,
        "-m",
        "codebot",
        "--cwd",
        str(project),
        "--trust",
        "-p",
        prompt,
        "--api-base",
        url,
        "--model",
        "openai/test-model",
        *args,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=90, cwd=project)


def sent(request: dict[str, Any]) -> str:
    """Everything a request to the server carried in its messages, as one string."""
    return json.dumps(request["messages"])


@needs_tmux
def test_resume_in_line_mode_switches_session_and_the_next_request_carries_its_history(
    project: Path, server: Any, pane: Any, wait_until
) -> None:
    server.script(
        [
            {"text": "Noted ALPHA-7731."},
            {"text": "Noted BRAVO-9042."},
            {"text": "You asked about ALPHA."},
        ]
    )
    ids = {}
    for word in ("ALPHA-7731", "BRAVO-9042"):
        r = codebot_p(project, server.url, f"remember {word}", "--output-format", "json")
        assert r.returncode == 0, r.stderr
        ids[word] = json.loads(r.stdout)["session_id"]
    assert len(server.requests) == 2 and ids["ALPHA-7731"] != ids["BRAVO-9042"]

    pane.codebot_plain(project, server.url)
    pane.type("/resume", enter=True)
    listing = pane.wait_for(r"resume which\?")
    assert (
        ids["ALPHA-7731"] in listing and ids["BRAVO-9042"] in listing
    )  # both saved sessions are offered
    pane.type(ids["ALPHA-7731"], enter=True)  # the older one: not what --continue would pick
    pane.wait_for(f"resumed session {re.escape(ids['ALPHA-7731'])}")
    pane.prompt_ready()
    pane.type("what did I ask you to remember?", enter=True)
    wait_until(lambda: len(server.requests) == 3, 30, "the request after /resume")
    request = sent(server.requests[2])
    assert (
        "remember ALPHA-7731" in request and "Noted ALPHA-7731." in request
    )  # that session's history
    assert "BRAVO-9042" not in request  # and not the other's
    assert "what did I ask you to remember?" in request
    pane.wait_for("You asked about ALPHA")
    pane.prompt_ready()
    pane.quit_codebot()


@needs_tmux
def test_always_allow_in_line_mode_is_honoured_by_a_new_print_process(
    project: Path, server: Any, pane: Any, wait_until
) -> None:
    command = "touch made-by-bash"
    made = project / "made-by-bash"
    bash = {"tool_calls": [{"name": "Bash", "arguments": {"command": command}}]}
    server.script([bash, {"text": "Made it."}, bash, {"text": "Made it again."}])

    pane.codebot_plain(project, server.url)
    pane.type("make the file", enter=True)
    pane.wait_for(r"\[A\]lways")  # the "always allow" answer is offered for this command
    assert not made.exists()
    pane.type("A", enter=True)
    wait_until(made.exists, 30, "the approved command to run")
    pane.wait_for("Made it.")
    pane.prompt_ready()
    config = project / ".codebot" / "config.yaml"
    saved = wait_until(lambda: config.is_file() and config.read_text(), 10, "the saved rule")
    assert "touch" in str(saved), (
        saved
    )  # codebot itself wrote the rule, though .codebot/ is protected
    pane.quit_codebot()

    made.unlink()
    r = codebot_p(
        project, server.url, "make the file again"
    )  # no --allow: the saved rule allows it
    assert r.returncode == 0, r.stderr
    assert made.exists(), (r.stdout, r.stderr)
    assert "Made it again." in r.stdout
    tool_result = [m for m in server.requests[-1]["messages"] if m.get("role") == "tool"][-1]
    assert "denied" not in str(tool_result.get("content")).lower(), tool_result


def test_stacked_skills_in_print_mode_send_both_skills(
    project: Path, server: Any, write_skill
) -> None:
    skills = project / ".codebot" / "skills"
    write_skill(
        skills,
        "alpha",
        "description: Alpha checks. Not for beta things.",
        "ALPHA-BODY-5521 for $ARGUMENTS",
    )
    write_skill(
        skills,
        "bravo",
        "description: Bravo checks. Not for alpha things.",
        "BRAVO-BODY-6632 for $ARGUMENTS",
    )
    (project / "src").mkdir()
    server.script([{"text": "Both done."}])
    r = codebot_p(project, server.url, "/alpha /bravo src/")
    assert r.returncode == 0, r.stderr
    assert "Both done." in r.stdout
    first = sent(server.requests[0])
    assert "ALPHA-BODY-5521 for src/" in first and "BRAVO-BODY-6632 for src/" in first
    assert first.index("ALPHA-BODY-5521") < first.index("BRAVO-BODY-6632")  # in the order typed
