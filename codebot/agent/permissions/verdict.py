"""A permission verdict: allow, deny or ask, the rule that decided, and why in words.

Its own module because the approvals and the Bash decision both return it, and the Bash
decision (imported lazily by the approvals) must not import the approvals back.
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
