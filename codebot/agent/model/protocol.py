"""The contract between the turn loop and model clients: requests, stream items, errors."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # raw JSON text as the model produced it; parsed by the tool registry


@dataclass(frozen=True, slots=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None

    def __add__(self, other: Usage) -> Usage:
        cost = (
            None
            if self.cost is None and other.cost is None
            else (self.cost or 0) + (other.cost or 0)
        )
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            cost,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
            "cost": self.cost,
        }


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """One call to a model. `messages` and `tools` are in OpenAI chat format."""

    messages: Sequence[dict[str, Any]]
    tools: Sequence[dict[str, Any]] = ()
    model: str | None = None  # None: the client's default; a skill delta may set it
    effort: str | None = None  # reasoning effort, dropped where unsupported
    timeout: float = 600.0
    #: The answer's limit in tokens (`limits.output_budget`); None sends none.
    max_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class TextDelta:
    text: str


@dataclass(frozen=True, slots=True)
class Completion:
    """The last item of every stream: the whole answer."""

    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    finish_reason: str | None = None


StreamItem = TextDelta | Completion


class ModelError(Exception):
    """A provider failure, already in plain words.

    kind: auth | rate_limit | context | timeout | connection | server | bad_request | not_found
    | unknown
    """

    def __init__(
        self, kind: str, message: str, *, retryable: bool = False, status: int | None = None
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.retryable = retryable
        self.status = status
        #: kind "context": the window the refusal named, when it named one.
        self.window: int | None = None
        #: The text streamed before the failure (kept by the session, not lost).
        self.partial = ""


class ModelClient(Protocol):
    #: The model string shown to the person (and used when a request names none).
    model: str
    #: Context window in tokens when known (scales the listing budget), else None.
    context_window: int | None
    #: True for the built-in offline model.
    offline: bool

    def count_tokens(self, text: str) -> int:
        """Tokens `text` costs for this model (an estimate where no tokenizer is loaded)."""
        ...

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        """Yield TextDelta items as they arrive, then exactly one Completion.

        Raises ModelError. Cancelling the consuming task must stop the stream promptly.
        """
        ...
