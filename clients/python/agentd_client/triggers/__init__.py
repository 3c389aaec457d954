"""Inbound triggers in the client: TriggerService's methods (`methods`)."""
