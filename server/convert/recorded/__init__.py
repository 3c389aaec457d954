"""Conversions of what works from tasks' recorded traces (a wing of `server.convert`:
replays)."""
