from __future__ import annotations

import pytest

from core.identity import CallContext
from records.tools.outcomes import ToolFailed
from tools.builtin.calculator import Calculator, evaluate


@pytest.mark.parametrize(
    ("expression", "result", "exact"),
    [
        ("0.1 + 0.2", "0.3", True),
        ("1/3", "1/3", True),
        ("1/3 * 3", "1", True),
        ("2**10", "1024", True),
        ("2^10", "1024", True),
        ("-7 // 2", "-4", True),
        ("7 % 3", "1", True),
        ("(2 + 3) * sqrt(16) / 7", "20/7", True),
        ("sqrt(9/4)", "1.5", True),
        ("factorial(25)", "15511210043330985984000000", True),
        ("10**-3", "0.001", True),
        ("round(2.5)", "3", True),
        ("round(-2.5)", "-3", True),
        ("round(2/3, 2)", "0.67", True),
        ("abs(-4.25)", "4.25", True),
        ("max(3, 9, 4) - min(3, 9, 4)", "6", True),
        ("gcd(12, 18) + lcm(4, 6)", "18", True),
        ("floor(7/2) + ceil(7/2)", "7", True),
        ("2 ** 100", "1267650600228229401496703205376", True),
        ("1e3 * 3", "3000", True),
        ("sqrt(2)", "1.4142135623730951", False),
        ("log(8, 2)", "3.0", False),
        ("sin(0) + cos(0)", "1.0", False),
        ("2 * pi", "6.283185307179586", False),
    ],
)
def test_evaluates_exactly_where_possible(expression: str, result: str, exact: bool) -> None:
    from tools.builtin.calculator import _render

    value, is_exact = evaluate(expression)
    assert _render(value) == result
    assert is_exact is exact


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("1/0", "division by zero"),
        ("5 % 0", "division by zero"),
        ("0 ** -1", "division by zero"),
        ("sqrt(-1)", "negative"),
        ("(-8) ** (1/3)", "negative"),
        ("log(0)", "logarithm"),
        ("factorial(-1)", "negative"),
        ("factorial(1001)", "above"),
        ("factorial(2.5)", "whole number"),
        ("9 ** 9 ** 9", "exponent above"),
        ("10**10000 * 10**10000", "too large"),
        ("exp(100000)", "exp"),
        ("__import__('os').system('true')", "unknown function"),
        ("open('/etc/passwd')", "unknown function"),
        ("().__class__", "unsupported syntax"),
        ("x + 1", "unknown name"),
        ("'a' * 3", "unsupported literal"),
        ("True + 1", "unsupported literal"),
        ("[1, 2]", "unsupported syntax"),
        ("lambda: 1", "unsupported syntax"),
        ("1 if 1 else 2", "unsupported syntax"),
        ("sqrt(x=4)", "positional"),
        ("sqrt(1, 2)", "wrong number of arguments"),
        ("1 +", "cannot parse"),
        ("1; 2", "cannot parse"),
        ("-" * 600 + "1", "more than"),
        ("1" + "+1" * 400, "more than"),
        ("(" * 300 + "1" + ")" * 300, "cannot parse"),
        ("x" * 1001, "longer than"),
    ],
)
def test_refuses_bad_and_hostile_expressions(expression: str, message: str) -> None:
    with pytest.raises(ToolFailed, match=message):
        evaluate(expression)


async def test_tool_output_has_result_value_and_decimal() -> None:
    output = await Calculator().run({"expression": "2/3"}, CallContext())
    assert output.text == "2/3"
    assert output.data["result"] == "2/3"
    assert output.data["exact"] is True
    assert output.data["decimal"] == "0.6666666666666666"
    assert output.data["value"] == pytest.approx(2 / 3)
    whole = await Calculator().run({"expression": "6*7"}, CallContext())
    assert whole.data["value"] == 42
    assert isinstance(whole.data["value"], int)


def test_deep_but_small_expressions_still_work() -> None:
    value, exact = evaluate("(" * 150 + "1" + ")" * 150)
    assert value == 1
    assert exact
    value, _ = evaluate("-" * 240 + "5")
    assert value == 5


@pytest.mark.parametrize(
    ("expression", "light"),
    [
        ("(17 + 25) * 3 / 7", True),
        ("-7 // 2 % 3 - 0.25", True),
        ("9" * 64, True),
        ("9" * 65, False),  # longer: the thread pool
        ("2 ** 10", False),  # a power can grow without bound
        ("2^10", False),
        ("factorial(5)", False),
        ("1e3", False),
        ("", False),
    ],
)
def test_only_bounded_arithmetic_is_light(expression: str, light: bool) -> None:
    from tools.builtin.calculator import is_light

    assert is_light(expression) is light


async def test_light_expressions_skip_the_thread_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    """A light expression is evaluated in place; anything else still in the tools' pool
    (under the tool's timeout), with the same answers either way."""
    from tools.builtin import calculator
    from tools.builtin.work import in_thread as real

    pooled: list[str] = []

    async def in_thread(function: object, expression: str, *args: object, **kw: object) -> object:
        pooled.append(expression)
        return await real(function, expression, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(calculator, "in_thread", in_thread)
    context = CallContext()
    light = await Calculator().run({"expression": "(17 + 25) * 3 / 7"}, context)
    heavy = await Calculator().run({"expression": "(17 + 25) * 3 / 7 + 0 * 2**2"}, context)
    assert light.data["result"] == heavy.data["result"] == "18"
    assert pooled == ["(17 + 25) * 3 / 7 + 0 * 2**2"]
    with pytest.raises(ToolFailed, match="division by zero"):
        await Calculator().run({"expression": "1 / (2 - 2)"}, context)
