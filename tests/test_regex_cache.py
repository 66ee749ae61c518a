"""codebot.regex_cache: compiled programs kept between processes, never changing a match.

Every test uses its own `Store` on a file in its temporary folder; none writes beside the
package (the shared store writes only at exit, and `sys.dont_write_bytecode` is honoured).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from codebot import regex_cache
from codebot.regex_cache import Store

PATTERNS = [
    (r"\b(?:thanks?|danke|merci|gracias)\b", re.IGNORECASE),
    (r"(?P<old>\w+)\s+(?:to|->)\s+(?P<new>\w+)", 0),
    (r"(?i)caf[eé]\s+(?=au\s+lait)", 0),
    (r"(?<![A-Za-z0-9_])[A-Z][A-Z0-9]*_[A-Z0-9_]+(?![A-Za-z0-9_])", 0),
    (r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]+", 0),
    (r"^\s*(?:hi|hello)\b.*$", re.MULTILINE | re.DOTALL),
    (r"(a|b)*?c{2,5}", re.VERBOSE),
]
TEXTS = [
    "Thanks! rename foo to bar",
    "caf\u00e9 au lait, CAFE au lait",
    "set MAX_RETRIES to 5 in config.py",
    "\u4f60\u597d\u4e16\u754c \u3053\u3093\u306b\u3061\u306f",
    "  hello\nthere\n hi again",
    "ababcccc abcc c",
    "",
]


def _same(a: re.Pattern[str], b: re.Pattern[str]) -> None:
    assert (a.pattern, a.flags, a.groups, a.groupindex) == (
        b.pattern,
        b.flags,
        b.groups,
        b.groupindex,
    )
    for text in TEXTS:
        assert [m.span() for m in a.finditer(text)] == [m.span() for m in b.finditer(text)]
        assert [m.groups() for m in a.finditer(text)] == [m.groups() for m in b.finditer(text)]


def _kept(where: Path) -> dict:
    """What a new store reads from `where`."""
    store = Store(where)
    store._load()
    return store.entries


def _filled(where: Path) -> Store:
    store = Store(where)
    for pattern, flags in PATTERNS:
        _same(store.compile(pattern, flags), re.compile(pattern, flags))
    assert store.save(force=True)
    return store


def _no_parse(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make `re`'s parser record every call: a kept program never reaches it."""
    from re import _parser

    calls: list[str] = []
    real = _parser.parse

    def parse(p: str, flags: int = 0):
        calls.append(p)
        return real(p, flags)

    monkeypatch.setattr(_parser, "parse", parse)
    return calls


def test_a_kept_program_matches_as_re_compile_does(tmp_path, monkeypatch):
    where = tmp_path / "kept.bin"
    _filled(where)
    calls = _no_parse(monkeypatch)
    again = Store(where)
    for pattern, flags in PATTERNS:
        _same(again.compile(pattern, flags), re.compile(pattern, flags))
    assert calls == [], "a pattern was parsed again although its program was kept"
    assert not again.save(force=True), "nothing new: nothing is written"


def test_the_kept_programs_are_what_the_compiler_makes(tmp_path):
    """Bit for bit, for every pattern the router compiles at import: what the file holds
    is `re._compiler._code` of the pattern, under the same flags."""
    from re import _compiler, _parser

    import codebot.skills.route.warmup  # noqa: F401  (fills the shared store)

    store = regex_cache._STORE
    assert len(store.entries) > 700
    where = tmp_path / "router.bin"
    where.write_bytes(regex_cache._dump(store.entries, store.code))
    got = regex_cache._parse(where.read_bytes())
    assert got is not None
    entries, code = got
    for (pattern, flags), (final, start, length, groups, index, names) in entries.items():
        parsed = _parser.parse(pattern, flags)
        assert code[start : start + length].tolist() == list(_compiler._code(parsed, flags))
        assert (final, groups, index) == (
            flags | parsed.state.flags,
            parsed.state.groups - 1,
            dict(parsed.state.groupdict),
        )
        assert len(names) == parsed.state.groups


@pytest.mark.parametrize(
    "spoil",
    [
        lambda b: b"not a cache\n" + b,
        lambda b: b[: len(b) // 2],
        lambda b: b[:-1],
        lambda b: b[:30],
        lambda b: b"",
        lambda b: regex_cache._FORMAT + b"\xff\xff\xff\x7f{",
    ],
    ids=["format", "half", "odd-length-code", "header-cut", "empty", "huge-header"],
)
def test_a_spoiled_file_is_passed_over(tmp_path, spoil):
    where = tmp_path / "kept.bin"
    _filled(where)
    where.write_bytes(spoil(where.read_bytes()))
    store = Store(where)
    for pattern, flags in PATTERNS:
        _same(store.compile(pattern, flags), re.compile(pattern, flags))
    assert store.save(force=True)  # compiled afresh, so written again whole
    assert len(_kept(where)) == len(PATTERNS)


def _rewrite_head(where: Path, change) -> None:
    data = where.read_bytes()
    at = len(regex_cache._FORMAT)
    size = int.from_bytes(data[at : at + 4], "little")
    head = json.loads(data[at + 4 : at + 4 + size])
    change(head)
    new = json.dumps(head).encode()
    where.write_bytes(data[:at] + len(new).to_bytes(4, "little") + new + data[at + 4 + size :])


@pytest.mark.parametrize(
    "change",
    [
        lambda h: h["identity"].update(hexversion=h["identity"]["hexversion"] + 1),
        lambda h: h["identity"].update(magic=1),
        lambda h: h["identity"].update(byteorder="middle"),
        lambda h: h["entries"][0].__setitem__(3, 10**9),  # a slice past the code
        lambda h: h["entries"][0].__setitem__(0, 5),  # a pattern that is no text
        lambda h: h.update(entries="x"),
        lambda h: h["entries"][1].__setitem__(6, {"old": "1"}),  # a group number as text
        lambda h: h["entries"][1].__setitem__(7, [None, 3, "new"]),  # a group name as a number
    ],
    ids=[
        "other-python",
        "other-engine",
        "byte-order",
        "past-the-code",
        "not-text",
        "no-list",
        "group-number",
        "group-name",
    ],
)
def test_a_file_of_another_interpreter_or_malformed_is_passed_over(tmp_path, change):
    where = tmp_path / "kept.bin"
    _filled(where)
    _rewrite_head(where, change)
    assert _kept(where) == {}


def test_a_program_the_engine_refuses_is_compiled_afresh(tmp_path):
    """`_sre` checks each program it is given: nonsense in the code is refused there, and
    the pattern is compiled as `re` would."""
    where = tmp_path / "kept.bin"
    _filled(where)
    data = bytearray(where.read_bytes())
    at = len(regex_cache._FORMAT)
    size = int.from_bytes(data[at : at + 4], "little")
    code_at = at + 4 + size
    data[code_at:] = b"\xff\xff\x00\x00" * ((len(data) - code_at) // 4)
    where.write_bytes(bytes(data))
    store = Store(where)
    assert len(_kept(where)) == len(PATTERNS)
    for pattern, flags in PATTERNS:
        _same(store.compile(pattern, flags), re.compile(pattern, flags))


def test_a_file_others_may_write_a_link_or_a_fifo_is_not_read(tmp_path):
    where = tmp_path / "kept.bin"
    _filled(where)
    assert _kept(where)
    os.chmod(where, 0o666)
    assert _kept(where) == {}, "a file others may write is read"
    os.chmod(where, 0o644)
    link = tmp_path / "link.bin"
    link.symlink_to(where)
    assert _kept(link) == {}, "a link is followed"
    fifo = tmp_path / "fifo.bin"
    os.mkfifo(fifo)
    done: list[dict] = []
    t = threading.Thread(target=lambda: done.append(_kept(fifo)), daemon=True)
    t.start()
    t.join(timeout=30)
    assert done == [{}], "a FIFO was waited on"


def test_a_file_over_the_size_bound_is_not_read(tmp_path, monkeypatch):
    where = tmp_path / "kept.bin"
    _filled(where)
    monkeypatch.setattr(regex_cache, "MAX_BYTES", where.stat().st_size - 1)
    assert _kept(where) == {}


def test_dont_write_bytecode_is_honoured(tmp_path, monkeypatch):
    where = tmp_path / "kept.bin"
    store = Store(where)
    store.compile(r"x+y", 0)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    assert not store.save()
    assert not where.exists()
    assert store.save(force=True)
    assert where.exists()


def test_what_re_alone_compiles_is_not_kept(tmp_path, capsys):
    """DEBUG prints the program as it compiles: that is `re`'s own compile, never kept."""
    store = Store(tmp_path / "kept.bin")
    assert store.compile("d+", re.DEBUG).match("ddd")
    assert "MAX_REPEAT" in capsys.readouterr().out
    assert store.entries == {}
    assert not store.save(force=True)


def test_an_old_file_is_pruned_to_what_is_used(tmp_path, monkeypatch):
    where = tmp_path / "kept.bin"
    monkeypatch.setattr(regex_cache, "MAX_ENTRIES", 5)
    old = Store(where)
    for i in range(8):
        old.compile(f"old{i}", 0)
    assert old.save(force=True)
    assert len(_kept(where)) == 8  # not pruned by the process that used them
    now = Store(where)
    now.compile("old1", 0)
    now.compile("new", 0)
    assert now.save(force=True)
    assert set(_kept(where)) == {("old1", 0), ("new", 0)}


def test_two_processes_at_once_leave_a_whole_file(tmp_path):
    """Writers rename a whole file over the old one: whatever order they end in, the file
    read after is whole (a writer that read another's file keeps its patterns too), and
    every pattern in it compiles as `re` does."""
    where = tmp_path / "kept.bin"
    script = (
        "import sys; from pathlib import Path; from codebot.regex_cache import Store\n"
        "s = Store(Path(sys.argv[1]))\n"
        "for i in range(300): s.compile(f'{sys.argv[2]}{i}[a-z]+', 0)\n"
        "s.save(force=True)\n"
    )
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    procs = [
        subprocess.Popen([sys.executable, "-c", script, str(where), tag], env=env)
        for tag in ("a", "b", "c")
    ]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    entries = _kept(where)
    tags = {pattern[0] for pattern, _ in entries}
    assert tags, "no file was left"
    for tag in tags:  # a writer's patterns are all there or none: each file was whole
        assert {p for p, _ in entries if p[0] == tag} == {f"{tag}{i}[a-z]+" for i in range(300)}
    store = Store(where)
    for pattern, flags in entries:
        _same(store.compile(pattern, flags), re.compile(pattern, flags))
    assert [p.name for p in tmp_path.iterdir()] == ["kept.bin"], "a temporary file was left"


def test_the_shared_store_lives_beside_the_bytecode():
    where = regex_cache.path()
    assert where is not None
    import importlib.util

    pyc = Path(importlib.util.cache_from_source(regex_cache.__file__))
    assert where.parent == pyc.parent
    assert where.name.startswith(pyc.stem + ".re")
