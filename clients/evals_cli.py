"""`agentd eval run|show|list`: evaluation runs (docs/evals.md).

`run` reads a dataset file (.yaml, .yml: a mapping with `cases`, or a list of cases;
.jsonl: one case per line), starts an evaluation run of its cases as an agent version,
waits for it, prints a table (case, pass or FAIL, each grader, tokens, seconds), the
aggregate, the comparison with the baseline and the gate's verdict. It exits 0 when the
gate passed, 1 when it failed (naming the regressed cases) or the run failed, and 2 on a
usage error: what a CI job needs to hold a version back.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import yaml

from agentd.v1 import evals_pb2
from agentd_client.client import AgentClient
from agentd_client.evals.files import case_from_data, dataset_from_data
from clients import options
from clients.output import as_json, columns, nothing

MAX_DATASET_BYTES = 16 * 1024 * 1024
POLL_SECONDS = 0.5
STATES = {
    evals_pb2.EVAL_RUN_STATE_RUNNING: "running",
    evals_pb2.EVAL_RUN_STATE_FINISHED: "finished",
    evals_pb2.EVAL_RUN_STATE_FAILED: "failed",
}


def add_parsers(sub: Any) -> None:
    evals = sub.add_parser("eval", help="evaluation runs: grade an agent version on a dataset")
    verbs = evals.add_subparsers(dest="verb", required=True)
    evaluation = verbs.add_parser(
        "run", help="run a dataset as an agent version; exit 1 if the gate fails"
    )
    evaluation.add_argument("--dataset", required=True, help="FILE.yaml, .yml or .jsonl")
    evaluation.add_argument("--agent", required=True, help="id@version (or id: its version now)")
    evaluation.add_argument("--baseline", default="", help="an earlier run's id to compare with")
    evaluation.add_argument("--min-pass-rate", type=float, default=0.0, help="0 to 1 (default 1)")
    evaluation.add_argument("--max-regression", type=float, default=0.0, help="0 to 1 (default 0)")
    evaluation.add_argument("--allowed-regressed", type=int, default=0, help="cases (default 0)")
    evaluation.add_argument(
        "--threshold", action="append", default=[], metavar="GRADER=X", help="(repeatable)"
    )
    evaluation.add_argument("--parallelism", type=int, default=0, help="1 to 32 (default 4)")
    evaluation.add_argument("--label", action="append", default=[], metavar="KEY=VALUE")
    evaluation.add_argument("--idempotency-key", default="")
    evaluation.add_argument(
        "--max-wait", type=float, default=0.0, help="seconds to wait (default: until it ends)"
    )
    show = verbs.add_parser("show", help="an evaluation run, as `run` prints it")
    show.add_argument("eval_run_id")
    listed = verbs.add_parser("list", help="evaluation runs, newest first")
    listed.add_argument("--agent", default="", help="id or id@version")


def read_dataset(path: Path) -> evals_pb2.Dataset:
    """The dataset a file holds; OptionError saying what is wrong with it."""
    suffix = path.suffix.lower()
    if suffix not in (".yaml", ".yml", ".jsonl"):
        raise options.OptionError(f"--dataset {path}: a .yaml, .yml or .jsonl file")
    try:
        if path.stat().st_size > MAX_DATASET_BYTES:
            raise options.OptionError(f"--dataset {path}: larger than 16 MiB")
        text = path.read_text(encoding="utf-8")
        if suffix == ".jsonl":
            lines = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
            cases = [case_from_data(json.loads(line), f"line {n}") for n, line in lines]
            return evals_pb2.Dataset(name=path.stem, cases=cases)
        return dataset_from_data(yaml.safe_load(text), path.stem)
    except (OSError, UnicodeDecodeError, yaml.YAMLError, ValueError) as error:
        if isinstance(error, options.OptionError):
            raise
        raise options.OptionError(f"--dataset {path}: {error}") from None


def gate_of(args: argparse.Namespace) -> evals_pb2.EvalGate:
    gate = evals_pb2.EvalGate(
        min_pass_rate=args.min_pass_rate,
        max_regression=args.max_regression,
        allowed_regressed_cases=max(0, args.allowed_regressed),
    )
    for pair in args.threshold:
        grader, sep, value = pair.partition("=")
        try:
            rate = float(value)
        except ValueError:
            rate = -1.0
        if not sep or not grader or not 0 <= rate <= 1:
            raise options.OptionError(f"--threshold {pair!r}: write GRADER=X, X from 0 to 1")
        gate.thresholds.add(grader=grader, min_pass_rate=rate)
    return gate


def run_lines(evaluation: evals_pb2.EvalRun) -> list[str]:
    """The run as a table of its cases, then its numbers, comparison and verdict."""
    names = list(dict.fromkeys(g.name for r in evaluation.results for g in r.graders))
    rows: list[tuple[str, ...]] = [("case", "result", *names, "tokens", "seconds")]
    for result in evaluation.results:
        verdicts = {g.name: "pass" if g.passed else "FAIL" for g in result.graders}
        rows.append(
            (
                result.case_id,
                "pass" if result.passed else "FAIL",
                *(verdicts.get(name, "-") for name in names),
                str(result.usage.total_tokens),
                f"{result.seconds:.2f}",
            )
        )
    lines = columns(rows, {len(names) + 2, len(names) + 3})
    for result in evaluation.results:
        for grade in result.graders:
            if not grade.passed and grade.reason:
                lines.append(f"  {result.case_id} {grade.name}: {grade.reason}")
        if result.error:
            lines.append(f"  {result.case_id}: {result.error}")
    return lines + summary_lines(evaluation)


def summary_lines(evaluation: evals_pb2.EvalRun) -> list[str]:
    totals = evaluation.aggregate
    lines = [
        f"run {evaluation.eval_run_id} of {evaluation.agent}: "
        f"{STATES.get(evaluation.state, 'unknown')}, "
        f"{totals.passed}/{totals.cases} passed ({totals.pass_rate:.1%}), "
        f"{totals.total_tokens} tokens, p50 {totals.p50_seconds:.2f} s",
    ]
    for name, rate in sorted(totals.pass_rate_by_grader.items()):
        lines.append(f"  {name}: {rate:.1%}")
    if evaluation.HasField("comparison"):
        c = evaluation.comparison
        lines.append(
            f"against {c.baseline_run_id} ({c.baseline_pass_rate:.1%}): "
            f"{c.pass_rate_delta:+.1%}; regressed: {', '.join(c.regressed_cases) or 'none'}; "
            f"improved: {', '.join(c.improved_cases) or 'none'}"
        )
    if evaluation.state == evals_pb2.EVAL_RUN_STATE_FAILED:
        lines.append(f"the run failed: {evaluation.error}")
    elif evaluation.state == evals_pb2.EVAL_RUN_STATE_FINISHED:
        lines.append("gate: passed" if evaluation.gate_passed else "gate: FAILED")
        lines += [f"  {failure}" for failure in evaluation.gate_failures]
    return lines


async def _wait(client: AgentClient, eval_run_id: str, seconds: float) -> evals_pb2.EvalRun:
    """The run once it ended, or as it is after `seconds` (0: however long it takes; it
    ends: a run whose server stopped is marked failed by the next one that comes round)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds if seconds > 0 else None
    while True:
        evaluation = await client.get_eval_run(eval_run_id)
        if evaluation.state != evals_pb2.EVAL_RUN_STATE_RUNNING:
            return evaluation
        if deadline is not None and loop.time() >= deadline:
            return evaluation
        await asyncio.sleep(POLL_SECONDS)


def _verdict(evaluation: evals_pb2.EvalRun) -> int:
    finished = evaluation.state == evals_pb2.EVAL_RUN_STATE_FINISHED
    return 0 if finished and evaluation.gate_passed else 1


def _listing(runs: list[evals_pb2.EvalRun]) -> list[str]:
    rows = [("id", "agent", "state", "passed", "gate", "created by")]
    for r in runs:
        finished = r.state == evals_pb2.EVAL_RUN_STATE_FINISHED
        gate = ("passed" if r.gate_passed else "failed") if finished else "-"
        passed = f"{r.aggregate.passed}/{r.total_cases}"
        rows.append((r.eval_run_id, r.agent, STATES.get(r.state, "?"), passed, gate, r.created_by))
    return columns(rows)


async def run_eval(client: AgentClient, args: argparse.Namespace) -> int:
    if args.verb == "list":
        page = await client.list_eval_runs(agent=args.agent, page_size=100)
        if args.json:
            for evaluation in page.runs:
                print(as_json(evaluation))
        else:
            print("\n".join(_listing(list(page.runs))) if page.runs else nothing("evaluation runs"))
        return 0
    if args.verb == "show":
        evaluation = await client.get_eval_run(args.eval_run_id)
    else:
        dataset = read_dataset(Path(args.dataset))
        started = await client.run_eval(
            args.agent,
            cases=list(dataset.cases),
            baseline_run_id=args.baseline,
            parallelism=args.parallelism,
            gate=gate_of(args),
            labels=options.labels(args.label),
            idempotency_key=args.idempotency_key,
        )
        evaluation = await _wait(client, started.eval_run_id, args.max_wait)
    print(as_json(evaluation) if args.json else "\n".join(run_lines(evaluation)))
    if args.verb == "run" and evaluation.state == evals_pb2.EVAL_RUN_STATE_RUNNING:
        print(f"still running after {args.max_wait:g} s: the gate is not known", file=sys.stderr)
    return _verdict(evaluation) if args.verb == "run" else 0
