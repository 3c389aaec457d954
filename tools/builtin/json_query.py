"""`json_query`: extract data from a JSON document with a JMESPath expression."""

from __future__ import annotations

import json

import jmespath
from jmespath.exceptions import JMESPathError

from core.errors import FieldViolation, InvalidArgumentError
from core.identity import CallContext
from tools.model import JSONValue, PermissionLevel, RiskLevel, Tool, ToolOutput, ToolSpec
from tools.outcomes import ToolFailed

MAX_TEXT_CHARS = 10_000


class JsonQuery(Tool):
    spec = ToolSpec(
        name="json_query",
        description=(
            "Extract data from a JSON document with a JMESPath expression, e.g. "
            "'people[?age > `30`].name' or 'items[0].price'. The document is given "
            "either as JSON data or as a string holding JSON."
        ),
        parameters={
            "type": "object",
            "properties": {
                "data": {"description": "The JSON document, or a string containing it."},
                "expression": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 2_000,
                    "description": "A JMESPath expression (https://jmespath.org).",
                },
            },
            "required": ["data", "expression"],
            "additionalProperties": False,
        },
        category="data",
        permission=PermissionLevel.NONE,
        risk=RiskLevel.LOW,
        idempotent=True,
        timeout_seconds=5.0,
    )

    async def run(self, arguments: dict[str, JSONValue], context: CallContext) -> ToolOutput:
        document = arguments["data"]
        if isinstance(document, str):
            try:
                document = json.loads(document)
            except json.JSONDecodeError as exc:
                raise InvalidArgumentError(
                    [FieldViolation("arguments.data", f"is a string but not valid JSON: {exc}")]
                ) from None
        expression = str(arguments["expression"])
        try:
            compiled = jmespath.compile(expression)
        except JMESPathError as exc:
            raise InvalidArgumentError(
                [FieldViolation("arguments.expression", f"invalid JMESPath expression: {exc}")]
            ) from None
        try:
            result = compiled.search(document)
        except JMESPathError as exc:
            raise ToolFailed(f"query failed: {exc}") from None
        text = json.dumps(result, ensure_ascii=False)
        if len(text) > MAX_TEXT_CHARS:
            text = text[:MAX_TEXT_CHARS] + f"... ({len(text)} characters in all)"
        return ToolOutput(data={"result": result}, text=text)
