"""Line mode on a terminal breaks long lines at spaces, to the terminal's width, as the
answer streams; code and long tokens keep their shape; output that is not a terminal is
not wrapped at all."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codebot.agent.model import ScriptedModel
from codebot.config import load_settings
from codebot.ui.controller import Controller
from codebot.ui.line.repl import LineApp
from codebot.ui.line.wrap import Wrapper, cells, wrap_text

PROSE = (
    "Deploying to staging went fine: the build finished, every health check passed, and the "
    "release notes were posted to the channel where the team reads them every morning."
)


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def project(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    return proj


def answer_lines(project: Path, answer: str, out: io.StringIO) -> list[str]:
    c = Controller(
        load_settings(cwd=project, trust=True), client=ScriptedModel([answer]), interactive=True
    )
    LineApp(c, input=io.StringIO("go\n"), output=out, watch=False).run()
    c.close()
    text = out.getvalue()
    end = text.rfind("session ")  # how to continue, said last on a terminal
    return text[text.index("> go\n") + 5 : end if end > 0 else None].split("\n")


def test_a_long_answer_on_a_terminal_breaks_at_spaces(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "40")
    lines = answer_lines(project, PROSE, Tty())
    body = [ln for ln in lines if ln.strip()]
    assert len(body) > 3
    assert all(len(ln) <= 39 for ln in body), body
    assert " ".join(" ".join(body).split()) == PROSE  # no word was cut or lost


def test_piped_output_is_not_wrapped(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "40")
    assert PROSE in answer_lines(project, PROSE, io.StringIO())


def stream(text: str, width: int, pieces: int = 7) -> str:
    out: list[str] = []
    w = Wrapper(out.append, lambda: width)
    size = max(1, len(text) // pieces)
    for i in range(0, len(text), size):  # deltas that split words
        w.write(text[i : i + size])
    w.flush()
    return "".join(out)


def test_streamed_text_wraps_like_whole_text() -> None:
    for width in (20, 33, 60):
        assert stream(PROSE, width) == wrap_text(PROSE, width)
        assert all(cells(ln) <= width for ln in wrap_text(PROSE, width).split("\n"))


def test_code_blocks_tables_and_indented_code_are_left_alone() -> None:
    code = "    x = compute_something(with_a_long_argument, and_another_one, and_a_third)"
    text = (
        "Here is the fix:\n```python\n"
        "result = some_function(first_argument, second_argument, third)\n```\n"
        f"{code}\n| a long table row | with cells | that must stay on one line |\n"
    )
    assert wrap_text(text, 30) == text


def test_a_word_longer_than_the_line_is_not_broken() -> None:
    url = "https://example.com/" + "a" * 60
    out = wrap_text(f"see {url} for more", 30)
    assert out.split("\n") == ["see", url, "for more"]


def test_list_items_hang_under_their_text() -> None:
    out = wrap_text("- the first item of the list is long enough to wrap twice over here", 24)
    lines = out.split("\n")
    assert lines[0].startswith("- ") and all(
        ln.startswith("  ") and not ln.startswith("   ") for ln in lines[1:]
    )


def test_no_width_passes_text_through() -> None:
    assert wrap_text(PROSE, None) == PROSE
    assert stream(PROSE + "\n", 0) == PROSE + "\n"


def test_wide_characters_count_two_cells() -> None:
    assert cells("日本") == 4 and cells("e\u0301") == 1
    out = wrap_text("日本語 の 文章 " * 6, 20)
    assert all(cells(ln) <= 20 for ln in out.split("\n"))


def test_a_held_back_word_is_written_before_the_next_line() -> None:
    from codebot.agent.model import Usage
    from codebot.agent.session import events as ev
    from codebot.ui.line.render import Renderer, Sink

    out = io.StringIO()
    renderer = Renderer(Sink(out, lambda: 41))
    renderer.render(ev.TextDelta("Looking at the fil"))
    assert out.getvalue() == "Looking at the"  # "fil" may go on: it waits for the space after it
    renderer.render(ev.ToolStarted("c1", "Read", {"path": "a.py"}))
    assert out.getvalue() == "Looking at the fil\n→ Read a.py\n"
    renderer.render(ev.TextDelta("cut short"))
    renderer.render(ev.TurnEnded(Usage(), cancelled=True))
    assert out.getvalue().endswith("cut short\n(turn cancelled)\n")


TEXT = st.lists(st.sampled_from([*"ab cd\n\t-|`>1.日", "```", "    "]), max_size=120).map("".join)


@settings(max_examples=300, deadline=None)
@given(TEXT, st.integers(5, 60), st.lists(st.integers(0, 200), max_size=6))
def test_wrapping_changes_only_whitespace_and_streams_the_same(
    text: str, width: int, cuts: list[int]
) -> None:
    whole = wrap_text(text, width)
    assert whole.split() == text.split()  # words kept whole and in order
    assert whole.count("```") == text.count("```")
    out: list[str] = []
    w = Wrapper(out.append, lambda: width)
    at = 0
    for cut in sorted(c for c in cuts if c <= len(text)):
        w.write(text[at:cut])
        at = cut
    w.write(text[at:])
    w.flush()
    assert "".join(out) == whole


PROSE_TEXT = st.lists(st.sampled_from([*"ab cd\n-1.>日", "    "]), max_size=120).map("".join)


@settings(max_examples=300, deadline=None)
@given(PROSE_TEXT, st.integers(5, 60))
def test_prose_lines_fit_unless_one_word_cannot(text: str, width: int) -> None:
    for line in wrap_text(text, width).split("\n"):
        words = [
            w for w in line.split() if not re.fullmatch(r"[->]|\d+\.", w)
        ]  # a marker stays with its word
        assert cells(line) <= width or len(words) <= 1 or line.startswith("    "), (
            line
        )  # 4 spaces: code
