"""The persistent parse cache: a warm start gives exactly what a cold parse gives."""

from __future__ import annotations

import dataclasses
import json
import marshal
import os
import threading
import time
from pathlib import Path

import pytest

import codebot.skills.catalog.catalog as catalog_mod
from codebot.skills.catalog import Catalog, Index, default_path
from codebot.skills.catalog.index import read_document, write_document
from codebot.skills.files import Root, Source

RICH = """\
---
name: Release_Notes
description: Draft release notes from merged pull requests. Use when cutting a release.
when_to_use: before tagging
argument-hint: "[version] [--dry-run]"
arguments:
  version:
    type: string
    pattern: "^v[0-9]+"
    minLength: 2
    maximum: 2.5
    examples: [2024-01-02, .inf]
    required: true
    description: the tag to write notes for
  dry_run: print only
allowed-tools: Bash(git log:*) Read, Grep
disallowed-tools: [Write]
paths: ["CHANGELOG.md", "docs/**/*.{md,rst}"]
context: fork
agent: writer
model: small
effort: low
user-invocable: no
disable-model-invocation: true
license: MIT
compatibility: git >= 2.30
metadata:
  version: 1.10
  released: 2024-01-02
  tags: [release, git]
x-custom:
  nested: {a: [1, 2, {b: null}]}
  flag: true
---
# Release notes

Body text.
"""

WARNY = """\
---
name: warny
description: Usage: /warny <a|b> does a thing
context: sideways
user-invocable: maybe
---
body
"""

BROKEN = """\
---
name: broken
description: x
metadata: {unclosed: 1
---
"""

PLAIN = """\
---
description: A single-file skill.
---
Do it.
"""


@pytest.fixture(autouse=True)
def _homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEBOT_HOME", str(tmp_path / "codebot-home"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def roots(tmp_path: Path) -> list[Root]:
    a = tmp_path / "a"
    b = tmp_path / "b"
    _write(a / "release-notes" / "SKILL.md", RICH)
    _write(
        a / "release-notes" / "agents" / "openai.yaml",
        "interface:\n  display_name: Release Notes\n  short_description: notes\n"
        "policy:\n  allow_implicit_invocation: false\n",
    )
    _write(a / "warny" / "SKILL.md", WARNY)
    _write(a / "broken" / "SKILL.md", BROKEN)
    _write(a / "single.md", PLAIN)
    _write(b / "warny" / "SKILL.md", WARNY)  # shadowed by a/warny
    for i in range(5):
        _write(
            b / f"s{i}" / "SKILL.md", f"---\nname: s{i}\ndescription: skill {i}\n---\nbody {i}\n"
        )
    return [
        Root(a, Source.PROJECT, "extra", (0, 1, 0), explicit=True),
        Root(b, Source.USER, "codebot", (1, 0)),
    ]


def _count_parses(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    calls: list[Path] = []
    real = catalog_mod.parse_file

    def counting(path, *args, **kwargs):
        calls.append(Path(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(catalog_mod, "parse_file", counting)
    return calls


def _all_specs(cat: Catalog) -> dict[str, object]:
    snap = cat.snapshot
    out = {f"win:{s.key}": s for s in snap}
    out.update({f"lost:{sh.spec.path}": sh.spec for sh in snap.shadowed})
    return out


def _assert_same_catalog(warm: Catalog, cold: Catalog) -> None:
    w, c = _all_specs(warm), _all_specs(cold)
    assert w.keys() == c.keys()
    for k in c:
        for f in dataclasses.fields(c[k]):
            assert getattr(w[k], f.name) == getattr(c[k], f.name), (k, f.name)
            assert type(getattr(w[k], f.name)) is type(getattr(c[k], f.name)), (k, f.name)
        assert w[k] == c[k]
    assert warm.snapshot.diagnostics == cold.snapshot.diagnostics
    assert [(s.spec.path, s.winner.path, s.reason) for s in warm.snapshot.shadowed] == [
        (s.spec.path, s.winner.path, s.reason) for s in cold.snapshot.shadowed
    ]


def with_header(path: Path, **changes: object) -> None:
    """Rewrite the index file at `path` with its header changed."""
    magic, header, rest = path.read_bytes().split(b"\n", 2)
    fields = json.loads(header) | changes
    path.write_bytes(magic + b"\n" + json.dumps(fields).encode() + b"\n" + rest)


def test_default_path_is_under_codebot_home(tmp_path: Path) -> None:
    assert default_path() == tmp_path / "codebot-home" / "cache" / "skill-index.bin"
    assert default_path(tmp_path / "h") == tmp_path / "h" / "cache" / "skill-index.bin"


def test_warm_load_equals_cold_parse(
    roots: list[Root], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cold = Catalog(roots)
    cold.load()
    assert len(cold.snapshot) == 8  # release-notes, warny, single, s0..s4
    rel = cold.snapshot.get("release-notes")
    assert (
        rel is not None
        and rel.arguments
        and rel.extra
        and rel.metadata
        and not rel.allow_implicit_invocation
    )
    assert rel.arguments[0].schema["minLength"] == 2 and rel.metadata["version"] == "1.10"
    assert cold.snapshot.get("warny").diagnostics  # warnings survive the round trip
    assert any(d.code == "yaml-syntax" for d in cold.snapshot.diagnostics)

    path = tmp_path / "idx" / "skill-index.json"
    Catalog(roots, index=Index(path)).load()  # builds the index
    assert path.is_file()
    calls = _count_parses(monkeypatch)
    index = Index(path)
    warm = Catalog(roots, index=index)
    warm.load()
    assert calls == []
    assert index.hits == 10 and index.misses == 0  # 9 skills + 1 broken file
    _assert_same_catalog(warm, cold)
    assert warm.snapshot.get("release-notes").read_body() == "# Release notes\n\nBody text.\n"


def test_second_catalog_does_not_parse_unchanged_files(
    roots: list[Root], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "skill-index.json"
    calls = _count_parses(monkeypatch)
    Catalog(roots, index=Index(path)).load()
    assert len(calls) == 10
    calls.clear()
    second = Catalog(roots, index=Index(path))
    second.load()
    assert calls == []
    assert len(second.snapshot) == 8


def test_edited_file_is_parsed_again(
    roots: list[Root], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "skill-index.json"
    Catalog(roots, index=Index(path)).load()
    target = roots[1].path / "s3" / "SKILL.md"
    st = target.stat()
    target.write_text(
        "---\nname: s3\ndescription: edited description\n---\nnew body\n", encoding="utf-8"
    )
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))  # coarse mtime clocks

    calls = _count_parses(monkeypatch)
    index = Index(path)
    cat = Catalog(roots, index=index)
    cat.load()
    assert calls == [target]
    assert cat.snapshot.get("s3").description == "edited description"
    assert index.misses == 1

    # ... and the new result is what the next start finds.
    calls.clear()
    again = Catalog(roots, index=Index(path))
    again.load()
    assert calls == []
    assert again.snapshot.get("s3").description == "edited description"


def test_changed_openai_yaml_invalidates_the_entry(
    roots: list[Root], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "skill-index.json"
    Catalog(roots, index=Index(path)).load()
    side = roots[0].path / "release-notes" / "agents" / "openai.yaml"
    side.write_text("policy:\n  allow_implicit_invocation: true\n", encoding="utf-8")
    calls = _count_parses(monkeypatch)
    cat = Catalog(roots, index=Index(path))
    cat.load()
    assert calls == [roots[0].path / "release-notes" / "SKILL.md"]
    assert cat.snapshot.get("release-notes").allow_implicit_invocation


def test_corrupt_index_is_ignored(roots: list[Root], tmp_path: Path) -> None:
    path = tmp_path / "skill-index.json"
    for junk in (
        b"{not json",
        b"\xff\xfe\x00garbage",
        b"[1, 2, 3]",
        b'{"header": 1, "entries": []}',
        b"",
    ):
        path.write_bytes(junk)
        index = Index(path)
        cat = Catalog(roots, index=index)
        cat.load()
        assert len(cat.snapshot) == 8
        assert index.hits == 0
        # ... and is replaced by a good one.
        assert read_document(path)["entries"]


def test_malformed_entries_are_misses(roots: list[Root], tmp_path: Path) -> None:
    path = tmp_path / "skill-index.json"
    Catalog(roots, index=Index(path)).load()
    doc = read_document(path)
    for i, key in enumerate(doc["entries"]):
        doc["entries"][key] = [None, 42, "x", {"s": "nope"}][i % 4]
    write_document(path, doc)
    cold = Catalog(roots)
    cold.load()
    warm = Catalog(roots, index=Index(path))
    warm.load()
    _assert_same_catalog(warm, cold)


def test_other_version_is_ignored(
    roots: list[Root], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "skill-index.json"
    Catalog(roots, index=Index(path)).load()
    with_header(path, codebot="0.0.0-other")
    calls = _count_parses(monkeypatch)
    Catalog(roots, index=Index(path)).load()
    assert len(calls) == 10


def test_same_file_under_another_rank_is_another_entry(
    roots: list[Root], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "skill-index.json"
    Catalog(roots, index=Index(path)).load()
    moved = [dataclasses.replace(roots[0], rank=(0, 1, 5)), roots[1]]
    calls = _count_parses(monkeypatch)
    cat = Catalog(moved, index=Index(path))
    cat.load()
    assert len(calls) == 4  # the 4 files of the first root
    assert cat.snapshot.get("release-notes").root == moved[0]


def test_vanished_files_are_dropped_on_save(roots: list[Root], tmp_path: Path) -> None:
    path = tmp_path / "skill-index.json"
    Catalog(roots, index=Index(path)).load()
    assert len(read_document(path)["entries"]) == 10
    (roots[1].path / "s0" / "SKILL.md").unlink()
    (roots[1].path / "s1" / "SKILL.md").unlink()
    Catalog(roots, index=Index(path)).load()
    entries = read_document(path)["entries"]
    assert len(entries) == 8
    assert not any("/s0/" in e[0] or "/s1/" in e[0] for e in entries.values())


def test_reload_after_edit_is_saved(
    roots: list[Root], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "skill-index.json"
    index = Index(path)
    cat = Catalog(roots, index=index)
    cat.load()
    target = roots[1].path / "s2" / "SKILL.md"
    target.write_text("---\nname: s2\ndescription: changed in session\n---\n", encoding="utf-8")
    os.utime(target, ns=(time.time_ns(), time.time_ns() + 2_000_000_000))
    change = cat.reload(paths=[target])
    assert change.changed == ("s2",)
    # A later Index on the same file waits for the scheduled write.
    calls = _count_parses(monkeypatch)
    nxt = Catalog(roots, index=Index(path))
    nxt.load()
    assert calls == []
    assert nxt.snapshot.get("s2").description == "changed in session"


def test_unwritable_location_is_skipped(roots: list[Root], tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    index = Index(blocker / "cache" / "skill-index.json")  # parent is a file
    cat = Catalog(roots, index=index)
    cat.load()
    assert len(cat.snapshot) == 8
    cat.reload()


def test_write_is_atomic_and_leaves_no_temp_files(roots: list[Root], tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    index = Index(folder / "skill-index.json")
    cat = Catalog(roots, index=index)
    cat.load()
    index.flush()
    assert [p.name for p in folder.iterdir()] == ["skill-index.json"]


CORPUS = Path(__file__).resolve().parents[3].parent / "shared" / "corpus" / "skills"


@pytest.mark.corpus
@pytest.mark.skipif(not CORPUS.is_dir(), reason="no ../shared/corpus")
def test_corpus_round_trip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    roots = [
        Root(d, Source.PROJECT, "extra", (0, 1, i), explicit=True)
        for i, d in enumerate(sorted(p for p in CORPUS.iterdir() if p.is_dir()))
    ]
    cold = Catalog(roots)
    cold.load()
    path = tmp_path / "skill-index.json"
    Catalog(roots, index=Index(path)).load()
    calls = _count_parses(monkeypatch)
    warm = Catalog(roots, index=Index(path))
    warm.load()
    assert calls == []
    _assert_same_catalog(warm, cold)


def test_a_damaged_index_row_is_a_miss_not_a_crash(roots: list[Root], tmp_path: Path) -> None:
    """A cache entry with a null name used to crash every start (AttributeError)."""

    path = tmp_path / "skill-index.json"
    cold = Catalog(roots, index=Index(path))
    cold.load()
    data = read_document(path)
    for entry in data["entries"].values():
        diags, row, once = marshal.loads(entry[-1])
        if row:
            row[0] = row[1] = None  # name and key
            entry[-1] = marshal.dumps([diags, row, once])
    write_document(path, data)
    index = Index(path)
    warm = Catalog(roots, index=index)
    warm.load()
    assert index.misses >= 8  # every damaged row was parsed again
    assert sorted(s.key for s in warm.snapshot) == sorted(s.key for s in cold.snapshot)


def test_an_index_file_others_may_write_is_not_decoded(roots: list[Root], tmp_path: Path) -> None:
    """marshal is not for data from others: a file anyone else could have written is
    treated as missing (and replaced by a private one)."""
    path = tmp_path / "skill-index.bin"
    Catalog(roots, index=Index(path)).load()
    for mode in (0o666, 0o620, 0o602):
        os.chmod(path, mode)
        index = Index(path)
        Catalog(roots, index=index).load()
        assert index.hits == 0, oct(mode)
        assert path.stat().st_mode & 0o777 == 0o600  # written again, privately
    assert read_document(path) is not None


def test_a_link_or_a_fifo_at_the_index_path_is_not_read(roots: list[Root], tmp_path: Path) -> None:
    good = tmp_path / "good.bin"
    Catalog(roots, index=Index(good)).load()
    link = tmp_path / "link.bin"
    link.symlink_to(good)
    index = Index(link)
    Catalog(roots, index=index).load()
    assert index.hits == 0 and not link.is_symlink()  # replaced by a file of its own
    fifo = tmp_path / "fifo.bin"
    os.mkfifo(fifo)
    done: list[int] = []
    worker = threading.Thread(target=lambda: done.append(len(read_document(fifo) or {})))
    worker.start()
    worker.join(10)
    assert done == [0], "reading a FIFO must not wait for a writer"


def test_garbage_after_a_good_header_is_ignored(roots: list[Root], tmp_path: Path) -> None:
    path = tmp_path / "skill-index.bin"
    Catalog(roots, index=Index(path)).load()
    magic, header, rest = path.read_bytes().split(b"\n", 2)
    for tail in (b"", b"\x00", rest[: len(rest) // 2], b"\xff" * 64, marshal.dumps([1, 2])):
        path.write_bytes(magic + b"\n" + header + b"\n" + tail)
        os.chmod(path, 0o600)
        assert read_document(path) is None or read_document(path) == {"entries": {}, "dirs": {}}
        index = Index(path)
        cat = Catalog(roots, index=index)
        cat.load()
        assert len(cat.snapshot) == 8 and index.hits == 0
    for junk_header in (b"{", b"[]", b'{"format": 3}'):
        path.write_bytes(magic + b"\n" + junk_header + b"\n" + rest)
        assert read_document(path) is None


def test_the_json_index_of_the_format_before_is_removed(tmp_path: Path, roots: list[Root]) -> None:
    cache = tmp_path / "home" / "cache"
    cache.mkdir(parents=True)
    (cache / "skill-index.json").write_text('{"header": {}, "entries": {}}')
    index = Index(default_path(tmp_path / "home"))
    Catalog(roots, index=index).load()
    assert sorted(p.name for p in cache.iterdir()) == ["skill-index.bin"]


def test_a_value_the_file_cannot_hold_is_not_cached_and_breaks_nothing(
    roots: list[Root], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import codebot.skills.catalog.index as index_mod

    real = index_mod.marshal.dumps

    def refuse_release_notes(value: object, *args: object) -> bytes:
        blob = isinstance(value, list) and len(value) == 3  # an entry's blob, not the file
        if blob and "release-notes" in repr(value):
            raise ValueError("unmarshallable object")
        return real(value, *args)

    monkeypatch.setattr(index_mod.marshal, "dumps", refuse_release_notes)
    path = tmp_path / "skill-index.bin"
    cat = Catalog(roots, index=Index(path))
    cat.load()
    assert cat.snapshot.get("release-notes") is not None
    monkeypatch.setattr(index_mod.marshal, "dumps", real)
    index = Index(path)
    Catalog(roots, index=index).load()
    assert index.misses == 1 and index.hits == 9  # only that file is parsed again
