"""Questions to the caller: an agent that may ask (`ask_user`) pauses its task for an answer.

The model calls the `ask_user` tool with a question; the task turns
INPUT_REQUIRED, announces it with an `input_requested` event and parks; the task's
owner (or an approver) answers with ProvideInput on any replica, and the answer
becomes the tool's result. A question is a wait of its own kind (`records.waits`,
slot `question:<call id>`), so an answer can never decide a tool call's approval, nor
an approval answer a question. An unanswered question's wait expires at its deadline
(the task's wait limit) and the call fails: the model is told.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from agent.tool_use.results import not_run
from core.errors import (
    ApprovalNotPendingError,
    FieldViolation,
    InvalidArgumentError,
)
from core.identity import Principal
from core.roles import Action, RoleTable
from records.tasks import Task
from records.tools.invocation import Invocation
from records.tools.model import PermissionLevel, RiskLevel, ToolSpec
from records.tools.outcomes import ToolCallResult, ToolErrorKind
from records.waits import Wait, WaitKind
from stores.waits.base import WaitStore
from tools.catalog import ENGINE

if TYPE_CHECKING:
    from agent.tool_use.people import PersonWaits

PREFIX = "question:"
MAX_QUESTION_CHARS = 2_000
MAX_ANSWER_CHARS = 5_000

ASK_USER = ToolSpec(
    name="ask_user",
    description=(
        "Ask the person who gave you this task one question, when you cannot go on "
        "without their answer (a missing requirement, or a choice only they can make). "
        "Their answer is the result. Ask only what you need; do not ask for confirmation."
    ),
    parameters={
        "type": "object",
        "properties": {"question": {"type": "string", "minLength": 1, "maxLength": 2000}},
        "required": ["question"],
        "additionalProperties": False,
    },
    category="conversation",
    source=ENGINE,  # admitted by the registry like any tool, asked by the engine
    permission=PermissionLevel.NONE,
    risk=RiskLevel.LOW,
    idempotent=True,
    timeout_seconds=86_400.0,
)


async def ask(people: PersonWaits, invocation: Invocation, *, can_wait: bool) -> ToolCallResult:
    """An admitted `ask_user` call: the caller's answer is its result (Parked until one
    comes); not asked when the question is empty or only a call, not a task, could wait."""
    question = str(invocation.arguments.get("question", "")).strip()
    if not question or not can_wait:
        why = "the question is empty" if not question else "only a task can wait"
        return not_run(invocation, ToolErrorKind.FAILED, f"not asked: {why}")
    asked = question[:MAX_QUESTION_CHARS]
    answered = await people.question(PREFIX + invocation.call_id, asked)
    if answered is None:
        why = "no answer came before the question's deadline"
        return not_run(invocation, ToolErrorKind.TIMEOUT, f"no answer came: {why}")
    text, _ = answered
    return ToolCallResult(invocation.call_id, invocation.name, {"answer": text}, text, 0.0)


async def provide(
    waits: WaitStore,
    task: Task,
    caller: Principal,
    request_id: str,
    text: str,
    roles: RoleTable,
) -> Wait:
    """Leave `caller`'s answer for a question `task` asked: its wait, answered (the task is
    woken by the caller of this)."""
    if caller.id != task.owner:
        roles.require(caller.roles, Action.ANSWER_ANOTHERS_TASK)
    if not text.strip() or len(text) > MAX_ANSWER_CHARS:
        raise InvalidArgumentError(
            [FieldViolation("text", f"must be 1 to {MAX_ANSWER_CHARS} characters")]
        )
    if task.status.terminal or not request_id.startswith(PREFIX):
        raise ApprovalNotPendingError(task.task_id, request_id)
    answer = {"text": text}
    now = datetime.now(UTC)
    return await waits.answer(
        task.tenant, task.task_id, request_id, WaitKind.QUESTION, answer, caller.id, now
    )
