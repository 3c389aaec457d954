"""The tools a registry holds: the built-ins, registered once at start, and the tools of
each toolset (`tools.toolsets`), replaced whole whenever the toolset changes.

Lookups and replacements happen on the event loop, so a replacement is atomic for every
reader: a call sees a toolset's tools either all from before a change or all from after.
A toolset's tools are named `<toolset>.<tool>`; a built-in's name has no dot, so the two
kinds can never collide, and neither can two toolsets.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from core.identity import CallContext
from records.tools.model import JSONValue, Tool, ToolOutput, ToolSpec, wire_forms
from tools.validation import ArgumentValidator

ENGINE = "engine"
"""The source (`ToolSpec.source`) of the tools the engine runs itself: `ask_user`, a
delegation `agent.<id>`, a panel `panel.<name>`. They are never registered: the registry
admits their calls (`RunByEngine`) under the same grants, approvals and audit as any
tool's, then hands them back to the engine to run."""


class ToolCatalog:
    """Tools by name, each with its compiled argument validator."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self._validators: dict[str, ArgumentValidator] = {}
        self._toolsets: dict[str, tuple[str, ...]] = {}
        self._engine: dict[str, tuple[Mapping[str, Any], ArgumentValidator]] = {}
        """The validators of the engine's tools (`ENGINE`) by name, with the schema each
        was compiled for: compiled once per schema."""
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> None:
        """Add one tool (a built-in); ValueError if its name is taken."""
        name = tool.spec.name
        if name in self._tools:
            raise ValueError(f"a tool named {name!r} is already registered")
        self._validators[name] = ArgumentValidator(tool.spec.parameters)
        self._tools[name] = tool

    def replace_toolset(self, toolset: str, tools: Sequence[Tool]) -> None:
        """Make `tools` the toolset's tools from now on (its earlier ones are gone).

        ValueError, changing nothing, when a tool is not named `<toolset>.<name>`, two
        share a name, or a schema is not a valid JSON Schema."""
        prefix = f"{toolset}."
        names = [tool.spec.name for tool in tools]
        wrong = [name for name in names if not name.startswith(prefix)]
        if wrong:
            raise ValueError(f"toolset {toolset!r}: {', '.join(wrong)} not named {prefix}<tool>")
        if len(set(names)) != len(names):
            raise ValueError(f"toolset {toolset!r}: two tools share a name")
        validators = {tool.spec.name: self._compiled(tool) for tool in tools}
        self.remove_toolset(toolset)
        for tool in tools:
            self._tools[tool.spec.name] = tool
        self._validators.update(validators)
        self._toolsets[toolset] = tuple(names)

    def remove_toolset(self, toolset: str) -> None:
        for name in self._toolsets.pop(toolset, ()):
            self._tools.pop(name, None)
            self._validators.pop(name, None)

    def toolset(self, toolset: str) -> tuple[str, ...]:
        """The names of a toolset's tools now (empty for an unknown toolset)."""
        return self._toolsets.get(toolset, ())

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def validator(self, tool: Tool) -> ArgumentValidator:
        """The validator of `tool`'s arguments (compiled anew for a tool given with a
        schema other than the one held now: a change replaced it since)."""
        return self._compiled(tool)

    def _compiled(self, tool: Tool) -> ArgumentValidator:
        """The held validator of the tool's name when its schema is the one held (a
        validator depends on the schema alone), else one compiled for it."""
        name = tool.spec.name
        held = self._tools.get(name)
        if held is not None and (held is tool or held.spec.parameters == tool.spec.parameters):
            return self._validators[name]
        if tool.spec.source != ENGINE:
            return ArgumentValidator(tool.spec.parameters)
        schema = tool.spec.parameters
        known = self._engine.get(name)
        if known is None or known[0] != schema:
            known = self._engine[name] = (schema, ArgumentValidator(schema))
        return known[1]

    def on_the_wire(self, wire: str) -> Tool | None:
        """The one toolset tool a model means by `wire`, the name an OpenAI-compatible API
        knows it by (`notes_search` for `notes.search`: `records.tools.model.wire_forms`), or None
        when no tool or more than one goes by it."""
        found = [
            tool for name, tool in self._tools.items() if "." in name and wire in wire_forms(name)
        ]
        return found[0] if len(found) == 1 else None

    def ordered(self) -> list[Tool]:
        """Every tool, ordered by name."""
        return [self._tools[name] for name in sorted(self._tools)]


class AsGiven(Tool):
    """A tool as a caller was given it earlier (a task, when it started): checked and run
    under that spec, by the implementation the catalog holds now."""

    def __init__(self, tool: Tool, spec: ToolSpec) -> None:
        if spec.name != tool.spec.name:
            raise ValueError(f"{spec.name!r} is not the spec of {tool.spec.name!r}")
        self.spec = spec
        self._tool = tool

    async def run(self, arguments: dict[str, JSONValue], context: CallContext) -> ToolOutput:
        return await self._tool.run(arguments, context)

    def unavailable(self) -> str:
        return self._tool.unavailable()


class RunByEngine(Tool):
    """A tool the engine runs itself (`ENGINE`), as a task was given it: the registry
    admits and audits its calls and never runs them."""

    def __init__(self, spec: ToolSpec) -> None:
        if spec.source != ENGINE:
            raise ValueError(f"{spec.name!r} is not run by the engine")
        self.spec = spec

    async def run(self, arguments: dict[str, JSONValue], context: CallContext) -> ToolOutput:
        raise RuntimeError(f"{self.spec.name!r} is run by the engine, not the registry")
