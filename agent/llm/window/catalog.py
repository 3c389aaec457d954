"""How much each model can read and write: its context window and its reply limit.

The catalog answers for a model name with the operator's own entries first
(AGENTD_MODEL_WINDOWS: `name=window[:output]`, exact names), then built-in entries
for common families (OpenAI's gpt-4o/4.1/5 and o-series, Claude, Llama, Qwen,
Mistral, DeepSeek, Gemini, Gemma, Phi), matched on the name without a provider
prefix (`openai/`, `Qwen/`) or an Ollama tag (`:8b`). A name it does not know gets
the default window (AGENTD_DEFAULT_CONTEXT_WINDOW); the server warns of such names
at start-up, because some servers silently cut what does not fit.

The built-in figures are the families' published limits; a deployment that serves
a model with a smaller window (vLLM's `--max-model-len`, Ollama's `num_ctx`) says
so in AGENTD_MODEL_WINDOWS.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

DEFAULT_CONTEXT_WINDOW = 8_192
DEFAULT_MAX_OUTPUT_TOKENS = 4_096


@dataclass(frozen=True, slots=True)
class ModelLimits:
    """What one model can take in and give back, in tokens."""

    context_window: int
    """Prompt and reply together."""
    max_output_tokens: int
    """The longest reply it may be asked for."""
    known: bool = True
    """False when the catalog guessed (the default window)."""


_K = 1_024
BUILT_IN: tuple[tuple[str, int, int], ...] = (
    # (name pattern, context window, reply limit); the first match wins.
    (r"gpt-4o-mini", 128_000, 16_384),
    (r"gpt-4o", 128_000, 16_384),
    (r"gpt-4\.1", 1_047_576, 32_768),
    (r"gpt-4\.5", 128_000, 16_384),
    (r"gpt-5", 400_000, 128_000),
    (r"gpt-4-turbo|gpt-4-1106|gpt-4-0125", 128_000, 4_096),
    (r"gpt-4-32k", 32_768, 4_096),
    (r"gpt-4", 8_192, 4_096),
    (r"gpt-3\.5-turbo", 16_385, 4_096),
    (r"o1-mini", 128_000, 65_536),
    (r"o1|o3|o4", 200_000, 100_000),
    (r"claude-(?:opus|sonnet|haiku)-4|claude-(?:opus|sonnet)-4", 200_000, 32_000),
    (r"claude-3-7|claude-3\.7", 200_000, 64_000),
    (r"claude-3-5|claude-3\.5", 200_000, 8_192),
    (r"claude", 200_000, 4_096),
    (r"llama-?3\.[1-3]|llama-?4", 128_000, 4_096),
    (r"llama-?3", 8_192, 2_048),
    (r"llama-?2|codellama", 4_096, 2_048),
    (r"llama", 8_192, 2_048),
    (r"qwen-?(?:turbo)", 1_000_000, 8_192),
    (r"qwen-?(?:plus|long)", 131_072, 8_192),
    (r"qwen-?max", 32_768, 8_192),
    (r"qwq|qwen-?3|qwen-?2\.5", 32_768, 8_192),
    (r"qwen", 32_768, 2_048),
    (r"mistral-large|mistral-medium|pixtral", 128_000, 8_192),
    (r"mistral-nemo|ministral", 128_000, 4_096),
    (r"codestral", 256_000, 8_192),
    (r"mixtral|mistral", 32_768, 4_096),
    (r"deepseek", 65_536, 8_192),
    (r"gemini", 1_048_576, 8_192),
    (r"gemma-?3", 128_000, 8_192),
    (r"gemma", 8_192, 2_048),
    (r"phi-?4", 16_384, 4_096),
    (r"phi-?3", 128_000, 4_096),
)
_PATTERNS = tuple((re.compile(rf"(?:^|[-_.])(?:{p})"), w, o) for p, w, o in BUILT_IN)
"""Each family's name at the start of the model's, or after a separator
(`meta-llama-3.1-8b-instruct`)."""


def normalized(model: str) -> str:
    """`openai/GPT-4o:latest` → `gpt-4o`: lower case, no provider prefix, no Ollama tag."""
    name = model.strip().lower().rsplit("/", 1)[-1]
    return name.split(":", 1)[0]


def parse_entries(entries: Iterable[str]) -> dict[str, ModelLimits]:
    """`name=window[:output]` items (AGENTD_MODEL_WINDOWS); ValueError naming a bad one."""
    parsed: dict[str, ModelLimits] = {}
    for item in entries:
        name, sep, figures = item.partition("=")
        window_text, _, output_text = figures.partition(":")
        try:
            window = int(window_text)
            output = (
                int(output_text) if output_text else min(DEFAULT_MAX_OUTPUT_TOKENS, window // 2)
            )
        except ValueError:
            window = output = 0
        if not sep or not name.strip() or window < 256 or not 0 < output < window:
            raise ValueError(
                f"{item!r}: a model window is name=window[:output] in tokens, e.g. "
                "my-model=32768:4096 (window at least 256, output below the window)"
            )
        parsed[name.strip()] = ModelLimits(window, output)
    return parsed


class ModelCatalog:
    """Context windows and reply limits by model name."""

    def __init__(
        self,
        entries: Mapping[str, ModelLimits] | None = None,
        *,
        default_window: int = DEFAULT_CONTEXT_WINDOW,
        default_output: int = DEFAULT_MAX_OUTPUT_TOKENS,
    ) -> None:
        self._entries = dict(entries or {})
        self._normalized = {normalized(name): limits for name, limits in self._entries.items()}
        self._default = ModelLimits(
            default_window, min(default_output, default_window // 2), known=False
        )

    def limits(self, model: str) -> ModelLimits:
        """The model's limits: the operator's entry, else a built-in family's, else the
        default window (`known` False)."""
        own = self._entries.get(model) or self._normalized.get(normalized(model))
        if own is not None:
            return own
        name = normalized(model)
        for pattern, window, output in _PATTERNS:
            if pattern.search(name):
                return ModelLimits(window, output)
        return self._default

    def unknown(self, models: Iterable[str]) -> list[str]:
        """The names among `models` the catalog does not know (sorted, once each)."""
        return sorted({m for m in models if m and not self.limits(m).known})

    @property
    def default_window(self) -> int:
        return self._default.context_window


BUILT_IN_CATALOG = ModelCatalog()
"""The built-in entries and default window alone."""

__all__ = ["BUILT_IN_CATALOG", "ModelCatalog", "ModelLimits", "normalized", "parse_entries"]
