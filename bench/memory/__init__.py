"""The memory and knowledge benchmark (`make bench`); its figures in `figures`."""

from bench.memory.figures import main as main
