"""A permission verdict: allow, deny or ask, the rule that decided, and why in words.

Its own module so that the approvals and what they import can name it without importing
the approvals (the Bash decision, `codebot.shell.check_bash`, returns its own `Decision`,
which the approvals turn into a Verdict).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Verdict:
    outcome: Literal["allow", "deny", "ask"]
    rule: str | None
    reason: str

    @property
    def allowed(self) -> bool:
        return self.outcome == "allow"
