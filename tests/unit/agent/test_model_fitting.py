"""The model catalog and fitting a request into a model's window."""

from __future__ import annotations

import pytest

from agent.llm.window.catalog import (
    BUILT_IN_CATALOG,
    ModelCatalog,
    ModelLimits,
    normalized,
    parse_entries,
)
from agent.llm.window.fitting import MARKER, FitPolicy, fit_request
from agent.llm.window.tokens import ESTIMATE, message_tokens
from records.messages import Message, ToolCall, ToolDefinition


@pytest.mark.parametrize(
    ("model", "window", "output"),
    [
        ("gpt-4o", 128_000, 16_384),
        ("gpt-4o-mini-2024-07-18", 128_000, 16_384),
        ("openai/gpt-4.1", 1_047_576, 32_768),
        ("gpt-5-mini", 400_000, 128_000),
        ("o3-mini", 200_000, 100_000),
        ("o1-mini", 128_000, 65_536),
        ("gpt-4", 8_192, 4_096),
        ("gpt-3.5-turbo", 16_385, 4_096),
        ("claude-3-5-sonnet-20241022", 200_000, 8_192),
        ("claude-sonnet-4-20250514", 200_000, 32_000),
        ("meta-llama/Meta-Llama-3.1-8B-Instruct", 128_000, 4_096),
        ("llama3.1:8b", 128_000, 4_096),
        ("llama3:8b", 8_192, 2_048),
        ("Qwen/Qwen2.5-72B-Instruct", 32_768, 8_192),
        ("qwen-plus", 131_072, 8_192),
        ("mistral-large-latest", 128_000, 8_192),
        ("mixtral-8x7b", 32_768, 4_096),
        ("deepseek-chat", 65_536, 8_192),
        ("deepseek-reasoner", 65_536, 8_192),
    ],
)
def test_built_in_families(model: str, window: int, output: int) -> None:
    limits = BUILT_IN_CATALOG.limits(model)
    assert (limits.context_window, limits.max_output_tokens, limits.known) == (
        window,
        output,
        True,
    )


def test_unknown_models_get_the_default_window_and_are_named() -> None:
    catalog = ModelCatalog(default_window=16_384)
    limits = catalog.limits("my-house-model")
    assert limits == ModelLimits(16_384, 4_096, known=False)
    assert catalog.unknown(["gpt-4o", "my-house-model", "", "my-house-model"]) == ["my-house-model"]


def test_operator_entries_win_over_the_families() -> None:
    catalog = ModelCatalog(parse_entries(["gpt-4o=32768:2048", "local=8192"]))
    assert catalog.limits("gpt-4o") == ModelLimits(32_768, 2_048)
    assert catalog.limits("openai/GPT-4o") == ModelLimits(32_768, 2_048)
    assert catalog.limits("local") == ModelLimits(8_192, 4_096)
    assert normalized("openai/GPT-4o:latest") == "gpt-4o"


@pytest.mark.parametrize("bad", ["nowindow", "m=", "m=abc", "m=100", "m=8192:8192", "=8192"])
def test_bad_entries_are_refused_with_the_form(bad: str) -> None:
    with pytest.raises(ValueError, match="name=window"):
        parse_entries([bad])


def _transcript(results: int, chars: int) -> list[Message]:
    messages = [Message("system", "You are an agent."), Message("user", "Read every file.")]
    for index in range(results):
        call = ToolCall(f"c{index}", "read_file", f'{{"path": "f{index}"}}')
        messages.append(Message("assistant", "", tool_calls=(call,)))
        messages.append(Message("tool", f"{index}" * chars, tool_call_id=call.id, name="read_file"))
    return messages


def _tokens(messages: tuple[Message, ...] | list[Message]) -> int:
    return sum(message_tokens(m) for m in messages)


def test_a_request_that_fits_is_sent_as_it_is_with_the_reply_limit_capped() -> None:
    messages = _transcript(2, 400)
    fitted = fit_request(messages, (), ModelLimits(8_192, 1_024), ESTIMATE, max_tokens=4_000)
    assert fitted.messages == tuple(messages)
    assert fitted.saved_tokens == 0
    assert fitted.max_tokens == 1_024  # the model's reply limit, not the caller's 4000


def test_older_observations_are_clipped_proportionally_and_the_rest_kept_whole() -> None:
    messages = _transcript(10, 20_000)  # the engine's own cap on one tool result
    limits = ModelLimits(8_192, 1_024)
    fitted = fit_request(messages, (), limits, ESTIMATE)
    sent = fitted.messages
    assert sent[:2] == tuple(messages[:2])  # system prompt and goal
    assert sent[-2:] == tuple(messages[-2:])  # the newest turn, whole
    older = [m for m in sent[2:-2] if m.role == "tool"]
    assert len(older) == 9
    sizes = {len(m.content) for m in older}
    assert len(sizes) == 1  # each keeps the same share of itself
    assert all("were cut to fit the model's context window" in m.content for m in older)
    assert fitted.clipped == 9
    assert fitted.dropped == 0
    assert fitted.prompt_tokens + fitted.max_tokens <= limits.context_window
    assert fitted.prompt_tokens == _tokens(sent)
    assert fitted.saved_tokens == _tokens(messages) - _tokens(sent) > 0
    assert MARKER.split("{cut}")[0] in older[0].content


def test_turns_are_left_out_whole_when_clipping_is_not_enough() -> None:
    messages = _transcript(60, 600)
    fitted = fit_request(messages, (), ModelLimits(4_096, 512), ESTIMATE)
    sent = fitted.messages
    assert fitted.dropped > 0
    assert sent[2].role == "user"
    assert "earlier messages were left out" in sent[2].content
    # never a tool result without the call it answers
    calls = {c.id for m in sent for c in m.tool_calls}
    assert all(m.tool_call_id in calls for m in sent if m.role == "tool")
    assert sent[-1] == messages[-1]
    assert fitted.prompt_tokens + fitted.max_tokens <= 4_096


def test_a_huge_newest_turn_is_clipped_as_a_last_resort() -> None:
    messages = _transcript(1, 100_000)
    fitted = fit_request(messages, (), ModelLimits(8_192, 1_024), ESTIMATE)
    assert fitted.prompt_tokens + fitted.max_tokens <= 8_192
    assert fitted.messages[:2] == tuple(messages[:2])


def test_tools_count_against_the_window_and_squeeze_aims_lower() -> None:
    tools = [ToolDefinition(f"t{i}", "x" * 400, {"type": "object"}) for i in range(10)]
    messages = _transcript(6, 8_000)
    plain = fit_request(messages, (), ModelLimits(8_192, 1_024), ESTIMATE)
    with_tools = fit_request(messages, tools, ModelLimits(8_192, 1_024), ESTIMATE)
    assert with_tools.saved_tokens > plain.saved_tokens
    squeezed = fit_request(messages, (), ModelLimits(8_192, 1_024), ESTIMATE, squeeze=0.7)
    assert squeezed.prompt_tokens < plain.prompt_tokens
    assert squeezed.prompt_tokens + squeezed.max_tokens <= int(8_192 * 0.95 * 0.7)


def test_the_conversation_head_is_kept_whole() -> None:
    history = [Message("user", "h" * 20_000), Message("assistant", "earlier answer")]
    messages = [
        Message("system", "s"),
        *history,
        Message("user", "goal"),
        *_transcript(5, 9_000)[2:],
    ]
    fitted = fit_request(
        messages, (), ModelLimits(16_384, 1_024), ESTIMATE, keep_head=4, policy=FitPolicy()
    )
    assert fitted.messages[:4] == tuple(messages[:4])


def test_chinese_is_not_undercounted_when_fitting_a_model_without_an_openai_encoding() -> None:
    from agent.llm.window.wide_estimate import WIDE_ESTIMATE

    chinese = "北京今天晴，最高气温二十度。" * 400  # 5,600 characters
    assert ESTIMATE.count(chinese) == 1_400
    assert WIDE_ESTIMATE.count(chinese) == 5_600
    assert WIDE_ESTIMATE.count("abcd北京") == 3
    head = WIDE_ESTIMATE.head("ab北京cd", 2)
    assert head == "ab北"  # a quarter, a quarter, a whole: 1.5 tokens; 京 would make 2.5
    messages = [Message("system", "s"), Message("user", "比较两地的天气")]
    for index in range(4):
        call = ToolCall(f"c{index}", "weather", "{}")
        messages += [Message("assistant", "", tool_calls=(call,)),
                     Message("tool", chinese, tool_call_id=call.id)]  # fmt: skip
    fitted = fit_request(messages, (), ModelLimits(8_192, 1_024), WIDE_ESTIMATE)
    assert fitted.prompt_tokens + fitted.max_tokens <= 8_192
    assert sum(WIDE_ESTIMATE.count(m.content) for m in fitted.messages) < 8_192
