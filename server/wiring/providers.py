"""The operator's named model providers, read from AGENTD_PROVIDERS_FILE.

The file (YAML or JSON) maps each provider's name to its endpoint:

    providers:
      primary:
        base_url: https://llm.internal/v1
        api_key_env: PRIMARY_LLM_KEY          # or api_key_file: /run/secrets/primary
        models:                               # the models agents may use on it; omit: any
          - gpt-4o-mini                       # a name alone: allowed, no price
          - name: gpt-4o                      # with its price per million tokens, in
            prices:                           # micro-units of AGENTD_CURRENCY (integers)
              input: 2500000                  # 2.50 per million prompt tokens
              cached_input: 1250000           # prompt tokens read from the provider's cache
              output: 10000000                # completion tokens
            images: true                      # it takes images (default: false, a note)
        timeout_seconds: 30                   # per request (default AGENTD_LLM_TIMEOUT_SECONDS)
        max_concurrent: 20                    # calls in flight to it (default: no cap of its own)

Keys are read here, once, from the environment or a file, and live only in each
provider's HTTP client: agents name a provider, never a key, and each key is added to
the patterns scrubbed from logs, events and audit records. Every provider gets a circuit
breaker (AGENTD_PROVIDER_BREAKER_*).
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agent.llm.providers import CircuitBreaker, Provider
from core import secrets
from records.agents.definition import PROVIDER_NAME
from records.usage.prices import Price
from server.listening import StartupError
from server.settings import Settings

KEYS = {"base_url", "api_key_env", "api_key_file", "models", "timeout_seconds", "max_concurrent"}


class ProvidersInvalidError(ValueError):
    """The providers file cannot be used; the message names the provider and key."""


def read_definitions(path: Path) -> dict[str, dict[str, Any]]:
    """The providers of the file, checked; ProvidersInvalidError saying what is wrong."""
    import yaml  # PyYAML: only with a providers file (start-up, docs/deploy.md)

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as bad:
        raise ProvidersInvalidError(f"{path}: cannot be read: {bad}") from None
    providers = data.get("providers") if isinstance(data, dict) else None
    if not isinstance(providers, dict) or not providers:
        raise ProvidersInvalidError(f"{path}: expected `providers:` mapping names to endpoints")
    checked: dict[str, dict[str, Any]] = {}
    for name, spec in providers.items():
        where = f"{path}: providers.{name}"
        if not isinstance(name, str) or not PROVIDER_NAME.fullmatch(name):
            raise ProvidersInvalidError(f"{where}: a name is 1 to 64 of [a-z0-9_-]")
        if not isinstance(spec, dict):
            raise ProvidersInvalidError(f"{where}: a mapping of {', '.join(sorted(KEYS))}")
        unknown = sorted(set(map(str, spec)) - KEYS)
        if unknown:
            raise ProvidersInvalidError(f"{where}.{unknown[0]}: unknown key")
        if not isinstance(spec.get("base_url"), str) or not spec["base_url"]:
            raise ProvidersInvalidError(f"{where}.base_url: required (an OpenAI-compatible URL)")
        models = spec.get("models", [])
        if not isinstance(models, list):
            raise ProvidersInvalidError(f"{where}.models: a list of model names or entries")
        for index, entry in enumerate(models):
            _model_entry(entry, f"{where}.models[{index}]")
        for key, low in (("timeout_seconds", 0.001), ("max_concurrent", 1)):
            value = spec.get(key)
            if value is not None and (not isinstance(value, int | float) or value < low):
                raise ProvidersInvalidError(f"{where}.{key}: a number of at least {low}")
        _key(spec, where)  # a key that cannot be read fails at start, not at the first call
        checked[name] = spec
    return checked


MODEL_KEYS = {"name", "prices", "images"}
PRICE_KEYS = {"input", "cached_input", "output"}
MAX_PRICE = 10**15
"""Micro-units per million tokens at most (a billion a million tokens)."""


def _model_entry(entry: object, where: str) -> tuple[str, Price | None]:
    """A `models:` entry: a model name, or `{name, prices}`; its name and its price."""
    if isinstance(entry, str) and entry:
        return entry, None
    if not isinstance(entry, dict):
        raise ProvidersInvalidError(f"{where}: a model name or a mapping of name and prices")
    unknown = sorted(set(map(str, entry)) - MODEL_KEYS)
    if unknown:
        raise ProvidersInvalidError(f"{where}.{unknown[0]}: unknown key")
    name = entry.get("name")
    if not isinstance(name, str) or not name:
        raise ProvidersInvalidError(f"{where}.name: required (the provider's model name)")
    if not isinstance(entry.get("images", False), bool):
        raise ProvidersInvalidError(f"{where}.images: true or false (whether it takes images)")
    prices = entry.get("prices")
    if prices is None:
        return name, None
    if not isinstance(prices, dict):
        raise ProvidersInvalidError(f"{where}.prices: a mapping of input, cached_input, output")
    unknown = sorted(set(map(str, prices)) - PRICE_KEYS)
    if unknown:
        raise ProvidersInvalidError(f"{where}.prices.{unknown[0]}: unknown key")
    for key in PRICE_KEYS:
        value = prices.get(key)
        if key == "cached_input" and value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_PRICE:
            raise ProvidersInvalidError(
                f"{where}.prices.{key}: an integer of micro-units per million tokens, "
                f"0 to {MAX_PRICE:,} (never a fraction)"
            )
    return name, Price(prices["input"], prices["output"], prices.get("cached_input"))


def model_entries(spec: Mapping[str, Any]) -> tuple[tuple[str, ...], dict[str, Price]]:
    """A checked provider's allowed models and the prices of those that have one."""
    names: list[str] = []
    prices: dict[str, Price] = {}
    for entry in spec.get("models", []):
        name, price = _model_entry(entry, "")
        names.append(name)
        if price is not None:
            prices[name] = price
    return tuple(names), prices


def image_models(spec: Mapping[str, Any]) -> frozenset[str]:
    """A checked provider's models that take images (`images: true`)."""
    return frozenset(
        str(entry["name"])
        for entry in spec.get("models", [])
        if isinstance(entry, dict) and entry.get("images") is True
    )


def _key(spec: Mapping[str, Any], where: str) -> str:
    if "api_key_env" in spec:
        value = os.environ.get(str(spec["api_key_env"]))
        if not value:
            raise ProvidersInvalidError(f"{where}.api_key_env: {spec['api_key_env']} is not set")
        return value
    if "api_key_file" in spec:
        try:
            value = Path(str(spec["api_key_file"])).read_text(encoding="utf-8").strip()
        except OSError as bad:
            raise ProvidersInvalidError(f"{where}.api_key_file: {bad.strerror}") from None
        if not value:
            raise ProvidersInvalidError(f"{where}.api_key_file: the file is empty")
        return value
    return ""


def key_patterns(settings: Settings) -> list[str]:
    """Each provider's key as a pattern to scrub wherever text is redacted."""
    if settings.providers_file is None:
        return []
    definitions = read_definitions(settings.providers_file)
    keys = (_key(spec, name) for name, spec in definitions.items())
    return [re.escape(key) for key in keys if len(key) >= 4]


def configure_secrets(settings: Settings) -> None:
    """Scrub the operator's secret patterns and every provider's key from what is
    redacted; StartupError when the providers file cannot be used."""
    try:
        secrets.configure([*settings.secret_patterns, *key_patterns(settings)])
    except ProvidersInvalidError as error:
        raise StartupError(str(error)) from None


def build_providers(settings: Settings) -> dict[str, Provider]:
    """The providers of AGENTD_PROVIDERS_FILE, each with its own client and breaker."""
    if settings.providers_file is None:
        return {}
    import openai

    from agent.llm.openai import OpenAIModel

    built: dict[str, Provider] = {}
    for name, spec in read_definitions(settings.providers_file).items():
        timeout = float(spec.get("timeout_seconds") or settings.llm_timeout_seconds)
        client = openai.AsyncOpenAI(
            base_url=str(spec["base_url"]),
            api_key=_key(spec, name) or "unused",
            timeout=timeout,
            max_retries=0,
        )
        base = OpenAIModel(
            "unused",
            client=client,
            max_attempts=settings.llm_max_attempts,
            image_models=image_models(spec),
        )  # its siblings share the client and know which models take images
        cap = spec.get("max_concurrent")
        models, prices = model_entries(spec)
        built[name] = Provider(
            name,
            base.sibling,
            models,
            asyncio.Semaphore(int(cap)) if cap else None,
            CircuitBreaker(
                settings.provider_breaker_failures,
                settings.provider_breaker_window_seconds,
                settings.provider_breaker_open_seconds,
            ),
            client.close,
            prices,
        )
    return built
