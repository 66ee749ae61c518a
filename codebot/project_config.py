"""What a project's own `.codebot/config.yaml` may set, and how permission rules combine.

A cloned repository is somebody else's text. Until the person trusts the folder
(`codebot trust`), its config may only tune harmless things: listing budgets, skill
overrides, router numbers, `limits` and `skills.fork_depth` (which any project config may
only lower: `config._lower_only`), and *more* deny rules. Everything that reaches outside
or loosens safety (the model and its endpoint, keys or environment, allow rules,
skill folders outside the project, shell timeouts, the sandbox) is dropped, with one
warning that names each key and `codebot trust`. The rule is an allow-list, so a key
added later is refused until someone decides it is harmless.

Deny rules of every layer are combined: a later or less trusted layer can add a deny,
never remove one. Skill overrides combine the same way (`combine_overrides`): a project
file may narrow the person's own toggles, and only the personal `config.local.yaml` of a
trusted project may widen them again. Pure functions; no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

#: `skills.*` keys an untrusted project may set (`dirs` only inside the project).
SAFE_SKILLS_KEYS = frozenset(
    {"listing", "overrides", "router", "preselect", "fork_depth", "index", "dirs"}
)
#: `skills.router.*` keys that are not numbers: the semantic scorer imports a package.
UNSAFE_ROUTER_KEYS = frozenset({"semantic", "semantic_cache"})
#: Settings only the person's own `$CODEBOT_HOME/config.yaml` may set, as (section, key):
#: a project's config, trusted or not, is somebody else's text. `shell.env` keeps secret
#: variables in every command's environment; `mcp.servers` starts programs (a project
#: defines its servers in `.mcp.json`, which needs trust and an approval).
USER_ONLY = (("shell", "env"), ("plugins", "dirs"), ("mcp", "servers"))


def drop_user_only(data: Mapping[str, object]) -> tuple[dict[str, object], list[str]]:
    """A project's config without the USER_ONLY keys, and the dotted keys it had."""
    kept, dropped = dict(data), []
    for section, key in USER_ONLY:
        value = kept.get(section)
        if isinstance(value, Mapping) and key in value:
            rest = {k: v for k, v in value.items() if k != key}
            if rest:
                kept[section] = rest
            else:
                del kept[section]
            dropped.append(f"{section}.{key}")
    return kept, dropped


def filter_untrusted(
    data: Mapping[str, object], project: Path
) -> tuple[dict[str, object], list[str]]:
    """The part of an untrusted project's config that may apply, and the dotted keys dropped."""
    kept: dict[str, object] = {}
    dropped: list[str] = []
    for key, value in data.items():
        key = str(key)
        if key == "skills" and isinstance(value, Mapping):
            skills: dict[str, object] = {}
            for sub, v in value.items():
                sub = str(sub)
                if sub not in SAFE_SKILLS_KEYS:
                    dropped.append(f"skills.{sub}")
                elif sub == "dirs":
                    inside, outside = _dirs_inside(v, project)
                    skills["dirs"] = inside
                    dropped.extend(f"skills.dirs ({d})" for d in outside)
                elif sub == "router" and isinstance(v, Mapping):
                    skills["router"] = {
                        k: x for k, x in v.items() if str(k) not in UNSAFE_ROUTER_KEYS
                    }
                    dropped.extend(f"skills.router.{k}" for k in v if str(k) in UNSAFE_ROUTER_KEYS)
                else:
                    skills[sub] = v
            kept["skills"] = skills
        elif key == "sandbox" and isinstance(value, Mapping):
            # Only what tightens: requiring the sandbox, keeping the network off.
            # (YAML reads a bare `on` as true.)
            tight = {
                k: v
                for k, v in value.items()
                if (k, v) in (("mode", "on"), ("mode", True), ("network", False))
            }
            kept["sandbox"] = tight
            dropped.extend(f"sandbox.{k}" for k in value if k not in tight)
        elif key == "limits" and isinstance(value, Mapping):
            kept["limits"] = dict(value)  # a project may only lower them (config._lower_only)
        elif key == "permissions" and isinstance(value, Mapping):
            kept["permissions"] = {"deny": value["deny"]} if "deny" in value else {}
            dropped.extend(f"permissions.{k}" for k in value if str(k) != "deny")
        else:
            dropped.append(key)
    return kept, dropped


def _dirs_inside(value: object, project: Path) -> tuple[list[str], list[str]]:
    if not isinstance(value, list):
        return [], [repr(value)]
    inside, outside = [], []
    root = project.resolve()
    for d in value:
        if not isinstance(d, str):
            outside.append(repr(d))
            continue
        target = (project / Path(d)).resolve()  # `~` is not expanded: it stays a folder name
        (inside if target == root or target.is_relative_to(root) else outside).append(d)
    return inside, outside


def rule_list(
    layer: Mapping[str, object], kind: str, where: str, warnings: list[str]
) -> list[tuple[str, str]]:
    """`permissions.<kind>` of one config layer as (pattern, origin) pairs.

    A single string where a list is expected is reported; as a deny it still counts (fail
    closed), as an allow it is ignored. Entries that are not text are reported; a deny
    entry that is not text denies every tool until it is fixed.
    """
    perms = layer.get("permissions")
    if perms is None:
        return []
    if not isinstance(perms, Mapping):
        warnings.append(
            f"{where}: permissions must be a mapping with allow/deny lists; ignoring it"
            + ("" if kind == "allow" else " (no deny rules could be read from it)")
        )
        return []
    value = perms.get(kind)
    if value is None:
        return []
    origin = f"{where}: permissions.{kind}"
    if isinstance(value, str):
        if kind == "allow":
            warnings.append(
                f"{origin} must be a list of patterns, not a string; the allow rule {value!r} is "
                "ignored"
            )
            return []
        warnings.append(
            f"{origin} must be a list of patterns, not a string; it is read as one deny rule"
        )
        return [(value, origin)]
    if not isinstance(value, list):
        warnings.append(
            f"{origin} must be a list of patterns, not {type(value).__name__}"
            + ("; ignoring it" if kind == "allow" else "; every tool is denied until it is fixed")
        )
        return [] if kind == "allow" else [(DENY_EVERYTHING, origin)]
    out = []
    for i, item in enumerate(value):
        if isinstance(item, str):
            out.append((item, f"{origin}[{i}]"))
        elif kind == "allow":
            warnings.append(f"{origin}[{i}]: {item!r} is not a pattern; ignoring it")
        else:
            warnings.append(
                f"{origin}[{i}]: {item!r} is not a pattern; every tool is denied until it is fixed"
            )
            out.append((DENY_EVERYTHING, f"{origin}[{i}]"))
    return out


def narrow(a: str | None, b: str | None) -> str | None:
    """The skill override that allows only what both `a` and `b` allow (None: no override).

    `off` beats everything, `user-only` and `model-only` together leave nobody (`off`),
    either of them beats `name-only` (which only shortens the listing line), and `on` or
    None leaves the other as it is."""
    tight = {v for v in (a, b) if v not in (None, "on")}
    if not tight:
        return a or b
    if "off" in tight or {"user-only", "model-only"} <= tight:
        return "off"
    for value in ("user-only", "model-only"):
        if value in tight:
            return value
    return "name-only"


def combine_overrides(
    user: Mapping[str, str], shared: Mapping[str, str], local: Mapping[str, str], *, trusted: bool
) -> dict[str, str]:
    """The skill overrides in force: the person's `$CODEBOT_HOME/config.yaml` (`user`),
    narrowed by the project's shared `.codebot/config.yaml` (`shared`, committed: it may
    only turn skills off or limit them), then the project's personal
    `.codebot/config.local.yaml` (`local`), which wins outright in a trusted project (so
    `/skills on NAME` there undoes an `off` of any other layer) and only narrows in an
    untrusted one (a cloned repository could ship that file too)."""
    out: dict[str, str | None] = dict(user)
    for layer, wins in ((shared, False), (local, trusted)):
        for key, value in layer.items():
            out[key] = value if wins else narrow(out.get(key), value)
    return {k: v for k, v in out.items() if v is not None}


#: What a deny entry that names no tool becomes: a rule that denies every tool.
DENY_EVERYTHING = "*"


Rules = list[tuple[str, str]]


def permission_rules(
    layers: Iterable[tuple[Mapping[str, object], str, bool]], warnings: list[str]
) -> tuple[Rules, Rules, Rules]:
    """(allow, deny, ask) rules of the config layers, each (layer, its path, trusted):
    deny rules of every layer, allow and ask rules of trusted ones only."""
    layers = list(layers)

    def of(kind: str) -> Rules:
        return [
            r
            for cfg, where, ok in layers
            if ok or kind == "deny"
            for r in rule_list(cfg, kind, where, warnings)
        ]

    return of("allow"), of("deny"), of("ask")


def in_force(allow: Rules, deny: Rules, ask: Rules) -> dict[str, list[str]]:
    """`permissions` as the merged config shows it (`ask` only when there is one)."""
    out = {"allow": [r for r, _ in allow], "deny": [r for r, _ in deny]}
    if ask:
        out["ask"] = [r for r, _ in ask]
    return out
