"""Stage 4: invocation. Who may invoke what (policy), one-pass expansion of a body
(shell injections, variables, arguments), tag escaping, and `process_invocation`.

May import: `skills.files`, `skills.catalog`, `skills.watch`.
"""

from codebot._exports import lazy_exports

_EXPORTS = {
    "Actor": "policy",
    "Adapter": "policy",
    "Decision": "policy",
    "Delta": "invocation",
    "Invocation": "invocation",
    "Request": "invocation",
    "decide": "policy",
    "eligible": "policy",
    "escape_tags": "escape",
    "may_grant": "invocation",
    "normalize_overrides": "policy",
    "process_invocation": "invocation",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
