"""cbench: retrieval quality versus rejection of compositional near-misses."""

__version__ = "0.1.0"


def __getattr__(name: str):
    """Lazy exports: importing ``harness`` stays cheap (no torch / sentence-transformers)."""
    if name == "NearMissEvaluator":
        from harness.finetune.evaluator import NearMissEvaluator

        return NearMissEvaluator
    if name in {"results_frame", "leaderboard_frame", "runs_frame"}:
        from harness import tables

        return getattr(tables, name)
    raise AttributeError(f"module 'harness' has no attribute {name!r}")
