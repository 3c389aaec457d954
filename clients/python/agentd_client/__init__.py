"""The Python client of agentd: `AgentClient` and the errors it raises (`errors`)."""

from agentd_client import errors
from agentd_client.client import AgentClient

__all__ = ["AgentClient", "errors"]
