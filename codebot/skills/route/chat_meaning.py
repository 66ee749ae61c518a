"""Small talk by meaning (docs/routing.md, "Precision: requests that need no skill"): a
short request in another language that the multilingual encoder finds as alike as
`CHAT_SIMILAR` to a message of `chat_examples` is small talk, in wordings no phrase of
`chat_phrases` holds; unless it asks for work in so many words (`smalltalk.PLEA`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import codebot.skills.route.chat_examples as examples
from codebot.skills.route.config import CHAT_SIMILAR
from codebot.skills.route.smalltalk import INVISIBLE, MAX_CHAT_CHARS, PLEA

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray


@runtime_checkable
class Encodes(Protocol):
    """What small talk by meaning needs of a scorer (`semantic.EmbeddingScorer` has it)."""

    other_languages_only: bool

    def embed(self, texts: Sequence[str], keep: bool = False) -> NDArray[np.float32]: ...

    def query_vector(self, query: str) -> NDArray[np.float32]: ...


class SmallTalkMeaning:
    """The examples' vectors for one scorer, embedded once (the scorer keeps them on disk
    with the catalog's words)."""

    def __init__(self) -> None:
        #: (the scorer, the examples, their vectors): made again for another of either
        self._for: tuple[object, tuple[str, ...], NDArray[np.float32]] | None = None

    def why(self, request: str, scorer: object) -> str | None:
        """Why `request` is small talk by its meaning, or None (another encoder than the
        multilingual one, the only one measured for it; a long request; one that asks)."""
        if not isinstance(scorer, Encodes) or not scorer.other_languages_only:
            return None
        text = INVISIBLE.sub("", request).strip()
        if len(text) > MAX_CHAT_CHARS or PLEA.search(text):
            return None  # a long message, or one that asks for work, is no small talk
        got = self.likeness(request, scorer)
        if got is None or got[0] < CHAT_SIMILAR:
            return None
        similarity, example = got
        return (
            f"small talk: {similarity:.2f} alike the small talk {example!r} "
            f"(CHAT_SIMILAR {CHAT_SIMILAR:g}); no skill is needed"
        )

    def likeness(self, request: str, scorer: Encodes) -> tuple[float, str] | None:
        """How alike `request` is to its nearest example, and that example (None when the
        vectors are of different widths: a cache's, not comparable)."""
        import numpy as np

        texts = examples.CHAT_EXAMPLES
        if not texts:
            return None
        got = self._for
        if got is None or got[0] is not scorer or got[1] is not texts:
            got = (scorer, texts, np.asarray(scorer.embed(texts, True), dtype=np.float32))
            self._for = got
        mat = got[2]
        q = scorer.query_vector(request)  # made for the fusion already: not encoded again
        if mat.shape[1:] != q.shape:
            self._for = None
            return None
        sims = mat @ q
        best = int(sims.argmax())
        return float(sims[best]), texts[best]
