"""Plan-and-execute: planner -> executor -> critic (with corrections and replanning) -> synthesizer.

Steps whose dependencies are met run concurrently (bounded). A step with a
tool calls it directly with the plan's arguments when they fit the tool's
schema and need no earlier results; otherwise the executor model fills them
in under forced tool choice. A step without a tool asks the executor model.
A critic verdict of "replan" sends the remaining work back to the planner
with what was learnt; each replan counts as an iteration against
`max_iterations`. A failed step follows the agent's step policy: `replan`
(the same), `skip` (go on without it; the steps that depend on it are skipped
too) or `terminate` (the run stops, STEP_FAILED, with the best answer so far).
Steers (`SteerTask`) are taken before each batch of steps and before the answer; from
then on the task's text as the planner, the executor, the critic and the synthesizer see
it carries them.
"""

from __future__ import annotations

import asyncio

from agent import prompts
from agent.limits import LimitReached
from agent.modes import critic, planner
from agent.modes.plan_steps import run_step
from agent.modes.synthesis import synthesize
from agent.parked import Parked, parked_or
from agent.running.answers import Outcome
from agent.running.concurrency import all_or_none
from agent.running.run import TaskRun
from records import events as ev
from records.mode_state import PlanExecuteState, StepResult
from records.plan import Plan, PlanStep
from records.tasks import StopReason


class _Replan(Exception):  # noqa: N818 - control flow inside this module
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _results_text(results: dict[str, StepResult], ids: list[str] | None = None) -> str:
    chosen = ids if ids is not None else list(results)
    lines = []
    for i in chosen:
        if i in results:
            result = results[i]
            status = "" if result.success else "FAILED: "
            lines.append(f"[{i}] {result.step.description} -> {status}{result.output}")
    return "\n".join(lines)


class PlanExecutor:
    """The state of one plan-and-execute run, checkpointed after every completed step."""

    def __init__(self, run: TaskRun) -> None:
        self.run = run
        self.plan: Plan | None = None
        self.results: dict[str, StepResult] = {}
        self.iterations = 0
        self.corrections = 0
        self.since_review: list[str] = []
        self.index = 0
        self.replan_reason = ""
        self.skipped: set[str] = set()
        """Steps given up on under the `skip` step policy."""
        self.unsettled: list[str] = []
        """Failed steps of a batch that parked: acted on with the batch, once it finishes."""
        self.correcting: tuple[str, str] | None = None
        """The critic's correction (step, feedback) under way while it parked the task."""
        self.slots = asyncio.Semaphore(run.config.tools.max_concurrent_tool_calls)
        """Ready steps run at once up to this many (their tool calls take slots of their own)."""
        """Set between deciding to replan and the new plan, so a resumed run replans too."""
        saved = run.state.resume_state()
        if isinstance(saved, PlanExecuteState):
            self.plan = saved.plan
            self.results = {r.step.id: r for r in saved.results}
            self.iterations = saved.iterations
            self.corrections = saved.corrections
            self.since_review = list(saved.since_review)
            self.index = saved.index
            self.replan_reason = saved.replan_reason
            self.skipped = set(saved.skipped)
            self.unsettled = list(saved.unsettled)
            if saved.correcting:
                self.correcting = (saved.correcting, saved.correction)

    def _state(self) -> PlanExecuteState:
        return PlanExecuteState(
            self.plan,
            tuple(self.results.values()),
            self.iterations,
            self.corrections,
            tuple(self.since_review),
            self.index,
            self.replan_reason,
            tuple(sorted(self.skipped)),
            tuple(self.unsettled),
            self.correcting[0] if self.correcting else "",
            self.correcting[1] if self.correcting else "",
        )

    async def _checkpoint(self) -> None:
        await self.run.checkpoint(self._state())

    def _key(self, step: PlanStep, correction: int = 0) -> str:
        """The journal key of a step's tool call: stable across a resume."""
        return f"plan-{self.iterations}/{step.id}" + (f"/fix-{correction}" if correction else "")

    async def _plan(self, reason: str = "") -> Plan:
        self.iterations += 1
        if self.iterations > self.run.task.max_iterations:
            raise LimitReached(
                StopReason.MAX_ITERATIONS,
                f"the plan needed revising again ({reason}) but the iteration limit "
                f"({self.run.task.max_iterations}) is used up",
            )
        done = frozenset(i for i, r in self.results.items() if r.success)
        replan = prompts.replan_request(_results_text(self.results), reason) if reason else ""
        plan = await planner.make_plan(
            self.run,
            step_id=f"plan-{self.iterations}",
            revision=self.iterations,
            replan=replan,
            done=done,
        )
        await self.run.transcript.set_plan(plan, reason)
        self.plan, self.replan_reason = plan, ""
        await self._checkpoint()
        return plan

    async def _given(self, plan: Plan) -> Plan:
        """Start from the plan the caller gave: announced as the first plan, not asked for."""
        self.iterations = 1
        await self.run.transcript.emit(ev.PlanCreated(plan))
        self.plan = plan
        await self._checkpoint()
        return plan

    async def _review(self, ids: list[str], review_id: str) -> None:
        """Ask the critic; apply corrections; raise _Replan when it says so."""
        while ids:
            verdict = await critic.review(
                self.run, _results_text(self.results, ids), ids, review_id
            )
            if verdict.decision == "accept":
                return
            if verdict.decision == "replan":
                raise _Replan(f"the critic asked for a new plan: {verdict.feedback}")
            if self.corrections >= self.run.config.plan.max_corrections:
                return  # out of corrections: keep what there is
            self.corrections += 1
            self.index += 1
            corrected = await self._correct(verdict.step_id, verdict.feedback)
            if corrected is None:
                return
            ids = corrected

    async def _correct(self, step_id: str, feedback: str) -> list[str] | None:
        """Run a step again with the critic's feedback: the step to review again, or None
        when it failed again (acted on by the step policy). A correction whose call parks
        the task is kept in its state, and taken up again first by the woken run."""
        target = self.results[step_id].step
        self.correcting = (step_id, feedback)
        key = self._key(target, self.corrections)
        try:
            result = await run_step(self.run, target, self.results, self.index, key, feedback)
        except Parked:
            self.run.state.pending = self._state()
            raise
        self.correcting = None
        self.results[target.id] = result
        await self._checkpoint()
        if not result.success:
            await self._failed([result], " when corrected")
            return None
        return [target.id]

    async def _failed(self, failed: list[StepResult], when: str = "") -> None:
        """Failed steps, by the step policy: _Replan (replan), LimitReached (terminate), or
        noted as skipped (skip). First, too many failed tool calls in a row stop the run."""
        failing = self.run.tools.failing()
        if failing is not None:
            raise failing
        why = "; ".join(f"step {r.step.id} failed{when}: {r.output}" for r in failed)
        policy = self.run.config.plan.step_policy
        if policy == "terminate":
            raise LimitReached(
                StopReason.STEP_FAILED, f"{why[:1000]} (the agent's step policy is terminate)"
            )
        if policy == "replan":
            raise _Replan(why)
        for result in failed:
            self.skipped.add(result.step.id)
            self.run.transcript.notes.append(
                f"[{result.step.id}] skipped after it failed: {result.output}"
            )
        await self._checkpoint()

    async def _skip_dependents(self, pending: list[PlanStep]) -> None:
        """Under the `skip` policy, steps that depend on a skipped step are skipped too."""
        for step in pending:
            missing = [d for d in step.depends_on if d in self.skipped]
            if missing and step.id not in self.skipped:
                self.skipped.add(step.id)
                output = f"skipped: it depends on {', '.join(missing)}, which did not succeed"
                self.index += 1
                await self.run.transcript.emit(
                    ev.StepStarted(step.id, step.description, self.index)
                )
                self.results[step.id] = StepResult(step, False, output)
                await self.run.transcript.emit(ev.StepFinished(step.id, False, output, 0.0))

    def _open(self, steps: list[PlanStep]) -> list[PlanStep]:
        """The steps still to run: neither succeeded nor skipped."""
        return [
            s
            for s in steps
            if s.id not in self.skipped
            and (s.id not in self.results or not self.results[s.id].success)
        ]

    async def _execute(self, plan: Plan) -> None:
        policy = self.run.config.plan.critic_policy
        pending = self._open(list(plan.steps))
        while pending:
            # A safe point: the steps before have their results. Steers taken here reach
            # the executor from the next step on, and the planner when it next plans.
            await self.run.transcript.take_steers(f"step-{self.index + 1}")
            await self._skip_dependents(pending)  # in plan order: a chain is skipped whole
            pending = self._open(pending)
            if not pending:
                break
            ready = [
                s
                for s in pending
                if all(d in self.results and self.results[d].success for d in s.depends_on)
                and s.id not in self.unsettled
            ]
            if not ready and not self.unsettled:
                raise _Replan("no step can run: the steps they depend on did not succeed")
            indices = []
            for _ in ready:
                self.index += 1
                indices.append(self.index)
            outcomes = await all_or_none(
                parked_or(self._step_and_record(s, i)) for s, i in zip(ready, indices, strict=True)
            )
            await self.run.transcript.save()
            finished = [o for o in outcomes if isinstance(o, StepResult)]
            failed = [self.results[i] for i in self.unsettled]
            failed += [r for r in finished if not r.success]
            waiting = [o for o in outcomes if isinstance(o, Parked)]
            if waiting:  # the steps beside them finished (and are kept): the task parks
                self.unsettled = [r.step.id for r in failed]
                self.run.state.pending = self._state()
                raise Parked.merged(waiting)
            self.unsettled = []
            if failed:
                await self._failed(failed)
            else:
                failing = self.run.tools.failing()  # failed calls a step recovered from
                if failing is not None:
                    raise failing
            if policy == "every_step" or (
                policy == "every_n"
                and len(self.since_review) >= self.run.config.plan.critic_every_n
            ):
                ids, self.since_review = self.since_review, []
                await self._review(ids, f"review-{self.index}")
            pending = self._open(pending)

    async def _step_and_record(self, step: PlanStep, index: int) -> StepResult:
        """Run a step (when one of the task's step slots is free); as soon as it finishes,
        keep its result and checkpoint it."""
        async with self.slots:
            result = await run_step(self.run, step, self.results, index, self._key(step))
        self.results[step.id] = result
        if result.success:
            self.run.transcript.notes.append(
                f"[{step.id}] {step.description}: {result.output[:1000]}"
            )
            self.run.task.current_step = sum(1 for r in self.results.values() if r.success)
            self.since_review.append(step.id)
        await self._checkpoint()
        return result

    async def run_all(self) -> Outcome:
        await self.run.transcript.take_steers("plan")  # sent before it started
        if self.replan_reason:  # resumed between a failure and its new plan
            plan = await self._plan(self.replan_reason)
        elif self.plan is not None:  # resumed: carry on with the plan at the checkpoint
            plan = self.plan
        elif self.run.task.plan is not None:  # the caller's plan, run as given
            plan = await self._given(self.run.task.plan)
        else:
            plan = await self._plan()
        while True:
            try:
                if self.correcting is not None:  # woken: the correction that parked it
                    corrected = await self._correct(*self.correcting)
                    if corrected is not None:
                        await self._review(corrected, f"review-{self.index}")
                await self._execute(plan)
                if self.run.config.plan.critic_policy != "off" and self.since_review:
                    ids, self.since_review = self.since_review, []
                    await self._review(ids, "review-final")
                break
            except _Replan as replan:
                self.replan_reason = replan.reason
                await self._checkpoint()
                plan = await self._plan(replan.reason)
        await self.run.transcript.take_steers("synthesis", look=True)
        answer = await synthesize(self.run, _results_text(self.results))
        return Outcome(answer)


async def run(task: TaskRun) -> Outcome:
    return await PlanExecutor(task).run_all()
