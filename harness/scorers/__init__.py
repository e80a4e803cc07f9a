"""Scorer kinds. A new kind is one Scorer subclass added to SCORER_CLASSES in registry.py."""
