"""The server's keys (`core.keyring`): what encrypts secrets at rest and seals what every
replica must open alike."""

from __future__ import annotations

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import SettingsConfigDict

from core.keyring import KeyRing
from server.settings.base import Section


class KeySettings(Section):
    model_config = SettingsConfigDict(hide_input_in_errors=True)  # an error never shows a key

    keys: SecretStr | None = Field(
        None,
        description="comma-separated keys (each 32 random bytes in base64; `agentd keys new` "
        "makes one), the first current, the rest still opening what they sealed; every "
        "replica needs the same list. Required as soon as a secret is stored (a webhook's "
        "signing secret, a push notification's credentials)",
    )

    @field_validator("keys")
    @classmethod
    def _keys_parse(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None:
            KeyRing.parse(value.get_secret_value().split(","))  # ValueError names the problem
        return value

    def key_ring(self) -> KeyRing:
        """The ring AGENTD_KEYS holds (empty without it)."""
        if self.keys is None:
            return KeyRing()
        return KeyRing.parse(self.keys.get_secret_value().split(","))
