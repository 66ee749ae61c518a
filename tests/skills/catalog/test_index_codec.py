"""`index_codec.plain`: what the index file's `marshal` can hold, whatever the frontmatter
made (subclasses of str and int, mapping proxies, nested tuples)."""

from __future__ import annotations

import marshal
from types import MappingProxyType

from codebot.skills.catalog.index_codec import plain
from codebot.skills.files.frontmatter import Scalar


class _Named(tuple):  # a tuple subclass: not a plain tuple
    pass


class _Int(int):
    pass


def _exact(v: object) -> bool:
    t = type(v)
    if t is dict:
        return all(_exact(k) and _exact(x) for k, x in v.items())  # type: ignore[attr-defined]
    if t is list:
        return all(_exact(x) for x in v)  # type: ignore[attr-defined]
    return t in (str, int, float, bool, type(None))


def test_plain_gives_exact_types_at_every_depth() -> None:
    date = Scalar("2024-01-02")
    value = MappingProxyType(
        {
            date: (Scalar("1.10"), _Int(3), True, None, 1.5),
            "nested": MappingProxyType({"k": [Scalar("x"), {"deep": _Named((Scalar("y"),))}]}),
            _Int(7): _Named(("a", _Int(2))),
            "\x00\x1b[31m": "\u202e",
        }
    )
    out = plain(value)
    assert _exact(out)
    assert out == {
        "2024-01-02": ["1.10", 3, True, None, 1.5],
        "nested": {"k": ["x", {"deep": ["y"]}]},
        7: ["a", 2],
        "\x00\x1b[31m": "\u202e",
    }
    assert marshal.loads(marshal.dumps(out)) == out  # marshal refuses subclasses


def test_plain_keeps_exact_values_as_they_are() -> None:
    for v in ("text", 0, -1, 2.5, False, None):
        assert plain(v) is v
