"""The peer bench (issue 33 §4): one non-interactive turn "hello there" of codebot, Codex and
Claude Code, each against a local fake of its own API that answers at once, in one run.

    .venv/bin/python bench/peers.py [--sizes 0,1000,10000] [--repeats 3] [--peers-dir DIR]
                                    [--dump DIR] [--tmp DIR]

- codebot: `codebot -p "hello there" --trust --model openai/x --api-base FAKE/v1` (its real
  provider path: the direct client; `CODEBOT_WIRE=litellm` in the environment for
  litellm's) against an OpenAI chat-completions fake; skills in the project's
  `.codebot/skills`.
- Codex (npm `@openai/codex`): `codex exec --skip-git-repo-check "hello there"` with a
  custom provider (`wire_api = "responses"`) against a Responses-API fake; skills in
  `$CODEX_HOME/skills`.
- Claude Code (npm `@anthropic-ai/claude-code`): `claude -p "hello there"` with
  `ANTHROPIC_BASE_URL` at a Messages-API fake and `ANTHROPIC_API_KEY=x`; skills in
  `$CLAUDE_CONFIG_DIR/skills` (= `~/.claude/skills`).

A peer is found under `--peers-dir` (`DIR/node_modules/.bin/NAME` or `DIR/NAME`) or on PATH,
and skipped with the reason otherwise. Every agent gets its own temporary HOME (and
CODEBOT_HOME / CODEX_HOME / CLAUDE_CONFIG_DIR below it), no inherited keys, telemetry and
update checks off where there is a switch, and its fake as HTTP(S) proxy with NO_PROXY for
127.0.0.1: anything meant for the network reaches the fake, is recorded (`CONNECT host`)
and refused.

Per size, skills come from `bench/gen_skills.py` (seed 1) copied into each agent's folder.
Each round runs every agent cold (its home reset to what the bench wrote: config and
skills; for codebot an empty $CODEBOT_HOME, so no catalog or router cache) then warm (the
same again), agents interleaved and their order rotated each round. A run is the whole
process, spawn to exit: `seconds` min/median/max; `rss_mb` the peak resident memory of the
largest process of its tree (`wait4`; never below the bench's own ~25 MB, counted at
fork); `ok` whether the fake's reply reached stdout. `sent` is what the first cold and
warm runs sent (see `bench/peer_sent.py`): routes hit, and the skill listing's
characters, skills named and descriptions cut. `ratios` divide codebot's median by the
fastest peer's, among peers whose every run answered. `machine` holds `nproc` and the
load average before and after.
`--dump DIR` writes those first runs' requests (method, path, JSON body) as files. The
JSON goes to stdout once all sizes are done (progress to stderr); removing a 10,000-skill
tree afterwards takes minutes on a disk mounted with `discard`, which `--tmp /dev/shm`
avoids.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.gen_skills import generate  # noqa: E402
from bench.peer_fakes import REPLY, ChatFake, Fake, MessagesFake, ResponsesFake  # noqa: E402
from bench.peer_sent import read_skills, sent  # noqa: E402

PROMPT = "hello there"
TIMEOUT = 300.0
QUIET = {  # switches the peers document for telemetry, error reports and update checks
    "DISABLE_TELEMETRY": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DO_NOT_TRACK": "1",
}


@dataclass
class Agent:
    """One agent's setup: how to run it, where its skills go, how to make it cold."""

    name: str
    fake: Fake
    argv: list[str]
    home: Path  # its private HOME
    skills: Path  # where the bench copies the skills
    keep: list[Path]  # what a cold reset keeps (config files, the skills folder)
    env: dict[str, str] = field(default_factory=dict)
    cwd: Path | None = None
    runs: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: {"cold": [], "warm": []})

    def reset(self) -> None:
        """Remove everything under HOME the agent wrote (its caches, sessions, logs)."""
        _prune(self.home, set(self.keep))
        (self.home / "tmp").mkdir()


def _prune(folder: Path, keep: set[Path]) -> None:
    for entry in folder.iterdir():
        if entry in keep:
            continue
        if any(entry in k.parents for k in keep):
            _prune(entry, keep)
        elif entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()


def base_env(agent_root: Path, fake: Fake) -> dict[str, str]:
    """A clean environment: no inherited keys; the fake as proxy for anything not local."""
    path = os.environ.get("PATH", "/usr/bin:/bin")
    env = {"PATH": path, "LANG": "C.UTF-8", "TERM": "dumb", "TMPDIR": str(agent_root / "home/tmp")}
    for key in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        env[key] = env[key.lower()] = fake.origin
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    return env | QUIET


def find_peer(name: str, peers_dir: Path | None) -> tuple[Path | None, str]:
    """The peer's executable and how it was found, or None and why it is skipped."""
    if peers_dir is not None:
        for candidate in (peers_dir / "node_modules" / ".bin" / name, peers_dir / name):
            if os.access(candidate, os.X_OK) and candidate.is_file():
                return candidate, f"found in --peers-dir {peers_dir}"
    on_path = shutil.which(name)
    if on_path:
        return Path(on_path), "found on PATH"
    where = f"under --peers-dir {peers_dir} or " if peers_dir else ""
    return None, f"`{name}` not found {where}on PATH (npm install --prefix DIR {NPM[name]})"


NPM = {"codex": "@openai/codex", "claude": "@anthropic-ai/claude-code"}


def _home(root: Path) -> tuple[Path, Path]:
    """The agent's HOME, holding `tmp` (its TMPDIR) and `project` (its working folder)."""
    home = root / "home"
    (home / "tmp").mkdir(parents=True)
    (home / "project" / ".git").mkdir(parents=True)
    return home, home / "project"


def codebot_agent(root: Path) -> Agent:
    fake = ChatFake().start()
    home, project = _home(root)
    script = Path(sys.executable).with_name("codebot")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "codebot"]
    argv = [*command, "-p", PROMPT, "--trust", "--model", "openai/x"]
    argv += ["--api-base", fake.origin + "/v1"]
    env = base_env(root, fake) | {
        "HOME": str(home),
        "CODEBOT_HOME": str(home / ".codebot-home"),
        "OPENAI_API_KEY": "x",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "LITELLM_MODE": "PRODUCTION",
    }
    skills = project / ".codebot" / "skills"
    return Agent("codebot", fake, argv, home, skills, [project], env, project)


def codex_agent(root: Path, exe: Path) -> Agent:
    fake = ResponsesFake().start()
    home, project = _home(root)
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True)
    config = codex_home / "config.toml"
    config.write_text(
        'model = "x"\nmodel_provider = "bench"\ncheck_for_update_on_startup = false\n\n'
        "[model_providers.bench]\n"
        f'name = "bench"\nbase_url = "{fake.origin}/v1"\n'
        'env_key = "BENCH_API_KEY"\nwire_api = "responses"\n\n'
        "[analytics]\nenabled = false\n\n[feedback]\nenabled = false\n",
        encoding="utf-8",
    )
    env = base_env(root, fake) | {
        "HOME": str(home),
        "CODEX_HOME": str(codex_home),
        "BENCH_API_KEY": "x",
    }
    argv = [str(exe), "exec", "--skip-git-repo-check", PROMPT]
    skills = codex_home / "skills"
    return Agent("codex", fake, argv, home, skills, [config, skills, project], env, project)


def claude_agent(root: Path, exe: Path) -> Agent:
    fake = MessagesFake().start()
    home, project = _home(root)
    config_dir = home / ".claude"
    env = base_env(root, fake) | {
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(config_dir),
        "ANTHROPIC_BASE_URL": fake.origin,
        "ANTHROPIC_API_KEY": "x",
    }
    argv = [str(exe), "-p", PROMPT]
    skills = config_dir / "skills"
    return Agent("claude", fake, argv, home, skills, [skills, project], env, project)


def run_once(agent: Agent, out_dir: Path) -> dict[str, Any]:
    """One whole process: seconds, peak RSS of its largest process, exit code, answered."""
    out, err = out_dir / f"{agent.name}.out", out_dir / f"{agent.name}.err"
    agent.fake.take()
    with out.open("wb") as fo, err.open("wb") as fe:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            agent.argv,
            env=agent.env,
            cwd=agent.cwd,
            stdin=subprocess.DEVNULL,
            stdout=fo,
            stderr=fe,
            start_new_session=True,
        )
        status, usage, timed_out = _wait(proc)
        took = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    text = out.read_text(encoding="utf-8", errors="replace")
    result: dict[str, Any] = {
        "seconds": round(took, 3),
        "rss_mb": round(usage.ru_maxrss / 1024, 1),
        "exit": code,
        "ok": code == 0 and REPLY in text and not timed_out,
        "requests": agent.fake.take(),
    }
    if not result["ok"]:
        tail = err.read_text(encoding="utf-8", errors="replace")[-600:]
        result["error"] = ("timed out; " if timed_out else "") + tail
    return result


def _wait(proc: subprocess.Popen[bytes]) -> tuple[int, Any, bool]:
    deadline = time.monotonic() + TIMEOUT
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return status, usage, False
        if time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = -9
            return status, usage, True
        time.sleep(0.002)


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    secs = [r["seconds"] for r in runs]
    rss = [r["rss_mb"] for r in runs]
    out: dict[str, Any] = {
        "n": len(runs),
        "ok": sum(r["ok"] for r in runs),
        "min_s": min(secs),
        "median_s": round(statistics.median(secs), 3),
        "max_s": max(secs),
        "rss_mb_median": round(statistics.median(rss), 1),
        "rss_mb_max": max(rss),
    }
    errors = [r["error"] for r in runs if "error" in r]
    if errors:
        out["first_error"] = errors[0]
    return out


def measure(
    size: int,
    agents_for: Callable[[Path], list[Agent]],
    repeats: int,
    dump: Path | None,
    tmp_dir: Path | None,
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix=f"peers{size}-", dir=tmp_dir) as tmp:
        base = Path(tmp)
        source = base / "skills"
        generate(source, size, seed=1)
        skills = read_skills(source)
        agents = agents_for(base)
        try:
            for agent in agents:
                shutil.copytree(source, agent.skills)
            for rnd in range(repeats):
                order = agents[rnd % len(agents) :] + agents[: rnd % len(agents)]
                for agent in order:
                    print(f"  {size} skills, round {rnd + 1}: {agent.name}", file=sys.stderr)
                    agent.reset()
                    agent.runs["cold"].append(run_once(agent, base))
                    agent.runs["warm"].append(run_once(agent, base))
            if dump is not None:
                save(dump, size, agents)
            return report(agents, skills)
        finally:
            for agent in agents:
                agent.fake.stop()


def save(dump: Path, size: int, agents: list[Agent]) -> None:
    """The first cold and warm run's requests of each agent, as JSON files in `dump`."""
    dump.mkdir(parents=True, exist_ok=True)
    for agent in agents:
        for kind, runs in agent.runs.items():
            text = json.dumps(runs[0]["requests"], indent=1, ensure_ascii=False)
            (dump / f"{size}-{agent.name}-{kind}.json").write_text(text, encoding="utf-8")


def report(agents: list[Agent], skills: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for agent in agents:
        entry: dict[str, Any] = {"fake": agent.fake.name}
        for kind, runs in agent.runs.items():
            entry[kind] = summary(runs) | {"sent": sent(runs[0]["requests"], skills)}
        out[agent.name] = entry
    ratios: dict[str, Any] = {}
    for kind in ("cold", "warm"):
        # only peers whose every run answered count as the fastest
        peers = [a for a in out if a != "codebot" and out[a][kind]["ok"] == out[a][kind]["n"]]
        if "codebot" in out and peers:
            fastest = min(peers, key=lambda a: out[a][kind]["median_s"])
            ratios[f"{kind}_codebot_over_fastest_peer"] = round(
                out["codebot"][kind]["median_s"] / out[fastest][kind]["median_s"], 2
            )
            ratios[f"{kind}_fastest_peer"] = fastest
    out["ratios"] = ratios
    return out


def version(agent: Agent) -> str:
    try:
        done = subprocess.run(
            [agent.argv[0], "--version"],
            env=agent.env,
            cwd=agent.cwd,
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unknown ({exc})"
    return done.stdout.strip() or done.stderr.strip()[-200:]


def loadavg() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def main() -> int:
    parser = argparse.ArgumentParser(description="codebot, Codex and Claude Code: one turn each")
    parser.add_argument("--sizes", default="0,1000,10000", help="skill counts, e.g. 0,1000")
    parser.add_argument("--repeats", type=int, default=3, help="rounds per size (cold + warm)")
    parser.add_argument("--peers-dir", type=Path, help="where `npm install --prefix` put the peers")
    parser.add_argument("--dump", type=Path, help="save each agent's first requests here")
    parser.add_argument(
        "--tmp", type=Path, help="where the temporary homes go (default: the system's temp dir)"
    )
    args = parser.parse_args()
    try:
        sizes = [int(x) for x in args.sizes.split(",") if x.strip()]
    except ValueError:
        parser.error(f"--sizes: {args.sizes!r} is not a comma-separated list of skill counts")
    if args.repeats < 1 or any(n < 0 for n in sizes):
        parser.error("--repeats must be at least 1 and --sizes counts at least 0")
    if args.tmp is not None and not args.tmp.is_dir():
        parser.error(f"--tmp: {args.tmp} is not a folder")
    found = {name: find_peer(name, args.peers_dir) for name in ("codex", "claude")}
    makers = {"codex": codex_agent, "claude": claude_agent}

    def agents_for(base: Path) -> list[Agent]:
        agents = [codebot_agent(base / "codebot")]
        for name, (exe, _how) in found.items():
            if exe is not None:
                agents.append(makers[name](base / name, exe))
        return agents

    peers: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="peers-version-") as tmp:
        for agent in agents_for(Path(tmp))[1:]:
            peers[agent.name] = {"path": agent.argv[0], "version": version(agent)}
            agent.fake.stop()
    for name, (exe, how) in found.items():
        peers[name] = peers.get(name, {}) | {"found": how} if exe else {"skipped": how}
    result: dict[str, Any] = {
        "prompt": PROMPT,
        "repeats": args.repeats,
        "peers": peers,
        "machine": {"nproc": os.cpu_count(), "loadavg_before": loadavg()},
        "sizes": {},
    }
    for size in sizes:
        print(f"… {size} skills", file=sys.stderr)
        result["sizes"][str(size)] = measure(size, agents_for, args.repeats, args.dump, args.tmp)
    result["machine"]["loadavg_after"] = loadavg()
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
