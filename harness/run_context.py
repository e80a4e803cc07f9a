"""What one run hands every scorer: device, embedding cache, progress, permissions, counters.

It sits below the scorers and the submission registry and knows neither (no import of either).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from harness.cache import EmbeddingCache, namespace_id

if TYPE_CHECKING:
    from harness.ui import Progress


@dataclass
class RunContext:
    """What a scorer needs from the run: device, cache, progress, permissions."""

    device: str = "cpu"
    cache_root: Path | None = None
    use_cache: bool = True
    trust_remote_code: bool = False
    progress: Progress | None = None
    counters: dict[str, int] = field(default_factory=dict)
    _caches: dict[str, EmbeddingCache] = field(default_factory=dict, repr=False)

    def count(self, name: str, n: int) -> None:
        self.counters[name] = self.counters.get(name, 0) + n

    def cache(self, spec: dict) -> EmbeddingCache:
        """One cache object per namespace for the whole run: its index is read from disk once,
        not once per dataset (and a corrupt chunk is reported once)."""
        from harness.paths import cache_dir

        key = namespace_id(spec)
        if not self.use_cache:  # in-memory only: a fresh one per call, freed after it
            return EmbeddingCache(self.cache_root or cache_dir(), spec, enabled=False)
        if key not in self._caches:
            self._caches[key] = EmbeddingCache(self.cache_root or cache_dir(), spec, enabled=self.use_cache)
        return self._caches[key]
