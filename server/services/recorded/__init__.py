"""The services that work from tasks' recorded traces (a wing of `server.services`):
GetTaskTrace's, ReplayTask's, and the evaluation runs' (their runner, the replays of
recorded cases, and what promotion asks of them)."""
