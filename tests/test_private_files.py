"""Everything codebot writes under $CODEBOT_HOME is private: folders 0700, files 0600.

Each file is produced through the code path that really writes it (a session turn, the
usage tracker, the tracer, the index, the semantic cache, the prompt histories, the
`/skills` toggle, the debug log), under `os.umask(0)` so a loose umask cannot hide a
missing mode, and under an odd umask that would take the owner's bits away.
"""

from __future__ import annotations

import asyncio
import logging
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from codebot.agent.model import ScriptedModel
from codebot.agent.session import build_session
from codebot.config import load_settings
from codebot.home import codebot_home, private_dir, private_fd, private_open, private_temp
from codebot.skills.catalog import Catalog, Index
from codebot.skills.files import Root, Source
from codebot.skills.prompt import UsageTracker
from codebot.skills.trace import Tracer
from codebot.workspace import open_catalog


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@contextmanager
def umask(value: int) -> Iterator[None]:
    old = os.umask(value)
    try:
        yield
    finally:
        os.umask(old)


@pytest.fixture
def home() -> Path:
    """$CODEBOT_HOME (made by conftest), loosened the way an older codebot left it."""
    path = codebot_home()
    path.chmod(0o755)
    return path


@pytest.fixture
def project(project: Path, write_skill) -> Path:
    proj = project  # <tmp>/proj with .git/ (tests/conftest.py)
    write_skill(
        proj / ".codebot" / "skills",
        "deploy",
        "description: Deploy the app. Not for local runs.",
        "Deploy steps for $ARGUMENTS.",
    )
    return proj


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"text": "", "tool_calls": [{"name": name, "arguments": args}]}


def test_a_session_turn_leaves_only_private_files(home: Path, project: Path) -> None:
    with umask(0):
        settings = load_settings(cwd=project)
        catalog = open_catalog(settings)  # a cold start saves cache/skill-index.bin at once
        model = ScriptedModel([call("Skill", skill="deploy", args="prod"), "done"])
        session = build_session(settings, catalog, client=model)
        asyncio.run(session.run_turn("ship it with the token hunter2"))
        session.transcript.close()
    assert settings.home == home
    sid = session.transcript.id
    assert mode(home) == 0o700  # tightened from 0o755
    for folder in ("sessions", "traces", "cache"):
        assert mode(home / folder) == 0o700, folder
    files = [
        home / "sessions" / f"{sid}.jsonl",
        home / "traces" / f"{sid}.jsonl",
        home / "skill-usage.json",
        home / "cache" / "skill-index.bin",
    ]
    for f in files:
        assert f.is_file(), f
        assert mode(f) == 0o600, f
    lock = home / "skill-usage.json.lock"
    if lock.exists():  # filelock may remove it on release
        assert mode(lock) == 0o600
    assert "hunter2" in files[0].read_text()  # the reason it must be private
    leftovers = [p.name for p in (home / "cache").iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


def test_usage_file_is_private_under_any_umask(home: Path) -> None:
    for mask in (0, 0o277):
        path = home / "skill-usage.json"
        with umask(mask):
            UsageTracker(path).record("deploy")
        assert mode(path) == 0o600, oct(mask)
        assert mode(home) == 0o700


def test_tracer_creates_and_tightens(home: Path) -> None:
    traces = home / "traces"
    traces.mkdir(mode=0o755)
    traces.chmod(0o755)
    old = traces / "old.jsonl"
    old.write_text("")
    old.chmod(0o644)  # written by an earlier codebot
    with umask(0):
        for name in ("new", "old"):
            tracer = Tracer(traces / f"{name}.jsonl", name)
            tracer.emit("selected", actor="model", skill="deploy")
            assert tracer.errors == []
    assert mode(traces) == 0o700
    assert mode(traces / "new.jsonl") == 0o600
    assert mode(old) == 0o600


def test_transcript_folder_created_fresh(home: Path, project: Path) -> None:
    # No sessions/ yet, umask 0: mkdir alone would make it 0o777.
    with umask(0):
        settings = load_settings(cwd=project)
        session = build_session(settings, open_catalog(settings), client=ScriptedModel(["hi"]))
        asyncio.run(session.run_turn("hello"))
        session.transcript.close()
    assert mode(home / "sessions") == 0o700
    assert mode(home / "sessions" / f"{session.transcript.id}.jsonl") == 0o600


def test_index_save(home: Path, tmp_path: Path, write_skill) -> None:
    root = tmp_path / "skills"
    write_skill(root, "one", "description: One thing. Not for two.")
    path = home / "cache" / "skill-index.bin"
    with umask(0):
        index = Index(path)
        Catalog([Root(root, Source.PROJECT, "codebot", (0,))], index=index).load()
        index.save()
    assert mode(home / "cache") == 0o700
    assert mode(path) == 0o600


def test_semantic_cache(home: Path, tmp_path: Path, write_skill) -> None:
    np = pytest.importorskip("numpy")
    from codebot.skills.route import semantic

    root = tmp_path / "skills"
    write_skill(root, "one", "description: Resize photos. Not for video.")
    snap = Catalog([Root(root, Source.PROJECT, "codebot", (0,))]).load()

    def encoder(texts: list[str]) -> Any:
        return np.ones((len(texts), 3), dtype=np.float32) / np.sqrt(3)

    with umask(0):
        scorer = semantic.EmbeddingScorer("fake", home / "cache", encoder=encoder)
        scorer.score("resize", list(snap))
    assert scorer.cache_file is not None and scorer.cache_file.is_file()
    assert mode(scorer.cache_file) == 0o600
    assert mode(home / "cache") == 0o700
    assert [p.name for p in (home / "cache").iterdir()] == [scorer.cache_file.name]  # no temp left
    again = semantic.EmbeddingScorer("fake", home / "cache", encoder=encoder)
    again._load_cache()
    assert len(again._vectors) == len(scorer._vectors)  # still a readable .npz


def test_tui_history(home: Path) -> None:
    from codebot.ui.tui.history import History

    with umask(0):
        History(home / "history").append("export TOKEN=hunter2")
    assert mode(home / "history") == 0o600
    assert mode(home) == 0o700


def test_line_history(home: Path) -> None:
    from codebot.ui.line.input import open_history

    path = home / "line-history"
    path.write_text("")
    path.chmod(0o644)
    with umask(0):
        history = open_history(path)
        history.append_string("export TOKEN=hunter2")
    assert "hunter2" in path.read_text()
    assert mode(path) == 0o600


def test_skills_toggle_writes_private_config(home: Path, project: Path) -> None:
    from codebot.ui.controller import Controller

    (home / "config.yaml").write_text("skills: {}\n")
    (home / "config.yaml").chmod(0o644)
    with umask(0):
        ctrl = Controller(load_settings(cwd=project), client=ScriptedModel([]), interactive=True)
        try:
            ctrl.set_override("deploy", "off", everywhere=True)
            ctrl.set_override("review", "off")  # the project's own file
        finally:
            ctrl.close()
    assert "deploy: 'off'" in (home / "config.yaml").read_text()
    assert mode(home / "config.yaml") == 0o600
    assert not [p for p in home.iterdir() if p.name.startswith(".config.")]
    local = project / ".codebot" / "config.local.yaml"
    assert "review: 'off'" in local.read_text() and mode(local) == 0o600
    assert [p.name for p in local.parent.iterdir() if p.name.endswith(".tmp")] == []


def test_debug_log(home: Path) -> None:
    from codebot.ui.tui import _log_to

    logger = logging.getLogger("codebot")
    saved = (list(logger.handlers), logger.level, logger.propagate)
    try:
        with umask(0):
            _log_to(home / "debug.log")
        assert mode(home / "debug.log") == 0o600
    finally:
        for h in logger.handlers:
            if h not in saved[0]:
                logger.removeHandler(h)
                h.close()
        logger.setLevel(saved[1])
        logger.propagate = saved[2]


# -- the helpers themselves ----------------------------------------------------------------


def test_existing_home_is_tightened_but_not_the_person_s_home(home: Path) -> None:
    user_home = home.parent
    user_home.chmod(0o755)
    with umask(0):
        private_dir(home / "sessions")
    assert mode(home) == 0o700
    assert mode(home / "sessions") == 0o700
    assert mode(user_home) == 0o755


def test_only_codebot_s_own_folders_are_tightened(home: Path) -> None:
    other = home / "plugins"  # not one of sessions/traces/cache: not ours to chmod
    other.mkdir()
    other.chmod(0o755)
    (home / "cache").mkdir()
    (home / "cache").chmod(0o750)
    with umask(0):
        private_dir(other / "x")
        private_dir(home / "cache")
    assert mode(other) == 0o755
    assert mode(other / "x") == 0o700  # made by codebot for its own file
    assert mode(home / "cache") == 0o700


def test_a_missing_home_is_made_private_and_its_parents_left_alone(
    tmp_path: Path, monkeypatch
) -> None:
    home = tmp_path / "a" / "b" / ".codebot"
    monkeypatch.setenv("CODEBOT_HOME", str(home))
    with umask(0o022):
        private_dir(home / "traces")
    assert mode(home) == 0o700 and mode(home / "traces") == 0o700
    assert mode(tmp_path / "a") == 0o755 and mode(tmp_path / "a" / "b") == 0o755


def test_odd_umask_cannot_change_the_modes(home: Path) -> None:
    with umask(0o277):  # would leave u-w on files and folders
        folder = private_dir(home / "cache" / "deep")
        os.close(private_fd(folder / "f"))
        with private_open(folder / "g", "w", encoding="utf-8") as fh:
            fh.write("x")
        fd, tmp = private_temp(folder, prefix=".t.", suffix=".tmp")
        os.close(fd)
    assert mode(home / "cache") == 0o700 and mode(folder) == 0o700
    assert mode(folder / "f") == 0o600 and mode(folder / "g") == 0o600 and mode(Path(tmp)) == 0o600


def test_private_open_truncates_and_appends(tmp_path: Path) -> None:
    path = tmp_path / "f"
    with private_open(path, "w", encoding="utf-8") as fh:
        fh.write("one\n")
    with private_open(path, "a", encoding="utf-8") as fh:
        fh.write("two\n")
    assert path.read_text() == "one\ntwo\n"
    with private_open(path, "wb") as fh:
        fh.write(b"three\n")
    assert path.read_bytes() == b"three\n"


def test_private_dir_on_a_file_raises(home: Path) -> None:
    (home / "cache").write_text("not a folder")
    with pytest.raises(OSError):
        private_dir(home / "cache")
