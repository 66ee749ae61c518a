import os
import time

from codebot.agent.session.instruction_source import InstructionSource
from codebot.agent.session.instructions import IMPORT_DEPTH, load_instructions


def _source(tmp_path, **kw):
    root = tmp_path / "p"
    root.mkdir(exist_ok=True)
    return root, InstructionSource(
        project_root=root,
        cwd=root,
        home=tmp_path / "h",
        codebot_home=tmp_path / "ch",
        trusted=True,
        **kw,
    )


def test_edit_is_reloaded_and_new_file_appears(tmp_path):
    root, src = _source(tmp_path)
    assert src.text == ""
    (root / "AGENTS.md").write_text("use tabs\n")
    assert "use tabs" in src.text
    (root / "AGENTS.md").write_text("use four spaces, never tabs, everywhere\n")
    os.utime(root / "AGENTS.md", ns=(time.time_ns(), time.time_ns() + 10**9))
    assert "four spaces" in src.text and "use tabs\n" not in src.text


def test_nested_folder_applies_after_touch(tmp_path):
    root, src = _source(tmp_path)
    (root / "api").mkdir()
    (root / "api" / "AGENTS.md").write_text("api rules\n")
    assert "api rules" not in src.text
    assert src.touch(root / "api" / "x.py") == [root / "api" / "AGENTS.md"]
    assert "api rules" in src.text
    assert src.touch(root / "api" / "y.py") == []  # once
    assert src.touch(tmp_path / "elsewhere" / "z.py") == []  # outside the project


def test_agent_written_is_marked_live(tmp_path):
    written: set[str] = set()
    root, src = _source(tmp_path, agent_written=lambda: written)
    (root / "AGENTS.md").write_text("run make\n")
    assert "project instructions" in src.text
    written.add(os.path.realpath(root / "AGENTS.md"))
    assert "written by the agent" in src.text


def test_imports_depth_cycle_and_containment(tmp_path):
    root = tmp_path / "p"
    (root / "docs").mkdir(parents=True)
    (tmp_path / "secret.md").write_text("SECRET")
    (root / "AGENTS.md").write_text(
        "see @docs/a.md and `@docs/code.md` and mail me@x.org and @../secret.md\n"
    )
    (root / "docs" / "code.md").write_text("CODE")
    chain = [root / "docs" / f"d{i}.md" for i in range(IMPORT_DEPTH + 2)]
    (root / "docs" / "a.md").write_text("A @d0.md @../AGENTS.md\n")
    for i, p in enumerate(chain[:-1]):
        p.write_text(f"level{i} @d{i + 1}.md\n")
    chain[-1].write_text("too deep")
    got = load_instructions(root, root, tmp_path / "h", tmp_path / "c", True)
    texts = "".join(e.text for e in got.entries)
    assert "A @d0.md" in texts and "level0" in texts
    assert "CODE" not in texts and "SECRET" not in texts and "too deep" not in texts
    assert [e.path for e in got.entries].count(root / "AGENTS.md") == 1  # cycle read once
    assert got.entries[1].imported_by == root / "AGENTS.md"
    assert any("links outside" in d for d in got.diagnostics)
    assert any("deep at most" in d for d in got.diagnostics)


def test_large_file_is_cut_with_a_note(tmp_path):
    root = tmp_path / "p"
    root.mkdir()
    (root / "AGENTS.md").write_text("x" * 70000)
    got = load_instructions(root, root, tmp_path / "h", tmp_path / "c", True)
    assert got.entries[0].cut and "[cut: the file has 70,000 bytes" in got.entries[0].text
