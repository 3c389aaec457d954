"""One running task: its context (`run.TaskRun`), made for its agent by `factory`; its
status, written only by `lifecycle`; its events (`event_writer`, `deltas`); each model
call fitted to the window (`context_fit`); its answer's schema and citations, its
artifacts, and parallel work run all or none (`concurrency`)."""
