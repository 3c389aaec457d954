"""Conversion of what runs on its own time (inbound triggers) between protobuf and
records."""
