"""The scorer tests' tiny local models and offline isolation, for the fusion tests."""

from scorers.conftest import _offline_isolated, beir_dir, tiny_bert, tiny_cross_encoder  # noqa: F401
