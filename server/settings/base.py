"""What every section of the settings shares: the `AGENTD_` prefix and comma lists."""

from __future__ import annotations

from typing import Annotated

from pydantic import BeforeValidator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

MiB = 1024 * 1024


def _split_commas(value: object) -> object:
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


CommaList = Annotated[list[str], NoDecode, BeforeValidator(_split_commas)]
"""A list given in the environment as `a,b,c` (blanks around commas ignored)."""


class Section(BaseSettings):
    """One section of `Settings`; each reads its own `AGENTD_*` variables."""

    model_config = SettingsConfigDict(env_prefix="AGENTD_", extra="ignore", populate_by_name=True)
