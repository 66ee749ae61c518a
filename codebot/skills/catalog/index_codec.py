"""Spec <-> JSON rows: how the index stores what `parse_file` made of a skill file.

A row holds the stored Spec fields in `_STORED` order; the fields that come from where the
file was found (`_FROM_CANDIDATE`) are never stored but rebuilt from the candidate.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, fields
from operator import attrgetter
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from codebot.skills.files import EMPTY, Argument, Diagnostic, Spec, Stamp

if TYPE_CHECKING:  # only for types: the index needs nothing else from the scanner
    from codebot.skills.catalog.candidate import Candidate

# Rebuilt from the candidate on every hit; never stored.
_FROM_CANDIDATE = frozenset({"root", "path", "real_path", "dir", "stamp"})
_TUPLE_FIELDS = frozenset({"allowed_tools", "disallowed_tools", "paths", "frontmatter_keys"})

_DEFAULTS: dict[str, Any] = {}
for _f in fields(Spec):
    if _f.name in _FROM_CANDIDATE:
        continue
    if _f.default is not MISSING:
        _DEFAULTS[_f.name] = _f.default
    elif _f.default_factory is not MISSING:
        _DEFAULTS[_f.name] = _f.default_factory()
    else:
        _DEFAULTS[_f.name] = MISSING  # required: always stored
_STORED = tuple(_DEFAULTS)


def _encode_arg(a: Argument) -> list[Any]:
    return plain([a.name, a.description, a.required, a.schema])


def _decode_arg(v: list[Any]) -> Argument:
    name, description, required, schema = v
    return Argument(
        name, description, required, MappingProxyType(schema) if schema is not None else None
    )


_EXACT = (str, int, float, bool, type(None))


def plain(v: Any) -> Any:
    """A value of exact built-in types: mapping proxies (possibly nested, as in argument
    schemas) as dicts, tuples as lists, and subclasses of str, int and float (the
    frontmatter's `Scalar`, which remembers how YAML read a number or date) as the plain
    type, as JSON would give them back (the index file's `marshal` refuses subclasses)."""
    t = type(v)
    if t in _EXACT:
        return v
    if t is tuple or t is list:  # the usual containers first: no ABC check
        return [x if type(x) in _EXACT else plain(x) for x in v]
    if t is MappingProxyType or t is dict:
        return {
            (k if type(k) in _EXACT else plain(k)): (x if type(x) in _EXACT else plain(x))
            for k, x in v.items()
        }
    if isinstance(v, Mapping):
        return {plain(k): plain(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [plain(x) for x in v]
    if isinstance(v, str):
        return str.__str__(v)  # the plain string, whatever the subclass's own __str__ says
    if isinstance(v, int | float) and not isinstance(v, bool):
        return float(v) if isinstance(v, float) else int(v)
    return v


_CONTAINERS = (tuple, MappingProxyType, dict)
_get_stored = attrgetter(*_STORED)  # every stored field in one call, in `_STORED` order
_ARGS = _STORED.index("arguments")
_DIAGS = _STORED.index("diagnostics")


def encode_spec(spec: Spec, without_diagnostics: bool = False) -> list[Any]:
    """The stored fields of a spec as a JSON row, in `_STORED` order (a row of values
    loads faster than an object with a key for each). An empty list or mapping is written
    as 0, which loads without making an object. `without_diagnostics` leaves them out
    (1: they are stored once, as the entry's "d")."""
    row: list[Any] = list(_get_stored(spec))
    for i, v in enumerate(row):
        if i == _ARGS:
            row[i] = [_encode_arg(a) for a in v] if v else 0
        elif i == _DIAGS:
            row[i] = 1 if without_diagnostics else [d.to_json() for d in v] if v else 0
        elif type(v) in _EXACT:
            continue  # most fields: already what `plain` gives
        elif type(v) in _CONTAINERS or isinstance(v, Mapping | tuple):
            row[i] = plain(v) if v else 0
        else:
            row[i] = plain(v)
    return row


def _decode_args(v: list[Any]) -> tuple[Argument, ...]:
    return tuple(_decode_arg(a) for a in v)


def _decode_diags(v: list[Any]) -> tuple[Diagnostic, ...]:
    return tuple(Diagnostic.from_json(x) for x in v)


def _row_decoder() -> Any:
    """`decode_row(row, path, real_path, dir, root, stamp, diagnostics)` -> Spec.

    Straight-line code generated from the Spec fields (like `spec.make_spec`, which it
    matches): it unpacks the row and sets every slot through its descriptor, so a warm
    start spends little per spec. A row of the wrong shape raises (a miss)."""
    names = [f.name for f in fields(Spec)]
    if set(names) != set(_STORED) | _FROM_CANDIDATE:  # pragma: no cover - a new field
        raise RuntimeError("every Spec field must be stored or rebuilt from the candidate")
    body = [
        "def decode_row(r, path, real_path, dir, root, stamp, _diags):",
        "    if type(r) is not list:",
        "        raise ValueError('not a spec row')",
        f"    ({', '.join(_STORED)},) = r",
        # The index file is data on disk like any other: a damaged row (a null name, say)
        # is a miss, and the file is parsed again, never a crash at every start.
        "    if type(name) is not str or type(key) is not str or type(description) is not str or "
        "not key:",
        "        raise ValueError('damaged spec row')",
    ]
    for name in _STORED:
        if name in _TUPLE_FIELDS:
            body.append(f"    {name} = _tuple({name}) if {name} else ()")
        elif name == "arguments":
            body.append(f"    {name} = _decode_args({name}) if {name} else ()")
        elif name == "diagnostics":
            body.append(
                f"    {name} = _diags if _diags is not None else () if {name} == 0 else "
                f"_decode_diags({name})"
            )
        elif name in ("metadata", "extra"):
            body.append(f"    {name} = _proxy({name}) if {name} else _EMPTY")
    body.append("    o = _new(_Spec)")
    body.extend(f"    _set_{name}(o, {name})" for name in names)
    body.append("    return o")
    ns: dict[str, Any] = {
        "_new": object.__new__,
        "_Spec": Spec,
        "_tuple": tuple,
        "_decode_args": _decode_args,
        "_decode_diags": _decode_diags,
        "_proxy": MappingProxyType,
        "_EMPTY": EMPTY,
        **{f"_set_{name}": Spec.__dict__[name].__set__ for name in names},
    }
    exec("\n".join(body) + "\n", ns)  # generated from the Spec fields, like make_spec
    return ns["decode_row"]


decode_row = _row_decoder()


def decode_spec(
    row: list[Any], c: Candidate, stamp: Stamp, diagnostics: tuple[Diagnostic, ...] | None = None
) -> Spec:
    """The spec a row from `encode_spec` stands for, found again at candidate `c`."""
    return decode_row(row, c.path, c.real_path, c.path.parent, c.root, stamp, diagnostics)
