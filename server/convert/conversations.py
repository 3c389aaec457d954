"""Conversations between protobuf and the engine's types."""

from __future__ import annotations

from agentd.v1 import conversations_pb2 as cpb
from records.conversations.model import Conversation, ConversationMessage
from server.convert.tasks import to_timestamp

_ROLES = {
    "user": cpb.MESSAGE_ROLE_USER,
    "assistant": cpb.MESSAGE_ROLE_ASSISTANT,
    "tool": cpb.MESSAGE_ROLE_TOOL,
}


def conversation_to_proto(conversation: Conversation, running: str = "") -> cpb.Conversation:
    return cpb.Conversation(
        conversation_id=conversation.conversation_id,
        title=conversation.title,
        labels=dict(conversation.labels),
        created_by=conversation.created_by,
        create_time=to_timestamp(conversation.created_at),
        update_time=to_timestamp(conversation.updated_at),
        message_count=conversation.message_count,
        turn_count=conversation.turn_count,
        total_tokens=max(0, conversation.total_tokens),
        summary=conversation.summary,
        summarized_through=conversation.summarized_through,
        running_task_id=running,
        forked_from=conversation.forked_from,
        forked_at_turn=conversation.forked_at_turn,
        rewound_turns=conversation.rewound_turns,
    )


def message_to_proto(message: ConversationMessage) -> cpb.ConversationMessage:
    return cpb.ConversationMessage(
        index=message.index,
        role=_ROLES[message.role],
        content=message.content,
        task_id=message.task_id,
        tool_name=message.tool_name,
        arguments=message.arguments,
        tokens=max(0, message.tokens),
        create_time=to_timestamp(message.created_at),
        turn=message.turn,
        rewound=message.rewound,
    )


def point_of(
    request: cpb.ForkConversationRequest | cpb.RewindConversationRequest,
) -> tuple[int | None, str | None]:
    """The request's point: (after_turn, None), (None, after_task_id), or (None, None)
    when it names none."""
    match request.WhichOneof("point"):
        case "after_turn":
            return request.after_turn, None
        case "after_task_id":
            return None, request.after_task_id
        case _:
            return None, None
