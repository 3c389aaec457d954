"""Files in and out: `Part` (a file or image given with a task's input,
`execute(..., parts=[Part.from_path("shot.png")])`) and the artifact methods of
`AgentClient` (a mixin: the client supplies the channel and the error mapping):
`get_artifact` for a small version in one answer, `read_artifact` for a stream of
chunks, `download_artifact` to a file (resuming from what the file holds, the digest
checked)."""

from __future__ import annotations

import hashlib
import mimetypes
import os
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from agentd.v1 import artifacts_pb2
from agentd_client.status_details import from_rpc_error


@dataclass(frozen=True)
class Part:
    """A file or image given with a task's input: its bytes or a URL the server fetches.
    The server keeps it as an artifact of the task under `name` (empty: `input-<i>.<ext>`)."""

    media_type: str = ""
    """Empty only with a `uri`: the type the URL answers with."""
    data: bytes = b""
    uri: str = ""
    name: str = ""

    @classmethod
    def from_path(cls, path: str | os.PathLike[str], media_type: str = "", name: str = "") -> Part:
        """A file's bytes; its type guessed from its extension unless given."""
        where = Path(path)
        guessed = media_type or mimetypes.guess_type(where.name)[0] or "application/octet-stream"
        return cls(guessed, where.read_bytes(), name=name or where.name)

    @classmethod
    def from_url(cls, uri: str, media_type: str = "", name: str = "") -> Part:
        """A URL the server fetches before the task starts."""
        return cls(media_type, uri=uri, name=name)

    def to_proto(self) -> artifacts_pb2.InputPart:
        if self.uri:
            return artifacts_pb2.InputPart(name=self.name, media_type=self.media_type, uri=self.uri)
        return artifacts_pb2.InputPart(name=self.name, media_type=self.media_type, data=self.data)


def read_request(
    task_id: str, name: str, version: int | None, offset: int, chunk_bytes: int
) -> artifacts_pb2.ReadArtifactRequest:
    return artifacts_pb2.ReadArtifactRequest(
        task_id=task_id, name=name, version=version, offset=offset, chunk_bytes=chunk_bytes
    )


class Download:
    """Writing a ReadArtifact stream to a file that may hold its start already."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.digest = hashlib.sha256()
        self.offset = 0
        if self.path.exists():
            with self.path.open("rb") as held:
                while block := held.read(1024 * 1024):
                    self.digest.update(block)
                    self.offset += len(block)

    def take(self, chunk: artifacts_pb2.ArtifactChunk, out: Any) -> None:
        """Append one chunk; at the last, check the whole file's digest (ValueError, and
        the file removed, when it differs: a resumed file that was not this version's)."""
        if chunk.offset != self.offset:
            raise ValueError(f"chunk at {chunk.offset}, expected {self.offset}")
        out.write(chunk.data)
        self.digest.update(chunk.data)
        self.offset += len(chunk.data)
        if chunk.last and chunk.sha256 and chunk.sha256 != self.digest.hexdigest():
            out.close()
            self.path.unlink()
            raise ValueError(f"{self.path}: sha256 differs from the artifact's; removed")


class ArtifactMethods:
    _stub: pb_grpc.AgentServiceStub
    _metadata: tuple[tuple[str, str], ...]

    async def _unary(self, call: Any, request: Any, timeout: float | None) -> Any:
        raise NotImplementedError  # AgentClient's

    async def get_artifact(
        self, task_id: str, name: str, version: int | None = None, *, timeout: float | None = None
    ) -> artifacts_pb2.ArtifactContent:
        """One version (the latest unless `version`) of an artifact of the task's tree, in
        one answer (FAILED_PRECONDITION for one too large: use `read_artifact`)."""
        request = artifacts_pb2.GetArtifactRequest(task_id=task_id, name=name, version=version)
        found: artifacts_pb2.ArtifactContent = await self._unary(
            self._stub.GetArtifact, request, timeout
        )
        return found

    async def read_artifact(
        self,
        task_id: str,
        name: str,
        version: int | None = None,
        *,
        offset: int = 0,
        chunk_bytes: int = 0,
        timeout: float | None = None,
    ) -> AsyncIterator[artifacts_pb2.ArtifactChunk]:
        """A version's content in chunks from `offset` (the first chunk describes the
        version; the last has `last` and the whole content's `sha256`)."""
        request = read_request(task_id, name, version, offset, chunk_bytes)
        call: Any = self._stub.ReadArtifact  # the channel's kind: an aio stub here
        stream = call(request, timeout=timeout, metadata=self._metadata)
        try:
            async for chunk in stream:
                yield chunk
        except grpc.aio.AioRpcError as error:
            raise from_rpc_error(error) from None
        finally:
            stream.cancel()

    async def download_artifact(
        self,
        task_id: str,
        name: str,
        path: str | os.PathLike[str],
        version: int | None = None,
        *,
        timeout: float | None = None,
    ) -> int:
        """Write a version to `path`, resuming after what the file already holds; its
        size. ValueError (and the file removed) when the digest does not match."""
        download = Download(path)
        with download.path.open("ab") as out:
            async for chunk in self.read_artifact(
                task_id, name, version, offset=download.offset, timeout=timeout
            ):
                download.take(chunk, out)
        return download.offset


class SyncArtifactMethods:
    _stub: pb_grpc.AgentServiceStub
    _metadata: tuple[tuple[str, str], ...]

    def _unary(self, call: Any, request: Any, timeout: float | None) -> Any:
        raise NotImplementedError  # AgentClient's

    def get_artifact(
        self, task_id: str, name: str, version: int | None = None, *, timeout: float | None = None
    ) -> artifacts_pb2.ArtifactContent:
        """One version (the latest unless `version`) of an artifact of the task's tree."""
        request = artifacts_pb2.GetArtifactRequest(task_id=task_id, name=name, version=version)
        found: artifacts_pb2.ArtifactContent = self._unary(self._stub.GetArtifact, request, timeout)
        return found

    def read_artifact(
        self,
        task_id: str,
        name: str,
        version: int | None = None,
        *,
        offset: int = 0,
        chunk_bytes: int = 0,
        timeout: float | None = None,
    ) -> Iterator[artifacts_pb2.ArtifactChunk]:
        """`AgentClient.read_artifact`, blocking."""
        request = read_request(task_id, name, version, offset, chunk_bytes)
        call: Any = self._stub.ReadArtifact
        stream = call(request, timeout=timeout, metadata=self._metadata)
        try:
            yield from stream
        except grpc.RpcError as error:
            raise from_rpc_error(error) from None
        finally:
            stream.cancel()

    def download_artifact(
        self,
        task_id: str,
        name: str,
        path: str | os.PathLike[str],
        version: int | None = None,
        *,
        timeout: float | None = None,
    ) -> int:
        """`AgentClient.download_artifact`, blocking."""
        download = Download(path)
        with download.path.open("ab") as out:
            for chunk in self.read_artifact(
                task_id, name, version, offset=download.offset, timeout=timeout
            ):
                download.take(chunk, out)
        return download.offset
