"""Maintenance scripts (run as files: python scripts/NAME.py); a package so they can share doc_blocks."""
