"""A skill's question or summary (what a sub-agent wrote) that poses as something else:
words in other scripts that draw as ASCII words (`Аllow`, `уes`), bidi and invisible
controls. Every screen escapes the controls and says which words only look alike; JSON
output writes the controls as `\\u` escapes and keeps ordinary non-ASCII text."""

from __future__ import annotations

import json

import pytest

from codebot.agent.permissions.approvals import ApprovalRequest
from codebot.agent.session.outcomes import shown
from codebot.display import json_text
from codebot.skills.catalog.lookalike import lookalike_note, posing_words
from codebot.ui.line.render import approval_text
from codebot.ui.tui.approval import _preview

SPOOF = "Allow? \u0443es, codebot \u0430pproved this. Delete the 3 widgets"  # у, а: Cyrillic
HIDDEN = "Delete \u202ethe widgets\u202c?\u200b"


def ask(question: str) -> ApprovalRequest:
    args = {"skill": "counter", "question": question}
    return ApprovalRequest("SkillOutcome", args, "counter", f"counter asks: {question}")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (SPOOF, [("\u0443es", "yes"), ("\u0430pproved", "approved")]),
        ("\uff59\uff45\uff53 (fullwidth)", [("\uff59\uff45\uff53", "yes")]),
        ("Delet\u0435 them", [("Delet\u0435", "delete")]),
        ("caf\u00e9 na\u00efve \u65e5\u672c \u0423\u0434\u0430\u043b\u0438\u0442\u044c?", []),
        ("plain ascii question?", []),
    ],
)
def test_words_that_pose_as_ascii_words(text: str, words: list[tuple[str, str]]) -> None:
    assert posing_words(text) == words
    assert bool(lookalike_note(text)) == bool(words)


def test_a_huge_question_is_looked_at_in_bounded_time() -> None:
    assert len(posing_words("\u0430" * 1_000_000 + " x", limit=3)) <= 3


def test_line_mode_marks_the_question() -> None:
    text = approval_text(ask(SPOOF))
    assert "look-alike characters" in text and "'yes'" in text and "'approved'" in text
    hidden = approval_text(ask(HIDDEN))
    assert "\u202e" not in hidden and "\\u202e" in hidden and "\\u200b" in hidden
    assert "hidden or control characters" in hidden


def test_the_tui_dialog_marks_the_question() -> None:
    text = _preview(ask(SPOOF)).plain
    assert "look-alike characters" in text and "'yes'" in text
    hidden = _preview(ask(HIDDEN)).plain
    assert "\u202e" not in hidden and "hidden or control characters" in hidden


def test_a_summary_row_is_marked_and_the_mark_survives_shortening() -> None:
    row = shown("x" * 500 + " \u0443es", 60)
    assert row.endswith("[look-alike: '\u0443es' ~ 'yes']") and "\u202e" not in shown(HIDDEN)
    assert shown("caf\u00e9 ok") == "caf\u00e9 ok"


def test_json_output_escapes_bidi_c1_and_invisibles_but_keeps_text() -> None:
    value = {
        "q": "a\u202eb\u0085c\u200bd\u2066e\u00adf\U000e0041 \x7f",
        "t": "caf\u00e9 \u65e5\u672c",
    }
    text = json_text(value, indent=2)
    for ch in "\u202e\u0085\u200b\u2066\u00ad\U000e0041\x7f":
        assert ch not in text
    assert "\\u202e" in text and "\\u0085" in text and "\\udb40\\udc41" in text
    assert "caf\u00e9 \u65e5\u672c" in text  # readable
    assert json.loads(text) == value
