"""The guardrails a tool call is made under (`agent.guardrails`), as the registry sees
them: its task's (the server's checks and its agent's), or the server's for a CallTool.

The registry checks a call's arguments once its schema has passed, before it runs (for a
call that waits for a person, before the person is asked), and its result before anyone
sees it: the model, the task's events, the caller of CallTool. A check that blocks raises
`GuardrailBlockedError` (the call is audited `blocked`); one that redacts hands on the
redacted arguments or result (placeholders where the matches were)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Protocol

from records.tools.model import JSONValue
from records.tools.outcomes import ToolCallResult


class CallGuard(Protocol):
    def watches_calls(self) -> bool:
        """Whether any check looks at tool arguments or results (none: the registry
        spends nothing on them)."""
        ...

    async def tool_arguments(
        self, tool: str, call_id: str, arguments: Mapping[str, JSONValue]
    ) -> Mapping[str, JSONValue]:
        """The arguments as the call may go on with them; GuardrailBlockedError."""
        ...

    async def tool_result(
        self, tool: str, call_id: str, text: str, data: JSONValue
    ) -> tuple[str, JSONValue]:
        """The result (its text, its data) as it may be handed on; GuardrailBlockedError."""
        ...


async def guarded_result(guard: CallGuard | None, result: ToolCallResult) -> ToolCallResult:
    """`result` as it may be handed on under `guard` (its text and data checked: redacted,
    or GuardrailBlockedError)."""
    if guard is None or not guard.watches_calls():
        return result
    text = result.text if result.error is None else result.error.message
    text, data = await guard.tool_result(result.tool_name, result.call_id, text, result.data)
    if result.error is not None:
        return replace(result, data=data, error=replace(result.error, message=text))
    return replace(result, text=text, data=data)
