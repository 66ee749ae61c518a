"""The permission side: rule patterns, the parsed-shell decisions for Bash, and
approvals (verdicts and requests the front ends answer).

May import: `codebot.skills`, `agent.model`, `agent.tools`.
"""

from codebot._exports import lazy_exports

_EXPORTS = {
    "ApprovalAnswer": "approvals",
    "ApprovalRequest": "approvals",
    "Approvals": "approvals",
    "Pattern": "rules",
    "Verdict": "verdict",
    "parse_pattern": "rules",
    "preview_for": "approvals",
    "session_pattern_for": "approvals",
    "session_patterns_for": "approvals",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
