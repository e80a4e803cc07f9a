"""Statistics over per-query / per-item scores: bootstrap intervals and paired tests (scipy)."""
