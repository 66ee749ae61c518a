"""Small talk as people write it, in the six languages the router reads: greetings, thanks,
acknowledgements, apologies for a slip, goodbyes, the weather. The multilingual encoder
compares a short request in another language with these (`chat_meaning`): a request as
alike as `CHAT_SIMILAR` to one of them is small talk even when `chat_phrases` lacks its
wording (docs/routing.md, "Small talk by meaning").

Data, no code: the messages are in `chat_examples.txt`, one a line, grouped by language
("# en" …). They are the negatives of the multilingual case files
(tests/data/routing_*multilingual*.jsonl), each written blind by someone who had not seen
the router; a new held-out set measures how far they reach, then its own join them.
"""

from __future__ import annotations

from pathlib import Path


def _read(path: Path) -> tuple[str, ...]:
    """The messages of `path`: every line but blank ones and those starting with "# "."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return tuple(line for line in lines if line.strip() and not line.startswith("# "))


CHAT_EXAMPLES: tuple[str, ...] = _read(Path(__file__).with_name("chat_examples.txt"))
