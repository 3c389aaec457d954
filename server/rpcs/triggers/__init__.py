"""TriggerService's handlers."""
