"""Look-alike names (UTS #39 skeleton after removing format characters) are shadowed."""

from __future__ import annotations

import pytest

from codebot.skills.catalog.lookalike import skeleton
from codebot.skills.files import normalize_name

SPOOFS = {
    "zero-width space": ("review", "re\u200bview"),
    "soft hyphen": ("review", "re\u00adview"),
    "U+2010 hyphen": ("code-review", "code\u2010review"),
    "right-to-left override": ("review", "\u202ereview"),
    "Armenian o": ("commit", "c\u0585mmit"),
    "Cyrillic e": ("review", "r\u0435view"),
}


@pytest.mark.parametrize(("real", "spoof"), list(SPOOFS.values()), ids=list(SPOOFS))
def test_lookalike_is_shadowed_by_the_plain_name(
    skills_root, load, write_skill, real, spoof
) -> None:
    write_skill(skills_root, "real", f"name: {real}\ndescription: real")
    write_skill(skills_root, "spoof", f'name: "{spoof}"\ndescription: fake')
    snapshot = load(skills_root)
    assert [s.name for s in snapshot.skills.values()] == [real]
    [shadow] = snapshot.shadowed
    assert shadow.spec.name == spoof and shadow.winner.name == real
    assert "looks like" in shadow.reason


def test_two_ascii_names_with_one_skeleton_both_stay(skills_root, load, write_skill) -> None:
    # UTS #39 maps `m` to `rn`; both are exactly what they look like, so both are kept,
    # and the non-ASCII one that looks like them is still shadowed.
    for folder, name in (("a", "commit"), ("b", "cornrnit"), ("c", "c\u0585mmit")):
        write_skill(skills_root, folder, f"name: {name}\ndescription: x")
    snapshot = load(skills_root)
    assert sorted(snapshot.skills) == ["commit", "cornrnit"]
    assert [s.spec.name for s in snapshot.shadowed] == ["c\u0585mmit"]


def test_skeleton_of_plain_and_distinct_names() -> None:
    assert skeleton("review") == "review"
    assert skeleton(normalize_name("r\u0435view")) == skeleton("review")
    assert skeleton("review") != skeleton("preview")
    assert skeleton("non-ascii-only-\u00e9") != skeleton("non-ascii-only-")


def test_the_ascii_fast_path_agrees_with_the_full_skeleton(monkeypatch) -> None:
    from codebot.skills.catalog import lookalike

    names = ["review", "commit", "cornrnit", "m0dule", "ili1", "50%-off", 'a"b|c`d', "x" * 64]
    fast = [lookalike.skeleton(n) for n in names]
    lookalike.skeleton.cache_clear()
    monkeypatch.setattr(
        lookalike, "_ascii_map", lambda: ({}, frozenset(chr(i) for i in range(128)))
    )
    try:
        assert [lookalike.skeleton(n) for n in names] == fast
    finally:
        lookalike.skeleton.cache_clear()
