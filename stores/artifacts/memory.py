"""Artifacts kept in this process: nothing outlives it."""

from __future__ import annotations

from datetime import UTC, datetime

from stores.artifacts.base import Artifact, ArtifactInfo


class InMemoryArtifactStore:
    """ArtifactStore in dicts: for one process, and for tests."""

    def __init__(self) -> None:
        self._spaces: dict[tuple[str, str], dict[str, list[Artifact]]] = {}

    async def write(
        self,
        tenant: str,
        space: str,
        name: str,
        media_type: str,
        content: bytes,
        writer_task_id: str,
    ) -> ArtifactInfo:
        versions = self._spaces.setdefault((tenant, space), {}).setdefault(name, [])
        info = ArtifactInfo(
            name,
            len(versions) + 1,
            media_type,
            len(content),
            writer_task_id,
            datetime.now(UTC),
        )
        versions.append(Artifact(info, bytes(content)))
        return info

    async def read(
        self, tenant: str, space: str, name: str, version: int | None = None
    ) -> Artifact | None:
        versions = self._spaces.get((tenant, space), {}).get(name, [])
        if not versions:
            return None
        if version is None:
            return versions[-1]
        return versions[version - 1] if 1 <= version <= len(versions) else None

    async def describe(
        self, tenant: str, space: str, name: str, version: int | None = None
    ) -> ArtifactInfo | None:
        found = await self.read(tenant, space, name, version)
        return found.info if found is not None else None

    async def read_range(
        self, tenant: str, space: str, name: str, version: int, offset: int, length: int
    ) -> bytes:
        found = await self.read(tenant, space, name, version)
        return found.content[offset : offset + length] if found is not None else b""

    async def latest(self, tenant: str, space: str) -> list[ArtifactInfo]:
        names = self._spaces.get((tenant, space), {})
        return [names[name][-1].info for name in sorted(names)]

    async def written_by(self, tenant: str, space: str, task_id: str) -> list[ArtifactInfo]:
        names = self._spaces.get((tenant, space), {})
        found = []
        for name in sorted(names):
            mine = [a.info for a in names[name] if a.info.writer_task_id == task_id]
            if mine:
                found.append(mine[-1])
        return found
