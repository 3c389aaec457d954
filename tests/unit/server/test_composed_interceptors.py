"""The per-concern interceptors composed into one layer behave as when nested: order,
contexts handed on, exceptions seen by the outer ones, a refusal on entry."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import grpc
import pytest

from server.interceptors.composed import ComposedInterceptor, compose
from server.interceptors.decoding import DecodingInterceptor
from server.interceptors.draining import DrainingInterceptor
from server.interceptors.wrapping import Around, AroundInterceptor, Context, Handler


class Recording(AroundInterceptor):
    """Notes its entries and exits in `log`; may replace the context, refuse on entry,
    fail on exit or swallow what the call raised."""

    def __init__(self, name: str, log: list[str], **behaviour: Any) -> None:
        super().__init__()
        self.name, self.log, self.behaviour = name, log, behaviour

    def around_for(self, method: str) -> Around | None:
        if self.behaviour.get("skip"):
            return None

        @asynccontextmanager
        async def around(request: Any, context: Context) -> AsyncIterator[Any]:
            self.log.append(f"enter {self.name} with {context}")
            if self.behaviour.get("refuse"):
                raise PermissionError(self.name)
            try:
                yield self.behaviour.get("replace")
            except BaseException as error:
                self.log.append(f"exit {self.name} with {type(error).__name__}")
                if self.behaviour.get("swallow"):
                    return
                raise
            self.log.append(f"exit {self.name}")
            if self.behaviour.get("fail_on_exit"):
                raise LookupError(self.name)

        return around


def _handler(behaviour: Any) -> Handler:
    return grpc.unary_unary_rpc_method_handler(behaviour)


async def _call(layers: Sequence[AroundInterceptor], behaviour: Any, context: Any = "ctx") -> Any:
    interceptor = ComposedInterceptor(layers)
    details: Any = type("Details", (), {"method": "/s/M", "invocation_metadata": ()})()

    async def continuation(_: Any) -> Handler:
        return _handler(behaviour)

    handler = await interceptor.intercept_service(continuation, details)
    assert handler.unary_unary is not None
    return await handler.unary_unary("request", context)


async def test_layers_run_in_order_each_given_the_context_the_ones_before_yielded() -> None:
    log: list[str] = []

    async def method(request: Any, context: Any) -> str:
        log.append(f"method with {context}")
        return "response"

    layers = [
        Recording("a", log),
        Recording("b", log, replace="ctx-b"),
        Recording("skipped", log, skip=True),
        Recording("c", log),
    ]
    assert await _call(layers, method) == "response"
    assert log == [
        "enter a with ctx",
        "enter b with ctx",
        "enter c with ctx-b",
        "method with ctx-b",
        "exit c",
        "exit b",
        "exit a",
    ]


async def test_an_error_is_seen_by_every_layer_outwards_and_raised() -> None:
    log: list[str] = []

    async def method(request: Any, context: Any) -> str:
        raise KeyError("boom")

    with pytest.raises(KeyError):
        await _call([Recording("a", log), Recording("b", log)], method)
    assert log[-2:] == ["exit b with KeyError", "exit a with KeyError"]


async def test_a_refusal_on_entry_stops_the_call_and_only_the_outer_layers_see_it() -> None:
    log: list[str] = []
    ran: list[str] = []

    async def method(request: Any, context: Any) -> str:
        ran.append("method")
        return "response"

    layers = [Recording("a", log), Recording("b", log, refuse=True), Recording("c", log)]
    with pytest.raises(PermissionError):
        await _call(layers, method)
    assert ran == []
    assert log == ["enter a with ctx", "enter b with ctx", "exit a with PermissionError"]


async def test_an_exit_that_fails_hands_its_error_to_the_outer_layers() -> None:
    log: list[str] = []

    async def method(request: Any, context: Any) -> str:
        return "response"

    layers = [Recording("a", log), Recording("b", log, fail_on_exit=True)]
    with pytest.raises(LookupError):
        await _call(layers, method)
    assert log[-2:] == ["exit b", "exit a with LookupError"]


async def test_an_error_swallowed_by_a_layer_is_not_seen_outside_it() -> None:
    log: list[str] = []

    async def method(request: Any, context: Any) -> str:
        raise KeyError("boom")

    layers = [Recording("a", log), Recording("b", log, swallow=True)]
    assert await _call(layers, method) is None
    assert log[-2:] == ["exit b with KeyError", "exit a"]


def test_compose_merges_consecutive_layers_and_the_decoding_after_them() -> None:
    log: list[str] = []
    draining, decoding = DrainingInterceptor(), DecodingInterceptor()
    a, b = Recording("a", log), Recording("b", log)
    composed = compose([draining, a, b, decoding])
    assert len(composed) == 2
    assert composed[0] is draining
    merged = composed[1]
    assert isinstance(merged, ComposedInterceptor)
    assert merged.layers == (a, b)
    assert merged.inner is decoding
