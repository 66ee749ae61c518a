"""The permission side: rule patterns (Bash rules are decided by `codebot.shell`), and
approvals (verdicts and requests the front ends answer); "always allow" (which rule it
saves, `always`) and saving it to a config file (`save_rule`).

May import: `codebot.skills`, `codebot.shell`, `agent.model`, `agent.tools`.
"""

from codebot._exports import lazy_exports

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
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
