"""The trust question in line mode: answers, re-asking, end of input."""

from __future__ import annotations

import io
from pathlib import Path

from codebot.ui.trust_prompt import ask_line, explanation


def answers(*replies: str):
    it = iter(replies)

    def read(_prompt: str) -> str:
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    return read


def test_the_question_says_what_trust_grants(tmp_path: Path) -> None:
    text = "\n".join(explanation(tmp_path))
    for what in (".codebot/config.yaml", "shell commands", "agents", "codebot trust --revoke"):
        assert what in text


def test_answers_t_u_q_and_words(tmp_path: Path) -> None:
    for reply, want in (("t", "t"), ("u", "u"), ("q", "q"), ("Trust", "t"), (" untrusted ", "u")):
        assert ask_line(tmp_path, answers(reply), io.StringIO()) == want


def test_an_unclear_answer_is_asked_again_and_end_of_input_quits(tmp_path: Path) -> None:
    out = io.StringIO()
    assert ask_line(tmp_path, answers("yes", "tx", "u"), out) == "u"
    assert out.getvalue().count("please answer t, u or q") == 2
    assert ask_line(tmp_path, answers(), io.StringIO()) == "q"


def test_a_hostile_folder_name_is_shown_escaped(tmp_path: Path) -> None:
    evil = tmp_path / "x\x1b[2Jy\u202e"
    text = "\n".join(explanation(evil))
    assert "\x1b" not in text and "\u202e" not in text and "\\x1b" in text


def test_continue_untrusted_is_remembered_per_folder(tmp_path: Path) -> None:
    from codebot.ui.trust_prompt import declined, remember_declined

    home, a, b = tmp_path / "home", tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    assert not declined(home, a)
    remember_declined(home, a)
    remember_declined(home, a)
    assert declined(home, a) and not declined(home, b)
    (home / "untrusted.json").write_text("{not json")
    assert not declined(home, a)  # a damaged file only means being asked again
