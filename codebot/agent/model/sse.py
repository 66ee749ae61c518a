"""Server-sent events from a stream of text lines: (event name, data) pairs.

Just what chat APIs send: `event:` and `data:` fields, several `data:` lines joined by a
newline, a blank line ending an event, `:` comments ignored (the keep-alives some
proxies send). A line or an event past `MAX_EVENT` characters is a broken stream, not
something to hold in memory.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

#: The longest event kept (a whole tool call's arguments can come in one chunk).
MAX_EVENT = 8_000_000


class StreamTooLarge(Exception):
    pass


async def events(lines: AsyncIterator[str]) -> AsyncIterator[tuple[str, str]]:
    """Yield (event, data) for each event in `lines` (event is "" when unnamed)."""
    name = ""
    data: list[str] = []
    size = 0
    async for line in lines:
        line = line.rstrip("\r\n")
        if not line:
            if data:
                yield name, "\n".join(data)
            name, data, size = "", [], 0
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "event":
            name = value
        elif field == "data":
            size += len(value)
            if size > MAX_EVENT:
                raise StreamTooLarge(f"a streamed event is over {MAX_EVENT:,} characters")
            data.append(value)
    if data:  # a server that closes without the final blank line
        yield name, "\n".join(data)
