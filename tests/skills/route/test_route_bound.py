"""What a request's words are worth (the divisor of every score, `pipeline._bound`): each
word at the best field any skill holds it in (`Index.reach`). A word only skill bodies
mention can earn a skill at most `body_weight` of a description's match, so a detailed
request ("... priya takes the pager rotation handover tomorrow") is not diluted as if a
description could have held its details (issue 36, the blind held-out set)."""

from __future__ import annotations

from pathlib import Path

import pytest

import codebot.skills.route as R
from codebot.skills.catalog import Catalog
from codebot.skills.files import Root, Source
from codebot.skills.invoke import Actor

#: words a few skill bodies mention (each one body), and no name or description
DETAILS = ("pager", "rotation", "priya", "tonight", "tomorrow", "handover", "morning")


@pytest.fixture
def snap(tmp_path: Path, write_skill):
    root = tmp_path / "skills"
    write_skill(root, "release-notes", "description: Write release notes from commits.", "Steps.")
    # more skills than a small catalog (`small_catalog`)
    for i in range(40):
        body = f"Mentions {DETAILS[i]} once." if i < len(DETAILS) else "Steps."
        write_skill(root, f"other-{i}", f"description: Unrelated chore number {i}.", body)
    return Catalog([Root(root, Source.PROJECT, "codebot", (0,))]).load()


def test_a_word_only_bodies_hold_is_worth_what_a_body_earns(snap):
    rt = R.Router()
    idx, _ = rt.index(snap)
    for word in ("pager", "rotation", "tonight"):
        (term,) = rt.tokenizer(word)
        assert idx.reach[idx.lexicon[term]] == pytest.approx(rt.config.bm25.body_weight), word
    for word in ("release", "commits", "unrelated"):
        (term,) = rt.tokenizer(word)
        assert idx.reach[idx.lexicon[term]] == 1.0, word


def test_a_detailed_request_still_routes_to_the_skill_it_asks_for(snap):
    request = (
        "write release notes from the commits; tonight priya takes the pager rotation "
        "handover tomorrow morning"
    )
    route = R.Router().route(request, snap, Actor.MODEL)
    assert (route.decision, route.selected and route.selected.name) == ("select", "release-notes")
    # (0.48 of what the request's words are worth; 0.29, below the threshold, when its
    # details counted as if a description could hold them)
    assert route.candidates[0].score > R.RouterConfig().decision.threshold
    # the details alone route nowhere
    alone = R.Router().route("priya takes the pager rotation handover tomorrow", snap, Actor.MODEL)
    assert alone.decision == "abstain"
