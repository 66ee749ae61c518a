"""The skill router on small synthetic catalogs: eligibility before ranking, select / ask /
abstain, negative boundaries, explanations, caching, and the pieces built on it."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import ClassVar

import pytest

import codebot.skills.route as R
from codebot.skills.catalog import Catalog
from codebot.skills.files import Root, Source
from codebot.skills.invoke import Actor
from codebot.skills.route.config import RRF_K

SKILLS = {
    "pdf-forms": (
        "Fill in PDF forms and extract the fields of fillable PDF documents. "
        "Use when the user has a PDF form to complete."
    ),
    "docker-slim": (
        "Shrink Docker images with multi-stage builds and distroless bases. "
        "Use when a Dockerfile produces a large image."
    ),
    "k8s-deploy": (
        "Write Kubernetes manifests (Deployment, Service, Ingress) for an app and "
        "roll them out with kubectl."
    ),
    "release-notes": (
        "Write release notes and a changelog from the commits since the last tag. "
        "Use before publishing a release."
    ),
}


def fm(name: str, description: str, extra: str = "") -> str:
    return f"name: {name}\ndescription: {json.dumps(description)}\n{extra}"


@pytest.fixture
def catalog(tmp_path: Path, write_skill):
    """A catalog over tmp_path/skills; `add(name, description, extra, body)` writes a skill."""
    root = tmp_path / "skills"
    root.mkdir()
    cat = Catalog([Root(root, Source.PROJECT, "codebot", (0,))])

    def add(name: str, description: str, extra: str = "", body: str = "Steps.\n") -> Path:
        return write_skill(root, name, fm(name, description, extra), body)

    cat.add = add  # type: ignore[attr-defined]
    cat.root = root  # type: ignore[attr-defined]
    return cat


@pytest.fixture
def base(catalog):
    for name, desc in SKILLS.items():
        catalog.add(name, desc)
    catalog.load()
    return catalog


def fillers(catalog, text: str, n: int = 40) -> None:
    """n unrelated skills ("filler-0" …) whose description is `text` with {i} filled in:
    they give the catalog's words a realistic spread of how common they are."""
    for i in range(n):
        catalog.add(f"filler-{i}", text.format(i=i))


def fresh() -> R.Router:
    return R.Router()


# -- decisions --------------------------------------------------------------------------


def test_clear_request_is_selected_with_explanation(base):
    req = (
        "our Dockerfile builds a huge image before each release, make it smaller with multi-stage "
        "builds"
    )
    r = fresh().route(req, base.snapshot)
    assert r.decision == "select"
    assert r.selected.name == "docker-slim"
    top = r.candidates[0]
    assert top.name == "docker-slim" and top.score >= R.Decision().threshold
    assert {"dockerfile", "image", "multi", "stage"} <= {w.lower() for w in top.words()}
    assert "description" in top.matched and "chosen" in top.why
    runner = r.candidates[1]
    assert "lost" in runner.why and "behind docker-slim" in runner.why
    assert "leads" in r.reason


def test_unrelated_request_abstains(base):
    r = fresh().route("plan a picnic menu for twelve people", base.snapshot)
    assert r.decision == "abstain" and r.selected is None
    assert "threshold" in r.reason or "no word" in r.reason or "min_terms" in r.reason


def test_small_talk_and_concept_questions_abstain(base):
    rt = fresh()
    chat = rt.route("hi there! thanks a lot", base.snapshot)
    assert (chat.decision, chat.shape) == ("abstain", "chat")
    concept = rt.route("what is a docker image?", base.snapshot)
    plain = rt.route("docker image", base.snapshot)
    assert (concept.shape, plain.shape) == ("concept", "task")
    # the ranking is the same (SkillSearch and the listing still see it); the decision abstains
    assert concept.candidates[0].name == plain.candidates[0].name
    assert plain.decision == "select" and concept.decision == "abstain"
    assert "concept question" in concept.reason and "answered, not routed" in concept.reason
    assert "concept question" in rt.route("what is a pdf?", base.snapshot).reason
    task = rt.route(
        "how do I shrink the docker image of our app with multi-stage builds?", base.snapshot
    )
    assert task.shape == "task"  # about the person's own project: a task, not a quiz


def test_request_shapes():
    assert R.request_shape("what's the difference between a list and a tuple?") == "concept"
    assert R.request_shape("how do I exit vim?") == "howto"
    assert R.request_shape("how many lines are in this file?") == "concept"
    assert R.request_shape("good morning!") == "chat"
    assert R.request_shape("hey, review my diff please") == "task"
    assert R.request_shape("define SLOs for the checkout service") == "task"


def test_ask_when_two_skills_are_too_close(catalog):
    # two different workflows that a request fits equally well
    catalog.add(
        "alpha-tool", "Lint Python code with ruff and fix the warnings it reports in the project."
    )
    catalog.add(
        "beta-tool", "Python lint fixes: ruff warnings cleaned in code, after black formats it."
    )
    catalog.add("unrelated", "Translate user interface strings into German and French.")
    snap = catalog.load()
    r = fresh().route("lint our python code with ruff and fix the warnings", snap)
    assert r.decision == "ask", r.reason
    assert {s.name for s in r.options} == {"alpha-tool", "beta-tool"}
    assert "closer than the margin" in r.reason
    assert "alpha-tool" in r.reason and "beta-tool" in r.reason
    assert "offered too" in r.candidates[1].why


def test_twins_within_the_margin_ask_and_the_removed_rule_says_so(catalog):
    # the same workflow published twice: the twin rule (duplicate_similarity) was removed
    # by issue 36 §3 (no effect on the held-out sets): a near-tie asks, like any other
    desc = "Lint Python code with ruff and fix the warnings it reports in the project."
    catalog.add("alpha-tool", desc)
    catalog.add("beta-tool", desc + " Also for ruff config.")
    catalog.add("unrelated", "Translate user interface strings into German and French.")
    snap = catalog.load()
    r = fresh().route("lint our python code with ruff and fix the warnings", snap)
    assert r.decision == "ask" and "closer than the margin" in r.reason
    warnings: list[str] = []
    R.config_from_mapping({"duplicate_similarity": 1.01}, warnings)
    assert len(warnings) == 1 and "skills.router.duplicate_similarity: removed" in warnings[0]


def test_common_words_are_not_enough_evidence(catalog):
    for i in range(40):  # "data" and "engineer" are common words here, as in a real catalog
        word, who = ("data", "team") if i % 2 == 0 else ("photos", "engineer")
        catalog.add(f"filler-{i}", f"Clean {word} for the {who} number {i} in spreadsheets.")
    catalog.add(
        "senior-data-engineer", "Senior data engineer: pipelines, warehouses and streaming jobs."
    )
    catalog.add("terraform-modules", "Reusable terraform modules for cloud infrastructure.")
    snap = catalog.load()
    rt = R.Router(R.config_from_mapping({"threshold": 0.1}))  # so that min_evidence is what decides
    r = rt.route("write a cover letter for a data engineer position", snap)
    assert r.candidates[0].name == "senior-data-engineer"
    assert r.decision == "abstain" and "min_evidence" in r.reason and "common ones" in r.reason
    assert (
        rt.route("write reusable terraform modules for our cloud", snap).selected.name
        == "terraform-modules"
    )
    loose = R.Router(R.config_from_mapping({"threshold": 0.1, "min_evidence": 0}))
    assert (
        loose.route("write a cover letter for a data engineer position", snap).decision == "select"
    )


def test_one_strong_word_corroborated_by_the_body_is_enough(catalog):
    fillers(catalog, "Handle topic number {i} in spreadsheets and charts.")
    body = (
        "Read git log since the last tag, group entries under added, fixed and breaking, then "
        "write them.\n"
    )
    catalog.add("changelog-writer", "Keeps a CHANGELOG file current.", body=body)
    snap = catalog.load()
    req = "changelog entry from the git log: added, fixed, breaking"
    # (a lower threshold: with every field weighing 1 it scores 0.28; what is tested is
    # the evidence rule, not the threshold)
    low = {"threshold": 0.2}
    r = R.Router(R.config_from_mapping(low)).route(req, snap)
    assert r.decision == "select" and r.selected.name == "changelog-writer", r.reason
    assert r.candidates[0].matched["description"] == ("changelog",)  # one word outside the body
    assert len(r.candidates[0].matched["body"]) >= 3
    assert "backed by" in r.reason and "corroboration 3" in r.reason
    # (anchor_worth off too: changelog is also a rare word of its name)
    off = R.Router(R.config_from_mapping({**low, "corroboration": 0, "anchor_worth": 0})).route(
        req, snap
    )
    assert off.decision == "abstain" and "corroboration" in off.reason


def test_one_rare_word_of_the_name_with_a_clear_lead_is_enough(catalog):
    # buttons are everywhere; paypal is one skill's
    fillers(catalog, "Handle topic number {i} in spreadsheets, charts and buttons.")
    catalog.add("paypal-checkout", "PayPal Checkout integration: orders, captures and refunds.")
    catalog.add("button-styles", "Style buttons and links for a design system.")
    snap = catalog.load()
    req = "add a paypal button so people can pay without a card"
    r = fresh().route(req, snap)
    assert r.candidates[0].matched["name"] == ("paypal",)
    assert r.decision == "select" and r.selected.name == "paypal-checkout"
    assert "a rare word of its name" in r.reason and "times the runner-up" in r.reason
    off = R.Router(R.config_from_mapping({"anchor_worth": 0})).route(req, snap)
    assert off.decision == "abstain" and "min_terms" in off.reason
    # not for questions
    assert fresh().route("what is paypal?", snap).decision == "abstain"


def test_written_as_names():
    from codebot.skills.route import written_as_names

    got = written_as_names(
        "Blind users say the form is silent. Walk it with VoiceOver and NVDA, "
        "I think our Kafka setup and 40 DOIs too"
    )
    assert got == {"voiceover": "VoiceOver", "nvda": "NVDA", "kafka": "Kafka", "dois": "DOIs"}
    assert written_as_names("Kafka is down") == {}  # first word of a sentence: just capitalised
    assert written_as_names("walk it with voiceover and nvda") == {}
    # first words of lines, list items and quotes are not names either; a file name is no
    # sentence end
    assert written_as_names('steps:\n- Install it\n  "Then run it"') == {}
    assert written_as_names("fix config.Yaml loading") == {"yaml": "Yaml"}


def test_only_the_edges_of_a_long_request_are_read_for_word_weights(catalog):
    from codebot.skills.route import EDGE_CHARS, edges

    assert edges("short") == "short"
    long = "a" * EDGE_CHARS + "MIDDLE" + "b" * EDGE_CHARS
    assert "MIDDLE" not in edges(long) and edges(long).startswith("a") and edges(long).endswith("b")
    catalog.add("uv-manager", "Manage Python projects with uv.")
    catalog.add("bar-charts", "Draw bar charts.")
    snap = catalog.load()
    filler = "log line\n" * (EDGE_CHARS // 8)
    req = filler + "moving rows to bar\n" + filler + "move us off pip onto uv"
    assert fresh().route(req, snap).destination == ("uv",)  # the middle of the paste is not read
    assert fresh().route("moving rows to bar\n" + req, snap).destination == (
        "bar",
        "uv",
    )  # its start is


def test_a_rare_word_written_as_a_name_counts_double(catalog, tmp_path, capsys):
    # everyday words point at the signup skill; the two names point at the reader skill
    fillers(catalog, "Handle topic number {i} in spreadsheets, charts and the API.")
    catalog.add("signup-flow", "Improve signup forms so more users finish the signup flow.")
    catalog.add("reader-checks", "Check pages with VoiceOver and NVDA.")
    snap = catalog.load()
    req = "users say the signup form reads nothing in VoiceOver and NVDA, fix the API call too"
    r = fresh().route(req, snap)
    assert r.emphasized == ("VoiceOver", "NVDA")  # API is written as a name but is common here
    assert r.candidates[0].name == "reader-checks", [(c.name, c.score) for c in r.candidates]
    assert r.to_json()["emphasized"] == ["VoiceOver", "NVDA"]
    off = R.Router(R.config_from_mapping({"name_case_weight": 1})).route(req, snap)
    assert off.emphasized == () and off.candidates[0].name == "signup-flow"
    # the text view says which words counted more
    from codebot.commands.route import run_route

    capsys.readouterr()
    assert run_route(_parser().parse_args(["route", req]), _settings(tmp_path, [catalog.root])) == 0
    assert "written as names, counted x2: VoiceOver, NVDA" in capsys.readouterr().out
    # written in lower case, the same words are not emphasised
    low = fresh().route(req.replace("VoiceOver", "voiceover").replace("NVDA", "nvda"), snap)
    assert low.emphasized == () and low.candidates[0].name == "signup-flow"


def test_left_behind_and_destination():
    from codebot.skills.route import destination, left_behind

    req = "move us off requirements.txt and our venv shell scripts onto uv, with a lockfile"
    assert left_behind(req) == {"requirements", "txt", "and", "our", "venv", "shell", "scripts"}
    assert destination(req) == {"uv"}
    assert left_behind("migrate the tests from jest to vitest") == {"jest"}
    assert destination("migrate the tests from jest to vitest") == {"vitest"}
    assert left_behind("we went with kafka instead of rabbitmq, write it down") == {"rabbitmq"}
    # "from" and "off" only mark a move in a sentence with a moving verb
    assert left_behind("pull the numbers from salesforce into a sheet") == frozenset()
    assert left_behind("review the CRISPR off-target results") == frozenset()
    # a word used outside the span too is not left behind
    assert left_behind("port the cypress specs from cypress to playwright") == frozenset()
    assert destination("write a test for the parser") == frozenset()


def test_where_the_request_moves_things_anchors_it(catalog, tmp_path, capsys):
    for i in range(40):  # uv is in a fifth of the skills (not a rare word), shell scripts in half
        extra = " with uv" if i % 5 == 0 else " and shell scripts" if i % 2 == 1 else ""
        catalog.add(f"filler-{i}", f"Topic {i}: python projects{extra}, spreadsheets.")
    catalog.add(
        "uv-manager",
        "Manage Python projects with uv: fast installs, workspaces.",
        body="Replace a venv with a uv lockfile.\n",
    )
    catalog.add("shell-scripts", "Write and harden shell scripts for Linux servers.")
    snap = catalog.load()
    req = "move us off our venv shell scripts onto uv, with a lockfile"
    # (it scores 0.24 with every word counted once: what is tested is the anchor)
    low = {"threshold": 0.2}
    r = R.Router(R.config_from_mapping(low)).route(req, snap)
    assert r.decision == "select" and r.selected.name == "uv-manager", [
        (c.name, c.score) for c in r.candidates
    ]
    # uv is not rare here: the move's destination is what anchors it (every word counts
    # once: left_behind_weight and destination_weight were removed by issue 36 §3)
    assert "uv is in its name and is where the request moves things" in r.reason
    assert r.destination == ("uv",) and r.to_json()["destination"] == ["uv"]
    assert r.left_behind == ()
    warnings: list[str] = []
    R.config_from_mapping({"left_behind_weight": 1, "destination_weight": 2}, warnings)
    assert len(warnings) == 2 and all(": removed (" in w for w in warnings)
    from codebot.commands.route import run_route

    capsys.readouterr()
    assert run_route(_parser().parse_args(["route", req]), _settings(tmp_path, [catalog.root])) == 0
    out = capsys.readouterr().out
    assert "moved to (can name the skill alone): uv" in out and "moved away" not in out
    no_anchor = R.Router(R.config_from_mapping({**low, "anchor_worth": 0})).route(req, snap)
    assert no_anchor.decision == "abstain" and no_anchor.candidates[0].name == "uv-manager"


def test_one_rare_word_written_as_a_name_with_a_clear_lead_is_enough(catalog):
    fillers(catalog, "Topic {i}: clean up notes, spreadsheets and charts.")
    catalog.add(
        "citations", "Build bibliographies from DOIs and check that every reference resolves."
    )
    snap = catalog.load()
    r = fresh().route("I have 40 DOIs in my notes, make a bibtex file and flag broken ones", snap)
    assert r.emphasized == ("DOIs",)
    assert r.decision == "select" and r.selected.name == "citations", r.reason
    assert "dois is a rare word the request writes as a name" in r.reason
    no_anchor = R.Router(R.config_from_mapping({"anchor_worth": 0})).route(r.request, snap)
    assert no_anchor.decision == "abstain" and "min_terms" in no_anchor.reason
    low = fresh().route(r.request.replace("DOIs", "dois"), snap)  # not written as a name
    assert low.emphasized == () and low.decision == "abstain"


def test_min_terms_one_word_is_not_enough(base):
    r = fresh().route("kubectl", base.snapshot)  # one content word: one match is enough
    assert r.candidates[0].name == "k8s-deploy"
    r2 = fresh().route("my goldfish tank needs a bigger image of the sea", base.snapshot)
    assert r2.decision == "abstain"  # only "image" matches a skill's description


# -- eligibility before ranking -----------------------------------------------------------


def test_blocked_top_match_does_not_hide_eligible_one(catalog):
    desc = "Write release notes and a changelog from the commits since the last tag."
    catalog.add(
        "release-notes-manual",
        desc + " Use for release notes and changelog.",
        "disable-model-invocation: true",
    )
    catalog.add("changelog", "Draft a changelog from commits for a release.")
    catalog.add("other", "Resize photos for the web.")
    snap = catalog.load()
    rt = fresh()
    # for a person, the manual skill is the best match
    human = rt.route("write the release notes and changelog from the commits", snap, Actor.HUMAN)
    assert human.candidates[0].name == "release-notes-manual"
    # for the model it is filtered first, so the eligible one is chosen
    model = rt.route("write the release notes and changelog from the commits", snap, Actor.MODEL)
    assert model.candidates[0].name == "changelog"
    assert all(c.eligible for c in model.candidates)
    assert "release-notes-manual" not in [c.name for c in model.candidates]
    assert model.decision == "select" and model.selected.name == "changelog"
    (f,) = [f for f in model.filtered if f.spec.name == "release-notes-manual"]
    assert f.decided_by == "disable-model-invocation" and "disable-model-invocation" in f.reason
    assert f.to_json()["eligible"] is False


def test_overrides_filter_and_explain(base):
    r = fresh().route(
        "fill in this pdf form", base.snapshot, Actor.MODEL, overrides={"PDF_Forms": "off"}
    )
    assert "pdf-forms" not in [c.name for c in r.candidates]
    (f,) = r.filtered
    assert f.spec.name == "pdf-forms" and f.decided_by == "skills.overrides.pdf-forms=off"


def test_restrict_and_active(catalog):
    catalog.add(
        "py-tests", "Write pytest tests for Python modules with fixtures.", "paths: ['**/*.py']"
    )
    catalog.add("js-tests", "Write jest tests for JavaScript modules with mocks.")
    snap = catalog.load()
    rt = fresh()
    r = rt.route("write pytest tests with fixtures for the python module", snap, active=set())
    assert "py-tests" not in [c.name for c in r.candidates]
    assert [f.decided_by for f in r.filtered] == ["paths"]
    r = rt.route(
        "write pytest tests with fixtures for the python module", snap, restrict={"js-tests"}
    )
    assert [c.name for c in r.candidates] == ["js-tests"]
    assert r.filtered[0].decided_by == "restrict"


# -- negative boundaries ------------------------------------------------------------------


def test_split_negative():
    pos, neg = R.split_negative(
        "Review diffs for bugs. Not for writing tests (use test); never use it for style."
    )
    assert "Review diffs" in pos and "writing tests" in neg and "style" not in pos
    pos, neg = R.split_negative("Optimize any form that is NOT signup — including lead forms.")
    assert "signup" in neg and "lead forms" in pos
    pos, neg = R.split_negative("For flowcharts and diagrams, use the schematics skill instead.")
    assert pos.strip() == "" and "flowcharts" in neg
    assert R.split_negative("Plain description.") == ("Plain description.", "")


def test_words_only_in_the_negative_clause_count_against(catalog):
    catalog.add(
        "e2e-alpha",
        "Run end-to-end browser tests with Playwright and report failures. "
        "Not for Cypress suites (use cypress-runner).",
    )
    catalog.add("e2e-beta", "Run end-to-end browser tests with Playwright and report failures.")
    catalog.add("cypress-runner", "Run Cypress browser suites and report flaky specs.")
    snap = catalog.load()
    rt = fresh()
    r = rt.route("run the cypress end-to-end browser tests and report failures", snap)
    by = {c.name: c for c in r.candidates}
    assert by["e2e-alpha"].penalized == ("cypress",)
    assert by["e2e-alpha"].score < by["e2e-beta"].score
    assert "rules out cypress" in by["e2e-alpha"].why
    # the penalty is the word's own worth: no number to set
    warnings: list[str] = []
    R.config_from_mapping({"negative_penalty": 0}, warnings)
    assert "skills.router.negative_penalty: removed" in warnings[0]


def test_negative_clause_words_are_not_positive_evidence(catalog):
    catalog.add(
        "reviewer",
        "Review code changes and report bugs by severity. Not for writing tests (use tester).",
    )
    catalog.add("tester", "Write new unit tests for a module and run them.")
    snap = catalog.load()
    r = fresh().route("write unit tests for the parser module", snap)
    assert r.candidates[0].name == "tester"
    assert all(c.name != "reviewer" or "tests" not in c.words() for c in r.candidates)


# -- explanations, JSON ------------------------------------------------------------------


def test_route_json_shape(base):
    out = (
        fresh()
        .route("write kubernetes manifests for the api and roll out with kubectl", base.snapshot)
        .to_json()
    )
    assert set(out) >= {
        "decision",
        "selected",
        "candidates",
        "filtered",
        "latency_ms",
        "reason",
        "terms",
        "shape",
    }
    assert out["decision"] == "select" and out["selected"] == "k8s-deploy"
    c = out["candidates"][0]
    assert set(c) >= {"name", "score", "matched", "eligible", "why", "fields"}
    assert "kubernetes" in c["matched"] and c["eligible"] is True
    json.dumps(out)  # serialisable


def test_identifiers_are_kept_and_aliases_fold():
    tok = R.Tokenizer("builtin")
    assert tok("k8s pytest c++ s3 e2e") == [tok.term("kubernetes"), "pytest", "c++", "s3", "e2e"]
    assert tok("end-to-end") == ["e2e"]
    assert tok("Tests testing tested") == ["test", "test", "test"]
    assert tok("the and of to") == []


# -- index cache ----------------------------------------------------------------------------


def test_index_is_built_once_and_updated_incrementally(catalog):
    paths = {name: catalog.add(name, desc) for name, desc in SKILLS.items()}
    snap = catalog.load()
    rt = fresh()
    rt.route("fill in a pdf form", snap)
    rt.route("shrink the docker image", snap)
    assert rt.stats["builds"] == 1
    assert rt.stats["bodies_read"] == len(SKILLS)
    # a reload with nothing changed keeps the index
    same = catalog.reload()
    assert not same
    rt.route("fill in a pdf form", catalog.snapshot)
    assert rt.stats["builds"] == 1
    # edit one skill: rebuild, but only its body is read again
    p = paths["pdf-forms"]
    p.write_text(p.read_text() + "\nMore about PDF signatures.\n")
    catalog.reload()
    r = rt.route("add signatures to the pdf form", catalog.snapshot)
    assert rt.stats["builds"] == 2
    assert rt.stats["bodies_read"] == len(SKILLS) + 1
    assert "signatures" in r.candidates[0].matched.get("body", ())


def test_subset_lists_reuse_the_snapshot_index(base):
    rt = fresh()
    rt.route("fill a pdf form", base.snapshot)
    subset = [s for s in base.snapshot if s.name != "pdf-forms"]
    r = rt.route("fill a pdf form", subset)
    assert rt.stats["builds"] == 1
    assert "pdf-forms" not in [c.name for c in r.candidates]


# -- config --------------------------------------------------------------------------------


def test_config_from_settings_and_validation():
    class S:
        raw: ClassVar[dict] = {
            "skills": {
                "router": {
                    "threshold": 0.7,
                    "margin": 0.1,
                    "weights": {"name": 3, "bogus": 1},
                    "nope": 1,
                    "min_terms": "x",
                }
            }
        }

    warnings: list[str] = []
    cfg = R.config_from_settings(S(), warnings)
    d = cfg.decision
    assert (d.threshold, d.margin, cfg.weights["name"], cfg.weights["description"]) == (
        0.7,
        0.1,
        1.0,  # weights.name was removed: said, and ignored
        1.0,
    )
    assert any("weights.name: removed" in w for w in warnings)
    assert d.min_terms == R.Decision().min_terms
    assert any("bogus" in w for w in warnings) and any("nope" in w for w in warnings)
    assert any("min_terms" in w for w in warnings)


def test_threshold_from_config_changes_the_decision(base):
    req = "write release notes from the commits"
    assert fresh().route(req, base.snapshot).decision == "select"
    strict = R.Router(R.config_from_mapping({"threshold": 5.0})).route(req, base.snapshot)
    assert strict.decision == "abstain" and "below the threshold 5.00" in strict.reason


# -- semantic fusion -------------------------------------------------------------------------


class FakeSemantic:
    def __init__(self, scores):
        self.scores = scores
        self.calls = 0

    def score(self, query, specs):
        self.calls += 1
        return {k: v for k, v in self.scores.items() if any(s.key == k for s in specs)}


def test_semantic_scores_are_fused_by_rank(base):
    sem = FakeSemantic({"pdf-forms": 0.9, "release-notes": 0.5})
    assert isinstance(sem, R.SemanticScorer)
    req = "write the release notes and the kubernetes manifests"
    lexical = fresh().route(req, base.snapshot)
    assert "pdf-forms" not in [c.name for c in lexical.candidates]  # no word in common
    r = R.Router(semantic=sem).route(req, base.snapshot)
    assert sem.calls == 1
    by = {c.name: c for c in r.candidates}
    assert by["pdf-forms"].semantic == pytest.approx(0.9) and by["pdf-forms"].rank_lexical is None
    # reciprocal rank fusion: 1/(k + lexical rank) + 1/(k + semantic rank)
    k = RRF_K
    lex_rank = {c.name: i + 1 for i, c in enumerate(lexical.candidates)}
    sem_rank = {"pdf-forms": 1, "release-notes": 2}
    fused = {
        n: (1 / (k + lex_rank[n]) if n in lex_rank else 0)
        + (1 / (k + sem_rank[n]) if n in sem_rank else 0)
        for n in by
    }
    assert [c.name for c in r.candidates] == sorted(by, key=lambda n: -fused[n])
    assert fresh().semantic is None  # off by default


# -- the model side ------------------------------------------------------------------------


def test_search_and_search_cards(base):
    from codebot.skills.prompt import search_cards

    hits = R.search("shrink docker images", list(base.snapshot), 2)
    assert hits and hits[0].name == "docker-slim" and len(hits) <= 2
    assert R.search("zebra migration patterns", list(base.snapshot), 3) == []
    cards = search_cards("shrink docker images", list(base.snapshot), 2)
    assert "docker-slim" in cards


def test_offline_matcher_only_acts_on_select(base):
    snap = base.snapshot
    match = R.offline_matcher(lambda: snap)
    listed = [(s.name, s.description) for s in snap]
    assert (
        match("write kubernetes manifests and roll them out with kubectl", listed) == "k8s-deploy"
    )
    assert match("hello there", listed) is None
    assert (
        match("write kubernetes manifests and roll them out with kubectl", [("pdf-forms", "")])
        is None
    )
    assert R.offline_matcher(lambda: None)("anything", listed) is None


def test_preselect_keeps_top_k_and_recent(base):
    specs = list(base.snapshot)
    got = R.preselect(
        "shrink the docker image with multi-stage builds", specs, 1, recent=["pdf-forms"]
    )
    assert {s.name for s in got} == {"docker-slim", "pdf-forms"}
    assert [s.name for s in got] == [
        s.name for s in specs if s.name in {"docker-slim", "pdf-forms"}
    ]
    assert R.preselect("anything", specs, 10) == specs


# -- evaluation ------------------------------------------------------------------------------


def test_parse_cases_reports_bad_lines():
    cases, errors = R.parse_cases(
        [
            '{"prompt": "a", "expected": "x", "kind": "positive"}',
            "not json",
            '{"prompt": "b", "expected": null, "kind": "weird"}',
            '{"prompt": "", "expected": null}',
            '{"prompt": "c", "expected": null}',
            "# comment",
        ]
    )
    assert [c.prompt for c in cases] == ["a", "c"] and cases[1].kind == "negative"
    assert [e.split(":")[0] for e in errors] == ["line 2", "line 3", "line 4"]


def test_evaluate_metrics_and_results_in_order(base):
    cases, _ = R.parse_cases(
        [
            json.dumps(
                {
                    "prompt": "make our Dockerfile image smaller with multi-stage builds",
                    "expected": "docker-slim",
                    "kind": "positive",
                }
            ),
            json.dumps(
                {
                    "prompt": "fill in the fields of this PDF form",
                    "expected": "pdf-forms",
                    "kind": "positive",
                }
            ),
            json.dumps(
                {"prompt": "what is the capital of France?", "expected": None, "kind": "negative"}
            ),
            json.dumps(
                {
                    "prompt": "draft release notes for the guitar concert",
                    "expected": None,
                    "kind": "near_miss",
                }
            ),
            json.dumps(
                {
                    "prompt": "write kubernetes manifests and roll out",
                    "expected": "nope",
                    "kind": "positive",
                    "also": ["k8s-deploy"],
                }
            ),
        ]
    )
    rt = fresh()
    rep = R.evaluate(
        cases, lambda p: rt.route(p, base.snapshot), repeat=2, known=[s.name for s in base.snapshot]
    )
    assert [r["prompt"] for r in rep["results"]] == [c.prompt for c in cases]
    assert all(set(r) >= {"selected", "decision"} for r in rep["results"])
    assert rep["hit_at_1"] == 1.0 and rep["abstain_rate_negatives"] == 1.0
    assert rep["stability"] == 1.0 and rep["repeat"] == 2
    assert rep["unknown_names"] == ["nope"]
    assert set(rep["latency_ms"]) >= {"p50", "p95"}
    assert 0 <= rep["near_miss_accuracy"] <= 1 and rep["precision"] is not None


def test_evaluate_counts_what_the_person_is_offered_and_wrong_choices(base):
    """hit@1 counts an ask's first option only; `offered` counts either of its two (what a
    person is shown) and a right selection; `chose_wrong` a selection of another skill."""
    a, b, c = (
        next(s for s in base.snapshot if s.name == n)
        for n in ("docker-slim", "pdf-forms", "k8s-deploy")
    )

    def cand(spec):
        return R.Candidate(spec, 0.5, 0.5, {})

    def route(decision, selected, ranked):
        return R.Route(
            "x",
            decision,
            selected,
            tuple(cand(s) for s in ranked),
            (),
            "",
            (),
            "task",
            0.3,
            0.05,
            1.0,
        )

    routes = {
        "p1": route("select", a, [a, b]),  # right, chosen
        "p2": route("ask", None, [a, b]),  # right second of an ask: offered, no hit@1
        "p3": route("select", a, [a, c]),  # wrong, chosen
        "p4": route("abstain", None, [c]),  # right first, but nothing offered
        "n1": route("abstain", None, []),
    }
    cases, errors = R.parse_cases(
        [
            json.dumps({"prompt": "p1", "expected": "docker-slim", "kind": "positive"}),
            json.dumps({"prompt": "p2", "expected": "pdf-forms", "kind": "positive"}),
            json.dumps({"prompt": "p3", "expected": "k8s-deploy", "kind": "positive"}),
            json.dumps({"prompt": "p4", "expected": "k8s-deploy", "kind": "positive"}),
            json.dumps({"prompt": "n1", "expected": None, "kind": "negative"}),
        ]
    )
    assert not errors
    rep = R.evaluate(cases, routes.__getitem__)
    assert rep["hit_at_1"] == 0.25
    assert rep["offered"] == 0.5
    assert rep["chose_wrong"] == 0.25
    assert rep["precision"] == 0.5 and rep["recall"] == 0.25


# -- CLI -------------------------------------------------------------------------------------


def _parser():
    from codebot.commands.args import common_options as _common
    from codebot.commands.route import add_parsers

    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="skills_command")
    add_parsers(sub, _common)
    return p


def _settings(tmp_path: Path, dirs):
    from codebot.config import load_settings

    return load_settings(cwd=tmp_path, skills_dirs=tuple(dirs))


def test_cli_route_json(base, tmp_path, capsys):
    from codebot.commands.route import run_route

    args = _parser().parse_args(
        [
            "route",
            "shrink",
            "our",
            "docker",
            "image",
            "with",
            "multi-stage",
            "builds",
            "--json",
            "--top",
            "3",
        ]
    )
    assert run_route(args, _settings(tmp_path, [base.root])) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["decision"] == "select" and out["selected"] == "docker-slim"
    assert len(out["candidates"]) <= 3 and isinstance(out["latency_ms"], float)
    assert all({"name", "score", "matched", "eligible", "why"} <= set(c) for c in out["candidates"])


def test_cli_eval_floors(base, tmp_path, capsys):
    from codebot.commands.route import run_eval

    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        "\n".join(
            json.dumps(c)
            for c in [
                {
                    "prompt": "shrink our docker image with multi-stage builds",
                    "expected": "docker-slim",
                    "kind": "positive",
                },
                {"prompt": "what is the capital of France?", "expected": None, "kind": "negative"},
            ]
        )
        + "\n"
    )
    settings = _settings(tmp_path, [base.root])
    args = _parser().parse_args(
        ["eval", str(cases), "--json", "--only-dirs", "--min-hit-at-1", "0.9"]
    )
    assert run_eval(args, settings) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["hit_at_1"] == 1.0 and rep["floors_missed"] == []
    args = _parser().parse_args(["eval", str(cases), "--only-dirs", "--min-precision", "1.1"])
    assert run_eval(args, settings) == 1
    captured = capsys.readouterr()
    assert "floor missed: precision" in captured.err and "hit@1" in captured.out
    bad = tmp_path / "bad.jsonl"
    bad.write_text("nope\n")
    assert run_eval(_parser().parse_args(["eval", str(bad)]), settings) == 2


def test_cli_eval_by_language(base, tmp_path, capsys):
    from codebot.commands.route import run_eval

    cases = tmp_path / "cases.jsonl"
    rows = [
        {"prompt": "shrink our docker image with multi-stage builds", "expected": "docker-slim"},
        {"prompt": "用多阶段构建把 Docker 镜像瘦身", "expected": "docker-slim", "lang": "zh"},
        {"prompt": "谢谢！", "expected": None, "kind": "negative", "lang": "zh"},
    ]
    cases.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n")
    settings = _settings(tmp_path, [base.root])
    assert (
        run_eval(_parser().parse_args(["eval", str(cases), "--json", "--only-dirs"]), settings) == 0
    )
    by = json.loads(capsys.readouterr().out)["by_language"]
    assert set(by) == {"?", "zh"} and by["zh"]["abstain_rate_negatives"] == 1.0
    assert by["zh"]["counts"] == {"positive": 1, "near_miss": 0, "negative": 1}
    assert run_eval(_parser().parse_args(["eval", str(cases), "--only-dirs"]), settings) == 0
    assert "zh   hit@1" in capsys.readouterr().out
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"prompt": "x", "expected": None, "lang": 7}) + "\n")
    assert run_eval(_parser().parse_args(["eval", str(bad)]), settings) == 2
    assert "'lang' must be a language code" in capsys.readouterr().err


# -- description quality in `skills validate` -------------------------------------------------


def test_description_quality(catalog):
    from codebot.skills.validate import validate_specs

    catalog.add("changelog-generator", "Changelog Generator")
    catalog.add("tiny", "Does PDFs.")
    long_desc = (
        "Automate Capsule CRM tasks: create contacts, update opportunities, log notes and "
        "search records through the Capsule API. Not for other CRMs."
    )
    catalog.add("capsule-crm-automation", long_desc)
    catalog.add("capsule-crm-sync", long_desc.replace("log notes", "log the notes"))
    catalog.add(
        "fine",
        "Write release notes from commits since the last tag. Not for changelog policy reviews.",
    )
    report = validate_specs(catalog.load())
    codes = {(d.code, Path(d.path).parent.name) for d in report.diagnostics}
    assert ("title-only-description", "changelog-generator") in codes
    assert ("short-description", "tiny") in codes
    assert (
        "short-description",
        "changelog-generator",
    ) not in codes  # one finding, the specific one
    (ov,) = [d for d in report.diagnostics if d.code == "overlapping-description"]
    assert "capsule-crm-automation" in ov.message and "capsule-crm-sync" in ov.message
    assert ov.field == "description" and ov.line == 3  # the line of `description:`
    assert not any(
        Path(d.path).parent.name == "fine" and d.code.endswith("description")
        for d in report.diagnostics
    )


def test_semantic_scorer_can_find_what_no_word_matches(base):
    rt = R.Router(semantic=FakeSemantic({"docker-slim": 0.9}))
    r = rt.route("zzz qqq", base.snapshot)
    assert r.candidates and r.candidates[0].name == "docker-slim"
    assert r.candidates[0].semantic == pytest.approx(0.9)
    # it finds it for SkillSearch and the listing; in English only words select
    assert r.decision == "abstain"


def test_small_catalog_accepts_one_strong_word_but_large_one_does_not(catalog):
    catalog.add("review", "Review code changes for bugs and risks. Not for writing new code.")
    catalog.add("commit", "Write a commit message for staged changes. Not for reviews.")
    catalog.load()
    small = fresh().route("please review app.py", catalog.snapshot)
    assert small.decision == "select" and small.selected.name == "review", small.reason
    # most words of a request are in none of a few skills: the name carries it
    req = "review src/billing/invoice_totals.py and src/billing/tax_rules.py before friday"
    named = fresh().route(req, catalog.snapshot)
    assert (
        named.decision == "select"
        and named.selected.name == "review"
        and "one word of its name is enough" in named.reason
    )
    # as in a large catalog: the words in no skill count against it, and one is not enough
    strict = R.Router(R.config_from_mapping({"small_catalog": 0})).route(req, catalog.snapshot)
    assert strict.decision == "abstain", strict.reason
    # a word only in a description is not enough, however few the skills
    assert (
        fresh().route("staged for the school play on friday", catalog.snapshot).decision
        == "abstain"
    )
    fillers(catalog, "Handle topic number {i} in spreadsheets and charts. Not for code.")
    catalog.reload()
    large = fresh().route("please review app.py", catalog.snapshot)
    assert large.decision == "abstain" and "min_terms" in large.reason
