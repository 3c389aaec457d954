"""One tool invocation, as it travels from its boundary to the tool and its audit record.

The arguments of a call are parsed once where they enter (the model's reply in the
engine, the request of CallTool), and from then on the call is an `Invocation`: the
tool's name, the arguments, their redacted form (computed once, for events, approvals
and audit records alike), their size and the call id. An approver's edit makes a new
invocation under the same call id (`edited`).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.secrets import redact
from records.tools.model import JSONValue


def new_call_id() -> str:
    return "call_" + secrets.token_hex(8)


class Redacted(dict[str, Any]):
    """Arguments whose secrets are already redacted: redacting them again changes
    nothing, so the places that redact whatever they are given (events, audit records)
    take these as they are."""

    __slots__ = ()


def redacted(arguments: Mapping[str, Any]) -> Redacted:
    """`arguments` with their secrets redacted; as they are when they already were."""
    if isinstance(arguments, Redacted):
        return arguments
    return Redacted(redact(dict(arguments)))


def size_of(arguments: Mapping[str, JSONValue]) -> int:
    """The size in bytes of the compact JSON of `arguments` (what the size limit counts)."""
    return len(json.dumps(arguments, separators=(",", ":"), default=str).encode())


@dataclass(frozen=True, slots=True)
class Invocation:
    """One call of one tool: what was asked, once parsed."""

    call_id: str
    """Identifies the call in events, the crash journal and the audit records."""
    name: str
    """The tool asked for (as the caller wrote it)."""
    arguments: dict[str, JSONValue]
    """The arguments, parsed (not to be changed: an edit makes a new invocation)."""
    redacted: Redacted
    """The arguments with their secrets redacted, for everything that shows them."""

    @classmethod
    def of(cls, name: str, arguments: Mapping[str, JSONValue], call_id: str = "") -> Invocation:
        """The invocation of `name` with `arguments` (a new call id unless given)."""
        args = dict(arguments)
        return cls(call_id or new_call_id(), name, args, redacted(args))

    def edited(self, arguments: Mapping[str, JSONValue]) -> Invocation:
        """The same call with the arguments an approver replaced these with."""
        return Invocation.of(self.name, arguments, self.call_id)

    @property
    def size(self) -> int:
        """The size of the arguments in bytes (compact JSON)."""
        return size_of(self.arguments)
