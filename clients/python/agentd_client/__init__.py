"""The Python client of agentd: `AgentClient` (asyncio), `SyncAgentClient` (the same
methods, blocking; also `agentd_client.sync.AgentClient`) and the errors they raise
(`errors`), and `Part` (a file or image given with a task's input)."""

from agentd_client import errors
from agentd_client.client import AgentClient
from agentd_client.files.artifacts import Part
from agentd_client.sync import AgentClient as SyncAgentClient

__all__ = ["AgentClient", "Part", "SyncAgentClient", "errors"]
