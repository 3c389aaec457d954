"""A task's input parts from its request to its artifacts.

`prepare` runs before anything of the request is stored: URL parts are fetched (under
`http_request`'s destination rules, `agent.inputs.fetching`), unnamed parts get their
default names, and every part is checked (`agent.inputs.checks`). `keep` writes each
part as an artifact of the task (version 1, its name and type) before the task is
queued and returns the references the task keeps; `announced` is the `ArtifactUpdated`
event of each, written after the task's first status event.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

from agent.inputs.checks import InputLimits, check_count, check_parts, default_name
from agent.inputs.fetching import fetch_part
from core.errors import FieldViolation, InvalidArgumentError
from records import events as ev
from records.parts import InputPart
from records.requests import TaskRequest
from records.tasks import Task
from stores.artifacts.base import ArtifactStore


class InputParts:
    """Input parts for one engine: where they are kept and what they may be. Safe for
    concurrent use (it holds no state of its own)."""

    def __init__(self, store: ArtifactStore, limits: InputLimits) -> None:
        self.store = store
        self.limits = limits

    async def prepare(self, request: TaskRequest) -> TaskRequest:
        """The request with its parts fetched, named and checked (each with its size,
        digest and pixels); unchanged without parts. INVALID_ARGUMENT naming the part,
        PERMISSION_DENIED for a URL to a refused address, INPUT_PART_UNAVAILABLE for
        one that cannot be fetched."""
        if not request.parts:
            return request
        check_count(request.parts)
        limit = min(self.limits.url_max_bytes, self.limits.max_part_bytes)
        fetched = await asyncio.gather(
            *(
                fetch_part(
                    part,
                    index,
                    self.limits.allowed_networks,
                    limit,
                    self.limits.url_timeout_seconds,
                )
                if part.source_uri and not part.data
                else _given(part, index)
                for index, part in enumerate(request.parts)
            )
        )
        named = [
            part if part.name else replace(part, name=default_name(index, part.media_type))
            for index, part in enumerate(fetched)
        ]
        return replace(request, parts=check_parts(named, self.limits))

    async def keep(self, task: Task, parts: tuple[InputPart, ...]) -> tuple[InputPart, ...]:
        """Write each part as an artifact of `task` (in its tree's space); the references
        the task keeps (no bytes)."""
        for part in parts:
            await self.store.write(
                task.tenant, task.root, part.name, part.media_type, part.data, task.task_id
            )
        return tuple(part.reference() for part in parts)


def announced(task: Task) -> list[ev.ArtifactUpdated]:
    """The `ArtifactUpdated` event of each of the task's input parts, in their order."""
    return [
        ev.ArtifactUpdated(part.name, 1, part.media_type, part.size, task.task_id)
        for part in task.input_parts
    ]


async def _given(part: InputPart, index: int) -> InputPart:
    if part.source_uri and part.data:
        problem = "a part has either data or a uri, not both"
        raise InvalidArgumentError([FieldViolation(f"parts[{index}]", problem)])
    if not part.media_type:
        raise InvalidArgumentError([FieldViolation(f"parts[{index}].media_type", "is empty")])
    return part
