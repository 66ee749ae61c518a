"""The product of every skill's text vectors with a request's vector, in two halves
(issue 36 §2): at 10,000 skills it reads 86 MB, which one core's memory traffic bounds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from codebot.skills.route.ahead import Help

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

#: rows from which `product` asks for help with half its work (below, the handoff costs
#: more than half the product saves: 0.02 ms against 0.05-0.1 ms at 4,000-8,000 rows)
SPLIT_ROWS = 16_384


def product(mat: NDArray[np.float32], q: NDArray[np.float32]) -> NDArray[np.float32]:
    """`mat @ q` (one BLAS thread), its back half offered to the route's thread when that
    is waiting for it (`ahead.Help`) while this thread does the front half: reading 86 MB
    of text vectors at 10,000 skills is bound by one core's memory traffic, so two cores
    take 1.6 ms instead of 2.4. Each row's value is the same either way, to the bit: BLAS
    takes rows in small blocks from the first (and the last few by another path, which
    sums in another order), so the halves meet at a multiple of 64 rows and every row
    keeps its block. A half nobody took up is done here after the first."""
    import numpy as np

    n = mat.shape[0]
    if n < SPLIT_ROWS:
        return mat @ q
    out = np.empty(n, dtype=np.result_type(mat, q))
    half = n // 2 // 64 * 64
    back = Help(lambda: np.matmul(mat[half:], q, out=out[half:]))
    np.matmul(mat[:half], q, out=out[:half])
    back.result()
    return out
