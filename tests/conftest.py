"""Fixtures shared by every test: a private home, no provider keys, a project folder, a
skill writer, the shared corpus, and `wait_until` (poll a condition instead of sleeping)."""

from __future__ import annotations

import importlib.util
import signal
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

import pytest

from codebot.agent.model import providers

T = TypeVar("T")

#: Every environment variable that could pick a provider, a key or a model for codebot:
#: codebot's own provider table (codebot/agent/model/providers.py) plus the variables
#: codebot and the OpenAI client read directly. One list for the whole suite.
PROVIDER_KEYS: tuple[str, ...] = tuple(
    sorted(
        {
            *providers.DEFAULT_MODELS,
            *providers.PROVIDER_KEYS.values(),
            *(name for names in providers.KEY_VARIABLES.values() for name in names),
            "CODEBOT_MODEL",
            "CODEBOT_API_BASE",
            "CODEBOT_API_KEY",
            "OPENAI_BASE_URL",
            "OPENAI_API_BASE",
        }
    )
)


def pytest_sessionstart(session: pytest.Session) -> None:
    """A shell without job control starts a background job (`pytest ... &`, a CI runner's
    script) with Ctrl+C (SIGINT) ignored, and every process it starts inherits that: the
    tests that press Ctrl+C in a real codebot process would then wait out their timeouts.
    A Python handler is reset to the default in a started program, so this gives those
    processes a terminal's Ctrl+C again."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


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


@pytest.fixture
def codebot_home(isolated_home: Path) -> Path:
    """$CODEBOT_HOME (`<home>/.codebot`, already made), for tests that pass it explicitly."""
    return isolated_home / ".codebot"


@pytest.fixture(autouse=True)
def no_provider_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test sees a real provider key, base URL or a model chosen in the environment
    (so no test can reach a real provider, and subprocesses inherit the clean env)."""
    for name in PROVIDER_KEYS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def provider_keys() -> tuple[str, ...]:
    """The list `no_provider_keys` removes, for tests that build a child's env by hand."""
    return PROVIDER_KEYS


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty project: `<tmp>/proj` with a `.git/` folder. A module that needs more files
    overrides it with `def project(project, ...)`, which receives this one."""
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    return proj


def _wait_until(
    predicate: Callable[[], T],
    timeout: float = 10.0,
    what: str = "the condition",
    interval: float = 0.02,
) -> T:
    """Call `predicate` until it returns something truthy and return that; fail the test
    after `timeout` seconds, naming `what` was waited for."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            pytest.fail(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(interval)


async def _async_wait_until(
    predicate: Callable[[], T],
    timeout: float = 10.0,
    what: str = "the condition",
    interval: float = 0.01,
) -> T:
    """`wait_until` for async tests: yields to the event loop between checks."""
    import asyncio

    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            pytest.fail(f"timed out after {timeout:g} s waiting for {what}")
        await asyncio.sleep(interval)


@pytest.fixture
def wait_until() -> Callable[..., object]:
    """`wait_until(pred, timeout=10, what="...")` -> pred's first truthy value, else the
    test fails."""
    return _wait_until


@pytest.fixture
def async_wait_until() -> Callable[..., object]:
    """`await async_wait_until(pred, timeout=10, what="...")`: the same, without blocking
    the loop."""
    return _async_wait_until


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


# -- the scripted OpenAI-compatible server (tests/agent/fake_openai.py), for every folder --

FAKE_OPENAI_PATH = Path(__file__).resolve().parent / "agent" / "fake_openai.py"


def _load_fake_openai() -> ModuleType:
    """tests/ is not a package: load fake_openai.py by path (once) so tests can import it too."""
    module = sys.modules.get("fake_openai")
    if module is None:
        spec = importlib.util.spec_from_file_location("fake_openai", FAKE_OPENAI_PATH)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["fake_openai"] = module
        spec.loader.exec_module(module)
    return module


@pytest.fixture
def fake_openai() -> Iterator[Any]:
    """A running fake server: `.url` (…/v1; `.anthropic_url` for /v1/messages), `.script([...])`,
    `.requests` (request bodies)."""
    server = _load_fake_openai().FakeOpenAI().start()
    try:
        yield server
    finally:
        server.stop()


#: the end of a print-mode probe: `codebot -p PROMPT --trust` in this process, then the
#: probe's `got` (a JSON object) as the last line of stderr
_PROBE_RUN = """
sys.argv = ['codebot', '-p', sys.argv[1], '--trust']
try:
    runpy.run_module('codebot', run_name='__main__')
except SystemExit:
    pass
"""


def _print_probe(
    spy: str, report: str, prompt: str, cwd: Path, home: Path
) -> tuple[Any, dict[str, Any]]:
    """Run `codebot -p prompt` as a fresh process with `spy` (code patching what the test
    watches) installed first and `report` (code setting `got`) run after; the process and
    the `got` it printed. $CODEBOT_HOME is `home`; provider keys are already cleared."""
    import json
    import os
    import subprocess

    script = (
        "import gc, json, runpy, sys\n"
        + spy
        + _PROBE_RUN
        + report
        + "\nprint(json.dumps(got), file=sys.stderr)\n"
    )
    env = {**os.environ, "CODEBOT_HOME": str(home)}
    env.pop("CODEBOT_MODEL", None)
    out = subprocess.run(
        [sys.executable, "-c", script, prompt],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    return out, json.loads(out.stderr.strip().splitlines()[-1])


@pytest.fixture
def print_probe() -> Callable[..., tuple[Any, dict[str, Any]]]:
    """`print_probe(spy, report, prompt, cwd, home)`: see `_print_probe`."""
    return _print_probe
