"""`/resume` in a running codebot goes on with the setup of the session it switches to:
its model and endpoint (the next request reaches that server), its --add-dir folders and
this project's allow rules, each said; its skills folders are named with the command that
starts with them."""

from __future__ import annotations

import io
import json
from pathlib import Path

from codebot.agent.model import ScriptedModel
from codebot.config import load_settings
from codebot.ui.controller import Controller
from codebot.ui.line.repl import LineApp


def controller(project: Path, replies: list) -> Controller:
    return Controller(
        load_settings(cwd=project, trust=True), client=ScriptedModel(replies), interactive=True
    )


def earlier_session(project: Path, setup: dict) -> str:
    c = controller(project, ["the old answer"])
    LineApp(c, input=io.StringIO("the old question\n"), output=io.StringIO(), watch=False).run()
    c.close()
    assert c.session.transcript is not None
    with c.session.transcript.path.open("a") as fh:  # as a session on that setup wrote it
        fh.write(json.dumps({"type": "setup", "setup": setup}) + "\n")
    return c.session.id


def test_resume_switches_to_the_sessions_model_endpoint_dirs_and_rules(
    project: Path, tmp_path: Path, fake_openai
) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    sid = earlier_session(
        project,
        {
            "model": "openai/x",
            "api_base": fake_openai.url,
            "add_dirs": [str(extra), str(tmp_path / "gone")],
            "skills_dirs": [str(project / "skills")],
            "session_rules": ["Bash(make:*)"],
        },
    )
    fake_openai.script([{"text": "answer from the session's server"}])
    c = controller(project, ["never used"])
    out = io.StringIO()
    LineApp(c, input=io.StringIO(f"/resume {sid}\ngo on\n"), output=out, watch=False).run()
    c.close()
    text = " ".join(out.getvalue().split())  # line mode wraps long lines
    assert f"resumed session {sid}" in text
    assert (
        f"restored from the session: model openai/x · endpoint {fake_openai.url} · --add-dir "
        in text
    )
    assert "the session's --add-dir folder" in text and "gone no longer exists; skipped" in text
    assert "restored the session's allow rules: Bash(make:*)" in text
    assert "the session used skills folder skills" in text and f"codebot --resume {sid}" in text
    assert [b["model"] for b in fake_openai.requests] == ["x"]
    assert "answer from the session's server" in text
    assert c.session.context.extra_roots == (extra.resolve(),)
    assert [r.text for r in c.session.approvals.session_rules] == ["Bash(make:*)"]


def test_resume_of_a_session_without_a_record_keeps_the_model(project: Path) -> None:
    c0 = controller(project, ["old"])
    LineApp(c0, input=io.StringIO("old question\n"), output=io.StringIO(), watch=False).run()
    c0.close()
    assert c0.session.transcript is not None
    path = c0.session.transcript.path
    lines = [x for x in path.read_text().splitlines() if '"type": "setup"' not in x]
    path.write_text("\n".join(lines) + "\n")  # as written before setup records
    model = ScriptedModel(["still scripted"])
    c = Controller(load_settings(cwd=project, trust=True), client=model, interactive=True)
    out = io.StringIO()
    LineApp(c, input=io.StringIO(f"/resume {c0.session.id}\nmore\n"), output=out, watch=False).run()
    c.close()
    assert c.session.client is model and "still scripted" in out.getvalue()
    assert "restored from the session" not in out.getvalue()


def test_resume_goes_on_with_the_sessions_effort(project: Path) -> None:
    sid = earlier_session(project, {"effort": "high"})
    client = ScriptedModel(["with the session's effort"])
    c = Controller(load_settings(cwd=project, trust=True), client=client, interactive=True)
    out = io.StringIO()
    LineApp(c, input=io.StringIO(f"/resume {sid}\ngo on\n"), output=out, watch=False).run()
    c.close()
    assert "restored from the session: effort high" in " ".join(out.getvalue().split())
    assert client.requests[-1].effort == "high"
