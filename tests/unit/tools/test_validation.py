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
from tools.validation import ArgumentValidator, schema_problem, shortened


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
