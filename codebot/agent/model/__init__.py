"""The model side: the `ModelClient` protocol and stream items, the litellm client
(the only module that imports litellm, lazily), error classification, provider keys,
and the offline and scripted models.

May import: `codebot.skills`.
"""

from codebot._exports import lazy_exports

_EXPORTS = {
    "Completion": "protocol",
    "HOW_TO": "offline",
    "LiteLLMClient": "litellm_client",
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
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
