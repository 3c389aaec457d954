"""Benchmarks of the front doors on the HTTP address, each against native gRPC."""
