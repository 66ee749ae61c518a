"""Fixtures shared by every test: a private home, a skill writer, the shared corpus."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

CORPUS_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "skills"


@pytest.fixture(autouse=True)
def isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """No test may read or write the real home: HOME and CODEBOT_HOME point at tmp folders."""
    home = tmp_path_factory.mktemp("home")
    codebot_home = home / ".codebot"
    codebot_home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CODEBOT_HOME", str(codebot_home))
    # No test may find the developer's own Ollama or llama.cpp (the first-run probe).
    monkeypatch.setenv("CODEBOT_NO_PROBE", "1")
    return home


WriteSkill = Callable[..., Path]


@pytest.fixture
def write_skill() -> WriteSkill:
    """`write_skill(root, name, frontmatter_text, body)` -> path of `<root>/<name>/SKILL.md`.

    `frontmatter_text` goes between two `---` lines; pass None to write the body alone.
    `filename` picks another file name (e.g. "skill.md"); `single_file=True` writes
    `<root>/<name>.md` instead of a folder.
    """

    def write(
        root: Path,
        name: str,
        frontmatter_text: str | None = None,
        body: str = "Do the thing.\n",
        *,
        filename: str = "SKILL.md",
        single_file: bool = False,
    ) -> Path:
        if frontmatter_text is None:
            text = body
        else:
            text = f"---\n{frontmatter_text.strip(chr(10))}\n---\n{body}"
        if single_file:
            path = root / f"{name}.md"
        else:
            path = root / name / filename
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    return write


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """The shared corpus of real-world skills (one folder per source repository)."""
    if not CORPUS_DIR.is_dir():
        pytest.skip(f"../shared/corpus not present: {CORPUS_DIR}")
    return CORPUS_DIR
