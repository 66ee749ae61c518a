"""A skill the request names, in another language (issue 36 §1; docs/routing.md "Decision"
and "Embedding fusion"): the word of a one-word name written as it is and as a name anchors
a choice, and
the lexical first that a word names alone keeps the top of the fused order. English
requests never read either rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import codebot.skills.route as R
from codebot.skills.catalog import Catalog
from codebot.skills.files import Root, Source
from codebot.skills.route.config import config_from_mapping
from codebot.skills.route.decide import decide, names_alone
from codebot.skills.route.fused import named_first, said_words, spelled
from codebot.skills.route.result import Candidate

CELL = "Single-cell RNA toolkit: normalise counts, embed and plot."
CENSUS = (
    "Query the CZ CELLxGENE Census of tissues, donors and assays, export slices as tables, "
    "and hand the cells to Scanpy or AnnData."
)
ATLAS = "Browse a cell atlas of tissues and organs."
REQUEST = "Analysiere die Einzelzelldaten mit Scanpy und finde Cluster"


def _fm(name: str, description: str) -> str:
    return f"name: {name}\ndescription: {json.dumps(description)}\n"


@pytest.fixture
def cells(tmp_path: Path, write_skill):
    """40 skills: `scanpy` (its description does not say Scanpy), `cellxgene-census` (whose
    description does), `cell-atlas` (no word of the request), and fillers that give the
    words a realistic spread."""
    root = tmp_path / "skills"
    root.mkdir()
    write_skill(root, "scanpy", _fm("scanpy", CELL), "Use scanpy.pp and scanpy.tl per cluster.\n")
    write_skill(root, "cellxgene-census", _fm("cellxgene-census", CENSUS))
    write_skill(root, "cell-atlas", _fm("cell-atlas", ATLAS))
    for i in range(37):
        desc = f"Handle ledger batch {i}: reconcile invoices, export reports and data tables."
        write_skill(root, f"ledger-{i}", _fm(f"ledger-{i}", desc))
    cat = Catalog([Root(root, Source.PROJECT, "codebot", (0,))])
    cat.load()
    return cat


class Multilingual:
    """A scorer for other languages only that finds the census skill a little more similar
    than `scanpy`, as the shipped encoder did (0.427 against 0.403), and a third skill in
    between: fused by ranks alone, the census skill comes first (1/61 + 1/62 against
    1/61 + 1/63)."""

    other_languages_only = True
    translates = False

    def __init__(self) -> None:
        self.queries: list[str] = []

    def score(self, query, specs):
        self.queries.append(query)
        sims = {"cellxgene-census": 0.43, "cell-atlas": 0.42, "scanpy": 0.40}
        return {s.key: sims.get(s.key, 0.05) for s in specs}


def test_the_named_skill_keeps_the_top_of_the_fused_order(cells):
    sem = Multilingual()
    r = R.Router(semantic=sem).route(REQUEST, cells.snapshot)
    assert sem.queries == [REQUEST]  # the request went through fusion
    assert r.decision == "select" and r.selected is not None and r.selected.name == "scanpy"
    assert (
        "no other word matched outside its body, but scanpy is its whole name, written as a "
        "name in another language"
    ) in r.reason
    # without the scorer, the lexical router reads the same words the same way
    lexical = R.Router().route(REQUEST, cells.snapshot)
    assert lexical.candidates[0].name == "scanpy"


def test_an_english_request_reads_neither_rule(cells):
    sem = Multilingual()
    req = "analyse the single-cell data with Scanpy"
    r = R.Router(semantic=sem).route(req, cells.snapshot)
    assert sem.queries == []  # English: no fusion
    # scanpy's one-word name is not an anchor in English: the description must back it
    assert "written as a name in another language" not in r.reason
    assert r.reason == R.Router().route(req, cells.snapshot).reason


def test_without_the_rules_the_census_skill_would_come_first(cells, monkeypatch):
    """The catalog does reproduce the miss: with the reorder switched off, the fusion puts
    the census skill first and the decision does not select `scanpy`."""
    import codebot.skills.route.pipeline as P

    monkeypatch.setattr(P, "named_first", lambda order, lex_rank, names_it: order)
    r = R.Router(semantic=Multilingual()).route(REQUEST, cells.snapshot)
    assert r.candidates[0].name == "cellxgene-census"
    assert r.selected is None or r.selected.name != "scanpy"


# -- the pieces ------------------------------------------------------------------------------


def test_named_first_moves_only_a_lexical_first_that_is_named():
    order = [5, 3, 9]
    assert named_first(order, {3: 1, 5: 2}, lambda i: i == 3) == [3, 5, 9]
    assert named_first(order, {3: 1, 5: 2}, lambda i: False) == order  # not named
    assert named_first(order, {5: 1, 3: 2}, lambda i: True) == order  # already on top
    assert named_first(order, {}, lambda i: True) == order  # no word matched any skill
    assert named_first([], {3: 1}, lambda i: True) == []
    # a lexical first the fused top did not keep still goes on top, once
    assert named_first(order, {7: 1}, lambda i: i == 7) == [7, 5, 3, 9]


def test_spelled_leaves_out_what_was_read_and_what_is_not_written_as_a_name():
    def term(w: str) -> str | None:
        return w.lower() or None

    request = "Analysiere mit Scanpy den Sprintbericht, informe und Cluster, y un modal"
    surface = {
        "scanpy": "Scanpy",  # written as it is, as a name
        "sprint": "Sprintbericht",  # a compound's part: its term is not the word's own
        "report": "informe",  # read by the encoder
        "cluster": "Cluster",
        "modal": "modal",  # lower case: the request's own word ("un modal de confirmación")
    }
    got = spelled(request, surface, {"report": 0.95}, term)
    assert got == frozenset({"scanpy", "cluster"})
    # a sentence's first word is not written as a name
    assert spelled("Scanpy bitte", {"scanpy": "Scanpy"}, {}, term) == frozenset()
    # hostile: a control character in what was written is not the term
    assert spelled("mit Scan\x1bpy", {"scanpy": "Scan\x1bpy"}, {}, term) == frozenset()
    words = said_words(request, ("Scanpy",), frozenset({"uv"}), surface, {}, term, False)
    assert words == (frozenset({"scanpy"}), frozenset({"uv"}), frozenset())


def test_a_lower_case_cognate_does_not_name_a_one_word_skill(cells, tmp_path, write_skill):
    """ "un modal de confirmación": the request's own word, not the skill `modal`."""
    root = tmp_path / "skills"
    desc = "Run Python functions on Modal's serverless GPUs."
    write_skill(root, "modal", _fm("modal", desc), "React frontends call the endpoint.\n")
    cells.load()
    sem = Multilingual()
    req = "Crea un modal de confirmación en React antes de borrar la cuenta"
    r = R.Router(semantic=sem).route(req, cells.snapshot)
    assert sem.queries == [req]
    assert "written as a name" not in r.reason
    assert r.selected is None or r.selected.name != "modal", r.reason


def _cand(spec, score: float, matched: dict[str, tuple[str, ...]]) -> Candidate:
    return Candidate(spec, score, score, matched)


def test_decide_anchors_a_one_word_name_only_when_spelled(cells):
    cfg = config_from_mapping({})
    specs = {s.name: s for s in cells.snapshot}
    best = _cand(specs["scanpy"], 0.9, {"name": ("scanpy",), "body": ("scanpy",)})
    second = _cand(specs["cellxgene-census"], 0.4, {"description": ("scanpy",)})
    args = dict(n_content=3, worth=lambda w: 0.5, named=(), moved_to=())
    english = decide([best, second], cfg, "task", **args)
    assert english[0] == "abstain"  # one word of a one-word name: not evidence in English
    across = decide([best, second], cfg, "task", **args, sem_best="x", spelled={"scanpy"})
    assert across[0] == "select" and across[1] is specs["scanpy"]
    # a name reached through translation is not written: spelled holds other words
    other = decide([best, second], cfg, "task", **args, sem_best="x", spelled={"cluster"})
    assert other[0] == "abstain"
    # below the runner-up's score a word does not anchor (the lead is a lexical one)
    behind = _cand(specs["scanpy"], 0.3, best.matched)
    ahead = _cand(specs["cellxgene-census"], 0.6, second.matched)
    assert decide([behind, ahead], cfg, "task", **args, spelled={"scanpy"})[0] != "select"
    words = (frozenset(), frozenset(), frozenset({"scanpy"}))
    assert names_alone(best, cfg, "task", None, words)
    assert not names_alone(best, cfg, "howto", None, words)  # a question needs min_terms
    assert not names_alone(_cand(specs["scanpy"], 0.1, best.matched), cfg, "task", None, words)
    off = config_from_mapping({"rare_worth": 0})
    assert not names_alone(best, off, "task", None, words)
