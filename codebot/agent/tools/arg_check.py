"""A fast yes for a tool call's arguments under a plain schema (the registry's first look,
before jsonschema): an object of named properties, each of one JSON type, some required.

`fast_check(schema)` is None for any schema with more than that (a keyword it does not
know, a nested constraint, a `$schema` it does not name); else a function that says True
only when jsonschema would find no error. False means "not sure": the registry then
validates with jsonschema as always (and reports its errors). So it never accepts what
jsonschema refuses; it only spares the common call the validator's cost (several
microseconds a call, most of what codebot adds to an MCP tool's call: bench/mcp_session.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

__all__ = ["fast_check"]

#: Keywords that constrain nothing (annotations) in a property's schema or the top one.
_ANNOTATIONS = frozenset(
    {
        "description",
        "title",
        "default",
        "examples",
        "$comment",
        "deprecated",
        "readOnly",
        "writeOnly",
    }
)
_TOP = frozenset({"type", "properties", "required", "additionalProperties", "$schema"})
#: Drafts whose type rules are the ones below (draft 4 differs on integers).
_DRAFTS = frozenset(
    {
        "http://json-schema.org/draft-07/schema#",
        "http://json-schema.org/draft-07/schema",
        "https://json-schema.org/draft/2019-09/schema",
        "https://json-schema.org/draft/2020-12/schema",
    }
)


def _is_string(v: object) -> bool:
    return isinstance(v, str)


def _is_integer(v: object) -> bool:  # stricter than jsonschema (no 1.0): then "not sure"
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: object) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _is_boolean(v: object) -> bool:
    return isinstance(v, bool)


def _is_null(v: object) -> bool:
    return v is None


def _is_object(v: object) -> bool:
    return isinstance(v, dict)


def _is_array(v: object) -> bool:
    return isinstance(v, list)


def _anything(v: object) -> bool:
    return True


_TYPES: dict[str, Callable[[object], bool]] = {
    "string": _is_string,
    "integer": _is_integer,
    "number": _is_number,
    "boolean": _is_boolean,
    "null": _is_null,
    "object": _is_object,
    "array": _is_array,
}


def _property(schema: object) -> Callable[[object], bool] | None:
    if not isinstance(schema, Mapping) or not set(schema) <= _ANNOTATIONS | {"type"}:
        return None
    kind = schema.get("type")
    if kind is None:
        return _anything
    return _TYPES.get(kind) if isinstance(kind, str) else None


def _plain_top(schema: object) -> bool:
    """An object schema of known keywords, a known draft, additionalProperties a bool."""
    if not isinstance(schema, Mapping) or not set(schema) <= _TOP | _ANNOTATIONS:
        return False
    if schema.get("type", "object") != "object":
        return False
    if "$schema" in schema and schema["$schema"] not in _DRAFTS:
        return False
    return schema.get("additionalProperties", True) in (True, False)


def _property_checks(props: object) -> dict[str, Callable[[object], bool]] | None:
    if not isinstance(props, Mapping):
        return None
    checks: dict[str, Callable[[object], bool]] = {}
    for name, sub in props.items():
        check = _property(sub)
        if not isinstance(name, str) or check is None:
            return None
        checks[name] = check
    return checks


def fast_check(schema: Mapping[str, object]) -> Callable[[Mapping[str, object]], bool] | None:
    """The fast check for `schema`, or None when it is not a plain one (see above)."""
    if not _plain_top(schema):
        return None
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(n, str) for n in required):
        return None
    checks = _property_checks(schema.get("properties", {}))
    if checks is None:
        return None
    closed = schema.get("additionalProperties", True) is False
    needed = tuple(required)

    def ok(args: Mapping[str, object]) -> bool:
        for name in needed:
            if name not in args:
                return False
        for name, value in args.items():
            check = checks.get(name)
            if check is None:
                if closed:
                    return False
            elif not check(value):
                return False
        return True

    return ok
