"""Shortening descriptions for the listing: the middle goes, the clauses stay."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from codebot.skills.prompt.fit import allowances, described_prefix, water_level
from codebot.skills.prompt.shorten import CLAUSE, GAP, middle_cut, shorten, truncate

REVIEW = (
    "Reviews pull requests for security and style issues across many languages. It reads "
    "the diff, checks each hunk against a long list of rules, and writes comments in a "
    "friendly tone with suggestions. Use when the user asks for a code review or PR "
    "feedback. Do not use for writing new features or for running tests."
)


def test_text_that_fits_is_unchanged() -> None:
    assert shorten(REVIEW, len(REVIEW)) == REVIEW
    assert shorten("", 0) == ""


def test_the_first_sentence_and_the_clauses_stay() -> None:
    out = shorten(REVIEW, 200)
    assert out.startswith("Reviews pull requests for security and style issues")
    assert "Use when the user asks for a code review or PR feedback." in out
    assert out.endswith("Do not use for writing new features or for running tests.")
    assert GAP in out and "It reads the diff" not in out and len(out) <= 200


def test_a_tighter_cut_still_keeps_the_not_for_clause() -> None:
    for limit in (150, 120):
        out = shorten(REVIEW, limit)
        assert len(out) <= limit and out.startswith("Reviews pull requests")
        assert out.endswith("Do not use for writing new features or for running tests.")


def test_room_left_is_filled_with_the_other_sentences_in_order() -> None:
    text = "Does A. Detail one. Detail two that is much longer than the rest of it. Use when B."
    out = shorten(text, len(text) - 5)
    assert out == "Does A. Detail one. … Use when B."


def test_without_clauses_the_middle_goes() -> None:
    text = " ".join(f"word{i}" for i in range(100))
    out = shorten(text, 80)
    assert len(out) <= 80 and out.startswith("word0 ") and out.endswith("word99")
    assert GAP in out


def test_tiny_limits_cut_at_the_end() -> None:
    assert shorten(REVIEW, 10) == "Reviews…"
    assert shorten(REVIEW, 1) == "…" and shorten(REVIEW, 0) == ""
    assert truncate("abcdef", 4) == "abc…"


def test_text_without_spaces_and_other_scripts() -> None:
    zh = "配置数据库连接池。" * 30
    out = shorten(zh, 50)
    assert len(out) <= 50 and out.startswith("配置") and out.endswith("池。")
    assert len(middle_cut("x" * 500, 40)) <= 40


def test_the_clause_pattern() -> None:
    for said in ("Use when asked", "Do not use for X", "Not for Y", "use this skill when"):
        assert CLAUSE.search(said), said
    assert not CLAUSE.search("A useful tool for refactoring.")


@given(st.text(min_size=0, max_size=400), st.integers(min_value=0, max_value=400))
def test_never_longer_than_the_limit(text: str, limit: int) -> None:
    out = shorten(text, limit)
    assert len(out) <= limit
    assert out == text or len(text) > limit


def test_water_level_shares_alike() -> None:
    assert water_level([10, 10, 10], 100) == 10  # everything fits whole
    assert water_level([10, 50, 50], 70) == 30  # the short one stays whole
    assert water_level([100, 100], 0) == 0 and water_level([], 5) == 0
    assert sum(min(s, water_level([5, 80, 300, 40], 200)) for s in (5, 80, 300, 40)) <= 200


def test_needs_come_first_then_the_rest_is_shared() -> None:
    assert described_prefix([50, 50, 50], 120) == 2
    assert described_prefix([], 10) == 0
    given = allowances([300, 40, 300], [100, 40, 100], 400)
    assert given[1] == 40 and given[0] == given[2] == 180 and sum(given) == 400
