"""A2A push-notification configs of tasks, each with its delivery cursor and claim."""
