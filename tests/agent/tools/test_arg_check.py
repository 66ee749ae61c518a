"""The registry's fast yes for plain schemas (codebot/agent/tools/arg_check.py): it never
accepts what jsonschema refuses, and it is used for the common call."""

from __future__ import annotations

import itertools

import jsonschema
import jsonschema.validators
import pytest

from codebot.agent.tools import ToolContext, ToolRegistry
from codebot.agent.tools.arg_check import fast_check
from codebot.agent.tools.base import Tool, ToolResult

PLAIN = {
    "type": "object",
    "properties": {
        "s": {"type": "string", "description": "a string"},
        "i": {"type": "integer"},
        "n": {"type": "number", "title": "N", "default": 1},
        "b": {"type": "boolean"},
        "z": {"type": "null"},
        "o": {"type": "object"},
        "a": {"type": "array"},
        "any": {"description": "no type: anything"},
    },
    "required": ["s"],
}
CLOSED = {**PLAIN, "additionalProperties": False}
VALUES = ["x", "", 0, 1, -3, 1.0, 2.5, True, False, None, {}, {"k": 1}, [], [1], float("nan")]


def valid(schema: dict, args: dict) -> bool:
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema).is_valid(args)


@pytest.mark.parametrize("schema", [PLAIN, CLOSED], ids=["open", "closed"])
def test_it_never_says_yes_where_jsonschema_says_no(schema: dict) -> None:
    fast = fast_check(schema)
    assert fast is not None
    names = [*schema["properties"], "extra"]
    said_yes = 0
    for name, value in itertools.product(names, VALUES):
        for args in ({"s": "x", name: value}, {name: value}):
            if fast(args):
                said_yes += 1
                assert valid(schema, args), (args, schema)
    assert said_yes > 20  # and it does say yes to the plain calls


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"s": {"type": "string", "minLength": 2}}},
        {"type": "object", "properties": {"s": {"type": ["string", "null"]}}},
        {"type": "object", "properties": {"s": {"enum": ["a"]}}},
        {"type": "object", "properties": {"s": {"$ref": "#/$defs/x"}}, "$defs": {"x": {}}},
        {"type": "object", "properties": {"o": {"type": "object", "properties": {}}}},
        {"type": "object", "additionalProperties": {"type": "string"}},
        {"type": "object", "properties": {}, "patternProperties": {"^x": {"type": "string"}}},
        {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object"},
        {"type": "object", "properties": {"s": True}},
        {"type": "object", "required": "s"},
        {"type": "array"},
    ],
)
def test_anything_more_than_a_plain_schema_goes_to_jsonschema(schema: dict) -> None:
    assert fast_check(schema) is None


class Echo(Tool):
    name = "Echo"
    description = "echo"
    read_only = True

    def __init__(self, parameters: dict) -> None:
        self.parameters = parameters

    async def run(self, args, ctx: ToolContext) -> ToolResult:
        return ToolResult(repr(sorted(args.items())))


def test_the_registry_still_reports_jsonschemas_errors(tmp_path) -> None:
    registry = ToolRegistry([Echo(CLOSED)])
    assert registry.parse_arguments("Echo", {"s": "x", "i": 3}) == {"s": "x", "i": 3}
    bad = registry.parse_arguments("Echo", {"s": "x", "i": True, "extra": 1})
    assert isinstance(bad, ToolResult) and bad.status == "error"
    assert "Echo.i: True is not of type 'integer'" in bad.content
    assert "Additional properties are not allowed" in bad.content
    # 1.0 is an integer to jsonschema: the fast check is not sure, jsonschema says yes
    assert registry.parse_arguments("Echo", {"s": "x", "i": 1.0}) == {"s": "x", "i": 1.0}
    # a tool replaced under the same name gets its own check
    registry.remove("Echo")
    registry.add(Echo({"type": "object", "properties": {"s": {"type": "integer"}}}))
    assert isinstance(registry.parse_arguments("Echo", {"s": "x"}), ToolResult)
