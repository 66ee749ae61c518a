import os

from codebot.agent.session.instructions import load_instructions


def test_order_origins_and_fifo(tmp_path):
    root, home, ch = tmp_path / "p", tmp_path / "h", tmp_path / "ch"
    sub = root / "a"
    sub.mkdir(parents=True)
    ch.mkdir()
    (ch / "AGENTS.md").write_text("user\n")
    (root / "CLAUDE.md").write_text("claude\x1b[2J\n")
    (root / "AGENTS.md").write_text("agents\n")
    (sub / "AGENTS.md").write_text("sub\n")
    os.mkfifo(sub / "GEMINI.md")
    (root / "GEMINI.md").symlink_to(tmp_path / "outside.md")
    (tmp_path / "outside.md").write_text("secret")
    got = load_instructions(root, sub, home, ch, trusted=False)
    assert [e.path for e in got.entries] == [
        ch / "AGENTS.md",
        root / "AGENTS.md",
        root / "CLAUDE.md",
        sub / "AGENTS.md",
    ]
    assert [e.origin for e in got.entries][1:] == ["repository-untrusted"] * 3
    assert "\x1b" not in got.entries[2].text
    assert len(got.diagnostics) == 2
    assert all("secret" not in e.text for e in got.entries)


def test_render_names_path_and_untrusted_mark(tmp_path):
    from codebot.agent.session.instructions import render

    (tmp_path / "AGENTS.md").write_text("use tabs\n")
    got = render(load_instructions(tmp_path, tmp_path, tmp_path / "h", tmp_path / "c", False))
    assert str(tmp_path / "AGENTS.md") in got
    assert "not trusted" in got and "use tabs" in got
