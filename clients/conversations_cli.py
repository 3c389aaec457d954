"""`agentd conversations create|list|show|delete|fork|rewind`: a caller's conversations.

A task joins one with `agentd exec "..." --conversation ID [--busy enqueue]`.
"""

from __future__ import annotations

import argparse
from typing import Any

from agentd.v1 import conversations_pb2 as cpb
from agentd_client.client import AgentClient
from clients.output import as_json, nothing

MAX_SHOWN = 100_000
"""Messages `show` prints at most (it pages through them)."""


def add_parsers(sub: Any) -> None:
    conversations = sub.add_parser("conversations", help="your conversations")
    verbs = conversations.add_subparsers(dest="verb", required=True)
    create = verbs.add_parser("create", help="start a conversation; prints its id")
    create.add_argument("--title", default="")
    verbs.add_parser("list", help="your conversations, newest first")
    show = verbs.add_parser("show", help="a conversation and its messages")
    show.add_argument("conversation_id")
    delete = verbs.add_parser("delete", help="delete a conversation and its messages")
    delete.add_argument("conversation_id")
    fork = verbs.add_parser(
        "fork", help="a new conversation sharing this one's turns up to a point; prints its id"
    )
    _point(fork)
    fork.add_argument("--title", default="", help="the fork's title (default: the original's)")
    rewind = verbs.add_parser(
        "rewind", help="take the turns after a point out of what the next tasks are sent"
    )
    _point(rewind)


def _point(parser: Any) -> None:
    parser.add_argument("conversation_id")
    point = parser.add_mutually_exclusive_group(required=True)
    point.add_argument("--after-turn", type=int, help="after this turn (rewind: 0 for all)")
    point.add_argument("--after-task", help="after the turn of this task")


def _line(conversation: cpb.Conversation) -> str:
    running = f"  running {conversation.running_task_id}" if conversation.running_task_id else ""
    if conversation.forked_from:
        running += f"  fork of {conversation.forked_from} after turn {conversation.forked_at_turn}"
    if conversation.rewound_turns:
        running += f"  {conversation.rewound_turns} turns rewound"
    return (
        f"{conversation.conversation_id}  {conversation.message_count} messages  "
        f"{conversation.title}{running}"
    ).rstrip()


async def run_conversations(client: AgentClient, args: argparse.Namespace) -> int:
    if args.verb == "create":
        created = await client.create_conversation(args.title)
        print(as_json(created) if args.json else created.conversation_id)
    elif args.verb == "list":
        token, shown = "", 0
        while True:
            page = await client.list_conversations(page_token=token)
            for conversation in page.conversations:
                print(as_json(conversation) if args.json else _line(conversation))
            shown += len(page.conversations)
            token = page.next_page_token
            if not token:
                break
        if not shown and not args.json:
            print(nothing("conversations"))
    elif args.verb == "show":
        await _show(client, args)
    elif args.verb == "fork":
        fork = await client.fork_conversation(
            args.conversation_id,
            after_turn=args.after_turn,
            after_task_id=args.after_task,
            title=args.title,
        )
        print(as_json(fork) if args.json else fork.conversation_id)
    elif args.verb == "rewind":
        rewound = await client.rewind_conversation(
            args.conversation_id, after_turn=args.after_turn, after_task_id=args.after_task
        )
        print(as_json(rewound) if args.json else _line(rewound))
    else:
        await client.delete_conversation(args.conversation_id)
    return 0


async def _show(client: AgentClient, args: argparse.Namespace) -> None:
    token, shown = "", 0
    while shown < MAX_SHOWN:
        page = await client.get_conversation(args.conversation_id, page_token=token)
        if not token:
            print(as_json(page.conversation) if args.json else _line(page.conversation))
            if page.conversation.summary and not args.json:
                print(
                    f"summary of messages 1-{page.conversation.summarized_through}: "
                    f"{page.conversation.summary}"
                )
        for message in page.messages:
            role = cpb.MessageRole.Name(message.role).removeprefix("MESSAGE_ROLE_").lower()
            tool = f" {message.tool_name}({message.arguments})" if message.tool_name else ""
            rewound = " (rewound)" if message.rewound else ""
            print(
                as_json(message)
                if args.json
                else f"#{message.index:<4} {role}{tool}{rewound}: {message.content}"
            )
            shown += 1
        token = page.next_page_token
        if not token:
            return
