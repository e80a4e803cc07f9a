"""Metrics: retrieval metrics through pytrec_eval, near-miss rejection statistics."""
