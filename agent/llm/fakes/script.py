"""The script the fake OpenAI-compatible server plays (`agentd fake-llm`, FakeOpenAIServer).

A script is a JSON list of replies, played in order, or an object:

    {"replies": [...],                      # any request (or any whose role has none below)
     "cycle": true,                         # start over when no reply is left (default false)
     "roles": {"planner": [...],            # the planner's requests only
               "critic": {"replies": [...], "cycle": false},   # a role's own `cycle`
               "executor": [...], "synthesizer": [...], "summarizer": [...]}}

Each part (the shared replies, each role's) is played on its own: a request takes the
first reply of its part that is not used up and whose `match` (if any) occurs in the
request's messages. With `cycle` a part that has no reply left for a request starts
over from its top, every reply and its `repeat` restored (unless none of its replies
would ever answer that request); without, the request is answered 500 `script
exhausted`. A role's part cycles when the script does, unless it says otherwise.

The role of a request is read from the request itself (`role_of`): the structured output
it asks for (a plan, a verdict), else the engine's prompt in its system message. The
roles are the engine's: `planner`, `executor` (function calling, text ReAct and the
steps of a plan), `critic`, `synthesizer` (the final answer of a plan, and an answer
reshaped to an agent's output schema), `summarizer` (a conversation's running
summary) and `router` (auto mode's router model, when one is configured: its reply is
`{"json": {"decision": "answer" | "function_calling" | "plan_and_execute" | "delegate",
"answer": "...", "delegate": "...", "reason": "..."}}`).

A reply is one of:

    {"text": "hello", "reasoning": "thinking", "chunks": 3}
    {"json": {"any": "value"}}                     # text = that JSON
    {"tool_calls": [{"name": "calculator", "arguments": {"expression": "2+2"}},
                    {"name": "calculator", "arguments_raw": "{broken"}]}
    {"error": {"status": 429, "message": "slow down"}}
    {"error": {"status": 400, "code": "context_length_exceeded", "message": "too long"}}
    {"delay_seconds": 2.5, "text": "late"}         # answer after a delay
    {"hold": "first", "text": "late"}              # answer once `release("first")` is called
    {"drop": true}                                 # close the connection mid-reply
    {"text": "a b c", "cut_after": 2}              # streamed: 2 text chunks, then cut off

Optional on any reply: `match` (a substring of the request's messages), `usage`
({"prompt_tokens": N, "completion_tokens": M}, or null to report none, as some
endpoints do), `finish_reason`, `repeat` (serve it N times; -1 for ever). A request whose
reply limit (`max_tokens` or `max_completion_tokens`) is below the reply's completion
tokens is answered as an endpoint does: cut at the limit (`finish_reason` "length").
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from difflib import get_close_matches
from pathlib import Path
from typing import Any

from agent import prompts

JSON = dict[str, Any]

ROLES = ("planner", "executor", "critic", "synthesizer", "summarizer", "router")
REPLY_KEYS = frozenset(
    {"text", "reasoning", "chunks", "json", "tool_calls", "error", "delay_seconds", "hold"}
    | {"drop", "match", "usage", "finish_reason", "repeat", "cut_after"}
)
TOOL_CALL_KEYS = frozenset({"name", "arguments", "arguments_raw", "id"})
SCHEMA_ROLES = {"plan": "planner", "verdict": "critic", "answer": "synthesizer", "route": "router"}
"""The structured outputs the engine asks for, by schema name (agent/modes/planner.py,
agent/modes/critic.py, agent/running/answers.py), and the role asking."""
PROMPT_ROLES = (
    (prompts.ROUTER_INTRO, "router"),
    (prompts.SUMMARIZER_SYSTEM, "summarizer"),
    (prompts.SYNTHESIZER_SYSTEM, "synthesizer"),
    (prompts.CRITIC_SYSTEM, "critic"),
    (prompts.PLANNER_INTRO, "planner"),
    (prompts.EXECUTOR_SYSTEM, "executor"),
    (prompts.FUNCTION_CALLING_SYSTEM, "executor"),
    (prompts.REACT_INTRO, "executor"),
)
"""The engine's prompts, each in the system message of one role's requests (after the
agent's instructions, if any)."""


def message_text(content: object) -> str:
    """The text of a message's content (a string, or content parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def role_of(body: JSON) -> str | None:
    """The engine role a chat completions request is for; None when it is none of them."""
    response_format = body.get("response_format")
    if isinstance(response_format, dict):
        schema = response_format.get("json_schema")
        name = schema.get("name") if isinstance(schema, dict) else None
        if name in SCHEMA_ROLES:
            return SCHEMA_ROLES[str(name)]
    messages = body.get("messages") or []
    first = messages[0] if messages and isinstance(messages[0], dict) else {}
    system = message_text(first.get("content")) if first.get("role") == "system" else ""
    return next((role for marker, role in PROMPT_ROLES if marker in system), None)


def request_text(body: JSON) -> str:
    """Every message's text, one per line: what `match` looks in."""
    messages = body.get("messages", [])
    return "\n".join(message_text(m.get("content")) for m in messages if isinstance(m, dict))


def _problem(where: str, key: str, known: Sequence[str]) -> str:
    near = get_close_matches(key, known, n=1)
    return f"{where}: unknown key {key!r}" + (f" (did you mean {near[0]!r}?)" if near else "")


def _check_reply(reply: object, where: str) -> JSON:
    if not isinstance(reply, dict):
        raise ValueError(f"{where}: a reply is a JSON object, not {json.dumps(reply)[:40]}")
    for key in reply:
        if key not in REPLY_KEYS:
            raise ValueError(_problem(where, key, sorted(REPLY_KEYS)))
    repeat = reply.get("repeat", 1)
    if not isinstance(repeat, int) or isinstance(repeat, bool) or (repeat < 1 and repeat != -1):
        raise ValueError(f"{where}: repeat is a number of times (1 or more), or -1 for ever")
    if "match" in reply and not isinstance(reply["match"], str):
        raise ValueError(f"{where}: match is a string to find in the request")
    for index, call in enumerate(reply.get("tool_calls") or []):
        at = f"{where}.tool_calls[{index}]"
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            raise ValueError(f"{at}: a tool call is an object with a name")
        for key in call:
            if key not in TOOL_CALL_KEYS:
                raise ValueError(_problem(at, key, sorted(TOOL_CALL_KEYS)))
    return dict(reply)


@dataclass
class _Entry:
    reply: JSON
    left: int
    """Answers left in this round; -1: for ever."""

    def answers(self, text: str) -> bool:
        match = self.reply.get("match")
        return match is None or str(match) in text


@dataclass(frozen=True)
class Answer:
    """The reply chosen for a request, and which entry of the script gave it."""

    reply: JSON
    entry: str
    """Where it is in the script: `replies[0]`, `roles.planner[2]`."""
    round: int
    """Which time through its part (1 the first; more only with `cycle`)."""


class Part:
    """Replies played in order for one role, or for any request (one request at a time:
    the server takes them in its event loop, without awaiting)."""

    def __init__(self, name: str, replies: Sequence[JSON], cycle: bool = False) -> None:
        self.name = name
        self.cycle = cycle
        self.round = 1
        self._replies = [_check_reply(r, f"{name}[{i}]") for i, r in enumerate(replies)]
        self._entries = self._fresh()

    def _fresh(self) -> list[_Entry]:
        return [_Entry(r, int(r.get("repeat", 1))) for r in self._replies]

    def add(self, *replies: JSON) -> None:
        for reply in replies:
            checked = _check_reply(reply, f"{self.name}[{len(self._replies)}]")
            self._replies.append(checked)
            self._entries.append(_Entry(checked, int(checked.get("repeat", 1))))

    def take(self, text: str) -> Answer | None:
        """The reply for a request whose messages read `text`; None when none is left."""
        found = self._first(text)
        if found is None and self.cycle and any(e.answers(text) for e in self._fresh()):
            self._entries = self._fresh()
            self.round += 1
            found = self._first(text)
        return found

    def _first(self, text: str) -> Answer | None:
        for index, entry in enumerate(self._entries):
            if entry.left != 0 and entry.answers(text):
                if entry.left > 0:
                    entry.left -= 1
                return Answer(entry.reply, f"{self.name}[{index}]", self.round)
        return None

    def __len__(self) -> int:
        return len(self._replies)

    @property
    def remaining(self) -> int:
        """Answers left in this round (replies served for ever not counted)."""
        return sum(e.left for e in self._entries if e.left > 0)

    def describe(self) -> str:
        """`3 replies`, `2 replies, 5 answers`, `1 reply, answering for ever`, `2 replies,
        cycling`."""
        count = len(self._replies)
        said = f"{count} repl{'y' if count == 1 else 'ies'}"
        if self.cycle:
            return f"{said}, cycling"
        if any(int(r.get("repeat", 1)) == -1 for r in self._replies):
            return f"{said}, answering for ever"
        answers = sum(int(r.get("repeat", 1)) for r in self._replies)
        return said if answers == count else f"{said}, {answers} answers"


class Script:
    """The shared replies and each role's own."""

    def __init__(
        self,
        replies: Sequence[JSON] = (),
        *,
        roles: Mapping[str, Part] | None = None,
        cycle: bool = False,
    ) -> None:
        self.shared = Part("replies", replies, cycle)
        self.roles = dict(roles or {})

    @classmethod
    def load(cls, path: Path) -> Script:
        """The script in a JSON file; ValueError saying what is wrong with it."""
        try:
            data = json.loads(path.read_text())
        except json.JSONDecodeError as bad:
            raise ValueError(f"{path} is not JSON: {bad}") from None
        return cls.parse(data)

    @classmethod
    def parse(cls, data: object) -> Script:
        """A script from its JSON; ValueError naming what is wrong and where."""
        if isinstance(data, list):
            data = {"replies": data}
        if not isinstance(data, dict):
            raise ValueError('a script is a JSON list of replies, or {"replies": [...], ...}')
        for key in data:
            if key not in ("replies", "roles", "cycle"):
                raise ValueError(_problem("the script", key, ["replies", "roles", "cycle"]))
        cycle = data.get("cycle", False)
        if not isinstance(cycle, bool):
            raise ValueError("cycle is true or false")
        roles = data.get("roles", {})
        if not isinstance(roles, dict):
            raise ValueError('roles is an object: {"planner": [...], "critic": [...]}')
        parts = {role: _part(role, given, cycle) for role, given in roles.items()}
        return cls(_replies(data.get("replies", []), "replies"), roles=parts, cycle=cycle)

    def part_for(self, role: str | None) -> Part:
        return self.roles.get(role or "", self.shared)

    def take(self, body: JSON, role: str | None) -> Answer | None:
        return self.part_for(role).take(request_text(body))

    @property
    def remaining(self) -> int:
        return self.shared.remaining + sum(p.remaining for p in self.roles.values())

    def describe(self) -> str:
        """What the script answers with, part by part, in one line."""
        parts = [f"{role} {part.describe()}" for role, part in self.roles.items()]
        if len(self.shared) or not parts:
            other = "any other request" if parts else "any request"
            parts.append(f"{other} {self.shared.describe()}")
        return "; ".join(parts)


def _replies(given: object, where: str) -> list[JSON]:
    if not isinstance(given, list):
        raise ValueError(f"{where} is a JSON list of replies")
    return given


def _part(role: str, given: object, cycle: bool) -> Part:
    if role not in ROLES:
        near = get_close_matches(role, ROLES, n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else f" (roles: {', '.join(ROLES)})"
        raise ValueError(f"roles: unknown role {role!r}{hint}")
    where = f"roles.{role}"
    if isinstance(given, dict):
        for key in given:
            if key not in ("replies", "cycle"):
                raise ValueError(_problem(where, key, ["replies", "cycle"]))
        cycle = given.get("cycle", cycle)
        if not isinstance(cycle, bool):
            raise ValueError(f"{where}.cycle is true or false")
        given = given.get("replies", [])
    return Part(where, _replies(given, where), cycle)
