"""`Catalog.sources`: skills that do not come from folders join every snapshot the catalog
hands out (codebot/skills/catalog/source_set.py), reloads included."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from codebot.skills.catalog import Catalog, SourceSet, external_spec
from codebot.skills.files import Root, Source, Spec


class Fake:
    def __init__(self, label: str, *names: str) -> None:
        self.label = label
        self.problems = [f"{label}: skill 'bad' not loaded: no description"]
        self.set(*names)

    def set(self, *names: str) -> None:
        self._specs = tuple(
            external_spec(self.label, n, f"about {n}", f"{n}/SKILL.md") for n in names
        )

    def specs(self) -> Sequence[Spec]:
        return self._specs

    async def fetch_body(self, spec: Spec) -> str:
        return "body"


def catalog_with(tmp_path: Path, write_skill, source: Fake) -> Catalog:
    root = tmp_path / "skills"
    write_skill(root, "review", "name: review\ndescription: Review code")
    catalog = Catalog([Root(root, Source.PROJECT, "codebot", (0,))])
    catalog.load()
    catalog.sources = SourceSet(lambda: (tuple(map(id, source.specs())), [source]))
    return catalog


def test_every_snapshot_carries_the_sources_skills_and_reports_shadows_and_problems(
    tmp_path: Path, write_skill
) -> None:
    source = Fake("mcp:srv", "srv:deploy", "review")
    catalog = catalog_with(tmp_path, write_skill, source)
    snap = catalog.snapshot
    assert [s.name for s in snap] == ["review", "srv:deploy"]
    assert snap.get("review").source is Source.PROJECT  # a local skill keeps its name
    (lost,) = snap.shadowed
    assert lost.spec.source is Source.MCP and "mcp:srv" in lost.reason
    assert any("'bad' not loaded" in d.message for d in snap.diagnostics)
    assert catalog.snapshot is snap  # kept while nothing changed
    assert (
        catalog.sources is not None and catalog.sources.source_of(snap.get("srv:deploy")) is source
    )


def test_a_reload_and_a_changed_source_both_make_a_new_snapshot(
    tmp_path: Path, write_skill
) -> None:
    source = Fake("mcp:srv", "srv:deploy")
    catalog = catalog_with(tmp_path, write_skill, source)
    first = catalog.snapshot
    write_skill(tmp_path / "skills", "lint", "name: lint\ndescription: Lint code")
    catalog.reload()
    second = catalog.snapshot
    assert {s.name for s in second} == {"lint", "review", "srv:deploy"}
    assert second.generation > first.generation
    source.set("srv:deploy", "srv:rollback")
    third = catalog.snapshot
    assert third.get("srv:rollback") is not None and third.generation > second.generation
    assert catalog.load().get("srv:rollback") is not None


def test_a_plain_name_reaches_a_source_skill_only_without_a_local_one(
    tmp_path: Path, write_skill
) -> None:
    source = Fake("mcp:srv", "srv:deploy", "srv:review")
    catalog = catalog_with(tmp_path, write_skill, source)
    sources = catalog.sources
    assert sources is not None
    spec, _ = sources.resolve("deploy", catalog.snapshot)
    assert spec is not None and spec.name == "srv:deploy"
    spec, _ = sources.resolve("review", catalog.snapshot)
    assert spec is not None and spec.source is Source.PROJECT
    assert sources.resolve("srv:review", catalog.snapshot)[0].name == "srv:review"
