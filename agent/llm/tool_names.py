"""Tool names as an OpenAI-compatible endpoint accepts them, and back.

Function names there are 1-64 of `[A-Za-z0-9_-]`: `notes.search`, the name of a
toolset's tool, is refused (400). A request names each tool by its wire name, which is
the tool's own name when that is allowed and otherwise the name with every other
character replaced by `_` (`notes_search`), cut to fit and given a digest of the name
when it would still be too long or taken; the model's tool calls are read back through
the same table. Names the table does not know pass through unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable

from records.tools.model import WIRE_NAME_PATTERN as ALLOWED
from records.tools.model import wire_forms


class WireNames:
    """The wire name of each tool of one request, and the tool of each wire name."""

    __slots__ = ("_local", "_wire")

    def __init__(self, names: Iterable[str]) -> None:
        ordered = sorted(set(names))
        taken = {name for name in ordered if ALLOWED.fullmatch(name)}
        self._wire: dict[str, str] = {}
        self._local: dict[str, str] = {}
        for name in ordered:
            wire = name
            if not ALLOWED.fullmatch(name):
                plain, digested = wire_forms(name)
                wire = digested if plain in taken or len(name) > 64 else plain
                taken.add(wire)
            self._wire[name] = wire
            self._local[wire] = name

    def wire(self, name: str) -> str:
        return self._wire.get(name, name)

    def local(self, wire: str) -> str:
        return self._local.get(wire, wire)
