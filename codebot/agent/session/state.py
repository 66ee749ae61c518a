"""`SessionState`: what a session and its collaborators change as the conversation goes
on. One small declared object, passed to the collaborators that read or change it
(`Prompter`, `Compactor`, `SkillRunner`, `Approver`, `Budgeter`), so none of them needs
the whole `Session`.

The settings and the client live here too: a front end swaps them in place
(`session.settings = …` after a skill toggle, `session.client = …` for `/model`), and
every collaborator must see the new one at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from codebot.agent.hooks import NO_HOOKS, Hooks
from codebot.agent.model import ModelClient, Usage
from codebot.agent.model.limits import is_local
from codebot.agent.session.compact import Compaction, InForce
from codebot.config import Settings


@dataclass
class SessionState:
    settings: Settings
    client: ModelClient
    #: The conversation the model is sent (after a compaction, its compacted view).
    history: list[dict[str, Any]] = field(default_factory=list)
    #: Each inline skill invocation of this session, oldest first (compaction re-attaches
    #: them); restored with the history on --continue.
    in_force: list[InForce] = field(default_factory=list)
    last_compaction: Compaction | None = None
    #: The listing text last sent, so an unchanged listing is not sent again.
    last_listing: str | None = None
    total_usage: Usage = field(default_factory=Usage)
    #: Usage by the model that answered (a skill may switch it for a turn), for /usage.
    usage_by_model: dict[str, Usage] = field(default_factory=dict)
    #: The session's hooks (shared with its sub-agents); NO_HOOKS runs nothing.
    hooks: Hooks = NO_HOOKS
    #: Models that answered from a server on this machine (`/usage`: "local, no cost").
    local_models: set[str] = field(default_factory=set)

    def count_usage(self, model: str, usage: Usage) -> None:
        self.total_usage = self.total_usage + usage
        self.usage_by_model[model] = self.usage_by_model.get(model, Usage()) + usage
        if is_local(getattr(self.client, "api_base", None)):
            self.local_models.add(model)
