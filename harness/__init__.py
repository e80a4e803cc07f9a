"""cbench: retrieval quality versus rejection of compositional near-misses."""

__version__ = "0.1.0"
