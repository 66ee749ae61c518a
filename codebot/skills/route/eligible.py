"""Who may be ranked for a request: the policy's eligibility narrowed to the skills given
to the router, the conditional skills whose paths matched and the names allowed; and who
was filtered out that would have ranked, with the rule that removed it.

Pure functions of the `Index`'s rows and numpy masks, called by `Router.route` before
anything is ranked, so a blocked skill can never hide an eligible one.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING

from codebot.skills.route.index.index import Index
from codebot.skills.route.result import Filtered

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from codebot.skills.invoke import Decision


def narrow(
    idx: Index,
    mask: NDArray[np.bool_],
    subset: NDArray[np.bool_] | None,
    active: Collection[str] | None,
    restrict: Collection[str] | None,
) -> tuple[NDArray[np.bool_], dict[int, tuple[str, str]]]:
    """The policy's eligibility `mask` narrowed to the given skills (`subset`), the matched
    conditional skills (`active`) and the allowed keys (`restrict`), and why each row so
    removed was: row -> (reason, decided_by)."""
    import numpy as np

    other: dict[int, tuple[str, str]] = {}  # row -> (reason, decided_by) for non-policy filters
    if subset is None and active is None and restrict is None:
        return mask, other
    mask = mask.copy()
    if subset is not None:
        for i in np.nonzero(mask & ~subset)[0].tolist():
            other[i] = ("not among the skills given to the router", "subset")
        mask &= subset
    if active is not None:
        act = set(active)
        for i in idx.conditional.tolist():
            if mask[i] and idx.specs[i].key not in act:
                mask[i] = False
                other[i] = (
                    "conditional skill: none of its paths matched a file in this session",
                    "paths",
                )
    if restrict is not None:
        allowed = set(restrict)
        for i in np.nonzero(mask)[0].tolist():
            if idx.specs[i].key not in allowed:
                mask[i] = False
                other[i] = ("not listed for this request", "restrict")
    return mask, other


def filtered_out(
    idx: Index,
    mask: NDArray[np.bool_],
    norm: NDArray[np.floating],
    denied: Mapping[int, Decision],
    other: Mapping[int, tuple[str, str]],
    limit: int,
) -> list[Filtered]:
    """The best `limit` of the skills filtered out that would have ranked, with why."""
    import numpy as np

    filtered: list[Filtered] = []
    blocked = np.nonzero(~mask & (norm > 0))[0]
    if len(blocked):
        for i in blocked[np.argsort(-norm[blocked], kind="stable")][:limit].tolist():
            d = denied.get(i)
            reason, by = (
                (d.reason, d.decided_by) if d is not None else other.get(i, ("filtered", "?"))
            )
            filtered.append(Filtered(idx.specs[i], reason, by, float(norm[i])))
    return filtered
