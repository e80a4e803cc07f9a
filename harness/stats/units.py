"""Resampling units: the items of a dataset that are resampled, or sign-flipped, together.

A suite's items are not always independent: the generated near-misses come ~14 to a generator
frame, and items of one frame succeed or fail together. The bootstrap and the paired tests then
resample whole units (frames) instead of items. A unit is named by a label per item, within one
dataset; an item without a label (None) is a unit of its own.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

Labels = Sequence[Hashable | None] | None


def unit_codes(labels: Labels, n: int) -> np.ndarray:
    """Each of ``n`` items' unit as a code 0..units-1, numbered in order of first appearance (so
    that items without labels get codes 0..n-1, their own order). ``labels`` None: every item alone."""
    if labels is None:
        return np.arange(n, dtype=np.intp)
    if len(labels) != n:
        raise ValueError(f"{len(labels)} unit labels for {n} items")
    seen: dict[Hashable, int] = {}
    codes = np.empty(n, dtype=np.intp)
    for i, label in enumerate(labels):
        key = ("item", i) if label is None else ("unit", label)
        codes[i] = seen.setdefault(key, len(seen))
    return codes


def count_units(labels: Labels, n: int) -> int:
    return int(unit_codes(labels, n).max(initial=-1)) + 1
