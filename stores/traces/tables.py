"""The tables of tasks' durable traces (migration 0028), on the schema's one `metadata`
(`stores.sql.schema` imports this module, so they are part of it wherever it is read).

A task's trace is its head (whose it is, and what is kept of it so far), its entries in
entry-id order, and the messages its model calls sent, each once per task. An entry's
and a message's `bytes` are what the task's cap counts; a message's `first_entry_id` is
the first entry that named it (a page carries the messages its entries name first), its
`number` its place in the order the task's messages were first kept, by which a model
call's entry names its messages in runs (`records.traces.codec.runs`)."""

from __future__ import annotations

from sqlalchemy import BigInteger, Boolean, Column, DateTime, Index, Integer, String, Table, Text

from stores.sql.metadata import metadata

trace_heads = Table(
    "trace_heads",
    metadata,
    Column("task_id", String(64), primary_key=True),
    Column("tenant", String(128), nullable=False),
    Column("user", String(256), nullable=False),
    Column("root_task_id", String(64), nullable=False),
    Column("parent_task_id", String(64), nullable=False),
    Column("agent", String(256), nullable=False),
    Column("task", Text, nullable=False),
    Column("started", DateTime(timezone=True), nullable=False),
    Column("entries", Integer, nullable=False),
    Column("bytes", BigInteger, nullable=False),
    Column("cut", Boolean, nullable=False),
    Column("written", DateTime(timezone=True), nullable=False),
    Index("ix_trace_heads_written", "written"),
    Index("ix_trace_heads_user", "tenant", "user"),
    Index("ix_trace_heads_parent", "parent_task_id", "started"),
)
"""Whose trace it is (reads are checked against it; the sweeper finds it by when it was
last `written`, so a task parked for long keeps its trace while it runs; ForgetUser by
tenant and user; a task's children by `parent_task_id`)."""

trace_entries = Table(
    "trace_entries",
    metadata,
    Column("task_id", String(64), primary_key=True),
    Column("entry_id", String(40), primary_key=True),
    Column("kind", String(16), nullable=False),
    Column("step_id", String(256), nullable=False),
    Column("time", DateTime(timezone=True), nullable=False),
    Column("cut", Boolean, nullable=False),
    Column("bytes", Integer, nullable=False),
    Column("body", Text, nullable=False),
)
"""A model call, a tool call, a verdict or a decision (`records.traces.codec`)."""

trace_messages = Table(
    "trace_messages",
    metadata,
    Column("task_id", String(64), primary_key=True),
    Column("message_id", String(32), primary_key=True),
    Column("first_entry_id", String(40), nullable=False),
    Column("number", Integer, nullable=False),
    Column("bytes", Integer, nullable=False),
    Column("body", Text, nullable=False),
    Index("ix_trace_messages_first", "task_id", "first_entry_id"),
    Index("ix_trace_messages_number", "task_id", "number", unique=True),
)
"""A message model calls of the task sent, kept once (its content address)."""
