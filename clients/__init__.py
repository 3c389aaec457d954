"""Typed async client and CLI for agentd. Depends only on the generated contract."""

from clients.client import AgentClient
from clients.errors import AgentdError

__all__ = ["AgentClient", "AgentdError"]
