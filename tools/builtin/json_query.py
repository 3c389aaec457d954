"""`json_query`: extract data from a JSON document with a JMESPath expression."""

from __future__ import annotations

import json
from typing import Any

import jmespath
from jmespath.exceptions import JMESPathError
from jmespath.visitor import TreeInterpreter

from core.errors import FieldViolation, InvalidArgumentError
from core.identity import CallContext
from records.tools.model import JSONValue, PermissionLevel, RiskLevel, Tool, ToolOutput, ToolSpec
from records.tools.outcomes import ToolFailed
from tools.builtin.work import Budget, in_thread

MAX_TEXT_CHARS = 10_000
MAX_VISITS = 200_000
"""Expression nodes one query may evaluate: `[@,@]|` repeated doubles the work each time,
so cost, not length, is what is bounded."""


MAX_RESULT_VALUES = 10_000
"""Values a result may hold, counted as JSON would write them out."""


def _expanded_size(value: Any) -> int:
    """How many values `value` holds written out as JSON, counted without writing it: a
    query can return one list many times over (`[@,@]`), which doubles the output per
    repetition while the data in memory stays small."""
    sizes: dict[int, int] = {}
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        item, children_done = stack.pop()
        if not isinstance(item, dict | list) or id(item) in sizes:
            continue
        children = list(item.values()) if isinstance(item, dict) else item
        if not children_done:
            stack.append((item, True))
            stack.extend((c, False) for c in children if isinstance(c, dict | list))
            continue
        sizes[id(item)] = 1 + sum(
            sizes.get(id(c), 0) if isinstance(c, dict | list) else 1 for c in children
        )
    return sizes.get(id(value), 1)


class _BudgetedInterpreter(TreeInterpreter):
    """JMESPath's own interpreter, spending one unit of a budget per node it evaluates."""

    def __init__(self, budget: Budget) -> None:
        super().__init__()
        self._budget = budget

    def visit(self, node: Any, *args: Any, **kwargs: Any) -> Any:
        self._budget.spend()
        return super().visit(node, *args, **kwargs)


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
        budget = Budget(MAX_VISITS, "the query")
        return await in_thread(self._query, arguments, budget, budget=budget)

    def _query(self, arguments: dict[str, JSONValue], budget: Budget) -> ToolOutput:
        document = arguments["data"]
        if isinstance(document, str):
            try:
                document = json.loads(document)
            except json.JSONDecodeError as exc:
                raise InvalidArgumentError(
                    [FieldViolation("arguments.data", f"is a string but not valid JSON: {exc}")]
                ) from None
            except RecursionError:
                raise InvalidArgumentError(
                    [FieldViolation("arguments.data", "is JSON nested too deeply")]
                ) from None
        expression = str(arguments["expression"])
        try:
            compiled = jmespath.compile(expression)
        except JMESPathError as exc:
            raise InvalidArgumentError(
                [FieldViolation("arguments.expression", f"invalid JMESPath expression: {exc}")]
            ) from None
        except RecursionError:
            raise InvalidArgumentError(
                [FieldViolation("arguments.expression", "is nested too deeply")]
            ) from None
        try:
            result = _BudgetedInterpreter(budget).visit(compiled.parsed, document)
            if _expanded_size(result) > MAX_RESULT_VALUES:
                raise ToolFailed(
                    f"the result holds more than {MAX_RESULT_VALUES} values; narrow the query"
                )
            text = json.dumps(result, ensure_ascii=False)
        except JMESPathError as exc:
            raise ToolFailed(f"query failed: {exc}") from None
        except RecursionError:
            raise ToolFailed("the data or the query is nested too deeply") from None
        if len(text) > MAX_TEXT_CHARS:
            text = text[:MAX_TEXT_CHARS] + f"... ({len(text)} characters in all)"
        return ToolOutput(data={"result": result}, text=text)
