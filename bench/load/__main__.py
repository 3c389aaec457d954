"""`make load`: run the load scenarios and print, for each, the counts the targets are
judged on and the figures measured in the same run.

    python -m bench.load [burst-embedded burst-redis burst-replicas burst-budget soak kill
        memory parked parked-kill baseline schedules] [--tasks 1000] [--hold 2.0] [--slots 100]
        [--queue 100] [--soak-seconds 60] [--soak-streams 500] [--kill-tasks 200]
        [--parked-tasks 1000] [--parked-kill-tasks 500] [--budget-tasks 600]
        [--budget-tokens 5000] [--budget-hold 0.5] [--env AGENTD_X=Y ...]

Targets: 0 failed, 0 INTERNAL, 0 unended streams, 0 lost or repeated events (and, for
kill, 0 repeated non-idempotent calls) in every scenario; burst throughput >= 90 % of
the capacity the limits allow (slots x replicas / the latency of one task alone);
parked: every task INPUT_REQUIRED at once, a further task run at once, every one
completed once approved, <= 5 KB per parked task (the process alone); parked-kill: every
one completed on the survivor, no POST twice; schedules: every due time of 60 schedules
once across three replicas and a kill -9, lateness p99 <= 1 s away from the kill;
burst-budget: the ledger within the budget plus one call per replica, every refused start
with the budget's QuotaFailure, every started task ended (answered or stopped
BUDGET_EXHAUSTED), nothing left reserved.
Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable

from bench.load import budgeted, plain_loop, scenarios, scheduled
from bench.load import parked as parking
from bench.load.scenarios import Config, Result

NAMES = (
    "burst-embedded",
    "burst-redis",
    "burst-replicas",
    "burst-budget",
    "soak",
    "kill",
    "memory",
    "parked",
    "parked-kill",
    "baseline",
    "schedules",
)


def report(result: Result, throughput_target: bool) -> bool:
    ratio = result.throughput / result.capacity if result.capacity else 0.0
    print(f"== {result.name}")
    print(
        f"  submitted {result.submitted}  completed {result.completed}  failed {result.failed}  "
        f"INTERNAL {result.internal}  unended {result.unended}  lost/repeated events "
        f"{result.lost_or_repeated}  repeated non-idempotent calls {result.repeated_calls}"
    )
    print(
        f"  retries {result.retries}  resumes {result.resumes}  wall {result.wall:.1f} s  "
        f"tasks/s {result.throughput:.1f}  capacity {result.capacity:.1f}/s  "
        f"ratio {ratio:.2f}{' (target >= 0.90)' if throughput_target else ''}"
    )
    used = result.footprint
    print(
        f"  latency p50 {scenarios.median(result.latencies):.2f} s  p99 "
        f"{result.percentile(0.99):.2f} s  peak RSS {used.peak_rss_kib / 1024:.0f} MiB  "
        f"per in-flight task {result.per_task_kib:.0f} KiB (peak in flight "
        f"{used.peak_in_flight})  peak Redis connections {used.peak_redis}"
    )
    if result.name.startswith("memory"):
        print(f"  memory per in-flight task {result.per_task_kib:.0f} KiB (target <= 100 KB)")
    if used.cpu:
        seconds = "  ".join(f"{k} {v:.0f} s" for k, v in used.cpu.items())
        print(f"  CPU during the run: {seconds} (of {2 * result.wall:.0f} s on 2 cores)")
    for error in sorted(set(result.errors))[:5]:
        print(f"  error: {error}")
    passed = result.correct and (not throughput_target or ratio >= 0.9)
    if result.name.startswith("memory"):
        passed = passed and result.per_task_kib * 1.024 <= 100
    print(f"  {'PASS' if passed else 'FAIL'}")
    return passed


async def run(names: list[str], config: Config, args: argparse.Namespace) -> bool:
    plans: dict[str, tuple[Callable[[], Awaitable[Result]], bool]] = {
        "burst-embedded": (lambda: scenarios.burst(config, name="burst, embedded"), True),
        "burst-redis": (
            lambda: scenarios.burst(config, shared=True, name="burst, Redis + PostgreSQL"),
            True,
        ),
        "burst-replicas": (
            lambda: scenarios.burst(config, 2, shared=True, name="burst, two replicas"),
            True,
        ),
        "soak": (
            lambda: scenarios.soak(
                Config(**{**config.__dict__, "slots": args.soak_streams, "queue": 0}),
                args.soak_streams,
                args.soak_seconds,
            ),
            False,
        ),
        "kill": (lambda: scenarios.kill(config, args.kill_tasks), False),
        "memory": (lambda: _memory(config, args), False),
        "baseline": (lambda: plain_loop.baseline(config), False),
    }
    waits = {
        "parked": lambda: parking.parked(config, args.parked_tasks),
        "parked-kill": lambda: parking.parked_kill(config, args.parked_kill_tasks),
    }
    passed = True
    for name in names:
        if name == "schedules":
            passed = scheduled.report(await scheduled.schedules()) and passed
        elif name == "burst-budget":
            held = Config(**{**config.__dict__, "hold": args.budget_hold})
            budget = await budgeted.burst_budget(held, args.budget_tasks, args.budget_tokens)
            passed = budgeted.report(budget) and passed
        elif name in waits:
            passed = parking.report(await waits[name]()) and passed
        else:
            scenario, throughput_target = plans[name]
            passed = report(await scenario(), throughput_target) and passed
        print(flush=True)
    return passed


async def _memory(config: Config, args: argparse.Namespace) -> Result:
    """Both figures: with the default model-call cap, and with every task holding an
    open request to the model (then printed as a second scenario)."""
    held = Config(**{**config.__dict__, "tasks": args.memory_tasks, "hold": args.memory_hold})
    report(await scenarios.memory(held, llm_calls=args.memory_tasks), False)
    print(flush=True)
    # With the default cap the tasks take turns for the model: a shorter hold ends the run
    # sooner (every task is still in flight, waiting, when memory is sampled).
    return await scenarios.memory(Config(**{**held.__dict__, "hold": held.hold / 4}))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("scenarios", nargs="*", help=f"some of {', '.join(NAMES)} (all)")
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--hold", type=float, default=2.0)
    parser.add_argument("--slots", type=int, default=100)
    parser.add_argument("--queue", type=int, default=100)
    parser.add_argument("--cap", type=float, default=300.0, help="seconds per task at most")
    parser.add_argument("--soak-streams", type=int, default=500)
    parser.add_argument("--soak-seconds", type=float, default=60.0)
    parser.add_argument("--kill-tasks", type=int, default=200)
    parser.add_argument("--memory-tasks", type=int, default=1000)
    parser.add_argument("--memory-hold", type=float, default=20.0)
    parser.add_argument("--parked-tasks", type=int, default=1000)
    parser.add_argument("--parked-kill-tasks", type=int, default=500)
    parser.add_argument("--budget-tasks", type=int, default=600)
    parser.add_argument("--budget-tokens", type=int, default=5_000, help="the tenant's budget")
    parser.add_argument("--budget-hold", type=float, default=0.5, help="burst-budget's --hold")
    parser.add_argument("--env", action="append", default=[], help="KEY=VALUE for every server")
    args = parser.parse_args()
    unknown = set(args.scenarios) - set(NAMES)
    if unknown:
        parser.error(f"unknown scenario {', '.join(sorted(unknown))}")
    env = dict(item.split("=", 1) for item in args.env)
    config = Config(args.tasks, args.hold, args.slots, args.queue, args.cap, env)
    sys.exit(0 if asyncio.run(run(args.scenarios or list(NAMES), config, args)) else 1)


if __name__ == "__main__":
    main()
