"""Inbound triggers: their management (`manage`, what TriggerService's RPCs call) and
their signed deliveries (`deliveries`, what the HTTP door calls)."""
