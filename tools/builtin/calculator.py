"""`calculator`: exact arithmetic and common functions, parsed safely.

The expression is parsed with `ast.parse(mode="eval")` and only a whitelist
of node types is walked; nothing is ever evaluated by Python itself. Numbers
are exact rationals (`fractions.Fraction`) for as long as the operations
allow (`0.1 + 0.2` is exactly `0.3`, `1/3` is `1/3`); irrational functions
and non-integer powers fall back to floating point, and the result says so.
"""

from __future__ import annotations

import ast
import decimal
import math
import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from core.identity import CallContext
from records.tools.model import JSONValue, PermissionLevel, RiskLevel, Tool, ToolOutput, ToolSpec
from records.tools.outcomes import ToolFailed
from tools.builtin.work import Budget, in_thread

Number = Fraction | float

MAX_EXPRESSION_LENGTH = 1_000
MAX_NODES = 500
MAX_EXPONENT = 10_000
MAX_RESULT_BITS = 40_000  # about 12,000 decimal digits
MAX_FACTORIAL = 1_000
MAX_DECIMAL_DIGITS = 13_000
"""A terminating decimal longer than this is shown as a fraction."""
MAX_LIGHT_LENGTH = 64
_LIGHT = re.compile(rf"[0-9.+\-*/%() ]{{1,{MAX_LIGHT_LENGTH}}}")


def _to_float(x: Number) -> float:
    try:
        return float(x)
    except OverflowError:
        raise ToolFailed("number too large for a floating-point function") from None


def _exact_sqrt(x: Number) -> Number:
    if x < 0:
        raise ToolFailed("square root of a negative number")
    if isinstance(x, Fraction):
        num, den = math.isqrt(x.numerator), math.isqrt(x.denominator)
        if num * num == x.numerator and den * den == x.denominator:
            return Fraction(num, den)
    return math.sqrt(_to_float(x))


def _integer(x: Number, what: str) -> int:
    if isinstance(x, Fraction) and x.denominator == 1:
        return x.numerator
    if isinstance(x, float) and x.is_integer():
        return int(x)
    raise ToolFailed(f"{what} needs a whole number, got {_render(x)}")


def _factorial(x: Number) -> Number:
    n = _integer(x, "factorial")
    if n < 0:
        raise ToolFailed("factorial of a negative number")
    if n > MAX_FACTORIAL:
        raise ToolFailed(f"factorial argument above {MAX_FACTORIAL}")
    return Fraction(math.factorial(n))


def _log(x: Number, base: Number | None = None) -> Number:
    if x <= 0 or (base is not None and (base <= 0 or base == 1)):
        raise ToolFailed("logarithm of a non-positive number or with an invalid base")
    if base is None:
        return math.log(_to_float(x))
    return math.log(_to_float(x), _to_float(base))


def _round(x: Number, digits: Number | None = None) -> Number:
    """Round half away from zero, as people (not banks) do: round(2.5) is 3."""
    ndigits = 0 if digits is None else _integer(digits, "round")
    if abs(ndigits) > 1_000:
        raise ToolFailed("round: too many digits")
    scale = Fraction(10) ** ndigits
    exact = Fraction(x) if isinstance(x, float) else x
    scaled = abs(exact) * scale
    rounded = math.floor(scaled + Fraction(1, 2)) / scale
    result = rounded if exact >= 0 else -rounded
    return result if isinstance(x, Fraction) else float(result)


def _float_fn(fn: Callable[[float], float]) -> Callable[[Number], Number]:
    def apply(x: Number) -> Number:
        try:
            return fn(_to_float(x))
        except (ValueError, OverflowError) as exc:
            raise ToolFailed(f"{fn.__name__}: {exc}") from None

    return apply


FUNCTIONS: dict[str, Callable[..., Number]] = {
    "abs": abs,
    "sqrt": _exact_sqrt,
    "floor": lambda x: Fraction(math.floor(x)),
    "ceil": lambda x: Fraction(math.ceil(x)),
    "round": _round,
    "factorial": _factorial,
    "ln": _log,
    "log": _log,
    "log10": lambda x: _log(x, Fraction(10)),
    "log2": lambda x: _log(x, Fraction(2)),
    "exp": _float_fn(math.exp),
    "sin": _float_fn(math.sin),
    "cos": _float_fn(math.cos),
    "tan": _float_fn(math.tan),
    "asin": _float_fn(math.asin),
    "acos": _float_fn(math.acos),
    "atan": _float_fn(math.atan),
    "sinh": _float_fn(math.sinh),
    "cosh": _float_fn(math.cosh),
    "tanh": _float_fn(math.tanh),
    "degrees": _float_fn(math.degrees),
    "radians": _float_fn(math.radians),
    "min": lambda *xs: min(xs),
    "max": lambda *xs: max(xs),
    "gcd": lambda a, b: Fraction(math.gcd(_integer(a, "gcd"), _integer(b, "gcd"))),
    "lcm": lambda a, b: Fraction(math.lcm(_integer(a, "lcm"), _integer(b, "lcm"))),
}
CONSTANTS: dict[str, Number] = {"pi": math.pi, "e": math.e, "tau": math.tau}


def _check_size(x: Number) -> Number:
    if isinstance(x, Fraction) and (
        x.numerator.bit_length() > MAX_RESULT_BITS or x.denominator.bit_length() > MAX_RESULT_BITS
    ):
        raise ToolFailed("intermediate result too large")
    if isinstance(x, float) and not math.isfinite(x):
        raise ToolFailed("result is not a finite number")
    return x


def _bits(x: Fraction) -> int:
    """The size of an exact number: the larger of its numerator's and denominator's."""
    return max(x.numerator.bit_length(), x.denominator.bit_length())


def _power(base: Number, exponent: Number) -> Number:
    if isinstance(exponent, Fraction) and exponent.denominator == 1:
        n = exponent.numerator
        if abs(n) > MAX_EXPONENT:
            raise ToolFailed(f"exponent above {MAX_EXPONENT}")
        if isinstance(base, Fraction):
            if base == 0 and n < 0:
                raise ToolFailed("division by zero")
            # The result's size, checked before any work: numerator and denominator alike.
            if _bits(base) * abs(n) > MAX_RESULT_BITS:
                raise ToolFailed("result too large")
            return base**n
    if base < 0:
        raise ToolFailed("fractional power of a negative number")
    try:
        result: float = _to_float(base) ** _to_float(exponent)
        return result
    except (OverflowError, ZeroDivisionError) as exc:
        raise ToolFailed(f"power: {exc}") from None


def _binary(op: ast.operator, a: Number, b: Number) -> Number:
    if (
        isinstance(a, Fraction)
        and isinstance(b, Fraction)
        and _bits(a) + _bits(b) > 2 * (MAX_RESULT_BITS + 64)
    ):
        raise ToolFailed("intermediate result too large")
    try:
        if isinstance(op, ast.Add):
            return a + b
        if isinstance(op, ast.Sub):
            return a - b
        if isinstance(op, ast.Mult):
            return a * b
        if isinstance(op, ast.Div):
            return a / b
        if isinstance(op, ast.FloorDiv):
            return Fraction(a // b)
        if isinstance(op, ast.Mod):
            return a % b
        if isinstance(op, ast.Pow | ast.BitXor):  # "^" means power to most people
            return _power(a, b)
    except ZeroDivisionError:
        raise ToolFailed("division by zero") from None
    raise ToolFailed(f"unsupported operator {type(op).__name__}")


class _Evaluator:
    def __init__(self, budget: Budget | None = None) -> None:
        self.exact = True
        self._budget = budget

    def visit(self, node: ast.AST) -> Number:
        if self._budget is not None:
            self._budget.spend()
        value = self._visit(node)
        if isinstance(value, float):
            self.exact = False
        return _check_size(value)

    def _visit(self, node: ast.AST) -> Number:
        if isinstance(node, ast.Expression):
            return self.visit(node.body)
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, int | float):
                raise ToolFailed(f"unsupported literal {node.value!r}")
            return (
                Fraction(repr(node.value))
                if isinstance(node.value, float)
                else Fraction(node.value)
            )
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd | ast.USub):
            operand = self.visit(node.operand)
            return -operand if isinstance(node.op, ast.USub) else operand
        if isinstance(node, ast.BinOp):
            return _binary(node.op, self.visit(node.left), self.visit(node.right))
        if isinstance(node, ast.Name):
            if node.id in CONSTANTS:
                return CONSTANTS[node.id]
            raise ToolFailed(f"unknown name {node.id!r}")
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
                name = node.func.id if isinstance(node.func, ast.Name) else "?"
                raise ToolFailed(
                    f"unknown function {name!r}; known: {', '.join(sorted(FUNCTIONS))}"
                )
            if node.keywords:
                raise ToolFailed("functions take positional arguments only")
            args = [self.visit(a) for a in node.args]
            try:
                result: Number = FUNCTIONS[node.func.id](*args)
            except TypeError:
                raise ToolFailed(f"wrong number of arguments to {node.func.id}()") from None
            return result
        raise ToolFailed(f"unsupported syntax: {type(node).__name__}")


def _digits(n: int) -> str:
    """A whole number in decimal, however long (str() stops at 4,300 digits)."""
    return format(decimal.Decimal(n), "f")


def _power_of(n: int, p: int) -> tuple[int, int]:
    """(k, rest): n = p**k * rest with rest not divisible by p."""
    k = 0
    while n % p == 0:
        n //= p
        k += 1
    return k, n


def _render(value: Number) -> str:
    if isinstance(value, float):
        return repr(value)
    if value.denominator == 1:
        return _digits(value.numerator)
    twos, rest = _power_of(value.denominator, 2)
    fives, rest = _power_of(rest, 5)
    digits = max(twos, fives)
    if rest == 1 and digits <= MAX_DECIMAL_DIGITS:  # a terminating decimal: exactly
        scaled = value.numerator * 10**digits // value.denominator
        sign = "-" if scaled < 0 else ""
        text = _digits(abs(scaled)).rjust(digits + 1, "0")
        return f"{sign}{text[:-digits]}.{text[-digits:]}"
    return f"{_digits(value.numerator)}/{_digits(value.denominator)}"


def is_light(expression: str) -> bool:
    """Whether `expression` is light enough to evaluate on the event loop: at most
    `MAX_LIGHT_LENGTH` characters of digits, points, spaces, parentheses and + - * / %,
    no power. Its numbers then stay under ~10**64 and its steps under a few dozen, so
    it takes microseconds, however it is written; anything else (powers, functions,
    long input) goes to the tools' thread pool, under the tool's timeout."""
    return _LIGHT.fullmatch(expression) is not None and "**" not in expression


def evaluate(expression: str, budget: Budget | None = None) -> tuple[Number, bool]:
    """Evaluate `expression`; return the value and whether it is exact. Every operation's
    cost is bounded before it runs (sizes of its operands); `budget` counts the steps."""
    if len(expression) > MAX_EXPRESSION_LENGTH:
        raise ToolFailed(f"expression longer than {MAX_EXPRESSION_LENGTH} characters")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError as exc:
        raise ToolFailed(f"cannot parse expression: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError):
        raise ToolFailed("cannot parse expression") from None
    # A light expression has at most two nodes per character: never too many.
    if not is_light(expression) and sum(1 for _ in ast.walk(tree)) > MAX_NODES:
        raise ToolFailed(f"expression has more than {MAX_NODES} parts")
    evaluator = _Evaluator(budget)
    try:
        value = evaluator.visit(tree)
    except RecursionError:
        raise ToolFailed("expression nested too deeply") from None
    return value, evaluator.exact


class Calculator(Tool):
    spec = ToolSpec(
        name="calculator",
        description=(
            "Evaluate an arithmetic expression exactly. Supports + - * / // % ** (or ^), "
            "parentheses, the constants pi, e and tau, and the functions "
            + ", ".join(sorted(FUNCTIONS))
            + ". Fractions stay exact (1/3 stays 1/3); irrational results are floating point."
        ),
        parameters={
            "type": "object",
            "properties": {
                "expression": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": MAX_EXPRESSION_LENGTH,
                    "description": "The expression, e.g. '(2 + 3) * sqrt(16) / 7'.",
                }
            },
            "required": ["expression"],
            "additionalProperties": False,
        },
        category="math",
        permission=PermissionLevel.NONE,
        risk=RiskLevel.LOW,
        idempotent=True,
        timeout_seconds=5.0,
    )

    async def run(self, arguments: dict[str, JSONValue], context: CallContext) -> ToolOutput:
        expression = str(arguments["expression"])
        budget = Budget(MAX_NODES * 4, "the expression")
        if is_light(expression):  # microseconds of work: the thread hop would cost more
            return self._evaluate(expression, budget)
        return await in_thread(self._evaluate, expression, budget, budget=budget)

    def _evaluate(self, expression: str, budget: Budget) -> ToolOutput:
        value, exact = evaluate(expression, budget)
        result = _render(value)
        data: dict[str, Any] = {"expression": expression, "result": result, "exact": exact}
        if isinstance(value, Fraction) and value.denominator == 1 and abs(value) < 2**53:
            data["value"] = value.numerator
        else:
            try:
                data["value"] = float(value)
            except OverflowError:
                data["value"] = None
        if isinstance(value, Fraction) and value.denominator != 1 and "/" in result:
            data["decimal"] = repr(float(value))
        return ToolOutput(data=data, text=result)
