"""The load suite (`make load`): scenarios against real `agentd serve` processes and a fake
model that holds each call a given time. See `python -m bench.load --help`. Its process
helpers (`processes`) and the gateway side run as its own process (`client_probe`) serve
`make bench` too."""
