"""The handlers of RPCs that work from tasks' recorded traces (a wing of `server.rpcs`:
ReplayTask)."""
