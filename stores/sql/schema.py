"""The tables. Changes go through a new Alembic migration in db/migrations/versions.
Every table is on the one `metadata` (`stores.sql.metadata`); the inbox's history is
defined beside it (`stores.sql.inbox_tables`) and named here with the others."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Float,
    Index,
    Integer,
    LargeBinary,
    String,
    Table,
    Text,
    UniqueConstraint,
    false,
)

from stores.agents.tables import agent_promotions as agent_promotions
from stores.api_keys.tables import api_keys as api_keys
from stores.evals import tables as evals  # noqa: F401 - these four: their tables on `metadata`
from stores.schedules import tables as schedules  # noqa: F401
from stores.sql.inbox_tables import action_history as action_history
from stores.sql.metadata import metadata as metadata
from stores.traces import tables as traces  # noqa: F401
from stores.triggers import tables as triggers  # noqa: F401
from stores.webhooks.tables import webhook_deliveries as webhook_deliveries
from stores.webhooks.tables import webhook_events as webhook_events
from stores.webhooks.tables import webhook_streams as webhook_streams
from stores.webhooks.tables import webhooks as webhooks

task_history = Table(
    "task_history",
    metadata,
    Column("task_id", String(64), primary_key=True),
    Column("tenant", String(128), nullable=False),
    Column("owner", String(256), nullable=False),
    Column("task", Text, nullable=False),
    Column("mode", String(32), nullable=False),
    Column("status", String(32), nullable=False),
    Column("final_answer", Text, nullable=False, default=""),
    Column("error_reason", String(64), nullable=False, default=""),
    Column("error_message", Text, nullable=False, default=""),
    Column("stop_reason", String(32), nullable=False, default=""),
    Column("stop_detail", Text, nullable=False, default=""),
    Column("prompt_tokens", BigInteger, nullable=False, default=0),
    Column("completion_tokens", BigInteger, nullable=False, default=0),
    Column("reasoning_tokens", BigInteger, nullable=False, default=0),
    Column("last_sequence", BigInteger, nullable=False, default=0),
    Column("data", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Column("agent_id", String(64), nullable=False, server_default=""),
    Column("agent_version", Integer, nullable=False, server_default="0"),
    Column("conversation_id", String(64), nullable=False, server_default=""),
    Column("parent_task_id", String(64), nullable=False, server_default=""),
    Column("root_task_id", String(64), nullable=False, server_default=""),
    Index("ix_task_history_tenant_created", "tenant", "created_at"),
    Index("ix_task_history_tenant_agent", "tenant", "agent_id", "created_at"),
    Index("ix_task_history_conversation", "conversation_id", "created_at"),
    Index("ix_task_history_parent", "parent_task_id", "created_at"),
    Index("ix_task_history_updated", "updated_at"),
)
"""Finished tasks: what was asked, how it ended, what it cost. `data` is the full task as JSON."""

task_labels = Table(
    "task_labels",
    metadata,
    Column("task_id", String(64), primary_key=True),
    Column("tenant", String(128), nullable=False),
    Column("key", String(63), primary_key=True),
    Column("value", String(256), nullable=False),
    Index("ix_task_labels_tenant_key_value", "tenant", "key", "value"),
)
"""The labels of each task (ListTasks filters by them)."""

tool_call_audit = Table(
    "tool_call_audit",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("call_id", String(64), nullable=False),
    Column("time", DateTime(timezone=True), nullable=False),
    Column("principal_id", String(256), nullable=False),
    Column("tenant", String(128), nullable=False),
    Column("trace_id", String(32), nullable=False),
    Column("tool_name", String(128), nullable=False),
    Column("arguments", JSON, nullable=False),
    Column("decision", String(16), nullable=False),
    Column("rule", String(256), nullable=False),
    Column("outcome", String(32), nullable=False),
    Column("result_digest", String(64), nullable=False),
    Column("duration_seconds", Float, nullable=False),
    Column("task_id", String(64), nullable=False, server_default=""),
    Column("approval", String(32), nullable=False, server_default=""),
    Column("approved_by", String(256), nullable=False, server_default=""),
    Column("approval_comment", Text, nullable=False, server_default=""),
    Column("attempt", Integer, nullable=False, server_default="1"),
    Column("cached", Boolean, nullable=False, server_default=false()),
    Column("parent_task_id", String(64), nullable=False, server_default=""),
    Column("root_task_id", String(64), nullable=False, server_default=""),
    Index("ix_tool_call_audit_tenant_time", "tenant", "time"),
    Index("ix_tool_call_audit_call_id", "call_id"),
)
"""One row per tool call asked for, whatever its outcome."""

task_checkpoints = Table(
    "task_checkpoints",
    metadata,
    Column("task_id", String(64), primary_key=True),
    Column("tenant", String(128), nullable=False),
    Column("version", BigInteger, nullable=False),
    Column("state", Text, nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)
"""The latest checkpoint of each running task (deleted when the task ends)."""

tool_grants = Table(
    "tool_grants",
    metadata,
    Column("grant_id", String(32), primary_key=True),
    Column("tenant", String(128), nullable=False),
    Column("subject", String(300), nullable=False),
    Column("tool", String(200), nullable=False),
    Column("level", String(16), nullable=False),
    Column("conditions", JSON, nullable=False),
    Column("requires_approval", Boolean, nullable=False),
    Column("approval", JSON, nullable=True),
    Column("created_by", String(256), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=True),
    Column("revoked_at", DateTime(timezone=True), nullable=True),
    Index("ix_tool_grants_tenant", "tenant"),
)
"""Tool grants; `conditions` holds the time window and the argument prefixes, `approval`
the approval rule of a grant that requires approval (`records.tools.approval_rules`)."""

rpc_audit = Table(
    "rpc_audit",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("time", DateTime(timezone=True), nullable=False),
    Column("principal_id", String(256), nullable=False),
    Column("tenant", String(128), nullable=False),
    Column("method", String(200), nullable=False),
    Column("code", String(32), nullable=False),
    Column("duration_seconds", Float, nullable=False),
    Column("trace_id", String(32), nullable=False),
    Column("request_digest", String(64), nullable=False),
    Column("task_id", String(64), nullable=False),
    Column("via", String(128), nullable=False, server_default=""),
    Index("ix_rpc_audit_tenant_time", "tenant", "time"),
)
"""One row per RPC served (streams when they end), refused ones included."""

guardrail_audit = Table(
    "guardrail_audit",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("time", DateTime(timezone=True), nullable=False),
    Column("tenant", String(128), nullable=False),
    Column("principal_id", String(256), nullable=False),
    Column("check_name", String(64), nullable=False),
    Column("rule", String(256), nullable=False),
    Column("point", String(16), nullable=False),
    Column("action", String(16), nullable=False),
    Column("reason", Text, nullable=False),
    Column("text_digest", String(64), nullable=False),
    Column("task_id", String(64), nullable=False),
    Column("agent", String(64), nullable=False),
    Column("tool_name", String(128), nullable=False),
    Column("call_id", String(64), nullable=False),
    Column("trace_id", String(32), nullable=False),
    Index("ix_guardrail_audit_tenant_id", "tenant", "id"),
    Index("ix_guardrail_audit_tenant_task", "tenant", "task_id"),
)
"""One row per guardrail decision (block, redact, record): which check and rule, where,
and a digest of the text, never the text."""

agent_versions = Table(
    "agent_versions",
    metadata,
    Column("tenant", String(128), primary_key=True),
    Column("agent_id", String(64), primary_key=True),
    Column("version", Integer, primary_key=True),
    Column("definition", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("created_by", String(256), nullable=False),
    Column("deleted_at", DateTime(timezone=True), nullable=True),
)
"""Every version of every agent managed by RPC; `deleted_at` is set on its latest version
when the agent is deleted (a later create starts from the next number)."""

conversations = Table(
    "conversations",
    metadata,
    Column("conversation_id", String(64), primary_key=True),
    Column("tenant", String(128), nullable=False),
    Column("created_by", String(256), nullable=False),
    Column("title", Text, nullable=False),
    Column("labels", JSON, nullable=False),
    Column("summary", Text, nullable=False),
    Column("summarized_through", BigInteger, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Column("turn_count", BigInteger, nullable=False, server_default="0"),
    Column("message_count", BigInteger, nullable=False, server_default="0"),
    Column("total_tokens", BigInteger, nullable=False, server_default="0"),
    Column("forked_from", String(64), nullable=False, server_default=""),
    Column("forked_at_turn", BigInteger, nullable=False, server_default="0"),
    Column("lineage", Text, nullable=True),
    Column("hidden", Text, nullable=True),
    Column("fork_refs", BigInteger, nullable=False, server_default="0"),
    Column("deleted_at", DateTime(timezone=True), nullable=True),
    Index("ix_conversations_tenant_owner_created", "tenant", "created_by", "created_at"),
)
"""Conversations; `summary` covers messages 1..`summarized_through`; the counts are those
of its turns, updated in the transaction that adds each. A fork's `lineage` (JSON, NULL
for none) names the conversations whose stored turns it shares, `hidden` (JSON, NULL for
none) its rewound turn ranges (`records.conversations.lineage`). `fork_refs` counts the
forks whose lineage names it: a deleted conversation that forks still read is kept,
marked `deleted_at` (gone for every caller), until the last of them is deleted."""

conversation_summaries = Table(
    "conversation_summaries",
    metadata,
    Column("conversation_id", String(64), primary_key=True),
    Column("summarized_through", BigInteger, primary_key=True),
    Column("summary", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)
"""Every running summary a conversation stored (with the message it covers through), written
with it: what a fork starts from and a rewind goes back to."""

conversation_turns = Table(
    "conversation_turns",
    metadata,
    Column("conversation_id", String(64), primary_key=True),
    Column("turn", Integer, primary_key=True),
    Column("task_id", String(64), nullable=False),
    Column("first_index", BigInteger, nullable=False),
    Column("message_count", Integer, nullable=False),
    Column("tokens_through", BigInteger, nullable=False),
    Column("messages", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("conversation_id", "task_id", name="uq_conversation_turns_task"),
    Index("ix_conversation_turns_first_index", "conversation_id", "first_index"),
)
"""One row per task that ended in a conversation: its messages (JSON), numbered from
`first_index`; `tokens_through` is the conversation's token count up to this turn."""

artifacts = Table(
    "artifacts",
    metadata,
    Column("space", String(64), primary_key=True),
    Column("name", String(128), primary_key=True),
    Column("version", Integer, primary_key=True),
    Column("tenant", String(128), nullable=False),
    Column("media_type", String(160), nullable=False),
    Column("size", BigInteger, nullable=False),
    Column("content", LargeBinary, nullable=False),
    Column("writer_task_id", String(64), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Index("ix_artifacts_writer", "space", "writer_task_id"),
    Index("ix_artifacts_created", "created_at"),
)
"""Every version of every artifact: a row per write. `space` is the task tree's root
task id; the primary key keeps two writes from taking one version number."""


a2a_push_configs = Table(
    "a2a_push_configs",
    metadata,
    Column("tenant", String(128), primary_key=True),
    Column("task_id", String(64), primary_key=True),
    Column("config_id", String(64), primary_key=True),
    Column("url", Text, nullable=False),
    Column("token", Text, nullable=False),
    Column("auth_scheme", String(64), nullable=False),
    Column("auth_credentials", Text, nullable=False),
    Column("created_by", String(256), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("delivered_through", BigInteger, nullable=False),
    Column("finished", Boolean, nullable=False),
    Column("claimed_by", String(128), nullable=False),
    Column("claimed_until", DateTime(timezone=True), nullable=True),
    Index("ix_a2a_push_configs_due", "finished", "claimed_until"),
)
"""A2A push-notification configs (`stores.push_configs`): the delivery cursor of each,
and which replica delivers it until when."""

task_waits = Table(
    "task_waits",
    metadata,
    Column("task_id", String(64), primary_key=True),
    Column("slot", String(256), primary_key=True),
    Column("tenant", String(128), nullable=False),
    Column("kind", String(16), nullable=False),
    Column("state", String(16), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("root_task_id", String(64), nullable=False),
    Column("agent", String(200), nullable=False),
    Column("owner", String(256), nullable=False),
    Column("roles", Text, nullable=False),
    Column("tool_name", String(200), nullable=False),
    Column("detail", Text, nullable=False),
    Column("deadline_at", DateTime(timezone=True), nullable=True),
    Column("on_deadline", String(16), nullable=False),
    Column("answer", Text, nullable=True),
    Column("answered_by", String(256), nullable=False),
    Column("answered_at", DateTime(timezone=True), nullable=True),
    Column("changes", Integer, nullable=False),
    Column("check_at", DateTime(timezone=True), nullable=True),
    Column("checks", Integer, nullable=False),
    Column("roles_by_rule", Boolean, nullable=False, server_default=false()),
    Column("remind_at", DateTime(timezone=True), nullable=True),
    Column("escalation_level", Integer, nullable=False, server_default="0"),
    Column("escalation", Text, nullable=True),
    Index("ix_task_waits_deadline", "state", "deadline_at"),
    Index("ix_task_waits_remind", "state", "remind_at"),
    Index("ix_task_waits_answered", "state", "answered_at"),
    Index("ix_task_waits_polls", "kind", "state", "check_at"),
    Index("ix_task_waits_pending", "tenant", "state", "created_at", "task_id", "slot"),
    Index("ix_task_waits_root", "root_task_id"),
)
"""What parked tasks wait for (`stores.waits`), a row per task and slot: `roles`, `answer`
and `escalation` (an approval rule's step to other roles) are JSON text, the enums their
values. Indexed for the periodic pass (deadlines and reminders due, answers not taken in,
polls due), a tenant's inbox of open waits in its order
(ListPendingActions: oldest first, by task and slot), and a task tree."""

model_calls = Table(
    "model_calls",
    metadata,
    Column("call_id", String(64), primary_key=True),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("tenant", String(128), nullable=False),
    Column("task_id", String(64), nullable=False),
    Column("root_task_id", String(64), nullable=False),
    Column("end_user", String(256), nullable=False),
    Column("agent", String(64), nullable=False),
    Column("agent_version", Integer, nullable=False),
    Column("agent_path", String(1024), nullable=False),
    Column("provider", String(64), nullable=False),
    Column("model", String(256), nullable=False),
    Column("role", String(32), nullable=False),
    Column("outcome", String(16), nullable=False),
    Column("prompt_tokens", BigInteger, nullable=False),
    Column("cached_prompt_tokens", BigInteger, nullable=False),
    Column("completion_tokens", BigInteger, nullable=False),
    Column("reasoning_tokens", BigInteger, nullable=False),
    Column("cost_micros", BigInteger, nullable=False),
    Column("priced", Boolean, nullable=False),
    Column("latency_ms", Integer, nullable=False),
    Column("estimated", Boolean, nullable=False),
    Index("ix_model_calls_tenant_at", "tenant", "at"),
    Index("ix_model_calls_tenant_user_at", "tenant", "end_user", "at"),
    Index("ix_model_calls_task", "task_id"),
    Index("ix_model_calls_at", "at"),
)
"""The usage ledger: one row per model call (`records.usage.ledger.ModelCall`).
`agent_path` is `/<agent>/` for a top task, with the agents above it in its tree first
(`/lead/researcher/`): an agent's budget counts its children's calls (`/lead/` found in
it by position, not LIKE: no wildcards, and case counts on SQLite too).
The user's column is `end_user`: USER is an SQL keyword."""

budgets = Table(
    "budgets",
    metadata,
    Column("budget_id", String(64), primary_key=True),
    Column("tenant", String(128), nullable=False),
    Column("scope", String(16), nullable=False),
    Column("subject", String(256), nullable=False),
    Column("unit", String(16), nullable=False),
    Column("window", String(16), nullable=False),
    Column("limit_amount", BigInteger, nullable=False),
    Column("soft_limit", BigInteger, nullable=False),
    Column("created_by", String(256), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("tenant", "scope", "subject", "unit", "window", name="uq_budgets_kind"),
    Index("ix_budgets_tenant_id", "tenant", "budget_id"),
)
"""Budgets (`records.usage.budgets.Budget`); their counters are live state
(`stores.budgets`). `limit_amount`: LIMIT is an SQL keyword."""
