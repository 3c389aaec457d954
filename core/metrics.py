"""Prometheus metrics: the series agentd exposes on its metrics port.

All series live in one `CollectorRegistry` (not the client library's global
one), served by `serve()` on AGENTD_METRICS_ADDRESS.
"""

from __future__ import annotations

from typing import Any, TypeVar

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

REGISTRY = CollectorRegistry(auto_describe=True)

LATENCY_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)
TASK_BUCKETS = (0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800)

TASKS_STARTED = Counter(
    "agentd_tasks_started", "Tasks that started running, by mode.", ["mode"], registry=REGISTRY
)
TASKS_FINISHED = Counter(
    "agentd_tasks_finished",
    "Tasks that ended, by final status and mode.",
    ["status", "mode"],
    registry=REGISTRY,
)
TASK_DURATION = Histogram(
    "agentd_task_duration_seconds",
    "Wall time from a task's creation to its end.",
    ["mode", "status"],
    buckets=TASK_BUCKETS,
    registry=REGISTRY,
)
TASKS_IN_FLIGHT = Gauge(
    "agentd_tasks_in_flight", "Tasks running in this process now.", registry=REGISTRY
)
TOOL_CALLS = Counter(
    "agentd_tool_calls",
    "Tool calls asked for, by tool and outcome.",
    ["tool", "outcome"],
    registry=REGISTRY,
)
TOOL_LATENCY = Histogram(
    "agentd_tool_call_duration_seconds",
    "How long tools ran.",
    ["tool"],
    buckets=LATENCY_BUCKETS,
    registry=REGISTRY,
)
TOOL_CACHE = Counter(
    "agentd_tool_cache",
    "Lookups in the cache of tool results, by tool and result (hit, miss).",
    ["tool", "result"],
    registry=REGISTRY,
)
LLM_CALLS = Counter(
    "agentd_llm_calls", "Model calls, by role and outcome.", ["role", "outcome"], registry=REGISTRY
)
LLM_TOKENS = Counter(
    "agentd_llm_tokens",
    "Tokens spent, by role and kind (prompt, completion, reasoning).",
    ["role", "kind"],
    registry=REGISTRY,
)
REFLECTIONS = Counter(
    "agentd_reflections",
    "Critic verdicts, by whether they passed (pass rate = passed / all).",
    ["passed"],
    registry=REGISTRY,
)
RPCS = Counter(
    "agentd_rpcs",
    "RPCs served, by method and status code.",
    ["method", "code"],
    registry=REGISTRY,
)
RPC_LATENCY = Histogram(
    "agentd_rpc_duration_seconds",
    "RPC duration (streams: until they ended), by method.",
    ["method"],
    buckets=LATENCY_BUCKETS,
    registry=REGISTRY,
)
RATE_LIMITED = Counter(
    "agentd_rate_limited",
    "Calls refused by a rate limit, by method and scope.",
    ["method", "scope"],
    registry=REGISTRY,
)
GUARDRAIL_DECISIONS = Counter(
    "agentd_guardrail_decisions",
    "Guardrail decisions, by check, point (input, output, tool_arguments, tool_result) and "
    "action (block, redact, record).",
    ["check", "point", "action"],
    registry=REGISTRY,
)

for _passed in ("true", "false"):  # both series exist from the start (a rate needs both)
    REFLECTIONS.labels(_passed)
TOOLSET_UP = Gauge(
    "agentd_toolset_up",
    "1 while a toolset's MCP server is connected, 0 while it is down or connecting.",
    ["toolset"],
    registry=REGISTRY,
)
TOOLSET_RESTARTS = Counter(
    "agentd_toolset_restarts",
    "Reconnections (restarts of a stdio server) after an MCP server was lost, by toolset.",
    ["toolset"],
    registry=REGISTRY,
)

A2A_PUSH_DELIVERIES = Counter(
    "agentd_a2a_push_deliveries",
    "A2A push notifications POSTed, by outcome: delivered (2xx), failed (retried later).",
    ["outcome"],
    registry=REGISTRY,
)

WEBHOOK_EVENTS = Counter(
    "agentd_webhook_events",
    "Webhook events written to the outbox (each once, whatever the webhooks it goes to), "
    "by type (task.started, inbox.new, ...).",
    ["type"],
    registry=REGISTRY,
)
WEBHOOK_DELIVERIES = Counter(
    "agentd_webhook_deliveries",
    "Webhook deliveries attempted, by outcome: delivered (2xx), failed (retried later), "
    "dead (given up after AGENTD_WEBHOOK_RETENTION_SECONDS: a dead letter), superseded "
    "(a task's end the store refused: it ended otherwise; not sent).",
    ["outcome"],
    registry=REGISTRY,
)
WEBHOOK_DELIVERY_DURATION = Histogram(
    "agentd_webhook_delivery_duration_seconds",
    "How long webhook POSTs took, failed ones included.",
    buckets=LATENCY_BUCKETS,
    registry=REGISTRY,
)
WEBHOOK_PENDING = Gauge(
    "agentd_webhook_pending",
    "Webhook deliveries waiting (every tenant's), as this replica's last sweep counted them.",
    registry=REGISTRY,
)
WEBHOOK_DEAD_LETTERS = Gauge(
    "agentd_webhook_dead_letters",
    "Webhook dead letters kept (every tenant's), as this replica's last sweep counted them.",
    registry=REGISTRY,
)

MODEL_BUCKETS = (0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300)
ITERATION_BUCKETS = (0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89)

# The `agent` label is bounded (`agent.metrics.AGENT_LABELS`): an agent of AGENTD_AGENTS_DIR
# by its id, the first AGENTD_METRICS_AGENT_LABELS other ids by theirs, later ones as
# "other", the default agent as "default"; never a user or tenant. A provider "" (the
# server's own endpoint) is "default".
MODEL_CALLS = Counter(
    "agentd_model_calls",
    "Model calls (each candidate of a fallback chain tried), by provider, model, agent and "
    "outcome (ok, failed).",
    ["provider", "model", "agent", "outcome"],
    registry=REGISTRY,
)
MODEL_CALL_DURATION = Histogram(
    "agentd_model_call_duration_seconds",
    "How long model calls took (failed ones included), by provider and model.",
    ["provider", "model"],
    buckets=MODEL_BUCKETS,
    registry=REGISTRY,
)
MODEL_TOKENS = Counter(
    "agentd_model_tokens",
    "Tokens of model calls, by provider, model, agent and kind (prompt, cached_prompt: the "
    "part of prompt the provider had cached, completion).",
    ["provider", "model", "agent", "kind"],
    registry=REGISTRY,
)
MODEL_COST = Counter(
    "agentd_model_cost_micros",
    "What model calls cost, in micro-units of the server's currency (a model the providers "
    "file gives no price costs 0), by provider, model and agent.",
    ["provider", "model", "agent"],
    registry=REGISTRY,
)
PROVIDER_FALLBACKS = Counter(
    "agentd_provider_fallbacks",
    "A candidate of a fallback chain failed (a timeout, a 5xx, a 429) and the chain moved "
    "on to the next, by the provider and model that failed.",
    ["provider", "model"],
    registry=REGISTRY,
)
BREAKER_OPENINGS = Counter(
    "agentd_provider_breaker_openings",
    "Times a provider's circuit breaker opened (after failures in its window, or a failed "
    "trial call), by provider.",
    ["provider"],
    registry=REGISTRY,
)
TASK_ITERATIONS = Histogram(
    "agentd_task_iterations",
    "Model calls answered per task, observed when the task ends, by agent.",
    ["agent"],
    buckets=ITERATION_BUCKETS,
    registry=REGISTRY,
)
TASKS_STOPPED = Counter(
    "agentd_tasks_stopped",
    "Tasks that ended, by agent and why the engine stopped (final_answer, max_iterations, "
    "token_budget, cancelled, error, ...; none when no reason was recorded).",
    ["agent", "stop_reason"],
    registry=REGISTRY,
)

M = TypeVar("M", Counter, Gauge, Histogram)

_CHILDREN: dict[tuple[Any, tuple[str, ...]], Any] = {}
"""Each labelled series asked for by `labelled`, by its metric and label values."""


def labelled(metric: M, *values: str) -> M:
    """`metric.labels(*values)`, looked up once: what a call counts on every call
    (`labels` checks and converts the values, and takes the metric's lock, each time)."""
    key = (metric, values)
    child = _CHILDREN.get(key)
    if child is None:
        child = _CHILDREN[key] = metric.labels(*values)
    return child
