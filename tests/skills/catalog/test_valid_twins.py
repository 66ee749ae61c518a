"""Within one source (one root), the spelling that follows the specification's name rule wins over
a case-twin or look-alike that does not, and the loser's reason names the winner. Across
sources precedence still decides; a non-ASCII spoof never beats the ASCII spelling."""

from __future__ import annotations

from codebot.skills.files import Root, Source

DESC = "description: A skill. Not for tests."


def test_valid_twin_wins_whichever_is_scanned_first(skills_root, load, write_skill) -> None:
    # `case/` sorts before `good-one/`: scan order alone let the invalid one win.
    write_skill(skills_root, "case", f"name: Good-One\n{DESC}")
    write_skill(skills_root, "good-one", f"name: good-one\n{DESC}")
    snapshot = load(skills_root)
    winner = snapshot.get("good-one")
    assert winner is not None and winner.dir.name == "good-one"
    [lost] = snapshot.shadowed
    assert lost.spec.name == "Good-One" and lost.winner is winner
    assert str(winner.path) in lost.reason and "'good-one'" in lost.reason
    assert "not lowercase" in lost.reason


def test_earlier_losers_follow_the_new_winner(skills_root, load, write_skill) -> None:
    write_skill(skills_root, "a", f"name: Good-One\n{DESC}")
    write_skill(skills_root, "b", f"name: GOOD_ONE\n{DESC}")
    write_skill(skills_root, "good-one", f"name: good-one\n{DESC}")
    snapshot = load(skills_root)
    winner = snapshot.get("good-one")
    assert winner is not None and winner.dir.name == "good-one"
    assert sorted(s.spec.dir.name for s in snapshot.shadowed) == ["a", "b"]
    assert all(s.winner is winner and str(winner.path) in s.reason for s in snapshot.shadowed)


def test_two_invalid_twins_keep_scan_order(skills_root, load, write_skill) -> None:
    write_skill(skills_root, "a", f"name: Good-One\n{DESC}")
    write_skill(skills_root, "b", f"name: GOOD-ONE\n{DESC}")
    snapshot = load(skills_root)
    assert snapshot.get("good-one").dir.name == "a"
    assert "same name twice in one folder" in snapshot.shadowed[0].reason


def test_precedence_between_roots_of_one_source_is_kept(tmp_path, load, write_skill) -> None:
    near, far = tmp_path / "near", tmp_path / "far"
    write_skill(near, "case", f"name: Good-One\n{DESC}")
    write_skill(far, "good-one", f"name: good-one\n{DESC}")
    snapshot = load(near, far)  # both project roots, the nearer first
    assert snapshot.get("good-one").dir.name == "case"


def test_precedence_between_sources_is_kept(tmp_path, load, write_skill) -> None:
    project = Root(tmp_path / "p", Source.PROJECT, "codebot", (0,))
    user = Root(tmp_path / "u", Source.USER, "codebot", (1,))
    write_skill(project.path, "case", f"name: Good-One\n{DESC}")
    write_skill(user.path, "good-one", f"name: good-one\n{DESC}")
    snapshot = load(project, user)
    assert snapshot.get("good-one").source is Source.PROJECT


def test_a_valid_lookalike_spoof_never_beats_the_ascii_name(skills_root, load, write_skill):
    # Cyrillic е: `rеview` in its own folder follows the rule; `review` in `review-tool`
    # does not (folder mismatch). The ASCII spelling still wins: it is what it looks like.
    write_skill(skills_root, "review-tool", f"name: review\n{DESC}")
    write_skill(skills_root, "r\u0435view", f"name: r\u0435view\n{DESC}")
    snapshot = load(skills_root)
    assert [s.name for s in snapshot.skills.values()] == ["review"]
    assert "looks like" in snapshot.shadowed[0].reason


def test_among_non_ascii_lookalikes_the_valid_one_wins(skills_root, load, write_skill):
    # `cafe` + zero-width joiner (not a letter: invalid) vs a valid `café`, neither ASCII.
    write_skill(skills_root, "a", f'name: "caf\u00e9\u200d"\n{DESC}')
    write_skill(skills_root, "caf\u00e9", f"name: caf\u00e9\n{DESC}")
    snapshot = load(skills_root)
    assert [s.dir.name for s in snapshot.skills.values()] == ["caf\u00e9"]
    [lost] = snapshot.shadowed
    assert lost.spec.dir.name == "a" and "follows the specification" in lost.reason
