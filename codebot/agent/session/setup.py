"""Assemble a session from settings: the model client, tools, approvals, transcript,
usage and traces. Shared by print mode, line mode and the TUI.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, cast, runtime_checkable

from codebot.agent.model import ModelClient
from codebot.agent.permissions import Approvals
from codebot.agent.session import events as ev
from codebot.agent.session import subagent
from codebot.agent.session.compact import Compaction, InForce
from codebot.agent.session.emit import Emit
from codebot.agent.session.instruction_source import InstructionSource
from codebot.agent.session.loop import Session
from codebot.agent.session.parts import SessionParts
from codebot.agent.session.resume import ResumeChoice, SetupError
from codebot.agent.session.transcript import (
    DamagedSession,
    Loaded,
    Transcript,
    find_sessions,
    load_state,
    new_session_id,
    read_header,
)
from codebot.config import Settings
from codebot.skills.catalog import Catalog

if TYPE_CHECKING:
    from codebot.agent.hooks import Hooks
    from codebot.agent.model.local_probe import Found
    from codebot.agent.model.offline import Matcher


@runtime_checkable
class _Matches(Protocol):
    """A client that picks skills itself (the offline model)."""

    matcher: Matcher


def select_client(settings: Settings, env: Mapping[str, str] | None = None) -> ModelClient:
    """A real model when one is configured or a provider key is present; else offline.

    Never probes for a local server (that costs up to 150 ms and is the front end's to
    offer after its first paint): see `local_servers` and `client_for`.
    """
    env = os.environ if env is None else env
    model = settings.model
    if model == "offline":
        return _offline(settings)
    if not model and settings.api_base:
        from codebot.agent.model.providers import PLACEHOLDER_MODEL

        model = PLACEHOLDER_MODEL  # the client takes the server's first listed model
    if not model:
        from codebot.agent.model import default_model_for, provider_key_present

        key = provider_key_present(env)
        if key is None:
            return _offline(settings)
        model = default_model_for(key)
    return _provider_client(model, settings.api_base, env, settings)


def _offline(settings: Settings) -> ModelClient:
    from codebot.agent.model import OfflineModel

    # the project folder and its trust decide which read-only steps it may run
    return OfflineModel(project_dir=settings.project_dir, trusted=settings.trusted)


def _provider_client(
    model: str, api_base: str | None, env: Mapping[str, str], settings: Settings | None = None
) -> ModelClient:
    from codebot.agent.model import ProviderClient

    api_key = env.get("CODEBOT_API_KEY")
    if not api_key and api_base and model.startswith("openai/") and not env.get("OPENAI_API_KEY"):
        # Local OpenAI-compatible servers rarely check the key, but the client insists on one.
        api_key = "sk-no-key-needed"
    # A ModelClient: its `context_window` is a property (looked up once, settable), which
    # the protocol's plain attribute does not express.
    requests = settings.requests if settings is not None else None
    client = ProviderClient(
        model,
        api_base=api_base,
        api_key=api_key,
        first_token_timeout=requests.first_token_timeout if requests else None,
        idle_timeout=requests.idle_timeout if requests else None,
    )
    return cast(ModelClient, client)


def local_servers(
    settings: Settings,
    env: Mapping[str, str] | None = None,
    probe: Callable[..., list[Found]] | None = None,
) -> list[Found]:
    """Local OpenAI-compatible servers to offer, for a front end to call once after its
    first paint (in a worker thread: it takes up to 150 ms). Empty, without probing, when
    a model or endpoint is configured, a provider key is set, or CODEBOT_NO_PROBE=1.

    Only loopback is asked (`local_probe.probe`); CODEBOT_PROBE_PORTS=11434,8080 replaces
    the usual ports (Ollama 11434, llama.cpp 8080, LM Studio 1234). Print mode never calls it.
    """
    from codebot.agent.model import provider_key_present

    env = os.environ if env is None else env
    if (
        settings.model
        or settings.api_base
        or provider_key_present(env)
        or env.get("CODEBOT_API_KEY")
    ):
        return []
    if env.get("CODEBOT_NO_PROBE", "").strip().lower() in ("1", "true", "yes", "on"):
        return []
    return probe_local(env, probe)


def probe_local(
    env: Mapping[str, str] | None = None, probe: Callable[..., list[Found]] | None = None
) -> list[Found]:
    """Ask the loopback ports now (CODEBOT_PROBE_PORTS, else Ollama's, llama.cpp's and
    LM Studio's), whatever is configured: `/local` probes again each time it is typed."""
    from codebot.agent.model import local_probe

    env = os.environ if env is None else env
    ports = [
        int(p)
        for p in env.get("CODEBOT_PROBE_PORTS", "").replace(" ", "").split(",")
        if p.isdigit()
    ]
    return (probe or local_probe.probe)(ports or local_probe.DEFAULT_PORTS)


def client_for(
    found: Found,
    model_id: str | None = None,
    env: Mapping[str, str] | None = None,
    settings: Settings | None = None,
) -> ModelClient:
    """The client for a server `local_servers` found: `openai/<model_id>` (its first model
    when not given) at its base URL. Assign it to `session.client` to switch."""
    return _provider_client(
        found.model_string(model_id), found.base_url, os.environ if env is None else env, settings
    )


def build_session(
    settings: Settings,
    catalog: Catalog,
    *,
    client: ModelClient | None = None,
    emit: Emit | None = None,
    interactive: bool = False,
    allow: Sequence[str] = (),
    deny: Sequence[str] = (),
    resume: ResumeChoice | None = None,
    extra_dirs: Sequence[Path] = (),
) -> Session:
    from codebot.agent.tools import ToolRegistry, builtin_tools
    from codebot.agent.tools.sandbox_scan import DeniedPaths
    from codebot.environment import added_env
    from codebot.skills.prompt import UsageTracker
    from codebot.skills.trace import Tracer

    client = client or select_client(settings)
    from codebot.skills.route import router

    # SkillSearch, preselection and the offline model share one router, set from config
    # (cheap: its index is built on first use)
    router.router_from_settings(settings, shared=True)
    if getattr(client, "offline", False) and isinstance(client, _Matches):
        # The offline model decides like the router does (same index, same thresholds).
        client.matcher = router.offline_matcher(lambda: catalog.snapshot)
    sessions_dir = settings.home / "sessions"
    notices: list[str] = list(resume.restored) if resume else []  # said first
    transcript, loaded = _resume(settings, sessions_dir, resume, client.model, notices)
    session_id = transcript.id
    approvals = Approvals(
        allow=[*settings.allow_rules, *((r, "--allow") for r in allow)],
        deny=[*settings.deny_rules, *((r, "--deny") for r in deny)],
        ask=settings.ask_rules,
    )
    session = Session(
        SessionParts(
            settings=settings,
            catalog=catalog,
            client=client,
            registry=ToolRegistry(builtin_tools()),
            approvals=approvals,
            emit=emit,
            interactive=interactive,
            transcript=transcript,
            session_id=session_id,
            history=loaded.messages if loaded else [],
            in_force=_in_force(loaded),
            last_compaction=_compaction(loaded),
            usage_tracker=UsageTracker(settings.home / "skill-usage.json"),
            tracer=Tracer(settings.home / "traces" / f"{session_id}.jsonl", session_id),
            subagents=subagent,
            hooks=hooks_for(settings, transcript, resumed=loaded is not None, notices=notices),
        )
    )
    session.toolset.instructions = InstructionSource(
        project_root=settings.project_dir,
        cwd=settings.cwd,
        home=Path.home(),
        codebot_home=settings.home,
        trusted=settings.trusted,
        agent_written=lambda: session.guard.written,
    )
    session.state.hooks.context = session.context  # hooks see the env and sandbox Bash does
    session.state.hooks.say = lambda text, level: session.emit(ev.Notice(text, level))
    transcript.notices = notices
    # Said once, as it happens, in every front end (a Notice); the turn goes on.
    transcript.on_error = lambda text: session.emit(ev.Notice(text, "warning"))
    if extra_dirs:
        session.context.extra_roots = tuple(Path(d).expanduser().resolve() for d in extra_dirs)
    from codebot.agent.session.setup_keep import keep_setup

    keep_setup(session, resumed=loaded is not None, notices=notices)
    # A Read(...) deny means the path whichever tool touches it: Grep and Glob skip it, the
    # sandbox masks it (found per rule, so it holds the rules too).
    approvals.project_dir = os.path.realpath(settings.project_dir)
    session.context.path_denied = DeniedPaths(approvals.path_denied, approvals.deny_rules)
    # Commands get no secret variables, but what the person's own config keeps or sets.
    session.context.env = added_env(os.environ, settings.shell_env)
    session.sandbox_state = apply_sandbox(session, settings)
    from codebot.agent.session.mcp_setup import attach_servers

    attach_servers(session, settings, notices)  # in the background: never waited for here
    return session


def hooks_for(
    settings: Settings, transcript: Transcript, *, resumed: bool, notices: list[str]
) -> Hooks:
    """The session's hooks (`agent/hooks/sources.py`); what cannot run because codebot's
    agent wrote its file is said at start, with what to do."""
    from codebot.agent.hooks import Hooks, collect_hooks, hooks_of
    from codebot.workspace import plugins_for

    plugins = hooks_of(plugins_for(settings))
    config = collect_hooks(
        settings.home, settings.project_dir, trusted=settings.trusted, plugins=plugins
    )
    notices.extend(config.warnings)
    said: set[str] = set()
    for hook in config.hooks:
        if hook.skipped and "codebot's agent" in hook.skipped and hook.where not in said:
            said.add(hook.where)
            notices.append(f"hooks of {hook.where} do not run: {hook.skipped}")
    hooks = Hooks(
        config,
        project_dir=settings.project_dir,
        cwd=settings.cwd,
        session_id=transcript.id,
        transcript_path=str(transcript.path),
    )
    hooks.start_pending = "resume" if resumed else "startup"
    return hooks


def _in_force(loaded: Loaded | None) -> list[InForce]:
    if loaded is None:
        return []
    return [
        InForce(
            d["key"],
            d["name"],
            d["text"],
            float(d["at"]) if isinstance(d.get("at"), int | float) else 0.0,
        )
        for d in loaded.in_force
    ]


def _compaction(loaded: Loaded | None) -> Compaction | None:
    return (
        Compaction.from_json(loaded.compaction)
        if loaded is not None and loaded.compaction
        else None
    )


def _resume(
    settings: Settings,
    sessions_dir: Path,
    resume: ResumeChoice | None,
    model: str,
    notices: list[str],
) -> tuple[Transcript, Loaded | None]:
    """The transcript to write (locked when resumed) and the history to start from.

    One process writes a session at a time. `--continue` onto a session another codebot
    has open starts a new session instead (and says so): the person wanted to go on
    working, and a second writer would corrupt the first one's history. `--resume ID` of
    a session in use is an error: an explicit id means that session or nothing.
    `--continue` skips damaged files with a warning; `--resume` of one is an error.
    """

    def fresh() -> Transcript:
        return Transcript(sessions_dir, new_session_id(), settings.project_dir, model)

    if not resume or not (resume.continue_latest or resume.session_id):
        return fresh(), None
    if resume.session_id:
        return _resume_id(settings, sessions_dir, resume.session_id, model)
    damaged: list[tuple[Path, str]] = []
    found = find_sessions(sessions_dir, settings.project_dir, damaged)
    for path, why in damaged:
        notices.append(f"skipped damaged session file {path.name}: {why}")
    for info in found:
        transcript = Transcript(sessions_dir, info.path.stem, settings.project_dir, model)
        if not transcript.claim():
            new = fresh()
            notices.append(
                f"session {info.path.stem} is in use by another codebot process; "
                f"started a new session {new.id} instead"
            )
            return new, None
        try:
            return transcript, load_state(info.path)
        except (DamagedSession, OSError) as exc:
            transcript.close()
            notices.append(f"skipped damaged session file {info.path.name}: {exc}")
    skipped = "".join(
        f"; {n}" for n in notices
    )  # an error ends the start: say what was skipped in it
    if not found:
        raise SetupError(
            f"no earlier session for {settings.project_dir} to continue{skipped}; "
            "'codebot sessions --all' lists every project's sessions"
        )
    raise SetupError(f"no session for {settings.project_dir} can be continued{skipped}")


def _resume_id(
    settings: Settings, sessions_dir: Path, session_id: str, model: str
) -> tuple[Transcript, Loaded]:
    """`--resume ID`: that session, claimed and read, or a SetupError saying why not."""
    path = sessions_dir / f"{session_id}.jsonl"
    try:
        header = read_header(path)
        if header is None:
            raise SetupError(
                f"no session {session_id!r} in {sessions_dir}; "
                "run 'codebot sessions' to list this project's sessions"
            )
        transcript = Transcript(sessions_dir, path.stem, settings.project_dir, model)
        if not transcript.claim():
            raise SetupError(
                f"session {path.stem} is in use by another codebot process; "
                "wait for it to end, or use --continue to start a new one"
            )
        try:
            return transcript, load_state(path)
        except BaseException:
            transcript.close()
            raise
    except (DamagedSession, OSError) as exc:
        raise SetupError(f"session {session_id} cannot be resumed: {exc}") from exc


def apply_sandbox(session: Session, settings: Settings) -> str:
    """Put the session's Bash calls inside bubblewrap as `settings.sandbox` says; the state
    in words (for `/sandbox` and the start-up notice)."""
    import sys

    from codebot.agent.tools.sandbox import SandboxPolicy, probe

    if settings.sandbox == "off":
        return "off: commands run without a sandbox (sandbox.mode: off or --no-sandbox)"
    found = probe() if sys.platform.startswith("linux") else None
    if found is None or not found.ok:
        why = (
            found.reason
            if found is not None
            else f"not Linux ({sys.platform}): commands are not sandboxed"
        )
        if settings.sandbox == "on":
            session.context.sandbox = UNAVAILABLE
            session.sandbox_notice = (
                f"sandbox required but unavailable ({why}): Bash calls will fail"
            )
            return (
                f"required but unavailable: {why}; "
                "Bash calls fail until it works or --no-sandbox is given"
            )
        session.sandbox_notice = f"commands are not sandboxed: {why}"
        return f"unavailable: {why}"
    from codebot.protected import home_like, project_extras

    # No project means no home: `$HOME` (a dotfiles repository there, or no git root)
    # is never a writable project, or `~/.bashrc` would be the project's to change.
    writable = not home_like(settings.project_dir)
    session.context.sandbox = SandboxPolicy(
        project=settings.project_dir,
        extra_writable=session.context.extra_roots,
        network=settings.sandbox_network,
        codebot_home=settings.home,
        project_writable=writable,
        hooks=project_extras(settings.project_dir),
        cwd=settings.cwd,
    )
    net = "network on" if settings.sandbox_network else "no network"
    if not writable:
        session.sandbox_notice = (
            f"{settings.project_dir} is your home folder (or above it), not a project: "
            "commands see it read-only; start codebot inside a project folder to work on one"
        )
        return (
            f"on: bubblewrap, the home folder read-only (not a project), {net}, denied paths masked"
        )
    return (
        f"on: bubblewrap, project writable, protected paths read-only, {net}, denied paths masked"
    )


#: `context.sandbox` when the sandbox is required and cannot run: Bash refuses to run bare.
UNAVAILABLE = "unavailable"
