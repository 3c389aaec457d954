"""The `AGENTD_*` variables agentd reads, and what to say of one it does not.

A misspelt setting (`AGENTD_LLM_MODLE`) would otherwise be ignored without a word:
every `agentd` command names each `AGENTD_*` variable that matches nothing it reads,
with the nearest known name. The known names come from the settings classes
themselves (each field's variable, or its aliases), so the list cannot drift.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from difflib import get_close_matches

from pydantic import AliasChoices
from pydantic_settings import BaseSettings

PREFIX = "AGENTD_"

OTHER_VARIABLES = ("AGENTD_REQUIRE_SERVICES", "AGENTD_BENCH_BASELINE")
"""Read outside the settings: by the test suite (`.ci/run` sets AGENTD_REQUIRE_SERVICES:
a missing Redis or PostgreSQL fails the suites that need them instead of skipping them)
and by `make bench` (AGENTD_BENCH_BASELINE: another checkout to compare with)."""


def setting_variables(settings: type[BaseSettings]) -> set[str]:
    """The environment variables the fields of `settings` are read from (upper case:
    pydantic-settings reads them in any case)."""
    prefix = str(settings.model_config.get("env_prefix", ""))
    names: set[str] = set()
    for name, field in settings.model_fields.items():
        alias = field.validation_alias
        if isinstance(alias, AliasChoices):
            names.update(choice for choice in alias.choices if isinstance(choice, str))
        elif isinstance(alias, str):
            names.add(alias)
        else:
            names.add(prefix + name)
    return {name.upper() for name in names}


def unknown_variables(environ: Mapping[str, str], known: Iterable[str]) -> list[str]:
    """One line for each `AGENTD_*` variable of `environ` that is none of `known`, naming
    the nearest known one when one is close (sorted by name)."""
    known_names = {name.upper() for name in known}
    suffixes = {name.removeprefix(PREFIX): name for name in known_names}
    lines: list[str] = []
    for variable in sorted(environ):
        upper = variable.upper()
        if not upper.startswith(PREFIX) or upper in known_names:
            continue
        near = get_close_matches(upper.removeprefix(PREFIX), list(suffixes), n=1, cutoff=0.7)
        hint = f"; did you mean {suffixes[near[0]]}?" if near else ""
        lines.append(f"{variable} is ignored: agentd reads no such variable{hint}")
    return lines
