"""One running task: its context (`run.TaskRun`), made for its agent by
`agent.scheduling.factory`; what it holds but the floors above make (`seams`); its
status, written only by `lifecycle`; its events, credentials redacted (`event_writer`,
`deltas`); each model call fitted to the window (`context_fit`); long URLs as
placeholders (`urls`); its answer (`answers`), citations, artifacts, and parallel work
run all or none (`concurrency`)."""
