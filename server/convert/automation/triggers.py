"""Conversion of inbound triggers between protobuf and `records.triggers`."""

from __future__ import annotations

from agentd.v1 import schedules_pb2
from core.errors import FieldViolation, InvalidArgumentError
from records.triggers import LABEL, Trigger
from server.convert.tasks import to_timestamp
from server.convert.values import dict_to_struct, struct_to_dict


def trigger_from_proto(message: schedules_pb2.Trigger) -> Trigger:
    """What a request says of a trigger (what the server assigns left empty); a task
    field a trigger does not carry out is refused, not dropped."""
    task = message.task
    unsupported = [
        FieldViolation(f"trigger.task.{name}", "is not supported for triggers")
        for name, given in (
            ("conversation_id", bool(task.conversation_id)),
            ("busy_policy", bool(task.busy_policy)),
        )
        if given
    ]
    if unsupported:
        raise InvalidArgumentError(unsupported)
    timeout = task.timeout.ToTimedelta().total_seconds() if task.HasField("timeout") else 0.0
    return Trigger(
        trigger_id="",
        tenant="",
        principal="",
        display_name=message.display_name,
        agent=task.agent,
        goal=task.goal,
        context=struct_to_dict(task.context, "trigger.task.context"),
        token_budget=task.token_budget,
        spend_limit=task.spend_limit,
        timeout_seconds=timeout,
        labels=dict(task.labels),
    )


def trigger_to_proto(trigger: Trigger, secret: str = "") -> schedules_pb2.Trigger:
    """The trigger as answered: its secret only when given (create, rotate), never the
    sealed one; its task's labels with `agentd.trigger` as each delivery's task has them."""
    task = schedules_pb2.ScheduledTask(
        agent=trigger.agent,
        goal=trigger.goal,
        context=dict_to_struct(dict(trigger.context)),
        token_budget=trigger.token_budget,
        spend_limit=trigger.spend_limit,
        labels={**trigger.labels, LABEL: trigger.trigger_id},
    )
    if trigger.timeout_seconds:
        task.timeout.FromSeconds(round(trigger.timeout_seconds))
    message = schedules_pb2.Trigger(
        id=trigger.trigger_id,
        display_name=trigger.display_name,
        task=task,
        secret=secret,
        principal=trigger.principal,
        deliveries=trigger.deliveries,
        refused=trigger.refused,
    )
    if trigger.created_at is not None:
        message.create_time.CopyFrom(to_timestamp(trigger.created_at))
    if trigger.last_delivery_at is not None:
        message.last_delivery_time.CopyFrom(to_timestamp(trigger.last_delivery_at))
    return message
