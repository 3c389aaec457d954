"""An estimate of tokens that does not undercount Chinese, Japanese and Korean text.

The plain estimate (`agent.llm.window.tokens.EstimateCounter`, four characters a token) suits
English; CJK tokenizers spend about a token per character (Qwen, DeepSeek, Llama 3's
vocabularies: 0.7 to 1.5). Fitting a request (`agent.running.context_fit`) with the plain
estimate would let four times too much Chinese through to a model without an OpenAI
encoding; this counter counts each CJK character (and full-width form) as a token and
everything else as the plain estimate does. It is used for fitting only: the budgets
of conversation memory keep their own estimate.
"""

from __future__ import annotations

import math
import re

WIDE = re.compile(
    "[\u1100-\u11ff\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef\U00020000-\U0002fa1f]"
)
QUARTERS = 4


class WideEstimateCounter:
    """A token per CJK character, four other characters a token."""

    name = "estimate-wide"

    def count(self, text: str) -> int:
        wide = len(WIDE.findall(text))
        return wide + math.ceil((len(text) - wide) / QUARTERS)

    def head(self, text: str, tokens: int) -> str:
        if not WIDE.search(text):
            return text[: max(0, tokens) * QUARTERS]
        budget, used = max(0, tokens) * QUARTERS, 0
        for index, char in enumerate(text):
            used += QUARTERS if WIDE.match(char) else 1
            if used > budget:
                return text[:index]
        return text


WIDE_ESTIMATE = WideEstimateCounter()
