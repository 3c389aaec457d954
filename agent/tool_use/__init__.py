"""A running task's tool calls: run through the registry with the crash journal
(`calls`, behind the `agent.running.seams.RunTools` interface the run holds), what a
call comes to when it is not simply run (`results`), the waits that park the run (a
person's approval or answer in `people`, the `ask_user` tool in `questions`, a resumable
failure in `resume`), progress reports (`progress`) and failure streaks (`streak`)."""
