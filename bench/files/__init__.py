"""Files and artifacts: what a store write and read of an artifact cost (`artifacts`), and
what a 1 MB image part adds to starting a task (`inputs`)."""
