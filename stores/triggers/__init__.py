"""Inbound triggers and their deliveries (`base.TriggerStore`)."""
