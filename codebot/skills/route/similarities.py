"""Each skill's similarity to a request, held as one array (what `EmbeddingScorer.score`
returns; issue 36).

A dict of 10,000 similarities cost more to build and read than the product that made
them: building it took 0.6 ms a request, `max` over it 0.3 ms and reading its values
back into an array 0.1 ms. `Similarities` is a read-only mapping over the array itself:
the same keys in the same order with the same values as that dict (`dict(sims)` equals
it), whose most similar key and values array need no walk in Python.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray


class Similarities(Mapping[str, float]):
    """key -> similarity over `values` (one per key, in `keys`' order, no key twice)."""

    __slots__ = ("keys_list", "position", "values_array")

    def __init__(
        self, keys: list[str], position: Mapping[str, int], values: NDArray[np.float64]
    ) -> None:
        if len(position) != len(keys) or len(values) != len(keys):
            raise ValueError("Similarities: one value per key and no key twice")
        self.keys_list = keys
        self.position = position  # key -> its index in keys (made once per list of skills)
        self.values_array = values

    def __getitem__(self, key: str) -> float:
        return float(self.values_array[self.position[key]])

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys_list)

    def __len__(self) -> int:
        return len(self.keys_list)

    def __contains__(self, key: object) -> bool:
        return key in self.position

    def best_key(self) -> str | None:
        """The key of the highest value, the first one on a tie (as `max` over a dict)."""
        if not self.keys_list:
            return None
        return self.keys_list[int(self.values_array.argmax())]


def most_similar_key(sem: Mapping[str, float]) -> str | None:
    """The key with the highest similarity (the first one on a tie), or None when empty."""
    if isinstance(sem, Similarities):
        return sem.best_key()
    return max(sem, key=sem.__getitem__) if sem else None


def as_arrays(sem: Mapping[str, float]) -> tuple[list[str], NDArray[np.float64]]:
    """The keys of `sem` in order and their values as an array (no copy for `Similarities`)."""
    import numpy as np

    if isinstance(sem, Similarities):
        return sem.keys_list, sem.values_array
    keys = list(sem)
    return keys, np.fromiter(sem.values(), dtype=np.float64, count=len(keys))
