"""Conversations: the memory a task of a conversation gets, and how tokens are counted."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from server.settings.base import Section


class ConversationSettings(Section):
    memory_budget_tokens: int = Field(
        2000,
        ge=100,
        le=1_000_000,
        description="most tokens of earlier turns (their summary included) sent with a task "
        "of a conversation, unless its agent's `memory:` says otherwise",
    )
    memory_max_messages: int = Field(
        20, ge=0, le=1000, description="most earlier messages sent with a task of a conversation"
    )
    memory_tool_calls: Literal["keep", "summarize", "drop"] = Field(
        "summarize",
        description="earlier tool calls: kept as calls and results, summarised in one line "
        "each, or dropped",
    )
    memory_tool_result_tokens: int = Field(
        500, ge=10, le=100_000, description="an earlier tool result past this is cut, marked"
    )
    memory_compaction: Literal["summarize", "drop"] = Field(
        "summarize",
        description="turns that no longer fit: folded into the running summary by the model, "
        "or dropped",
    )
    memory_summary_tokens: int = Field(
        400, ge=20, le=20_000, description="most tokens of a conversation's running summary"
    )
    conversation_max_waiting: int = Field(
        8,
        ge=1,
        le=1000,
        description="tasks that may wait in one conversation's line (busy policy ENQUEUE); "
        "one more is refused with CONVERSATION_BUSY",
    )
    conversation_max_turns: int = Field(
        10_000,
        ge=1,
        le=10_000_000,
        description="turns a conversation may hold; a task in a full one is refused "
        "(INVALID_ARGUMENT on conversation_id): start a new conversation",
    )
    tokenizer_dir: Path = Field(
        Path("var/tiktoken"),
        description="OpenAI's BPE ranks (o200k_base, cl100k_base) in tiktoken's cache layout "
        "(`make` puts them there); without them tokens are estimated",
    )
