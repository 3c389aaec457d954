"""Tool schemas from outside (MCP servers, the toolsets file): references never leave the
schema, patterns run in linear time, and a schema that cannot be applied makes a call
invalid, never a fault."""

from __future__ import annotations

from typing import Any

import pytest

from core.errors import ToolArgumentsInvalidError
from core.identity import CallContext
from records.tools.model import JSONValue, PermissionLevel, RiskLevel, Tool, ToolOutput, ToolSpec
from stores.audit.memory import InMemoryAuditLog
from tests.helpers import watched_http_server
from tools.permissions import LevelPolicy
from tools.registry import ToolRegistry
from tools.validation import ArgumentValidator, quick_check, schema_problem, shortened


def _object(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


def test_a_reference_out_of_the_schema_is_refused_and_never_fetched() -> None:
    with watched_http_server() as (base, seen):
        schema = _object(q={"$ref": f"{base}/latest/meta-data.json"})
        assert "points outside the schema" in str(schema_problem(schema))
        with pytest.raises(ValueError, match="points outside the schema"):
            ArgumentValidator(schema)
        # An $id naming the server does not make a reference inside the schema go there.
        inside = {**_object(q={"$ref": "#/$defs/missing"}), "$id": f"{base}/schema.json"}
        assert schema_problem(inside) is None
        [violation] = ArgumentValidator(inside).violations({"q": "x"})
        assert violation.field == "arguments"
        assert "cannot be checked against the tool's schema" in violation.description
    assert seen == []


@pytest.mark.parametrize(
    "schema",
    [
        _object(q={"$ref": "urn:nothing-here"}),
        _object(q={"$dynamicRef": "other.json#node"}),
        _object(q={"allOf": [{"$ref": "file:///etc/passwd"}]}),
        {"type": "object", "$defs": {"a": {"$ref": "https://example.invalid/a.json"}}},
    ],
)
def test_every_reference_out_of_the_schema_is_refused(schema: dict[str, Any]) -> None:
    assert "points outside the schema" in str(schema_problem(schema))


def test_a_property_named_ref_is_not_a_reference() -> None:
    assert schema_problem(_object(**{"$ref": {"type": "string"}})) is None
    assert ArgumentValidator(_object(**{"$ref": {"type": "string"}})).violations({"$ref": 1})


@pytest.mark.timeout(10)  # a bound: a backtracking engine would not finish at all
def test_patterns_run_in_linear_time() -> None:
    hostile = "^(a|a)+$"
    validator = ArgumentValidator(
        {
            **_object(q={"type": "string", "pattern": hostile}),
            "patternProperties": {hostile: {"type": "integer"}},
            "additionalProperties": False,
        }
    )
    text = "a" * 5000 + "!"
    found = {(v.field, v.description[:20]) for v in validator.violations({"q": text, text: 1})}
    assert found == {
        ("arguments.q", repr(text)[:20]),
        (f"arguments.{shortened(text)}", "is not a known argum"),  # never the whole name
    }
    assert validator.violations({"q": "aaaa", "aa": 3}) == []
    assert [v.field for v in validator.violations({"aa": "three"})] == ["arguments.aa"]


@pytest.mark.parametrize(
    ("schema", "problem"),
    [
        (_object(q={"type": "string", "pattern": r"^(a+)\1$"}), "is not supported (RE2"),
        ({"type": "object", "patternProperties": {"(?=x)": {}}}, "is not supported (RE2"),
        (
            {"type": "object", "patternProperties": {"^x": {}}, "unevaluatedProperties": False},
            "unevaluatedProperties together with patternProperties",
        ),
        (_object(q={"type": "nothing"}), "is not a valid JSON Schema"),
    ],
)
def test_schemas_agentd_cannot_apply_safely_are_refused(
    schema: dict[str, Any], problem: str
) -> None:
    assert problem in str(schema_problem(schema))


class _Echo(Tool):
    def __init__(self, parameters: dict[str, Any]) -> None:
        self.spec = ToolSpec(
            "echo", "echo", parameters, "test", PermissionLevel.READ, RiskLevel.LOW, True, 1.0
        )

    async def run(self, arguments: dict[str, JSONValue], context: CallContext) -> ToolOutput:
        return ToolOutput(data=arguments, text="ok")


async def test_a_schema_that_cannot_be_applied_makes_the_call_invalid_and_audited(
    audit: InMemoryAuditLog, ctx: CallContext
) -> None:
    registry = ToolRegistry(
        [_Echo(_object(q={"$ref": "#/$defs/missing"}))],
        policy=LevelPolicy(PermissionLevel.READ),
        audit=audit,
    )
    with pytest.raises(ToolArgumentsInvalidError, match="cannot be checked"):
        await registry.call("echo", {"q": "x"}, ctx)
    assert [(r.tool_name, r.outcome) for r in audit.records] == [("echo", "invalid")]


QUICK_SCHEMAS: list[dict[str, Any]] = [
    {
        "type": "object",
        "properties": {"expression": {"type": "string", "minLength": 1, "maxLength": 5}},
        "required": ["expression"],
        "additionalProperties": False,
    },
    {
        "type": "object",
        "properties": {
            "n": {"type": "integer", "minimum": 0, "maximum": 9},
            "x": {"type": "number", "minimum": -1.5},
            "flag": {"type": "boolean"},
            "mode": {"type": "string", "enum": ["a", "b"]},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2},
            "none": {"type": "null"},
            "any": {"description": "anything"},
        },
        "additionalProperties": True,
    },
]
QUICK_VALUES: list[Any] = [
    {}, {"expression": ""}, {"expression": "1+1"}, {"expression": "123456"}, {"expression": 1},
    {"expression": "1", "other": 2}, {"n": 0}, {"n": 9}, {"n": 10}, {"n": -1}, {"n": 1.0},
    {"n": True}, {"x": -1.5}, {"x": -2}, {"x": "1"}, {"flag": 1}, {"flag": False},
    {"mode": "a"}, {"mode": "c"}, {"mode": 1}, {"tags": []}, {"tags": ["a"]},
    {"tags": ["a", "b", "c"]}, {"tags": [1]}, {"tags": "a"}, {"none": None}, {"none": 0},
    {"any": [1, {"a": None}]}, [], "text",
]  # fmt: skip


@pytest.mark.parametrize("schema", QUICK_SCHEMAS)
def test_the_quick_check_accepts_only_what_the_schema_accepts(schema: dict[str, Any]) -> None:
    """It stands in for jsonschema only where jsonschema finds nothing wrong."""
    quick = quick_check(schema)
    assert quick is not None
    full = ArgumentValidator(schema)
    accepted = 0
    for value in QUICK_VALUES:
        if quick(value):
            accepted += 1
            assert list(full._validator.iter_errors(value)) == [], value
    assert accepted >= 1


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"a": {"type": "string", "pattern": "^a$"}}},
        {"type": "object", "patternProperties": {"^a": {}}, "additionalProperties": False},
        {"type": ["string", "null"]},
        {"type": "string", "format": "email"},
        {"$ref": "#/$defs/a", "$defs": {"a": {"type": "string"}}},
        {"type": "object", "additionalProperties": {"type": "string"}},
        {"type": "object", "properties": {"a": True}},
        {"enum": [1, "a"]},
    ],
)
def test_any_other_schema_is_left_to_jsonschema(schema: dict[str, Any]) -> None:
    assert quick_check(schema) is None
