"""Tools that act on the session itself rather than the project: Skill, SkillSearch, Task.

Their schemas live here; the session runs them because they need its state (the
catalog, the fork chain, the turn's delta).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from codebot.config import Settings
    from codebot.skills.catalog import Catalog

from codebot.agent.tools.base import object_schema

SKILL = "Skill"
SKILL_SEARCH = "SkillSearch"
TASK = "Task"


def _fn(
    name: str, description: str, properties: dict[str, Any], required: list[str]
) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": object_schema(properties, required),
        },
    }


META_TOOLS: dict[str, dict[str, Any]] = {
    SKILL: _fn(
        SKILL,
        "Invoke a skill by name. When the person's request matches a skill in the listing, invoke "
        "it "
        "BEFORE answering and follow the instructions it returns. Only names listed in the skills "
        "reminder (or found with SkillSearch) exist; do not guess names.",
        {
            "skill": {"type": "string", "description": "the skill name exactly as listed"},
            "args": {
                "type": "string",
                "description": "arguments for the skill, as the person would type them",
            },
        },
        ["skill"],
    ),
    SKILL_SEARCH: _fn(
        SKILL_SEARCH,
        "Search all skills by what they do, when the listing was shortened or a skill you need is "
        "not listed. Skills are described in English: search in English words for the job, even "
        "when the person wrote in another language. Returns cards (name, description, when to "
        "use, argument hint, source); no bodies.",
        {"query": {"type": "string"}, "limit": {"type": "integer", "minimum": 1, "maximum": 20}},
        ["query"],
    ),
    TASK: _fn(
        TASK,
        "Run a sub-agent on a self-contained task with its own fresh context; only its final "
        "answer "
        "comes back. agent: 'general' (all tools), 'explore' (read-only), or a custom agent's "
        "name (a plugin's agent: 'plugin:name').",
        {
            "description": {"type": "string", "description": "3-7 words saying what the task is"},
            "prompt": {
                "type": "string",
                "description": "the complete task; the sub-agent sees nothing else",
            },
            "agent": {"type": "string"},
        },
        ["description", "prompt"],
    ),
}


def validate_meta(name: str, args: dict[str, Any]) -> str | None:
    import jsonschema

    schema = META_TOOLS[name]["function"]["parameters"]
    try:
        jsonschema.validate(args, schema)
    except jsonschema.ValidationError as exc:
        where = ".".join(str(p) for p in exc.absolute_path)
        return f"{name}{'.' + where if where else ''}: {exc.message}"
    return None


class SearchScope(Protocol):
    """What SkillSearch reads of the session (a later stage, so not imported here)."""

    @property
    def catalog(self) -> Catalog: ...

    @property
    def settings(self) -> Settings: ...


def skill_search(session: SearchScope, query: str, limit: int = 5) -> str:
    """Cards for the skills that best match `query`, among those the model may invoke."""
    from codebot.skills.invoke import Actor, eligible
    from codebot.skills.prompt import search_cards

    snap = session.catalog.snapshot
    allowed = [s for s, _ in eligible(snap, Actor.MODEL, session.settings.overrides)]
    return search_cards(query, allowed, limit)
