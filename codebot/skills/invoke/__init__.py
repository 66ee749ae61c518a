"""Stage 4: invocation. Who may invoke what (policy), one-pass expansion of a body
(shell injections, variables, arguments), tag escaping, and `process_invocation`.

May import: `skills.files`, `skills.catalog`, `skills.watch`.
"""

from typing import TYPE_CHECKING

from codebot._exports import lazy_exports

if TYPE_CHECKING:  # what the lazy table loads, spelled out for the type checker
    from codebot.skills.invoke.escape import escape_tags
    from codebot.skills.invoke.invocation import (
        Delta,
        Invocation,
        Request,
        may_grant,
        process_invocation,
    )
    from codebot.skills.invoke.policy import (
        Actor,
        Adapter,
        Decision,
        decide,
        eligible,
        normalize_overrides,
    )


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
__all__ = [
    "Actor",
    "Adapter",
    "Decision",
    "Delta",
    "Invocation",
    "Request",
    "decide",
    "eligible",
    "escape_tags",
    "may_grant",
    "normalize_overrides",
    "process_invocation",
]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
