"""Artifacts: named, versioned content that the tasks of one task tree share.

An artifact lives in a *space*: the id of its task tree's root task (a task on its own
is its own root). Every write of a name adds a new version (1, 2, ...); earlier
versions stay readable. Content is bytes with a media type; whoever wrote a version
(a task id) is kept with it. Names and media types are checked before anything is
stored (`name_problem`, `media_type_problem`); the size cap is the caller's (a setting).

Spaces belong to one tenant: every read names the tenant, and another tenant's space
reads as empty. Writes of one name from many tasks (and replicas) at once each get a
version of their own: none is lost or overwritten.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from core.files import is_text

MAX_NAME_CHARS = 128
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
"""An artifact's name: letters, digits and `. _ -`, starting with a letter or digit."""
MEDIA_TYPE_PATTERN = re.compile(
    r"^[a-z0-9][a-z0-9!#$&^_.+-]{0,62}/[a-z0-9][a-z0-9!#$&^_.+-]{0,62}"
    r"(?:; ?charset=[a-z0-9_-]{1,32})?$"
)
"""A media type, lower case (`text/markdown`, `application/json; charset=utf-8`)."""


def name_problem(name: str) -> str | None:
    """What is wrong with `name` as an artifact's name, or None."""
    if not name:
        return "is empty"
    if len(name) > MAX_NAME_CHARS:
        return f"is longer than {MAX_NAME_CHARS} characters"
    if not NAME_PATTERN.fullmatch(name):
        return (
            "may hold only letters, digits, '.', '_' and '-', and must start with a letter or digit"
        )
    if ".." in name:
        return "may not hold '..'"
    return None


def media_type_problem(media_type: str) -> str | None:
    """What is wrong with `media_type`, or None."""
    if not MEDIA_TYPE_PATTERN.fullmatch(media_type):
        return "is not a media type such as 'text/plain' or 'application/json' (lower case)"
    return None


def is_json(media_type: str) -> bool:
    """Whether content of `media_type` is a JSON document."""
    bare = media_type.split(";", 1)[0]
    return bare == "application/json" or bare.endswith("+json")


@dataclass(frozen=True, slots=True)
class ArtifactInfo:
    """One version of an artifact, without its content."""

    name: str
    version: int
    """1 for the first write of the name, one more for each write after it."""
    media_type: str
    size: int
    """Bytes of content."""
    writer_task_id: str
    """The task that wrote this version."""
    created_at: datetime
    """When this version was written."""


@dataclass(frozen=True, slots=True)
class Artifact:
    """One version of an artifact, with its content."""

    info: ArtifactInfo
    content: bytes

    @property
    def text(self) -> str | None:
        """The content as text, when its media type is a text type and it is UTF-8."""
        if not is_text(self.info.media_type):
            return None
        try:
            return self.content.decode("utf-8")
        except UnicodeDecodeError:
            return None


class ArtifactStore(Protocol):
    """Where artifacts live. Safe for concurrent use; nothing is ever overwritten."""

    async def write(
        self,
        tenant: str,
        space: str,
        name: str,
        media_type: str,
        content: bytes,
        writer_task_id: str,
    ) -> ArtifactInfo:
        """Add the next version of `name` in `space` (1 when it is new); its info."""
        ...

    async def read(
        self, tenant: str, space: str, name: str, version: int | None = None
    ) -> Artifact | None:
        """A version of `name` (the latest when `version` is None), or None when there is no
        such version (also in another tenant's space)."""
        ...

    async def describe(
        self, tenant: str, space: str, name: str, version: int | None = None
    ) -> ArtifactInfo | None:
        """`read`'s version without its content, or None likewise."""
        ...

    async def read_range(
        self, tenant: str, space: str, name: str, version: int, offset: int, length: int
    ) -> bytes:
        """At most `length` bytes of one version's content from `offset` (empty past its
        end, and for a version that is not there): a large version is read in pieces,
        never held whole."""
        ...

    async def latest(self, tenant: str, space: str) -> list[ArtifactInfo]:
        """The latest version of every artifact in `space`, by name; empty for another
        tenant's space."""
        ...

    async def written_by(self, tenant: str, space: str, task_id: str) -> list[ArtifactInfo]:
        """For every name `task_id` wrote in `space`, the latest version it wrote, by name."""
        ...
