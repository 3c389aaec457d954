"""The client's methods that work from tasks' recorded traces (a wing of the client:
`replays`)."""
