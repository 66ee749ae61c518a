"""The model side: the `ModelClient` protocol and stream items, the litellm client
(the only module that imports litellm, lazily), error classification, provider keys,
and the offline and scripted models.

May import: `codebot.skills`.
"""

from typing import TYPE_CHECKING

from codebot._exports import lazy_exports

if TYPE_CHECKING:  # what the lazy table loads, spelled out for the type checker
    from codebot.agent.model.client import ProviderClient
    from codebot.agent.model.offline import HOW_TO, OfflineModel
    from codebot.agent.model.protocol import (
        Completion,
        ModelClient,
        ModelError,
        ModelRequest,
        TextDelta,
        ToolCall,
        Usage,
    )
    from codebot.agent.model.providers import default_model_for, key_problem, provider_key_present
    from codebot.agent.model.scripted import ScriptedModel
    from codebot.agent.model.tokens import estimate_tokens, message_text


_EXPORTS = {
    "Completion": "protocol",
    "HOW_TO": "offline",
    "ProviderClient": "client",
    "ModelClient": "protocol",
    "ModelError": "protocol",
    "ModelRequest": "protocol",
    "OfflineModel": "offline",
    "ScriptedModel": "scripted",
    "TextDelta": "protocol",
    "ToolCall": "protocol",
    "Usage": "protocol",
    "default_model_for": "providers",
    "estimate_tokens": "tokens",
    "key_problem": "providers",
    "message_text": "tokens",
    "provider_key_present": "providers",
}
__all__ = [
    "HOW_TO",
    "Completion",
    "ModelClient",
    "ModelError",
    "ModelRequest",
    "OfflineModel",
    "ProviderClient",
    "ScriptedModel",
    "TextDelta",
    "ToolCall",
    "Usage",
    "default_model_for",
    "estimate_tokens",
    "key_problem",
    "message_text",
    "provider_key_present",
]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
