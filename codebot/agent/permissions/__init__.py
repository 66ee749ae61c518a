"""The permission side: rule patterns (Bash rules are decided by `codebot.shell`), and
approvals (verdicts and requests the front ends answer); "always allow" (which rule it
saves, `always`) and saving it to a config file (`save_rule`).

May import: `codebot.skills`, `codebot.shell`, `agent.model`, `agent.tools`.
"""

from typing import TYPE_CHECKING

from codebot._exports import lazy_exports

if TYPE_CHECKING:  # what the lazy table loads, spelled out for the type checker
    from codebot.agent.permissions.always import AlwaysOffer, always_offer
    from codebot.agent.permissions.approvals import (
        REASON_MAX_CHARS,
        ApprovalAnswer,
        ApprovalRequest,
        Approvals,
        clean_reason,
        preview_for,
        session_pattern_for,
        session_patterns_for,
    )
    from codebot.agent.permissions.rules import Pattern, parse_pattern
    from codebot.agent.permissions.save_rule import RuleSaveError, save_allow_rules
    from codebot.agent.permissions.verdict import Verdict


_EXPORTS = {
    "AlwaysOffer": "always",
    "ApprovalAnswer": "approvals",
    "ApprovalRequest": "approvals",
    "Approvals": "approvals",
    "Pattern": "rules",
    "REASON_MAX_CHARS": "approvals",
    "RuleSaveError": "save_rule",
    "always_offer": "always",
    "clean_reason": "approvals",
    "Verdict": "verdict",
    "parse_pattern": "rules",
    "preview_for": "approvals",
    "save_allow_rules": "save_rule",
    "session_pattern_for": "approvals",
    "session_patterns_for": "approvals",
}
__all__ = [
    "REASON_MAX_CHARS",
    "AlwaysOffer",
    "ApprovalAnswer",
    "ApprovalRequest",
    "Approvals",
    "Pattern",
    "RuleSaveError",
    "Verdict",
    "always_offer",
    "clean_reason",
    "parse_pattern",
    "preview_for",
    "save_allow_rules",
    "session_pattern_for",
    "session_patterns_for",
]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
