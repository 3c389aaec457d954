"""docs/settings.md, written from the settings classes (`make docs`), so the reference of
every setting cannot drift from what agentd reads: a test compares the two."""

from __future__ import annotations

import inspect
import sys
from pathlib import Path
from typing import Any

from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from server.settings import Settings
from server.settings.base import Section
from server.settings.environment import PREFIX

PAGE = Path("docs") / "settings.md"
HEADER = """# Every setting

<!-- Written by `make docs` from the settings classes (server/settings/): do not edit. -->

agentd reads its settings from `AGENTD_*` environment variables (any case); each has a
default that lets `make run` work on a bare machine. A variable that matches no setting
is named at start-up with the nearest known name. Lists are written `a,b,c`. How the
settings fit together: [configuration.md](configuration.md).
"""


def _variables(name: str, field: FieldInfo) -> str:
    alias = field.validation_alias
    choices = getattr(alias, "choices", None)
    if isinstance(choices, list):
        names = [c for c in choices if isinstance(c, str)]
    elif isinstance(alias, str):
        names = [alias]
    else:
        names = [PREFIX + name]
    return "<br>".join(f"`{n.upper()}`" for n in names)


def _default(field: FieldInfo) -> str:
    if field.default_factory is not None:
        return "(computed)"
    value: Any = field.default
    if value is PydanticUndefined:
        return "(required)"
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, list | tuple):
        value = ",".join(str(v) for v in value)
    text = str(value)
    return f"`{text}`" if text else '`""` (empty)'


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def render() -> str:
    """The page: one table per section of the settings, in their order."""
    parts = [HEADER]
    for section in Settings.__mro__[1:]:
        if not (isinstance(section, type) and issubclass(section, Section)) or section is Section:
            continue
        own = [name for name in section.__annotations__ if name in section.model_fields]
        if not own:
            continue
        # A section titled by its own docstring, else by its module's.
        own_doc = section.__dict__.get("__doc__") or inspect.getdoc(sys.modules[section.__module__])
        title = (inspect.cleandoc(own_doc) if own_doc else section.__name__).splitlines()[0]
        parts.append(f"\n## {title}\n\n| variable | default | what it does |\n|---|---|---|\n")
        for name in own:
            field = section.model_fields[name]
            parts.append(
                f"| {_variables(name, field)} | {_cell(_default(field))} "
                f"| {_cell(field.description or '')} |\n"
            )
    return "".join(parts)


def main() -> int:
    PAGE.write_text(render())
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
