"""What a cold task in print mode does not do (issue 36 §4): work nobody needs.

- The offline model's turn never reads litellm's model table (`model_facts`, a ~1 MB JSON
  file read for whether the model takes images): a history without images is sent as it
  is, whatever the model.
"""

from __future__ import annotations

import sys
from pathlib import Path

from codebot.agent.model import model_facts
from codebot.agent.session import images
from codebot.agent.tools import ToolResult
from codebot.mcp.results import Image

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from gen_skills import generate

SPY = """
from codebot.agent.model import model_facts
reads = []
table = model_facts._read_table
def spy():
    reads.append(1)
    return table()
model_facts._read_table = spy
"""
REPORT = "got = {'table_reads': len(reads), 'litellm': 'litellm' in sys.modules}"


def test_print_mode_with_the_offline_model_never_reads_the_price_table(tmp_path, print_probe):
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    generate(project / ".codebot" / "skills", 60, seed=3)
    task = "write a changelog entry for the parser fix"
    out, got = print_probe(SPY, REPORT, task, project, tmp_path / "home")
    assert got == {"table_reads": 0, "litellm": False}
    assert "offline model" in out.stdout


def _image_history() -> list[dict[str, object]]:
    shot = ToolResult("x", images=(Image("image/png", "aGk=", 2),))
    message = images.image_message([("mcp__a__b (call c1)", shot)])
    assert message is not None
    return [{"role": "user", "content": "look"}, message]


def test_a_history_without_images_is_sent_as_is_without_asking_the_table(monkeypatch):
    asked: list[str] = []
    monkeypatch.setattr(model_facts, "supports_vision", lambda m: asked.append(m) or False)
    history: list[dict[str, object]] = [
        {"role": "user", "content": "hi"},
        {"role": "user", "content": [{"type": "text", "text": "not " + images.HEAD}]},
    ]
    assert images.sent(history, "offline") is history
    assert asked == []


def test_images_still_become_notes_for_a_model_that_takes_none(monkeypatch):
    asked: list[str] = []
    monkeypatch.setattr(model_facts, "supports_vision", lambda m: asked.append(m) or False)
    history = _image_history()
    sent = images.sent(history, "offline")
    assert asked == ["offline"]
    assert "not shown" in str(sent[1]["content"])
    monkeypatch.setattr(model_facts, "supports_vision", lambda m: True)
    assert images.sent(history, "gpt-4o") is history
