"""Dataset records and loaders (BEIR folders, NanoBEIR parquet, near-miss files)."""
