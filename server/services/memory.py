"""Long-term memory as the server has it: on (its memory, recall, knowledge bases and
extraction), or off and why. MemoryService's handlers (`server.rpcs.memories`,
`server.rpcs.knowledge`) ask it for what they serve; `server.wiring.knowledge` builds it
from the settings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.errors import MemoryUnavailableError
from records.tasks import Task

if TYPE_CHECKING:  # numpy, the OpenAI SDK and pgvector load only when memory is on
    from agent.knowledge.bases import KnowledgeAdmin
    from agent.knowledge.documents import KnowledgeBases
    from agent.knowledge.extraction import MemoryExtraction
    from agent.knowledge.memories import LongTermMemory
    from agent.knowledge.recall import AutomaticRecall
    from agent.running.run import TaskRun


@dataclass
class MemoryFeature:
    """Long-term memory as the server has it: on (`memory`), or off and why."""

    memory: LongTermMemory | None
    why_off: str = ""
    recall: AutomaticRecall | None = None
    knowledge: KnowledgeBases | None = None
    bases: KnowledgeAdmin | None = None
    extraction: MemoryExtraction | None = None

    def after_turn(self, task: Task, run: TaskRun | None) -> None:
        """Extract memories from an ended task's turn, in the background (when on)."""
        if self.extraction is not None:
            self.extraction.after_turn(task, run)

    def require(self) -> LongTermMemory:
        """The memory; MemoryUnavailableError (FAILED_PRECONDITION) when it is off."""
        if self.memory is None:
            raise MemoryUnavailableError(self.why_off)
        return self.memory

    def require_bases(self) -> KnowledgeAdmin:
        """The knowledge bases; MemoryUnavailableError when memory is off."""
        if self.bases is None:
            raise MemoryUnavailableError(self.why_off)
        return self.bases

    async def close(self) -> None:
        if self.extraction is not None:
            await self.extraction.close()
        if self.bases is not None and self.bases.searcher.reranker is not None:
            await self.bases.searcher.reranker.close()
        if self.bases is not None:  # hands its running background jobs back to the queue
            await self.bases.runner.close()
        if self.memory is not None:
            await self.memory.embedder.close()
            await self.memory.store.close()
