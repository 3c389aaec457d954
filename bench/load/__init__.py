"""The load suite (`make load`): scenarios against real `agentd serve` processes and a fake
model that holds each call a given time. See `python -m bench.load --help`."""
