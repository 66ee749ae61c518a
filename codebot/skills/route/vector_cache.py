"""The semantic scorer's vectors on disk (`$CODEBOT_HOME/cache/embeddings-<model>.npz`):
each embedded text's hash and its unit vector, the catalog's English words for
`translate` among them.

Another process can write under `$CODEBOT_HOME`, so the file is read as the router's
index is (`index/npy.py`): opened with O_NOFOLLOW and O_NONBLOCK and checked on the
descriptor, so a link or a FIFO planted there is refused, not followed or waited on; only
a regular file of this user's that nobody else may write, of at most `MAX_CACHE_BYTES`,
whose two arrays inflate to at most as much, holding one finite unit vector of float32
per hash, is used. Anything else is None or raises, and the scorer embeds again and
rewrites the file whole (`atomic_file`: a reader sees the old file or the new one).
A vector of another width than the encoder's is the scorer's to notice (`_fits`).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from codebot.home import atomic_file, private_dir

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

#: the largest cache read (10,000 skills take ~90 MB; a bound, not a tuned number)
MAX_CACHE_BYTES = 1 << 30
_O_READ = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
)
_MEMBERS = {"hashes.npy", "vectors.npy"}


def read_vectors(path: Path) -> tuple[list[str], NDArray[np.float32]] | None:
    """The text hashes and vectors of the cache file at `path`, or None when it is missing
    or is not what `write_vectors` writes (see the module). Raises what a damaged zip or
    array raises (BadZipFile, zlib.error, ValueError, ...): the caller rebuilds."""
    import numpy as np

    try:
        fd = os.open(path, _O_READ)
    except OSError:  # missing, or a link (ELOOP)
        return None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fd)
        if (
            not stat.S_ISREG(st.st_mode)
            or st.st_size > MAX_CACHE_BYTES
            or st.st_uid != os.getuid()
            or st.st_mode & 0o022
        ):
            return None
        with np.load(fh, allow_pickle=False) as data:
            sizes = {i.filename: i.file_size for i in data.zip.infolist()}
            if set(sizes) != _MEMBERS or sum(sizes.values()) > MAX_CACHE_BYTES:
                return None  # it would inflate past the bound: never inflated
            hashes, vectors = data["hashes"], data["vectors"]
    if (
        hashes.ndim != 1
        or hashes.dtype.kind != "U"
        or vectors.dtype != np.float32
        or vectors.ndim != 2
        or vectors.shape[0] != len(hashes)
        or not vectors.shape[1]
        # one product per row, no temporary of the file's size: a NaN, an infinity or a
        # square that overflows float32 makes its row's sum NaN or inf, never about 1
        or not np.allclose(np.einsum("ij,ij->i", vectors, vectors), 1.0, atol=2e-3)
    ):
        return None
    return hashes.tolist(), vectors


def write_vectors(
    path: Path, hashes: Sequence[str], vectors: Sequence[NDArray[np.float32]]
) -> None:
    """Replace the cache at `path` with these hashes and vectors (one each, one width)."""
    import numpy as np

    # Private like the rest of cache/: embeddings can be inverted back to skill text.
    # A file object, not a name: np.savez would create a name with the umask's mode.
    private_dir(path.parent)
    with atomic_file(path, sync=False, durable=False) as fh:  # a cache: no fsync
        np.savez(fh, hashes=np.asarray(hashes), vectors=np.stack(vectors))
