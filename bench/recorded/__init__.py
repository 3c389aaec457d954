"""What keeping tasks' durable traces costs the engine (`traces`)."""
