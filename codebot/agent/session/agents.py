"""Sub-agent types: built-in `general` and `explore`, and custom `agents/<name>.md` files.

Custom agents live beside skill folders (`.codebot/agents`, `.agents/agents`,
`.claude/agents`, `$CODEBOT_HOME/agents`, ...): the `agents` sibling of every skills root.
Frontmatter: `name`, `description`, `tools` (list or comma/space string), `model`; the
body is the agent's instructions.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from codebot.skills.files import Root, coerce, frontmatter, normalize_name

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
    "general": AgentDef("general", "General-purpose agent with every tool.", None,
                        prompt="You are a sub-agent. Complete the task you are given, then reply with a concise final "
                               "answer: it is the only thing the caller will see."),  # fmt: skip
    "explore": AgentDef("explore", "Read-only agent for searching and understanding code.", READ_ONLY,
                        prompt="You are a read-only sub-agent. Find and read what the task needs, change nothing, "
                               "and reply with a concise final answer with file paths and line numbers."),  # fmt: skip
}


def agent_dirs(roots: Iterable[Root]) -> list[Path]:
    seen: list[Path] = []
    for r in roots:
        d = r.path.parent / "agents"
        if d not in seen:
            seen.append(d)
    return seen


def load_agent(path: Path) -> AgentDef | None:
    try:
        data = path.read_bytes()
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


def find_agent(name: str, roots: Iterable[Root]) -> AgentDef | None:
    key = normalize_name(name)
    if key in BUILTIN:
        return BUILTIN[key]
    for d in agent_dirs(roots):
        for cand in (d / f"{name}.md", d / f"{key}.md"):
            if cand.is_file():
                agent = load_agent(cand)
                if agent is not None:
                    return agent
    return None
