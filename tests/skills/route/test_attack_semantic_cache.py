"""Attacks on the semantic scorer's vector cache (`$CODEBOT_HOME/cache/embeddings-*.npz`,
route/semantic.py), which also holds the catalog's English words that `translate` reads
a request's words against. Another process can write there: a cache that is a link, a
FIFO, cut short, garbage, a zip bomb, of another width, or holding NaNs must be refused
or rebuilt; it must never hang, raise out of a route, or change a similarity."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

import numpy as np
import pytest

import codebot.skills.route.semantic as S

CONCEPTS = {
    "flaky": "flaky",
    "sometimes": "flaky",
    "deterministic": "flaky",
    "photos": "image",
    "picture": "image",
    "resize": "image",
    "release": "release",
    "notes": "release",
    "commits": "release",
    "informe": "release",
}
AXES = sorted(set(CONCEPTS.values()))
WIDTH = len(AXES) + 1


class Encoder:
    """Unit vectors over a few concepts, recording what it embedded."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.texts.extend(texts)
        out = np.full((len(texts), WIDTH), 1e-3, dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().replace(".", " ").replace(",", " ").split():
                if word in CONCEPTS:
                    out[row, AXES.index(CONCEPTS[word])] += 1
        return out / np.linalg.norm(out, axis=1, keepdims=True)


@pytest.fixture
def specs(tmp_path: Path, catalog_of) -> list:
    skills = {
        "stabilise-tests": "Find why a test fails only sometimes and make it deterministic.",
        "photo-resizer": "Resize photos for the web in bulk.",
        "release-notes": "Write release notes from the commits since the last tag.",
    }
    return list(catalog_of(tmp_path / "skills", skills, body="Do the thing.\n"))


QUERY = "my test is flaky"


def fresh_scores(specs, tmp_path: Path) -> dict[str, float]:
    return dict(
        S.EmbeddingScorer("fake", tmp_path / "clean", encoder=Encoder()).score(QUERY, specs)
    )


def saved_cache(specs, cache: Path) -> Path:
    S.EmbeddingScorer("fake", cache, encoder=Encoder()).score(QUERY, specs)
    (saved,) = cache.glob("embeddings-*.npz")
    return saved


def npz(path: Path, **arrays: np.ndarray) -> None:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    path.write_bytes(buf.getvalue())


def forge(saved: Path, change) -> None:
    """Rewrite the cache with its vectors changed by `change(hashes, vectors)`."""
    with np.load(saved, allow_pickle=False) as data:
        hashes, vectors = data["hashes"], data["vectors"]
    got = change(hashes, vectors.copy())
    npz(saved, hashes=got[0], vectors=got[1])


def score_in_time(scorer: S.EmbeddingScorer, specs, timeout: float = 20) -> dict[str, float]:
    out: list[dict[str, float]] = []
    t = threading.Thread(target=lambda: out.append(dict(scorer.score(QUERY, specs))), daemon=True)
    t.start()
    t.join(timeout)
    assert not t.is_alive(), "the scorer hangs on its cache file"
    return out[0]


def _nan(h, v):
    v[:, 0] = np.nan
    return h, v


def _huge(h, v):
    v[:, 0] = 1e30  # finite, far from a unit vector: it would win every similarity
    return h, v


def _narrow(h, v):  # vectors of another model's width
    return h, np.ascontiguousarray(v[:, :3]) / np.linalg.norm(v[:, :3], axis=1, keepdims=True)


def _wide(h, v):
    w = np.concatenate([v, v], axis=1)
    return h, w / np.linalg.norm(w, axis=1, keepdims=True)


def _zero(h, v):
    return h, np.zeros_like(v)


def _ints(h, v):
    return h, (v * 100).astype(np.int64)


def _three_d(h, v):
    return h, v[:, None, :]


def _fewer_hashes(h, v):
    return h[:1], v


def _hashes_as_numbers(h, v):
    return np.arange(len(h)), v


FORGED = {
    "nan": _nan,
    "not-unit": _huge,
    "zero": _zero,
    "narrower": _narrow,
    "wider": _wide,
    "integers": _ints,
    "3-d": _three_d,
    "fewer-hashes": _fewer_hashes,
    "numbers-for-hashes": _hashes_as_numbers,
}


@pytest.mark.parametrize("how", list(FORGED))
def test_forged_vectors_are_refused_and_the_similarities_are_the_fresh_ones(specs, tmp_path, how):
    saved = saved_cache(specs, tmp_path / "cache")
    forge(saved, FORGED[how])
    enc = Encoder()
    scorer = S.EmbeddingScorer("fake", tmp_path / "cache", encoder=enc)
    got = score_in_time(scorer, specs)
    assert got == pytest.approx(fresh_scores(specs, tmp_path))
    assert len(enc.texts) == len(specs) + 1  # every skill embedded again, and the request
    # the cache was rewritten whole: the next scorer embeds nothing but its request
    enc2 = Encoder()
    S.EmbeddingScorer("fake", tmp_path / "cache", encoder=enc2).score(QUERY, specs)
    assert enc2.texts == [QUERY]


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _garbage_zip(path: Path) -> None:
    path.write_bytes(b"PK\x03\x04" + os.urandom(200))


def _empty(path: Path) -> None:
    path.write_bytes(b"")


def _bomb(path: Path) -> None:
    """A compressed member that inflates to 2 GB, under a name np.load reads."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as z:
        with z.open("vectors.npy", "w", force_zip64=True) as fh:
            header = io.BytesIO()
            np.lib.format.write_array_header_1_0(
                header, {"descr": "<f4", "fortran_order": False, "shape": (1 << 19, 1024)}
            )
            fh.write(header.getvalue())
            block = bytes(1 << 20)
            for _ in range(2048):
                fh.write(block)
        z.writestr("hashes.npy", b"")
    path.write_bytes(buf.getvalue())


def _missing_member(path: Path) -> None:
    npz(path, hashes=np.asarray(["a" * 40]))


def _pickled(path: Path) -> None:
    npz(path, hashes=np.asarray([{"x": 1}], dtype=object), vectors=np.zeros((1, WIDTH)))


DAMAGED = {
    "truncated": _truncate,
    "garbage-after-a-zip-magic": _garbage_zip,
    "empty": _empty,
    "zip-bomb": _bomb,
    "a-member-missing": _missing_member,
    "pickled-objects": _pickled,
}


@pytest.mark.parametrize("how", list(DAMAGED))
def test_a_damaged_cache_file_is_rebuilt_not_raised(specs, tmp_path, how):
    saved = saved_cache(specs, tmp_path / "cache")
    DAMAGED[how](saved)
    enc = Encoder()
    got = score_in_time(S.EmbeddingScorer("fake", tmp_path / "cache", encoder=enc), specs)
    assert got == pytest.approx(fresh_scores(specs, tmp_path))
    assert len(enc.texts) == len(specs) + 1


def test_a_cache_that_is_a_link_to_another_file_is_not_read(specs, tmp_path):
    """Another cache (of a catalog where every text points one way) linked in place of
    this one: its vectors, for the same texts, would move the similarities."""
    saved = saved_cache(specs, tmp_path / "cache")
    elsewhere = tmp_path / "planted.npz"
    os.replace(saved, elsewhere)
    forge(elsewhere, lambda h, v: (h, np.tile(v[-1:], (len(v), 1))))  # every skill alike
    saved.symlink_to(elsewhere)
    enc = Encoder()
    got = score_in_time(S.EmbeddingScorer("fake", tmp_path / "cache", encoder=enc), specs)
    assert got == pytest.approx(fresh_scores(specs, tmp_path))
    assert len(enc.texts) == len(specs) + 1
    # the rebuilt cache replaced the link; the file it pointed to is untouched
    assert not saved.is_symlink()
    with np.load(elsewhere, allow_pickle=False) as data:
        assert (data["vectors"] == data["vectors"][-1]).all()


def test_a_fifo_in_place_of_the_cache_is_not_waited_on(specs, tmp_path):
    cache = tmp_path / "cache"
    saved = saved_cache(specs, cache)
    saved.unlink()
    os.mkfifo(saved)
    got = score_in_time(S.EmbeddingScorer("fake", cache, encoder=Encoder()), specs)
    assert got == pytest.approx(fresh_scores(specs, tmp_path))


def test_a_cache_another_user_could_write_is_not_read(specs, tmp_path):
    saved = saved_cache(specs, tmp_path / "cache")
    forge(saved, _narrow)  # only so that reading it would show
    saved.chmod(0o666)
    enc = Encoder()
    got = score_in_time(S.EmbeddingScorer("fake", tmp_path / "cache", encoder=enc), specs)
    assert got == pytest.approx(fresh_scores(specs, tmp_path))


def _dump(route) -> tuple:
    return (
        route.decision,
        [(c.name, round(c.score, 9), dict(c.matched)) for c in route.candidates],
        sorted(route.terms),
    )


@pytest.mark.parametrize("overlap", [True, False], ids=["ahead", "in-line"])
@pytest.mark.parametrize("how", ["narrower", "nan"])
def test_a_request_in_another_language_routes_as_with_a_fresh_cache(
    specs, tmp_path, monkeypatch, how, overlap
):
    """The cache also holds the catalog's English words, which `translate` multiplies by
    the request's words (embedded now): a forged one must neither switch the encoder off
    nor move the route. In line, the words are read before anything else is embedded, so
    the encoder's width is not known yet when the cache's words are taken."""
    from codebot.skills.route import ahead
    from codebot.skills.route import router as R

    monkeypatch.setattr(ahead, "OVERLAP", overlap)

    request = "Escribe el informe de los cambios, por favor"

    def route(cache: Path):
        scorer = S.EmbeddingScorer("use-multilingual", cache, encoder=Encoder())
        rt = R.Router(semantic=scorer)
        got = rt.route(request, specs)
        assert rt.semantic is not None, rt.semantic_error
        return got

    want = _dump(route(tmp_path / "clean"))
    assert any("(informe)" in str(m) for m in want[1])  # the word was read through the cache
    (saved,) = (tmp_path / "clean").glob("embeddings-*.npz")
    forge(saved, FORGED[how])
    assert _dump(route(tmp_path / "clean")) == want


def _writer(cache: Path, n: int) -> str:
    return (
        "import sys, numpy as np\n"
        f"sys.path.insert(0, {str(Path(S.__file__).resolve().parents[3])!r})\n"
        "import codebot.skills.route.semantic as S\n"
        "def enc(texts):\n"
        "    v = np.random.default_rng(len(texts)).random((len(texts), 8)).astype(np.float32)\n"
        "    return v / np.linalg.norm(v, axis=1, keepdims=True)\n"
        f"for i in range({n}):\n"
        f"    s = S.EmbeddingScorer('fake', __import__('pathlib').Path({str(cache)!r}), "
        "encoder=enc)\n"
        "    s.embed([f'{sys.argv[1]} word {j} {i}' for j in range(50)], True)\n"
    )


def test_two_processes_writing_the_cache_at_once_leave_a_whole_file(tmp_path):
    cache = tmp_path / "cache"
    procs = [
        subprocess.Popen([sys.executable, "-c", _writer(cache, 30), tag]) for tag in ("a", "b")
    ]
    for p in procs:
        assert p.wait(timeout=120) == 0
    (saved,) = cache.glob("embeddings-*.npz")
    with np.load(saved, allow_pickle=False) as data:
        assert data["vectors"].shape == (len(data["hashes"]), 8)
    assert not list(cache.glob(".*.tmp"))  # no temporary file left behind
