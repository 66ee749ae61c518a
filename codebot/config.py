"""Settings: `$CODEBOT_HOME/config.yaml`, then `<project>/.codebot/config.yaml`, then
environment, then command-line flags (later wins).

The project layer is filtered by trust (`project_config`): an untrusted project may set
only harmless keys. Deny rules of every layer are combined, never replaced. Skill
overrides are read from each file on its own and combined by `combine_overrides`, with
the project's personal `.codebot/config.local.yaml` (what `/skills off NAME` writes) as a
third layer, of which only `skills.overrides` is read.
A broken config file never stops codebot: it is reported (file and reason) and skipped.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from codebot.environment import ShellEnv, read_shell_env
from codebot.home import codebot_home
from codebot.model_config import ModelSettings, read_model_settings
from codebot.skills.prompt.listing import MIN_BUDGET, ListingOptions
from codebot.workflow_config import WorkflowSettings, read_workflow_settings

OVERRIDE_VALUES = ("on", "off", "user-only", "model-only", "name-only")
#: The project's personal settings (not committed): the skill toggles of `/skills`.
LOCAL_CONFIG = (".codebot", "config.local.yaml")
#: The largest config file read; a bigger one is reported and skipped, not loaded.
MAX_CONFIG_BYTES = 1024 * 1024
#: Upper bounds of the numeric settings. A huge value (`.inf`, 1e308) would otherwise
#: overflow later (`int(inf)`) or make a wait effectively endless.
NUMBER_CAPS: Mapping[str, float] = MappingProxyType(
    {
        "budget": 1_000_000,
        "line": 10_000,
        "when": 10_000,
        "fork_depth": 10,
        "shell_timeout": 600.0,
        "preselect": 10_000,
        "skill_tokens": 1_000_000,
        "skills_tokens": 1_000_000,
        "model_context_window": 100_000_000,
        "turn_requests": 100_000,
        "turn_tokens": 1_000_000_000,
        "turn_seconds": 86_400.0,
    }
)


@dataclass(frozen=True)
class TurnLimits:
    """`limits:` in the config: what one turn may spend, the session and every fork or
    Task sub-agent it starts together (agent/session/budget.py, docs/security.md)."""

    turn_requests: int = 200  # model requests
    turn_tokens: int = 4_000_000  # input + output tokens of those requests
    turn_seconds: float = 3600.0  # wall time, less the time spent waiting for your answers


@dataclass(frozen=True)
class CompactionSettings:
    """`compaction:` in the config (docs/sessions.md). Budgets are in tokens."""

    auto: bool = True
    threshold: float = 0.85  # of the context window, before a request is sent
    skill_tokens: int = 5000  # one skill re-attached after compaction
    skills_tokens: int = 25000  # all re-attached skills together


@dataclass(frozen=True)
class Settings:
    home: Path
    cwd: Path
    project_dir: Path
    skills_dirs: tuple[Path, ...] = ()
    # Those of `skills_dirs` given as --skills-dir (or restored from a resumed session):
    # what a session records, the config's `skills.dirs` being found again anyway.
    skills_dirs_given: tuple[Path, ...] = ()
    # Claude Code plugin folders given as --plugin-dir (or restored), and whether the
    # project root's own plugin loads (accepted, or a trusted folder): workspace.plugins_for.
    plugin_dirs: tuple[Path, ...] = ()  # --plugin-dir, then config `plugins.dirs`
    plugin_dirs_given: tuple[Path, ...] = ()  # those given as --plugin-dir: recorded
    project_plugin: bool = False
    mcp_configs: tuple[Path, ...] = ()  # --mcp-config files: their servers, for this run
    model: str | None = None
    api_base: str | None = None
    overrides: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))  # in force
    # Each file's own `skills.overrides` (`combine_overrides` makes `overrides` of them).
    user_overrides: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    shared_overrides: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    local_overrides: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    # The defaults here (and in CompactionSettings, TurnLimits) are the only ones:
    # `load_settings` reads them when a key is missing or invalid.
    listing_budget: int | None = None  # characters; None: 1% of the window, at least MIN_BUDGET
    listing_line: int = ListingOptions.line_max
    listing_when: int = ListingOptions.when_max
    fork_depth: int = 2
    shell_timeout: float = 120.0
    use_index: bool = True
    preselect: int = 0  # >0: list only the top-K routed skills each turn (huge catalogs)
    raw: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    warnings: tuple[str, ...] = ()
    # Whether the person trusted the project folder (or passed --trust for this run).
    trusted: bool = False
    # Permission rules from the config layers as (pattern, where it was written).
    allow_rules: tuple[tuple[str, str], ...] = ()
    deny_rules: tuple[tuple[str, str], ...] = ()
    ask_rules: tuple[tuple[str, str], ...] = ()  # permissions.ask: asked even when allowed
    # The Bash sandbox (bubblewrap): "auto" (on where bwrap works), "on" (required) or "off".
    sandbox: str = "auto"
    sandbox_network: bool = False
    # The model's context window when the config names it (`model_context_window`): per
    # model name, and one number for any model litellm does not know.
    context_windows: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    context_window: int | None = None
    compaction: CompactionSettings = field(default_factory=lambda: CompactionSettings())
    limits: TurnLimits = field(default_factory=TurnLimits)
    requests: ModelSettings = field(default_factory=ModelSettings)
    # `shell.env` of the person's own config (never a project's): variables commands keep or get.
    shell_env: ShellEnv = field(default_factory=ShellEnv)
    workflow: WorkflowSettings = field(default_factory=WorkflowSettings)  # `workflow:`

    @property
    def config_path(self) -> Path:
        return self.home / "config.yaml"

    @property
    def local_config_path(self) -> Path:
        return self.project_dir.joinpath(*LOCAL_CONFIG)


#: Settings a project's config may lower and never raise, with their defaults: a value
#: above yours (or the default) is ignored with a warning naming the key and the file.
LOWER_ONLY: Mapping[tuple[str, str], float] = MappingProxyType(
    {
        ("skills", "fork_depth"): Settings.fork_depth,
        ("limits", "turn_requests"): TurnLimits.turn_requests,
        ("limits", "turn_tokens"): TurnLimits.turn_tokens,
        ("limits", "turn_seconds"): TurnLimits.turn_seconds,
    }
)


def _read_yaml(path: Path, warnings: list[str]) -> dict[str, Any]:
    # `read_regular` opens with O_NONBLOCK and checks the descriptor: a FIFO or a link to
    # /dev/tty at `.codebot/config.yaml` (a cloned repository can hold one) would make a
    # plain read wait forever.
    from codebot.skills.files.safe_read import NotRegularFile, read_regular

    try:
        text = read_regular(path, MAX_CONFIG_BYTES).decode("utf-8")
    except FileNotFoundError:
        return {}
    except NotRegularFile as exc:
        warnings.append(f"config {exc}; ignoring it")
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        warnings.append(f"{path}: cannot read config ({exc}); ignoring it")
        return {}
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark else ""
        warnings.append(
            f"{path}{where}: config is not valid YAML ({getattr(exc, 'problem', exc)}); ignoring it"
        )
        return {}
    if data is None:
        return {}
    if not isinstance(data, dict):
        warnings.append(f"{path}: config must be a mapping of settings; ignoring it")
        return {}
    return data


def _agent_written(home: Path, project: Path, warnings: list[str]) -> set[str]:
    """Project-relative paths codebot's agent wrote and the person has not accepted."""
    from codebot.provenance import Provenance

    store = Provenance(home, project)
    marked = set(store.marked())
    if store.warning:
        warnings.append(store.warning)
    return marked


def _section(cfg: Mapping[str, Any], key: str) -> dict[str, Any]:
    """`cfg[key]` when it is a mapping (a section of the YAML file), else an empty one."""
    value = cfg.get(key)
    return value if isinstance(value, dict) else {}


def _denies_only(cfg: dict[str, Any]) -> dict[str, Any]:
    perms = _section(cfg, "permissions")
    return {"permissions": {"deny": perms["deny"]}} if "deny" in perms else {}


def _merge(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in top.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def _compaction(raw: Mapping[str, Any], warnings: list[str]) -> CompactionSettings:
    """The `compaction:` section, each bad value replaced by its default with a warning."""
    comp = _section(raw, "compaction")
    cs = CompactionSettings  # its class attributes are the defaults
    threshold = comp.get("threshold", cs.threshold)
    if (
        isinstance(threshold, bool)
        or not isinstance(threshold, int | float)
        or not 0.1 <= threshold <= 0.99
    ):
        warnings.append(
            f"config compaction.threshold: {threshold!r} is not a fraction between 0.1 and 0.99 "
            f"({cs.threshold} means {cs.threshold:.0%} of the context window); using {cs.threshold}"
        )
        threshold = cs.threshold
    return CompactionSettings(
        auto=comp.get("auto", cs.auto) is not False,
        threshold=float(threshold),
        skill_tokens=_number(comp, "skill_tokens", cs.skill_tokens, "compaction", warnings),
        skills_tokens=_number(comp, "skills_tokens", cs.skills_tokens, "compaction", warnings),
    )


def load_settings(
    cwd: Path | None = None,
    skills_dirs: tuple[Path, ...] = (),
    model: str | None = None,
    api_base: str | None = None,
    env: Mapping[str, str] | None = None,
    trust: bool = False,
) -> Settings:
    """`trust=True` trusts the project for this run only (`--trust`)."""
    from codebot import trust as trust_store
    from codebot.project_config import (
        combine_overrides,
        drop_user_only,
        filter_untrusted,
        in_force,
        permission_rules,
    )
    from codebot.skills.catalog import project_root

    env = os.environ if env is None else env
    home = codebot_home(env)
    cwd = (cwd or Path.cwd()).resolve()
    project = project_root(cwd)
    warnings: list[str] = []
    entries, trust_warnings = trust_store.load(home)
    warnings.extend(trust_warnings)  # a damaged trust store is said, and trusts nothing
    # A trusted path holding another folder now (moved there, re-cloned) is not trusted, and says
    # so.
    entry, why_not = trust_store.check(home, project) if entries else (None, None)
    if why_not and not trust:
        warnings.append(why_not)
    trusted = trust or entry is not None
    user_path, project_path = home / "config.yaml", project / ".codebot" / "config.yaml"
    user_cfg = _read_yaml(user_path, warnings)
    project_cfg, user_only = drop_user_only(_read_yaml(project_path, warnings))
    if user_only:
        warnings.append(
            f"{project_path}: {', '.join(user_only)} is read only from your own config "
            f"({user_path}), never from a project's; ignoring it"
        )
    marked = _agent_written(home, project, warnings)
    if project_cfg and ".codebot/config.yaml" in marked:
        project_cfg = _denies_only(project_cfg)
        warnings.append(
            f"{project_path} was written by codebot's agent and is not accepted yet, so its "
            "settings "
            "were ignored (its deny rules still hold); review it with `codebot written` and accept "
            "it "
            "with `codebot written --accept .codebot/config.yaml`"
        )
    if project_cfg and not trusted:
        project_cfg, dropped = filter_untrusted(project_cfg, project)
        if dropped:
            warnings.append(
                f"{project_path}: this project is not trusted, so these settings were ignored: "
                f"{', '.join(dropped)} (run `codebot trust` to use them)"
            )
    project_cfg = _lower_only(user_cfg, project_cfg, project_path, warnings)
    layers = ((user_cfg, str(user_path), True), (project_cfg, str(project_path), trusted))
    allow_rules, deny_rules, ask_rules = permission_rules(layers, warnings)
    raw = _merge(user_cfg, project_cfg)
    # The merged view says what is in force: every layer's denies, never one layer's list.
    raw["permissions"] = in_force(allow_rules, deny_rules, ask_rules)
    skills_cfg = _section(raw, "skills")
    local_path = project.joinpath(*LOCAL_CONFIG)
    local_cfg = {} if "/".join(LOCAL_CONFIG) in marked else _read_local(local_path, warnings)
    layers = [read_overrides(cfg, warnings) for cfg in (user_cfg, project_cfg, local_cfg)]
    overrides = combine_overrides(*layers, trusted=trusted)
    cfg_dirs = tuple(
        (project / Path(str(d)).expanduser())
        for d in (skills_cfg.get("dirs") or [])
        if isinstance(d, str)
    )
    listing = _section(skills_cfg, "listing")
    limits = _section(raw, "limits")

    def num(mapping: Mapping[str, Any], key: str, default: float, where: str = "skills") -> Any:
        return _number(mapping, key, default, where, warnings)

    sandbox_mode = _sandbox_mode(raw, warnings)
    windows, window = _context_windows(raw.get("model_context_window"), warnings)
    compaction = _compaction(raw, warnings)
    requests = read_model_settings(raw, warnings)
    workflow = read_workflow_settings(raw, warnings)
    return Settings(
        home=home,
        cwd=cwd,
        project_dir=project,
        skills_dirs=tuple(Path(d).expanduser().resolve() for d in skills_dirs) + cfg_dirs,
        skills_dirs_given=tuple(Path(d).expanduser().resolve() for d in skills_dirs),
        model=model
        or env.get("CODEBOT_MODEL")
        or (str(raw["model"]) if raw.get("model") else None),
        api_base=api_base
        or env.get("CODEBOT_API_BASE")
        or (str(raw["api_base"]) if raw.get("api_base") else None),
        overrides=MappingProxyType(overrides),
        user_overrides=MappingProxyType(layers[0]),
        shared_overrides=MappingProxyType(layers[1]),
        local_overrides=MappingProxyType(layers[2]),
        listing_budget=num(listing, "budget", MIN_BUDGET, "skills.listing")
        if "budget" in listing
        else None,
        listing_line=num(listing, "line", Settings.listing_line, "skills.listing"),
        listing_when=num(listing, "when", Settings.listing_when, "skills.listing"),
        fork_depth=num(skills_cfg, "fork_depth", Settings.fork_depth),
        shell_timeout=num(skills_cfg, "shell_timeout", Settings.shell_timeout),
        use_index=bool(skills_cfg.get("index", Settings.use_index)),
        preselect=int(num(skills_cfg, "preselect", Settings.preselect))
        if skills_cfg.get("preselect")
        else Settings.preselect,
        raw=MappingProxyType(raw),
        warnings=tuple(warnings),
        trusted=trusted,
        sandbox=sandbox_mode,
        sandbox_network=bool(raw.get("sandbox", {}).get("network") is True)
        if isinstance(raw.get("sandbox"), dict)
        else False,
        allow_rules=tuple(allow_rules),
        deny_rules=tuple(deny_rules),
        ask_rules=tuple(ask_rules),
        context_windows=MappingProxyType(windows),
        context_window=window,
        compaction=compaction,
        requests=requests,
        shell_env=read_shell_env(user_cfg, str(user_path), warnings),
        workflow=workflow,
        limits=TurnLimits(
            *(
                num(limits, key, getattr(TurnLimits, key), "limits")
                for key in ("turn_requests", "turn_tokens", "turn_seconds")
            )
        ),
    )


def _number(
    mapping: Mapping[str, Any], key: str, default: float, where: str, warnings: list[str]
) -> Any:
    """`mapping[key]` when it is a finite positive number under its cap, else `default`
    (with a warning naming `where.key`)."""
    value = mapping.get(key, default)
    cap = NUMBER_CAPS[key]
    name = f"{where}.{key}"
    # NaN compares false with everything and inf overflows int(): both are refused here.
    if (
        not isinstance(value, int | float)
        or isinstance(value, bool)
        or not math.isfinite(value)
        or value <= 0
    ):
        warnings.append(
            f"config {name}: {value!r} is not a finite positive number; using the default {default}"
        )
        return default
    if value > cap:
        warnings.append(
            f"config {name}: {value!r} is more than the largest allowed ({cap:g}); "
            f"using the default {default}"
        )
        return default
    if isinstance(default, int) and value < 1:
        warnings.append(f"config {name}: {value!r} is less than 1; using the default {default}")
        return default
    return type(default)(value)


def _lower_only(
    user_cfg: Mapping[str, Any], project_cfg: dict[str, Any], where: Path, warnings: list[str]
) -> dict[str, Any]:
    """The project's config without the LOWER_ONLY values that are not a valid number at
    most yours: a cloned repository may make sub-agents nest less or a turn spend less,
    never more. A trusted project's config is held to this as well."""
    out = dict(project_cfg)
    for (section, key), default in LOWER_ONLY.items():
        theirs = out.get(section)
        if not isinstance(theirs, Mapping) or key not in theirs:
            continue
        mine = user_cfg.get(section)
        mine = mine if isinstance(mine, Mapping) else {}
        ceiling = _number(mine, key, default, section, [])
        value, problems = theirs[key], []
        if _number(theirs, key, default, section, problems) <= ceiling and not problems:
            continue
        out[section] = {k: v for k, v in theirs.items() if k != key}
        why = "is not a valid number" if problems else f"is more than your own limit ({ceiling:g})"
        warnings.append(
            f"{where}: {section}.{key}: {value!r} {why}; a project config may only lower it, "
            "so it was ignored (a higher value goes in your own $CODEBOT_HOME/config.yaml)"
        )
    return out


def read_overrides(cfg: Mapping[str, Any], warnings: list[str]) -> dict[str, str]:
    """`skills.overrides` of one config file, names normalized, bad values reported."""
    from codebot.skills.files import normalize_name

    skills = _section(cfg, "skills")
    given = skills.get("overrides")
    out: dict[str, str] = {}
    for name, value in given.items() if isinstance(given, dict) else ():
        v = (
            str(value).strip().lower()
            if not isinstance(value, bool)
            else ("on" if value else "off")
        )
        if v in OVERRIDE_VALUES:
            out[normalize_name(str(name))] = v
        else:
            warnings.append(
                f"config skills.overrides.{name}: {value!r} is not one of "
                f"{', '.join(OVERRIDE_VALUES)}"
            )
    return out


def _read_local(path: Path, warnings: list[str]) -> dict[str, Any]:
    """The project's `config.local.yaml`: only `skills.overrides` is read from it."""
    data = _read_yaml(path, warnings)
    skills = _section(data, "skills")
    ignored = [str(k) for k in data if k != "skills"] + [
        f"skills.{k}" for k in skills if k != "overrides"
    ]
    if ignored:
        warnings.append(
            f"{path}: only skills.overrides is read from this file; ignoring {', '.join(ignored)}"
        )
    return {"skills": {"overrides": skills["overrides"]}} if "overrides" in skills else {}


def _context_windows(cfg: Any, warnings: list[str]) -> tuple[dict[str, int], int | None]:
    """`model_context_window: 32000` (any model litellm does not know) or a mapping of
    model names to windows, where `default` stands for the one number."""
    if cfg is None:
        return {}, None
    entries = cfg.items() if isinstance(cfg, dict) else [("default", cfg)]
    windows: dict[str, int] = {}
    cap = NUMBER_CAPS["model_context_window"]
    for name, value in entries:
        where = "model_context_window" + (f".{name}" if isinstance(cfg, dict) else "")
        if isinstance(value, bool) or not isinstance(value, int) or not 1000 <= value <= cap:
            warnings.append(
                f"config {where}: {value!r} is not a whole number of tokens between 1000 and "
                f"{cap:,.0f}; ignoring it"
            )
            continue
        windows[str(name)] = value
    return windows, windows.pop("default", None)


SANDBOX_MODES = ("auto", "on", "off")


def _sandbox_mode(raw: Mapping[str, Any], warnings: list[str]) -> str:
    cfg = raw.get("sandbox")
    if cfg is None:
        return Settings.sandbox
    mode = cfg.get("mode", Settings.sandbox) if isinstance(cfg, dict) else cfg
    if mode is True:
        return "on"
    if mode is False:
        return "off"
    if mode not in SANDBOX_MODES:
        warnings.append(f"config sandbox.mode: {mode!r} is not one of auto, on, off; using on")
        return "on"  # a typo in a safety setting must not turn it off
    return str(mode)
