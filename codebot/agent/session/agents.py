"""Sub-agent types: built-in `general` and `explore`, and custom `agents/<name>.md` files.

Custom agents live beside skill folders (`.codebot/agents`, `.agents/agents`,
`.claude/agents`, `$CODEBOT_HOME/agents`, ...): the `agents` sibling of every skills root.
Frontmatter: `name`, `description`, `tools` (list or comma/space string), `model`; the
body is the agent's instructions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from codebot.skills.files import Root, Source, coerce, frontmatter, normalize_name
from codebot.skills.files.safe_read import MAX_FILE_BYTES, read_regular

READ_ONLY = ("Read", "Glob", "Grep", "Skill", "SkillSearch")


@dataclass(frozen=True, slots=True)
class AgentDef:
    name: str
    description: str
    tools: tuple[str, ...] | None  # None: every tool
    model: str | None = None
    prompt: str = ""
    path: Path | None = None


BUILTIN = {
    "general": AgentDef(
        "general",
        "General-purpose agent with every tool.",
        None,
        prompt="You are a sub-agent. Complete the task you are given, then reply with a concise "
        "final answer: it is the only thing the caller will see.",
    ),
    "explore": AgentDef(
        "explore",
        "Read-only agent for searching and understanding code.",
        READ_ONLY,
        prompt="You are a read-only sub-agent. Find and read what the task needs, change nothing, "
        "and reply with a concise final answer with file paths and line numbers.",
    ),
}


def agent_dirs(roots: Iterable[Root]) -> list[Path]:
    return [d for d, _ in agent_dirs_with_roots(roots)]


def agent_dirs_with_roots(roots: Iterable[Root]) -> list[tuple[Path, Root]]:
    """The `agents` sibling of every skills root, with the root it belongs to (first wins)."""
    seen: dict[Path, Root] = {}
    for r in roots:
        seen.setdefault(r.path.parent / "agents", r)
    return list(seen.items())


def load_agent(path: Path) -> AgentDef | None:
    """The agent defined by `path`, or None when it cannot be read or parsed.

    Read with `read_regular`: a FIFO or a link to /dev/tty named `agents/<name>.md` (a
    checkout can hold one) would otherwise block the session forever.
    """
    try:
        data = read_regular(path, MAX_FILE_BYTES)
        sp = frontmatter.split(data)
        if sp is None:
            return None
        raw, _ = frontmatter.load(sp)
    except (OSError, UnicodeDecodeError, frontmatter.FrontmatterError):
        return None
    name, _ = coerce.to_text(raw.get("name"))
    desc, _ = coerce.to_text(raw.get("description"))
    tools, _ = coerce.to_str_list(raw.get("tools"))
    model, _ = coerce.to_text(raw.get("model"))
    prompt = data[sp.body_offset :].decode("utf-8", errors="replace").strip()
    if model in ("inherit", ""):
        model = None
    return AgentDef(name or path.stem, desc or "", tools or None, model, prompt, path)


#: Agent names are plain names: `../../tmp/x` must not turn into a path on disk.
AGENT_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


class AgentNameError(ValueError):
    pass


def check_agent_name(name: str) -> str:
    if not AGENT_NAME.fullmatch(name):
        raise AgentNameError(
            f"agent names are plain names (letters, digits, '-' and '_'); {name!r} is not one"
        )
    return name


def find_agent(
    name: str,
    roots: Iterable[Root],
    trusted_project: bool = False,
    plugin_agents: Mapping[str, Sequence[Path]] | None = None,
) -> AgentDef | None:
    """The agent called `name`, or None. Raises AgentNameError for a name that is not plain.

    `plugin:agent` is a plugin's agent: looked up in `plugin_agents[plugin]` (the plugin's
    agent folders), else in the `agents` sibling of the plugin's skill roots. A plugin's
    agents, and a project's agents while the folder is untrusted, cannot set the model:
    their `model:` is dropped, as for plugin skills.
    """
    plugin, colon, plain = name.partition(":")
    if colon:
        check_agent_name(plugin)
        check_agent_name(plain)
        return _plugin_agent(plugin, plain, roots, plugin_agents or {})
    check_agent_name(name)
    key = normalize_name(name)
    if key in BUILTIN:
        return BUILTIN[key]
    for d, root in agent_dirs_with_roots(roots):
        if root.source is Source.PLUGIN:
            continue  # a plugin's agents are `plugin:agent`
        agent = _load_named(d, name, key)
        if agent is not None:
            if agent.model and not _may_set_model(root, trusted_project):
                agent = replace(agent, model=None)
            return agent
    return None


def _load_named(folder: Path, name: str, key: str) -> AgentDef | None:
    for cand in (folder / f"{name}.md", folder / f"{key}.md"):
        if cand.is_file():
            agent = load_agent(cand)
            if agent is not None:
                return agent
    return None


def _plugin_agent(
    plugin: str, name: str, roots: Iterable[Root], plugin_agents: Mapping[str, Sequence[Path]]
) -> AgentDef | None:
    folders = plugin_agents.get(plugin)
    if folders is None:
        folders = [d for d, r in agent_dirs_with_roots(roots) if r.plugin == plugin]
    for d in folders:
        agent = _load_named(d, name, normalize_name(name))
        if agent is not None:
            return replace(agent, name=f"{plugin}:{name}", model=None)
    return None


def _may_set_model(root: Root, trusted_project: bool) -> bool:
    if root.source is Source.PLUGIN:
        return False
    return trusted_project if root.source is Source.PROJECT else True
