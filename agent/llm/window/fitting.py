"""Fitting a request into the model's context window before it is sent.

`fit_request` takes the messages of one model call, the tools it offers and the
model's limits (`agent.llm.window.catalog`) and returns messages that fit, with the
reply limit (`max_tokens`) recomputed so that prompt and reply fit together:

0. images go first: when the request does not fit, whole images are left out oldest
   first (wherever they are, the goal's included), each replaced by a note naming its
   artifact, until it fits or none is left (an image is never cut; a note keeps its
   name, and `read_artifact` can return it, where clipped text would be lost);
1. the system message(s) at the start and the first user message (the goal) are
   always kept whole; so is the newest turn (the last assistant message and
   everything after it: the observations the model is about to read);
2. older observations (tool results, and the `Observation:` messages of text
   ReAct) are clipped proportionally (each keeps the same share of itself, at least
   a few tokens), each with a marker saying how much was cut;
3. if that is not enough, the oldest turns between the goal and the newest turn are
   left out whole (an assistant message with its tool results, never one without
   the other), replaced by one note saying how many were;
4. if even that is not enough, the newest turn's observations are clipped too, and
   as a last resort every message but the system one (a plan step whose inputs are
   one huge message): a request that is cut is better than one certain to fail.

The target is the window less a safety margin (counts of models without an OpenAI
encoding are estimates) less the room kept for the reply. `squeeze` < 1 aims lower:
it is used once more after an endpoint still answered "context length exceeded".
Nothing here calls a model: fitting is cheap and deterministic.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace

from agent.llm.window.catalog import ModelLimits
from agent.llm.window.tokens import TOKENS_PER_MESSAGE, TokenCounter, message_tokens
from records.messages import Message, ToolDefinition
from records.parts import ImagePart, InlineImage, TextPart, dropped_note

MIN_KEPT_TOKENS = 48
"""An observation clipped to fit keeps at least this many tokens."""
MARKER = "\n[… {cut} tokens of this result were cut to fit the model's context window]"
OMITTED = "[{count} earlier messages were left out to fit the model's context window]"
OBSERVATION_PREFIX = "Observation:"


@dataclass(frozen=True, slots=True)
class FitPolicy:
    """How requests are fitted (settings: AGENTD_CONTEXT_*)."""

    reply_tokens: int = 1_024
    """Room kept for the reply when the prompt must be cut (less if the model's reply
    limit is lower)."""
    margin: float = 0.05
    """Share of the window left unused, for the error of estimated counts."""
    min_reply_tokens: int = 16
    """The reply limit sent is never below this."""
    retry_squeeze: float = 0.7
    """After the endpoint said the context is too long, the next fit aims at this share
    of what the first one aimed at."""
    input_text_chars: int = 100_000
    """A document given with a task's input (a PDF's text, a text file) is put in its first
    message up to this many characters, then cut with a note."""


@dataclass(frozen=True, slots=True)
class Fitted:
    """A request as fitted."""

    messages: tuple[Message, ...]
    max_tokens: int
    """The reply limit to send: what the model allows, the caller asked for and the
    window has room for."""
    prompt_tokens: int
    """The prompt as sent (messages and tools), counted."""
    saved_tokens: int
    """Tokens cut from the prompt (0: it was sent as it was)."""
    clipped: int = 0
    """Observations clipped."""
    dropped: int = 0
    """Older messages left out."""
    dropped_images: int = 0
    """Images left out whole, each replaced by a note naming its artifact."""


def _is_observation(message: Message) -> bool:
    return message.role == "tool" or (
        message.role == "user" and message.content.startswith(OBSERVATION_PREFIX)
    )


def tools_tokens(tools: Sequence[ToolDefinition], counter: TokenCounter) -> int:
    return sum(
        counter.count(f"{t.name} {t.description} {json.dumps(dict(t.parameters))}") + 8
        for t in tools
    )


MAX_CACHED = 8_192
_COUNTS: dict[tuple[str, Message], int] = {}
"""Tokens of messages seen before, by counter: a task's transcript is sent again with
every call, the same message objects each time, so each is counted once (a str caches
its own hash, so looking one up costs little)."""


def counted(message: Message, counter: TokenCounter) -> int:
    """`message_tokens`, remembered."""
    key = (counter.name, message)
    found = _COUNTS.get(key)
    if found is None:
        if len(_COUNTS) >= MAX_CACHED:
            _COUNTS.clear()
        found = _COUNTS[key] = message_tokens(message, counter)
    return found


def forget_counts() -> None:
    """Forget every remembered count (for measuring)."""
    _COUNTS.clear()


CHARS_PER_TOKEN_AT_MOST = 16
"""A head of N tokens is taken from at most N * 16 characters, so clipping never encodes
a whole long result (a head found in such a prefix may be a little shorter than N)."""


def _call_tokens(message: Message, counter: TokenCounter) -> int:
    return sum(counter.count(c.name) + counter.count(c.arguments_json) for c in message.tool_calls)


def _clip(message: Message, keep: int, counter: TokenCounter) -> Message:
    """The message in at most `keep` tokens (its framing and the marker included)."""
    size = counted(message, counter) - TOKENS_PER_MESSAGE - _call_tokens(message, counter)
    if size + TOKENS_PER_MESSAGE <= keep:
        return message
    marker = counter.count(MARKER.format(cut=size)) + 1
    tokens = max(0, keep - TOKENS_PER_MESSAGE - marker)
    head = counter.head(message.content[: tokens * CHARS_PER_TOKEN_AT_MOST], tokens)
    cut = size - counter.count(head)
    return replace(message, content=head + MARKER.format(cut=cut))


def _protected(messages: Sequence[Message], keep_head: int) -> tuple[int, int]:
    """(end of the head kept whole, start of the newest turn kept whole)."""
    head = 0
    while head < len(messages) and messages[head].role == "system":
        head += 1
    if head < len(messages) and messages[head].role == "user":
        head += 1  # the goal
    head = max(head, min(keep_head, len(messages)))
    tail = len(messages)
    for index in range(len(messages) - 1, head - 1, -1):
        if messages[index].role == "assistant":
            tail = index
            break
    return head, max(head, tail)


class _Request:
    """The messages being fitted, with their counts."""

    def __init__(self, messages: Sequence[Message], counter: TokenCounter) -> None:
        self.messages = list(messages)
        self.counter = counter
        self.sizes = [counted(m, counter) for m in self.messages]
        self.clipped = 0
        self.dropped = 0
        self.dropped_images = 0

    @property
    def total(self) -> int:
        return sum(self.sizes)

    def clip(self, indexes: Sequence[int], budget: int) -> None:
        """Clip the observations at `indexes` proportionally so the request fits `budget`
        (as far as their floor allows)."""
        excess = self.total - budget
        sizes = {i: self.sizes[i] for i in indexes}
        clippable = sum(sizes.values())
        if excess <= 0 or clippable <= 0:
            return
        share = max(0.0, (clippable - excess) / clippable)
        for index, size in sizes.items():
            keep = max(MIN_KEPT_TOKENS, int(size * share))
            if keep < size - 8:
                clipped = _clip(self.messages[index], keep, self.counter)
                if clipped is not self.messages[index]:
                    self.messages[index] = clipped
                    self.sizes[index] = counted(clipped, self.counter)
                    self.clipped += 1

    def drop_images(self, budget: int) -> None:
        """Replace whole images by notes naming them, oldest first, until the request fits
        `budget` or none is left."""
        for index, message in enumerate(self.messages):
            if self.total <= budget:
                return
            if not any(isinstance(p, ImagePart | InlineImage) for p in message.parts):
                continue
            parts = list(message.parts)
            for at, part in enumerate(parts):
                if not isinstance(part, ImagePart | InlineImage) or self.total <= budget:
                    continue
                image = part.source if isinstance(part, InlineImage) else part
                parts[at] = TextPart(dropped_note(image))
                self.dropped_images += 1
                message = replace(message, parts=tuple(parts))
                self.messages[index] = message
                self.sizes[index] = counted(message, self.counter)

    def drop_oldest(self, head: int, tail: int, budget: int) -> int:
        """Leave out whole turns from `head` on until the request fits `budget` or only the
        newest turn is left; returns the newest turn's new start."""
        end = head
        while self.total - sum(self.sizes[head:end]) > budget and end < tail:
            end += 1
            while end < tail and self.messages[end].role == "tool":
                end += 1  # a call's results go with it
        if end == head:
            return tail
        count = end - head
        note = Message("user", OMITTED.format(count=count))
        self.messages[head:end] = [note]
        self.sizes[head:end] = [message_tokens(note, self.counter)]
        self.dropped += count
        return tail - count + 1


def fit_request(
    messages: Sequence[Message],
    tools: Sequence[ToolDefinition],
    limits: ModelLimits,
    counter: TokenCounter,
    *,
    max_tokens: int | None = None,
    policy: FitPolicy | None = None,
    squeeze: float = 1.0,
    keep_head: int = 0,
) -> Fitted:
    """`messages` fitted into `limits.context_window` with the reply limit to send.
    `keep_head`: the leading messages always kept whole (the system message, the turns
    of the task's conversation, which have a budget of their own, and the goal); by
    default the system messages and the first user message."""
    policy = policy or FitPolicy()
    usable = int(limits.context_window * (1 - policy.margin) * squeeze)
    wanted = min(max_tokens or limits.max_output_tokens, limits.max_output_tokens)
    reserve = min(wanted, policy.reply_tokens)
    budget = usable - tools_tokens(tools, counter) - reserve
    request = _Request(messages, counter)
    before = request.total
    if before > budget:
        request.drop_images(budget)
    if request.total > budget:
        head, tail = _protected(request.messages, keep_head)
        older = [i for i in range(head, tail) if _is_observation(request.messages[i])]
        request.clip(older, budget)
        if request.total > budget:
            tail = request.drop_oldest(head, tail, budget)
        if request.total > budget:
            sent = request.messages
            newest = [i for i in range(tail, len(sent)) if _is_observation(sent[i])]
            request.clip(newest, budget)
        if request.total > budget:  # a last resort: one huge message (a step's inputs)
            rest = [i for i, m in enumerate(request.messages) if m.role != "system"]
            request.clip(rest, budget)
    prompt = request.total + tools_tokens(tools, counter)
    room = usable - prompt
    return Fitted(
        tuple(request.messages),
        max(policy.min_reply_tokens, min(wanted, room)),
        prompt,
        max(0, before - request.total),
        request.clipped,
        request.dropped,
        request.dropped_images,
    )
