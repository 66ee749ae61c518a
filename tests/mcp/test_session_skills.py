"""A session's servers' SEP-2640 skills (codebot/mcp/session_skills.py) through real
processes: `raw_skills_server.py` (raw JSON-RPC, skills that change) and
`sep2640_server.py` (a skills-only server on the SDK, hostile entries)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from types import MappingProxyType

import pytest

from codebot.mcp.config import ServerDef, servers_from
from codebot.mcp.session_skills import SkillServers, source_set
from codebot.skills.catalog import SourceError
from codebot.skills.catalog.snapshot import Snapshot

HERE = Path(__file__).parent
EMPTY = Snapshot(MappingProxyType({}), (), (), ())


def define(name: str, script: str, *args: str) -> ServerDef:
    entry = {"command": sys.executable, "args": [str(HERE / script), *args]}
    (d,), _ = servers_from({name: entry}, source="user", path="test", prefix="s", environ={})
    return d


def received(log: Path, method: str) -> int:
    if not log.exists():
        return 0
    return sum(json.loads(x).get("method") == method for x in log.read_text().splitlines())


@pytest.fixture
def servers(codebot_home: Path, project: Path):
    made: list[SkillServers] = []

    def make(*defs: ServerDef) -> SkillServers:
        s = SkillServers(list(defs), home=codebot_home, project=project)
        made.append(s)
        s.start()
        assert s.wait_started()
        return s

    yield make
    for s in made:
        s.close()


def names(snap: Snapshot) -> list[str]:
    return [s.name for s in snap]


def test_a_skills_only_server_is_ready_and_its_skills_join_the_snapshot(
    servers, tmp_path: Path
) -> None:
    s = servers(define("srv", "sep2640_server.py", str(tmp_path / "r"), str(tmp_path / "m")))
    (row,) = s.status()
    assert row["status"] == "ready"  # no tools capability: no tools/list asked
    assert row["skills"] == 5 and row["tools"] == 0  # the count the live /mcp shows
    joined = source_set(s).over(EMPTY)
    assert {"srv:good", "srv:tampered", "srv:acme/refunds", "srv:shop/refunds"} <= set(
        names(joined)
    )
    assert "srv:dynamic" not in names(joined)
    problems = [d.message for d in joined.diagnostics]
    assert any("srv" in p and "dynamic" in p for p in problems)
    assert all("\x1b" not in p and "\u202e" not in p for p in problems)  # hostile names
    assert not (tmp_path / "r").exists()  # nothing read but the listing


def test_the_joined_snapshot_is_kept_until_the_server_says_its_list_changed(
    servers, tmp_path: Path, wait_until
) -> None:
    log = tmp_path / "log"
    s = servers(define("raw", "raw_skills_server.py", str(log)))
    sources = source_set(s)
    first = sources.over(EMPTY)
    assert names(first) == ["raw:first"] and sources.over(EMPTY) is first
    assert asyncio.run(s.call("raw", "add", {})).error == ""
    later = wait_until(lambda: "raw:second" in names(sources.over(EMPTY)) and sources.over(EMPTY))
    assert later is not first and later.generation > first.generation
    assert received(log, "skills/list") == 2


def test_a_flood_of_list_changed_costs_few_listings(servers, tmp_path: Path, wait_until) -> None:
    log = tmp_path / "log"
    s = servers(define("raw", "raw_skills_server.py", str(log)))
    assert asyncio.run(s.call("raw", "flood", {})).error == ""
    assert asyncio.run(s.call("raw", "add", {})).error == ""  # after the flood, in order
    sources = source_set(s)
    wait_until(lambda: "raw:second" in names(sources.over(EMPTY)))
    assert received(log, "skills/list") <= 10  # not 100


def test_a_body_is_fetched_from_another_loop_and_a_down_server_is_named_then_restarted(
    servers, tmp_path: Path, wait_until
) -> None:
    s = servers(define("raw", "raw_skills_server.py", str(tmp_path / "log")))
    sources = source_set(s)
    spec = sources.over(EMPTY).get("raw:first")
    assert spec is not None
    source = sources.source_of(spec)
    assert source is not None
    assert asyncio.run(source.fetch_body(spec)).strip() == "FIRST BODY"
    asyncio.run(s.call("raw", "die", {}))
    wait_until(lambda: s.status()[0]["status"] == "failed")

    def fetched() -> str:
        try:
            return asyncio.run(source.fetch_body(spec))
        except SourceError:
            return ""

    assert wait_until(fetched).strip() == "FIRST BODY"  # started again on a later use
    assert len(s.status()) == 1 and s.status()[0]["status"] == "ready"
    s.close()
    with pytest.raises(SourceError, match="'raw' is not running \\(the session closed\\)"):
        asyncio.run(source.fetch_body(spec))


def test_a_plain_name_resolves_only_when_it_is_unambiguous(servers, tmp_path: Path) -> None:
    one = define("one", "raw_skills_server.py", str(tmp_path / "1"))
    two = define("two", "raw_skills_server.py", str(tmp_path / "2"))
    s = servers(one)
    sources = source_set(s)
    spec, several = sources.resolve("first", sources.over(EMPTY))
    assert spec is not None and spec.name == "one:first" and several == []
    s2 = servers(one, two)
    both = source_set(s2)
    spec, several = both.resolve("FIRST", both.over(EMPTY))
    assert spec is None and sorted(several) == ["one:first", "two:first"]
    assert both.resolve("two:first", both.over(EMPTY))[0] is not None
    assert both.resolve("nothing", both.over(EMPTY)) == (None, [])


def test_the_servers_skills_complete_after_a_slash(servers, tmp_path: Path) -> None:
    from codebot.ui.commands import complete

    s = servers(define("raw", "raw_skills_server.py", str(tmp_path / "log")))
    specs = list(source_set(s).over(EMPTY))
    assert [c.name for c in complete("raw:fi", specs, {})][:1] == ["raw:first"]
    assert "raw:first" in [c.name for c in complete("first", specs, {})]
