"""JSON Schemas from skill files (`outputs:`, `arguments:`), checked offline and in bounded
time: a skill is untrusted input, and so is what a model sends to be checked against it.

- **No fetching.** A `$ref` (or `$dynamicRef`) must point inside the schema (`#…`);
  `schema_problem` refuses any other, and the validator's registry refuses to retrieve
  anything (jsonschema would otherwise fetch an unknown URL with `urllib`).
- **No regex that runs for ever.** `pattern`, `patternProperties` and the
  `additionalProperties` that depends on them are matched with the `regex` module under a
  timeout (`REGEX_TIMEOUT_S`); a match that runs out is a validation error, not a hang.
  `unevaluatedProperties` next to `patternProperties` is refused (jsonschema matches those
  with `re`, which cannot be stopped).
- **Bounded depth.** A schema nested deeper than `MAX_SCHEMA_DEPTH` is refused; a
  validation that still recurses too deep is an error, not a crash.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, NoReturn, Protocol, cast

if TYPE_CHECKING:
    from jsonschema import ValidationError

#: Seconds one `pattern` may take to match one value.
REGEX_TIMEOUT_S = 0.1
MAX_SCHEMA_DEPTH = 32
_REF_KEYS = ("$ref", "$dynamicRef")


class Validator(Protocol):
    """What is used here of a jsonschema validator (its protocol types instances as JSON
    values; these are parsed JSON, held as `object`)."""

    def iter_errors(self, instance: object) -> Iterator[ValidationError]: ...

    def descend(
        self, instance: object, schema: object, path: object = ..., schema_path: object = ...
    ) -> Iterator[ValidationError]: ...


class SchemaRefused(ValueError):
    """A schema that is refused before use; the message says why."""


def depth(value: object, limit: int) -> int:
    """How deeply `value` nests mappings and lists, counted without recursion and up to
    `limit + 1` (past that the exact depth does not matter)."""
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        deepest = max(deepest, level)
        if deepest > limit:
            return deepest
        if isinstance(item, Mapping):
            stack.extend((v, level + 1) for v in item.values())
        elif isinstance(item, list | tuple):
            stack.extend((v, level + 1) for v in item)
    return deepest


def _walk(value: object) -> Iterator[Mapping[str, object]]:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            yield item
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)


def refused(schema: Mapping[str, object]) -> str | None:
    """Why `schema` may not be used even though it is a valid JSON Schema, or None."""
    if depth(schema, MAX_SCHEMA_DEPTH) > MAX_SCHEMA_DEPTH:
        return f"it nests deeper than {MAX_SCHEMA_DEPTH} levels"
    has_patterns = has_unevaluated = False
    for node in _walk(schema):
        for key in _REF_KEYS:
            ref = node.get(key)
            if isinstance(ref, str) and not ref.startswith("#"):
                return (
                    f"{key} {ref[:200]!r} points outside the schema; only local references "
                    "(#/$defs/…) are allowed, nothing is fetched"
                )
        has_patterns = has_patterns or isinstance(node.get("patternProperties"), Mapping)
        has_unevaluated = has_unevaluated or "unevaluatedProperties" in node
        for text in _patterns_of(node):
            problem = _regex_problem(text)
            if problem:
                return problem
    if has_patterns and has_unevaluated:
        return "unevaluatedProperties cannot be used with patternProperties here"
    return None


def _patterns_of(node: Mapping[str, object]) -> Iterator[str]:
    pattern = node.get("pattern")
    if isinstance(pattern, str):
        yield pattern
    props = node.get("patternProperties")
    if isinstance(props, Mapping):
        yield from (str(k) for k in props)


def _regex_problem(text: str) -> str | None:
    import regex

    try:
        regex.compile(text)
    except regex.error as exc:
        return f"pattern {text[:200]!r} is not a regular expression: {exc}"
    return None


def _search(pattern: str, text: str) -> bool | None:
    """Whether `pattern` matches in `text`; None when it ran out of time."""
    import regex

    try:
        return regex.search(pattern, text, timeout=REGEX_TIMEOUT_S) is not None
    except TimeoutError:
        return None


def _timeout_error(pattern: str) -> ValidationError:
    from jsonschema import ValidationError

    return ValidationError(
        f"pattern {pattern[:200]!r} took more than {REGEX_TIMEOUT_S}s to match; "
        "the value was not accepted"
    )


def _pattern(
    validator: Validator, pattern: str, instance: object, schema: object
) -> Iterator[ValidationError]:
    from jsonschema import ValidationError

    if not isinstance(instance, str):
        return
    found = _search(pattern, instance)
    if found is None:
        yield _timeout_error(pattern)
    elif not found:
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Validator, props: Mapping[str, object], instance: object, schema: object
) -> Iterator[ValidationError]:
    if not isinstance(instance, Mapping):
        return
    for pattern, subschema in props.items():
        for key, value in instance.items():
            found = _search(pattern, str(key))
            if found is None:
                yield _timeout_error(pattern)
                return
            if found:
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(
    validator: Validator, extra: object, instance: object, schema: Mapping[str, object]
) -> Iterator[ValidationError]:
    from jsonschema import ValidationError

    if not isinstance(instance, Mapping):
        return
    props = schema.get("properties")
    known = props if isinstance(props, Mapping) else {}
    patterns_of = schema.get("patternProperties")
    patterns = [str(p) for p in patterns_of] if isinstance(patterns_of, Mapping) else []
    extras: list[str] = []
    for key in instance:
        if key in known:
            continue
        hits = [_search(p, str(key)) for p in patterns]
        if None in hits:
            yield _timeout_error(patterns[hits.index(None)])
            return
        if not any(hits):
            extras.append(key)
    if isinstance(extra, Mapping):
        for key in extras:
            yield from validator.descend(instance[key], extra, path=key)
    elif extra is False and extras:
        shown = ", ".join(repr(k) for k in sorted(extras, key=str)[:20])
        yield ValidationError(f"additional properties are not allowed ({shown})")


def _no_retrieval(uri: str) -> NoReturn:
    from referencing.exceptions import NoSuchResource

    raise NoSuchResource(ref=uri)


@functools.cache
def _validator_class() -> Callable[..., Validator]:
    from jsonschema import Draft202012Validator, validators

    return cast(
        "Callable[..., Validator]",
        validators.extend(
            Draft202012Validator,
            {
                "pattern": _pattern,
                "patternProperties": _pattern_properties,
                "additionalProperties": _additional_properties,
            },
        ),
    )


def validator(schema: Mapping[str, object]) -> Validator:
    """A draft 2020-12 validator for `schema` that fetches nothing and whose regexes stop;
    SchemaRefused when `refused(schema)` says why it may not be used."""
    from referencing import Registry

    problem = refused(schema)
    if problem:
        raise SchemaRefused(problem)
    return _validator_class()(dict(schema), registry=Registry(retrieve=_no_retrieval))


def errors(schema: Mapping[str, object], value: object) -> Iterator[ValidationError]:
    """The validation errors of `value` (parsed JSON) against `schema`; a reference that
    cannot be resolved or a recursion too deep is raised as SchemaRefused."""
    from referencing.exceptions import Unresolvable  # jsonschema's wrapper is one too

    try:
        yield from validator(schema).iter_errors(value)
    except Unresolvable as exc:
        raise SchemaRefused(f"a reference does not resolve: {exc}") from None
    except RecursionError:
        raise SchemaRefused("the value or the schema nests too deeply to check") from None
