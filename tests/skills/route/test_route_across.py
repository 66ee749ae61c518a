"""What the multilingual encoder may vouch for in a request in another language
(`decide._across`, issue 36): the most similar skill of the catalog ranked first by both
scorers, a similarity of `semantic_threshold`, or the best lexical match that is also the
most similar candidate, with one strong word. An English similarity never decides."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest

import codebot.skills.route as R
from codebot.skills.catalog import Catalog
from codebot.skills.files import Root, Source
from codebot.skills.route.decide import decide
from codebot.skills.route.result import Candidate


@pytest.fixture
def specs(tmp_path: Path, write_skill):
    root = tmp_path / "skills"
    for name, desc in {
        "incident-postmortem": "Write a blameless postmortem of an outage.",
        "tech-debt-audit": "Audit technical debt in a codebase.",
        "release-notes": "Write release notes from commits.",
        "elsewhere": "Something else entirely.",
    }.items():
        write_skill(root, name, f"description: {desc}", "Steps.")
    snap = Catalog([Root(root, Source.PROJECT, "codebot", (0,))]).load()
    return {s.name: s for s in snap}


def cand(spec, score: float, sem: float, words: tuple[str, ...] = ()) -> Candidate:
    return Candidate(spec, score, score, {"description": words} if words else {}, semantic=sem)


def run(cands: list[Candidate], sem_best: str | None, cfg: R.RouterConfig | None = None):
    return decide(cands, cfg or R.RouterConfig(), "task", 6, sem_on=True, sem_best=sem_best)


def test_a_high_similarity_vouches_across_languages_only(specs):
    # no word of the request matched; the encoder finds it 0.72 alike
    best = cand(specs["incident-postmortem"], 0.05, 0.72)
    rest = [cand(specs["tech-debt-audit"], 0.02, 0.40), cand(specs["elsewhere"], 0.01, 0.30)]
    other = specs["elsewhere"].key  # the catalog's most similar skill is another one
    decision, chosen, reason = run([best, *rest], sem_best=other)
    assert (decision, chosen.name) == ("select", "incident-postmortem")
    assert "semantic_threshold 0.60" in reason and "another language" in reason
    # English: the similarity ranks, it never decides
    assert run([best, *rest], sem_best=None)[0] == "abstain"
    # the threshold is a setting
    strict = R.config_from_mapping({"semantic_threshold": 0.9})
    assert run([best, *rest], sem_best=other, cfg=strict)[0] == "abstain"


def test_the_best_match_that_is_also_the_most_similar_needs_one_strong_word(specs):
    # one strong word (release) and a weak similarity that is still the candidates' highest
    best = cand(specs["release-notes"], 0.6, 0.2, ("release",))
    low = [cand(specs["tech-debt-audit"], 0.3, 0.15), cand(specs["elsewhere"], 0.1, 0.1)]
    other = specs["elsewhere"].key
    decision, chosen, reason = run([best, *low], sem_best=other)
    assert (decision, chosen.name) == ("select", "release-notes")
    assert "also the most similar candidate" in reason
    # a candidate more similar than it: the one word is not enough
    more = [cand(specs["tech-debt-audit"], 0.3, 0.25), cand(specs["elsewhere"], 0.1, 0.1)]
    decision, _, reason = run([best, *more], sem_best=other)
    assert decision == "abstain" and "min_terms" in reason
    # below the threshold, agreeing is not enough
    weak = cand(specs["release-notes"], 0.2, 0.2, ("release",))
    assert run([weak, *low], sem_best=other)[0] == "abstain"
    # English: the word alone stays one word
    assert run([best, *low], sem_best=None)[0] == "abstain"


def test_the_most_similar_skill_of_the_catalog_ranked_first_is_the_agreement(specs):
    best = cand(specs["incident-postmortem"], 0.0, 0.5)
    rest = [cand(specs["tech-debt-audit"], 0.0, 0.3)]
    decision, chosen, reason = run([best, *rest], sem_best=best.spec.key)
    assert (decision, chosen.name) == ("select", "incident-postmortem")
    assert "encoder's choice alone" in reason


def test_an_ask_between_rankings_that_disagree_says_so(specs):
    # reciprocal rank fusion put release-notes first, but the second scores higher: the
    # reason must not call 0.62 and 1.18 "closer than the margin"
    first = cand(specs["release-notes"], 0.62, 0.30, ("release", "notes"))
    higher = cand(specs["incident-postmortem"], 1.18, 0.25, ("write", "outage"))
    decision, chosen, reason = run([first, higher], sem_best=None)
    assert (decision, chosen) == ("ask", None)
    assert "closer than the margin" not in reason
    assert "incident-postmortem scores higher (1.18 against 0.62)" in reason
    assert "rankings disagree" in reason
    # in the usual order the margin is what decides, and is what is said
    decision, _, reason = run([higher, cand(specs["release-notes"], 1.16, 0.3)], sem_best=None)
    assert decision == "ask" and "closer than the margin 0.05" in reason


def test_clear_words_decide_where_the_rankings_disagree(specs):
    # fused by ranks, release-notes comes first; incident-postmortem scores higher and
    # leads the word ranking with three words of its description: as in English, those
    # words alone select it, and the encoder's rank does not overrule them
    fused_first = cand(specs["release-notes"], 0.40, 0.45, ("release", "notes"))
    higher = cand(specs["incident-postmortem"], 0.95, 0.30, ("write", "outage", "postmortem"))
    by_words = [higher, cand(specs["tech-debt-audit"], 0.30, 0.1, ("audit",))]
    decision, chosen, reason = decide(
        [fused_first, higher], R.RouterConfig(), "task", 6, sem_on=True, by_words=by_words
    )
    assert (decision, chosen.name) == ("select", "incident-postmortem")
    assert "leads the word ranking and its words alone choose it" in reason
    assert "release-notes comes first when the word and similarity rankings are fused" in reason


def test_the_words_decide_only_when_they_alone_would_select_the_second(specs):
    fused_first = cand(specs["release-notes"], 0.40, 0.45, ("release", "notes"))
    higher = cand(specs["incident-postmortem"], 0.95, 0.30, ("write", "outage", "postmortem"))
    rest = cand(specs["tech-debt-audit"], 0.30, 0.1, ("audit",))

    def run_words(by_words):
        return decide(
            [fused_first, higher], R.RouterConfig(), "task", 6, sem_on=True, by_words=by_words
        )

    # no word ranking given (English requests, or no encoder): the ask stands
    assert run_words([])[0] == "ask"
    # the word ranking's leader is another skill than the fused second
    assert run_words([rest, higher])[0] == "ask"
    # one word outside its body: the words alone would not select it (min_terms)
    one = cand(specs["incident-postmortem"], 0.95, 0.30, ("outage",))
    decision, _, reason = decide(
        [fused_first, one], R.RouterConfig(), "task", 6, sem_on=True, by_words=[one, rest]
    )
    assert decision == "ask" and "rankings disagree" in reason
    # within the margin of the word ranking's runner-up
    close = cand(specs["tech-debt-audit"], 0.93, 0.1, ("audit", "debt", "codebase"))
    assert run_words([higher, close])[0] == "ask"


# -- a skill the request names in full (decide._words_decide, shape.writes_name) ----------


@pytest.mark.parametrize(
    ("text", "name", "writes"),
    [
        ("Loki Mode an. Hier ist meine Idee", "loki-mode", True),
        ("mit loki-mode bitte", "loki-mode", True),
        ("pasar las facturas a Trigger.dev", "trigger-dev", True),
        ("ＬＯＫＩ　ＭＯＤＥ で作って", "loki-mode", True),  # full-width letters and space
        ("用loki_mode做一个创业项目", "loki-mode", True),  # glued to Chinese text
        ("Loki und Mode", "loki-mode", False),  # not in a row
        ("lokimode", "loki-mode", False),
        ("Loki Mode", "loki-mode-pro", False),  # a part of the name is not the name
        ("mach den Loop fertig", "loop", False),  # one word is as often an everyday word
        ("ein Fix für den Bug", "fix", False),
        ("", "loki-mode", False),
        ("loki mode", "", False),
        ("loki\u200bmode", "loki-mode", True),  # an invisible character between is a gap
        ("ｌｏｋｉ-ｍｏｄｅ " * 5000, "loki-mode", True),  # long: read once, no blow-up
    ],
)
def test_a_whole_name_of_two_words_or_more_written_in_a_row(text, name, writes):
    from codebot.skills.route.shape import writes_name

    assert writes_name(text, name) is writes


def test_a_skill_named_in_full_is_chosen_when_its_words_alone_select_it(specs):
    # the fused ranking buried it (the encoder found others more alike); the request
    # writes its whole name, and its words alone select it
    fused = [
        cand(specs["release-notes"], 0.16, 0.6, ("release",)),
        cand(specs["elsewhere"], 0.10, 0.5),
    ]
    named = cand(specs["incident-postmortem"], 0.82, 0.1, ("incident", "postmortem", "outage"))
    by_words = [named, cand(specs["tech-debt-audit"], 0.30, 0.1, ("audit",))]

    def run_named(spelled: bool, by=by_words):
        return decide(fused, R.RouterConfig(), "task", 6, sem_on=True, by_words=by, spelled=spelled)

    decision, chosen, reason = run_named(True)
    assert (decision, chosen.name) == ("select", "incident-postmortem")
    assert "the request writes incident-postmortem's whole name" in reason
    assert "release-notes comes first when the word and similarity rankings are fused" in reason
    # not written in full: the fused decision stands
    assert run_named(False)[1] is None or run_named(False)[1].name != "incident-postmortem"
    # written in full, but its words alone would not select it (one word outside its body)
    weak = cand(specs["incident-postmortem"], 0.82, 0.1, ("postmortem",))
    assert run_named(True, [weak, by_words[1]])[1] is None
    # written in full, but the word ranking's runner-up is within the margin
    close = cand(specs["tech-debt-audit"], 0.80, 0.1, ("audit", "debt", "codebase"))
    assert run_named(True, [named, close])[0] != "select"


class _Buries:
    """An encoder that finds the skills of `liked` most alike and one skill least: beyond
    the encoder's first 50, that one gets no fused points of its own, and the fused ranking
    puts every liked skill the words also found above it."""

    def __init__(self, buried: str, liked: set[str]) -> None:
        self.buried, self.liked = buried, liked

    def score(self, query, specs):
        def similarity(name: str) -> float:
            return 0.05 if name == self.buried else 0.9 if name in self.liked else 0.3

        return {s.key: similarity(s.name) for s in specs}


def test_a_request_in_another_language_naming_a_skill_in_full_routes_to_it(
    tmp_path: Path, write_skill
):
    root = tmp_path / "skills"
    skills = {
        "loki-mode": "Multi-agent autonomous startup system that turns an idea into a "
        "product, from code to launch. Triggers on Loki Mode.",
        "marketing-ideas": "Brainstorm marketing ideas and campaigns for a product.",
        "startup-analyst": "Analyse a startup idea: market, competitors, business model.",
        "market-sizing": "Estimate the market size of a product idea.",
        "email-systems": "Design transactional email systems.",
        "app-builder": "Scaffold a new web or mobile app.",
    }
    liked = set(skills) - {"loki-mode"}
    skills |= {f"chore-{i}": f"Tidy chore number {i} of the weekly garden rota." for i in range(60)}
    for name, desc in skills.items():
        write_skill(root, name, f"description: {desc}", "Steps.")
    snap = Catalog([Root(root, Source.PROJECT, "codebot", (0,))]).load()
    router = R.Router(semantic=_Buries("loki-mode", liked))
    # without the name written in a row, the fused ranking buries it
    r = router.route("Loki, hier ist meine Startup-Idee, mach daraus im Mode ein Produkt.", snap)
    assert r.selected is None or r.selected.name != "loki-mode", r.reason
    assert "whole name" not in r.reason
    r = router.route("Loki Mode an. Hier ist meine Startup-Idee, mach daraus ein Produkt.", snap)
    assert (r.decision, r.selected.name) == ("select", "loki-mode"), r.reason
    assert "writes loki-mode's whole name" in r.reason
    assert r.candidates[0].name == "loki-mode"  # what was chosen is shown first
    assert len({c.name for c in r.candidates}) == len(r.candidates)  # and only once


def test_a_name_made_of_everyday_words_gains_nothing_from_being_written(
    tmp_path: Path, write_skill
):
    # a cloned repository's skill named after a phrase every Spanish request has: writing
    # "por favor" names it in full, but its words alone select nothing (the language's
    # function words are no evidence), so the rule has nothing to choose
    root = tmp_path / "skills"
    skills = {
        "por-favor": "Handles any polite request, please.",
        "sales-report": "Build a sales report from the orders table, by month and region.",
    }
    skills |= {f"chore-{i}": f"Tidy chore number {i} of the weekly garden rota." for i in range(60)}
    for name, desc in skills.items():
        write_skill(root, name, f"description: {desc}", "Steps.")
    snap = Catalog([Root(root, Source.PROJECT, "codebot", (0,))]).load()
    router = R.Router(semantic=_Buries("por-favor", {"sales-report"}))
    r = router.route("Por favor, prepara un informe de ventas por mes y región.", snap)
    assert r.selected is None or r.selected.name != "por-favor", r.reason
    assert "whole name" not in r.reason


# -- a clear lead of the word ranking keeps first place (`fused.clear_lead_first`) ---------


def test_a_clear_word_leader_is_put_first_and_a_close_one_is_not():
    import numpy as np

    from codebot.skills.route.config import CLEAR_LEAD
    from codebot.skills.route.fused import clear_lead_first, word_leader

    def yes(i: int) -> bool:
        return True

    def lead_first(order, elig, named=yes):
        return clear_lead_first(order, elig, word_leader(elig), named)

    fused = [3, 1, 2, 0]  # the fusion put row 3 first
    # row 0 leads the words with exactly CLEAR_LEAD times row 3's: it goes first
    elig = np.array([0.5 * CLEAR_LEAD, 0.45, 0.2, 0.5])
    assert lead_first(fused, elig) == ([0, 3, 1, 2], {0: CLEAR_LEAD})
    # just under it: the fused order stands (the runner-up's words do not matter)
    elig = np.array([0.5 * CLEAR_LEAD - 0.01, 0.1, 0.2, 0.5])
    assert lead_first(fused, elig) == (fused, {})
    # the fusion's first matched no word: any word leader leads it
    elig = np.array([0.4, 0.3, -np.inf, 0.0])
    assert lead_first(fused, elig) == ([0, 3, 1, 2], {0: float("inf")})
    # a lead the request does not name in its own words (translated words only): unchanged
    assert lead_first(fused, elig, lambda i: False) == (fused, {})
    # already first, or no word matched anything: unchanged
    assert lead_first([0, 3], np.array([1.0, 0.1, 0.0, 0.0])) == ([0, 3], {})
    assert lead_first(fused, np.array([0.0, 0.0, -np.inf, 0.0])) == (fused, {})
    assert lead_first([], np.array([1.0])) == ([], {})


class _Likes(_Buries):
    """`_Buries` with the similarities a real encoder gives across languages (0.2-0.35 in
    the shared corpus), not 0.9: they do not outweigh every word."""

    def score(self, query, specs):
        def similarity(name: str) -> float:
            return 0.05 if name == self.buried else 0.35 if name in self.liked else 0.2

        return {s.key: similarity(s.name) for s in specs}


def _catalog(tmp_path: Path, catalog_of, skills: dict[str, str]):
    """`skills` and sixty chores nobody asks for, so that ranks spread out."""
    chores = {f"chore-{i}": f"Tidy chore number {i} of the weekly garden rota." for i in range(60)}
    return catalog_of(tmp_path / "skills", skills | chores)


SALES = {
    "statsmodels": "Statistical models for Python: OLS, GLM and ARIMA, with residual diagnostics.",
    "sales-dashboard": "Build a monthly sales dashboard for the revenue team.",
    "sales-board": "Build a monthly sales dashboard for the finance team.",
    "revenue-ops": "Forecast sales pipeline and revenue per quarter.",
    "crm-hygiene": "Clean up the CRM and its sales records.",
}


def test_a_skill_the_words_name_many_times_over_is_not_buried_by_the_encoder(
    tmp_path: Path, catalog_of, monkeypatch
):
    # statsmodels matches ARIMA, residual and diagnostics, the sales skills "dashboard"
    # alone, but the encoder finds them more alike. Reciprocal rank fusion, ranks only, put
    # statsmodels below them (as it put it 25th among the shared corpus for "ARIMA para las
    # ventas mensuales, con diagnóstico de residuos"): its clear lead in words puts it first
    import codebot.skills.route.fused as F

    snap = _catalog(tmp_path, catalog_of, SALES)
    liked = set(SALES) - {"statsmodels"}
    request = "ARIMA con residual diagnostics para el dashboard de ventas mensuales"
    r = R.Router(semantic=_Likes("statsmodels", liked)).route(request, snap)
    assert r.candidates[0].name == "statsmodels", [c.name for c in r.candidates]
    assert r.decision == "select" and r.selected.name == "statsmodels", r.reason
    # the explanation says why it is first, and --json how far it leads
    first = r.candidates[0]
    assert "put first in the fused order: it leads the word ranking with" in first.why
    assert "times the words of the skill the fusion put first (CLEAR_LEAD 2)" in first.why
    assert first.leads is not None and first.leads >= 2
    assert first.to_json()["leads"] == round(first.leads, 2)
    assert all(c.leads is None and "leads" not in c.to_json() for c in r.candidates[1:])
    # without the rule, the fused order buries it: the test fails without it
    monkeypatch.setattr(F, "CLEAR_LEAD", float("inf"))
    r = R.Router(semantic=_Likes("statsmodels", liked)).route(request, snap)
    assert r.candidates[0].name != "statsmodels"
    assert r.selected is None or r.selected.name != "statsmodels"


def test_a_close_word_leader_leaves_the_fused_order_as_it_is(
    tmp_path: Path, catalog_of, monkeypatch
):
    # sales-board has the words of sales-dashboard but for "finance": the encoder likes it
    # and puts it first, and the leader's words are not twice its own, so the order is
    # plain reciprocal rank fusion's
    import codebot.skills.route.fused as F

    snap = _catalog(tmp_path, catalog_of, SALES)
    request = "Quiero un dashboard monthly de sales para el revenue team"

    def order() -> list[str]:
        scorer = _Likes("sales-dashboard", {"sales-board", "crm-hygiene"})
        return [c.name for c in R.Router(semantic=scorer).route(request, snap).candidates]

    with_rule = order()
    monkeypatch.setattr(F, "CLEAR_LEAD", float("inf"))
    assert order() == with_rule
    assert with_rule[0] == "sales-board"


class _Translates(_Likes):
    """`_Likes` that also reads a request's foreign words as the catalog's English words,
    as the multilingual encoder does (`translate`): "informe" is report, "caída" outage."""

    translates = True
    _CONCEPTS: ClassVar[dict[str, str]] = {
        "informe": "report",
        "report": "report",
        "caída": "outage",
        "outage": "outage",
    }

    def embed(self, texts, keep=False):
        import zlib

        import numpy as np

        # a concept's axis, or an axis of the word's own (no two words of this test share
        # one), so that no other word is found alike
        axes = sorted(set(self._CONCEPTS.values()))
        out = np.zeros((len(texts), len(axes) + 4096), dtype=np.float32)
        for row, text in enumerate(texts):
            concept = self._CONCEPTS.get(text.lower())
            own = len(axes) + zlib.crc32(text.lower().encode()) % 4096
            out[row, axes.index(concept) if concept else own] = 1.0
        return out


def test_a_lead_made_of_translated_words_alone_leaves_the_fused_order(tmp_path: Path, catalog_of):
    # the encoder read "informe" and "caída" as report and outage, which incident-report's
    # description has: a clear lead in words, but made of the encoder's own guesses (the
    # held-out sets' false friends: "hasta" read as patient put clinical-reports first for
    # "me voy a comer, ¡hasta luego!"), so the encoder's ranking stands; written by the
    # request itself ("report"), the same lead puts it first
    skills = {
        "incident-report": "Write the report after an outage, with a timeline.",
        "sales-chart": "Plot a bar chart of sales per region.",
        "grafana-board": "Build a dashboard for latency and errors.",
    }
    snap = _catalog(tmp_path, catalog_of, skills)
    scorer = _Translates("incident-report", {"sales-chart", "grafana-board"})
    router = R.Router(semantic=scorer)
    r = router.route("Redacta el informe de la caída de ayer", snap)
    mine = next(c for c in r.candidates if c.name == "incident-report")
    assert "report (informe)" in mine.words(), mine.words()
    # not put first by its lead (the rankings' disagreement may still let its words
    # decide: `decide._words_decide`, which reads every word)
    assert mine.leads is None and "put first in the fused order" not in mine.why
    r = router.route("Redacta el report de la caída de ayer", snap)
    first = r.candidates[0]
    assert first.name == "incident-report", [c.name for c in r.candidates]
    assert first.leads is not None and "put first in the fused order" in first.why


# -- the word ranking's leader is among the candidates shown (`fused.word_leader_shown`) --


def test_the_word_leader_takes_the_last_place_shown_when_the_fusion_put_it_lower():
    import numpy as np

    from codebot.skills.route.fused import word_leader, word_leader_shown

    order = [5, 4, 3, 2, 1, 0]  # the fusion put row 0, the word leader, 6th
    elig = np.array([0.5, 0.1, 0.2, 0.3, 0.4, 0.45])
    assert word_leader_shown(order, word_leader(elig), 5) == ([5, 4, 3, 2, 0, 1], {0: 6})
    # already shown, or nothing shown beyond the two the decision reads: unchanged
    assert word_leader_shown(order, word_leader(elig), 6) == (order, {})
    assert word_leader_shown(order, word_leader(elig), 2) == (order, {})
    # no word matched any skill: nothing to show
    assert word_leader_shown(order, word_leader(np.zeros(6)), 5) == (order, {})
    assert word_leader_shown([], word_leader(elig), 5) == ([], {})


def test_a_buried_word_leader_is_shown_and_the_decision_does_not_move(
    tmp_path: Path, catalog_of, monkeypatch
):
    # sales-dashboard leads the words (dashboard, monthly, sales) but not twice sales-board,
    # which the encoder likes; ten liked chores match "garden" too, so both rankings put
    # them above it. It is shown fifth, says why, and the decision on the first two is the
    # same as without
    import codebot.skills.route.fused as F

    # chores lead the fusion on "garden" alone, so the words' clear lead would put
    # sales-dashboard first (tested above): this test is about what is shown
    monkeypatch.setattr(F, "CLEAR_LEAD", float("inf"))
    skills = dict(SALES)
    snap = _catalog(tmp_path, catalog_of, skills)
    liked = {"sales-board", "crm-hygiene"} | {f"chore-{i}" for i in range(10)}
    request = "Quiero un dashboard monthly de sales para el revenue team del garden"
    r = R.Router(semantic=_Likes("sales-dashboard", liked)).route(request, snap)
    names = [c.name for c in r.candidates]
    assert names.index("sales-dashboard") == len(names) - 1 == 4, names
    shown = r.candidates[-1]
    assert shown.raised_from is not None and shown.raised_from > 5
    assert "shown though the fusion put it" in shown.why and "leads the word" in shown.why
    assert shown.to_json()["raised_from"] == shown.raised_from
    monkeypatch.setattr(F, "word_leader_shown", lambda order, lead, n: (order, {}))
    plain = R.Router(semantic=_Likes("sales-dashboard", liked)).route(request, snap)
    assert "sales-dashboard" not in [c.name for c in plain.candidates]
    assert (plain.decision, plain.selected) == (r.decision, r.selected)
    assert [c.name for c in plain.candidates[:2]] == names[:2]


@pytest.mark.parametrize(
    ("n", "said"),
    [
        (1, "1st"),
        (2, "2nd"),
        (3, "3rd"),
        (4, "4th"),
        (11, "11th"),
        (12, "12th"),
        (13, "13th"),
        (21, "21st"),
        (22, "22nd"),
        (23, "23rd"),
        (111, "111th"),
        (101, "101st"),
    ],
)
def test_the_place_a_shown_word_leader_had_is_said_in_words(n, said):
    from codebot.skills.route.explain import _ordinal

    assert _ordinal(n) == said
