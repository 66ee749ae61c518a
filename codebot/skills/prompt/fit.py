"""Sharing a listing's budget between its entries (pure arithmetic over sizes).

When the entries do not all fit whole, each first gets what it needs (its description up
to a floor) and then the same share of what is left: the largest share whose total fits
(`water_level`). Entries shorter than it stay whole and leave their share to the longer
ones, so the cap on one entry follows from the budget and from how many entries there are
and how long they are, not from a fixed number.
"""

from __future__ import annotations

from collections.abc import Sequence


def water_level(sizes: Sequence[int], room: int) -> int:
    """The largest allowance `a` with `sum(min(size, a)) <= room` (the largest size when
    every size fits whole; 0 when even nothing is over `room`)."""
    if not sizes:
        return 0
    if sum(sizes) <= room:
        return max(sizes)
    ordered = sorted(sizes)
    used = 0
    for i, size in enumerate(ordered):
        level = (room - used) // (len(ordered) - i)
        if level < size:
            return max(level, 0)
        used += size
    return ordered[-1]  # not reached: the sum did not fit


def described_prefix(needs: Sequence[int], room: int) -> int:
    """How many entries from the front get what they need within `room`: the longest
    prefix whose needs add up to at most `room`."""
    used = 0
    for i, need in enumerate(needs):
        used += need
        if used > room:
            return i
    return len(needs)


def allowances(sizes: Sequence[int], needs: Sequence[int], room: int) -> list[int]:
    """Each entry's allowance within `room`: first what it needs, then an equal share of
    the rest (`water_level` over what each still lacks). The needs must fit `room`."""
    rest = [size - need for size, need in zip(sizes, needs, strict=True)]
    share = water_level(rest, room - sum(needs))
    return [need + min(more, share) for need, more in zip(needs, rest, strict=True)]
