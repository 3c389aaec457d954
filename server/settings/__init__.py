"""Service settings, read from `AGENTD_*` environment variables, in sections by concern:
the process (`service`), the model (`model`), the engine and its limits (`engine`), tools
(`tools`), toolsets from a file (`toolsets`), where state lives (`storage`), who may call
(`access`), the memory of conversations (`conversations`), what a task tree's artifacts
may hold (`artifacts`), agents working together (`teams`), long-term memory and
knowledge bases (`knowledge.memory`), memory shared between users and extracted from
turns (`knowledge.memory`), reranking knowledge search (`knowledge.rerank`), A2A (`a2a`),
guardrails (`guardrails`), the server's keys (`keys`) and money and numbers (`usage`:
currency, the usage ledger, budgets, statistics), each a module of `sections`;
`combined.Settings` holds them all, and is imported from here."""

from server.settings.combined import Settings
from server.settings.sections.tools import parse_cache_seconds

__all__ = ["Settings", "parse_cache_seconds"]
