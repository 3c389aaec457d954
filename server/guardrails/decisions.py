"""A policy service's answer as findings, and the decisions kept for a while.

The answer comes from another team's service: it is untrusted input. An answer that
cannot be used as it stands (no decision, a span outside the text, a redaction without
spans) is refused whole with ValueError, which the check turns into GuardrailUnavailable:
the check's fail mode decides, never a silent pass."""

from __future__ import annotations

import hashlib
import json
import time
from collections import OrderedDict
from collections.abc import Callable

from agentd.v1 import guardrails_pb2 as pb
from records.guardrails import Action, Finding, Span

MAX_REASON = 1000
"""Characters of the service's reason kept (the rest is cut: it goes into events)."""
MAX_LABEL = 64
"""Characters of a span's label or of the rule kept."""
MAX_SPANS = 1000
"""Spans one answer may carry; more is an answer agentd does not use."""
DEFAULT_RULE = "policy"


def _clean(text: str, limit: int) -> str:
    """Printable, one line, at most `limit` characters."""
    return " ".join("".join(c if c.isprintable() else " " for c in text[:limit]).split())


def findings(check: str, answer: pb.PolicyCheckResponse, text: str) -> list[Finding]:
    """What the answer means for `text`: [] to allow; one finding without spans to block;
    one finding with the spans (in code points of `text`) to redact. ValueError for an
    answer that cannot be used."""
    rule = _clean(answer.rule, MAX_LABEL) or DEFAULT_RULE
    reason = _clean(answer.reason, MAX_REASON)
    if answer.decision == pb.POLICY_DECISION_ALLOW:
        return []
    if answer.decision == pb.POLICY_DECISION_BLOCK:
        return [Finding(check, rule, reason or "the policy service blocks this text")]
    if answer.decision != pb.POLICY_DECISION_REDACT:
        raise ValueError(f"no decision agentd knows ({answer.decision})")
    if not answer.spans:
        raise ValueError("a redaction without spans")
    if len(answer.spans) > MAX_SPANS:
        raise ValueError(f"{len(answer.spans)} spans (at most {MAX_SPANS})")
    spans: list[Span] = []
    for span in answer.spans:
        if not 0 <= span.start < span.end <= len(text):
            raise ValueError(
                f"span [{span.start}, {span.end}) is not within the text's {len(text)} code points"
            )
        spans.append(Span(span.start, span.end, _clean(span.label, MAX_LABEL) or rule))
    spans.sort(key=lambda s: (s.start, s.end))
    return [Finding(check, rule, reason or "the policy service redacts this text", tuple(spans))]


def decided_action(declared: Action, finding: Finding) -> Action:
    """What the Guard does with a policy service's finding: the service decides (a
    finding with spans redacts them, one without blocks), unless the check is declared
    `record`, which makes the service a dry run whose decisions are only recorded. A
    check declared `redact` or `block` thus lets the service escalate to a block."""
    if declared is Action.RECORD:
        return Action.RECORD
    return Action.REDACT if finding.spans else Action.BLOCK


def digest(*parts: str) -> str:
    """SHA-256 of the parts as canonical JSON (a list of strings: no two lists share it)."""
    canonical = json.dumps(list(parts), ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


class DecisionCache:
    """Decisions by digest for `seconds`, the `size` most recently used (LRU)."""

    def __init__(
        self, seconds: float, size: int = 10_000, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._seconds = seconds
        self._size = size
        self._clock = clock
        self._kept: OrderedDict[str, tuple[float, tuple[Finding, ...]]] = OrderedDict()

    def get(self, key: str) -> list[Finding] | None:
        """The decision kept under `key`, or None (never kept, expired or pushed out)."""
        kept = self._kept.get(key)
        if kept is None:
            return None
        expires, found = kept
        if self._clock() >= expires:
            del self._kept[key]
            return None
        self._kept.move_to_end(key)
        return list(found)

    def put(self, key: str, found: list[Finding]) -> None:
        if self._seconds <= 0:
            return
        self._kept[key] = (self._clock() + self._seconds, tuple(found))
        self._kept.move_to_end(key)
        while len(self._kept) > self._size:
            self._kept.popitem(last=False)

    def __len__(self) -> int:
        return len(self._kept)
