"""Prices of models, as the operator states them on the providers file's `models:`
entries: integer micro-units (millionths) of the server's one currency per million
tokens, never floats. A model without a price costs 0 and is counted as unpriced."""

from __future__ import annotations

from dataclasses import dataclass

MILLION = 1_000_000


@dataclass(frozen=True, slots=True)
class Price:
    """Micro-units of the currency per million tokens of each kind."""

    input: int
    output: int
    cached_input: int | None = None
    """Prompt tokens the provider read from its cache; None: charged as `input`."""

    def cost(self, prompt: int, completion: int, cached: int = 0) -> int:
        """The micro-units `prompt` (of which `cached`) and `completion` tokens cost,
        rounded up: a budget never under-counts."""
        cached = min(max(0, cached), prompt)
        cached_rate = self.input if self.cached_input is None else self.cached_input
        total = (prompt - cached) * self.input + cached * cached_rate + completion * self.output
        return -(-total // MILLION)

    def tokens_for(self, micros: int, prompt: int) -> int:
        """How many reply tokens `micros` buys after a prompt of `prompt` tokens (at the
        input rate): the most a call may be allowed to write within a money budget."""
        left = micros * MILLION - prompt * self.input
        if left <= 0:
            return 0
        return left // self.output if self.output > 0 else 1 << 40
