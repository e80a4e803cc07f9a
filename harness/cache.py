"""On-disk cache of embeddings (pooled vectors or per-token matrices).

Layout: ``<cache>/<namespace>/<random>.npz``. A namespace is the hash of everything that
determines an embedding except the text (model, weights fingerprint, max_seq_length, role,
prompt, ...). Each chunk file holds ``keys`` (sha256 of each text), ``offsets`` (row ranges,
so per-token matrices of different lengths fit) ``data`` and ``digest`` (sha256 of the other
three). Chunks are written to a temporary file and renamed, so a killed process never leaves
a half-written chunk; concurrent writers never clash because every chunk has its own name. A
chunk whose digest does not match is reported once, moved aside and its texts re-encoded.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import socket
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from harness.atomic import atomic_write_bytes
from harness.errors import CBenchError

log = logging.getLogger("cbench")

DEFAULT_BLOCK = 512
# Temporary chunk files are named .tmp-<host>-<pid>-<random>.npz so that a later process can
# tell a dead writer's leftovers (SIGKILL between open and rename) from a live writer's file.
_HOST = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]
_UNWRITABLE: set[str] = set()  # cache folders that refused a write in this process (warned about once)


def encode_block_size() -> int:
    """Texts encoded and stored as one chunk at a time: $CBENCH_ENCODE_BLOCK, default 512."""
    raw = os.environ.get("CBENCH_ENCODE_BLOCK", "").strip()
    if not raw:
        return DEFAULT_BLOCK
    if not raw.isdigit() or int(raw) < 1:
        raise CBenchError(f"must be a positive integer, got {raw!r}", source="CBENCH_ENCODE_BLOCK")
    return int(raw)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale_temp_files(folder: Path) -> int:
    """Delete temporary chunk files left by dead processes on this host; returns how many."""
    n = 0
    for p in folder.glob(".tmp-*"):
        parts = p.name.split("-")
        if len(parts) >= 4 and parts[1] == _HOST and parts[2].isdigit() and not _pid_alive(int(parts[2])):
            try:
                p.unlink()
                n += 1
            except OSError:
                pass
    return n


def text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def namespace_id(spec: dict) -> str:
    blob = json.dumps(spec, sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


def _digest(keys: np.ndarray, offsets: np.ndarray, data: np.ndarray) -> np.ndarray:
    h = hashlib.sha256()
    for arr in (keys, offsets, data):
        h.update(str(arr.dtype).encode())
        h.update(str(arr.shape).encode())
        h.update(np.ascontiguousarray(arr).tobytes())
    return np.frombuffer(h.digest(), dtype=np.uint8)


class EmbeddingCache:
    """Cache for one namespace. ``enabled=False`` gives a cache that stores nothing."""

    def __init__(self, root: Path, spec: dict, enabled: bool = True):
        self.spec = spec
        self.enabled = enabled
        self.dir = root / namespace_id(spec)
        self._index: dict[bytes, tuple[Path, int]] | None = None
        self._loaded: dict[Path, tuple[np.ndarray, np.ndarray]] = {}

    # -- reading -------------------------------------------------------------------------
    def _load_chunk(self, path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        try:
            with np.load(path, allow_pickle=False) as z:
                keys, offsets, data, digest = z["keys"], z["offsets"], z["data"], z["digest"]
            if not np.array_equal(_digest(keys, offsets, data), digest):
                raise ValueError("checksum mismatch")
            if offsets.shape != (len(keys) + 1,) or offsets[-1] != len(data):
                raise ValueError("offsets do not match data")
            return keys, offsets, data
        except Exception as e:  # noqa: BLE001 - any unreadable chunk is treated the same way
            bad = path.with_suffix(".corrupt")
            try:
                os.replace(path, bad)
            except OSError:
                pass
            log.warning("cache: %s is corrupt (%s); moved to %s, its entries will be recomputed", path, e, bad.name)
            return None

    def _build_index(self) -> dict[bytes, tuple[Path, int]]:
        if self._index is None:
            self._index = {}
            if self.enabled and self.dir.is_dir():
                remove_stale_temp_files(self.dir)
                for path in sorted(p for p in self.dir.glob("*.npz") if not p.name.startswith(".")):
                    chunk = self._load_chunk(path)
                    if chunk is None:
                        continue
                    keys, offsets, data = chunk
                    self._loaded[path] = (offsets, data)
                    for i, k in enumerate(keys):
                        self._index[bytes(k)] = (path, i)
        return self._index

    def has(self, key: bytes) -> bool:
        return key in self._build_index()

    def get(self, key: bytes) -> np.ndarray:
        path, i = self._build_index()[key]
        offsets, data = self._loaded[path]
        return data[offsets[i] : offsets[i + 1]]

    def __len__(self) -> int:
        return len(self._build_index())

    # -- writing -------------------------------------------------------------------------
    def _write_chunk(self, karr: np.ndarray, offsets: np.ndarray, data: np.ndarray) -> Path | None:
        """Write one chunk file; None when the disk refuses (full, read-only, permission, a file in
        the way). The cache is an optimisation: it then warns once and this cache stores nothing more
        on disk; the run goes on with the embeddings in memory."""
        path = self.dir / f"{uuid.uuid4().hex}.npz"
        tmp = self.dir / f".tmp-{_HOST}-{os.getpid()}-{uuid.uuid4().hex}.npz"
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            spec_file = self.dir / "spec.json"
            if not spec_file.exists():
                atomic_write_bytes(spec_file, json.dumps(self.spec, indent=2, sort_keys=True).encode())
            try:
                with open(tmp, "wb") as f:
                    np.savez(f, keys=karr, offsets=offsets, data=data, digest=_digest(karr, offsets, data))
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, path)
            finally:  # an exception (disk full, ^C) leaves no temporary file; SIGKILL: see above
                try:
                    tmp.unlink(missing_ok=True)
                except OSError:
                    pass
        except OSError as e:
            self.enabled = False
            root = str(self.dir.parent)
            if root not in _UNWRITABLE:  # once per cache folder, not per namespace or chunk
                _UNWRITABLE.add(root)
                reason = e.strerror or str(e) or type(e).__name__
                log.warning("cache: cannot write to %s (%s); continuing without storing embeddings", e.filename or self.dir, reason)
            return None
        return path

    def put_many(self, keys: Sequence[bytes], rows: Sequence[np.ndarray]) -> None:
        """Store one chunk. ``rows[i]`` is a (n_i, d) array (n_i = 1 for pooled vectors)."""
        if not keys:
            return
        index = self._build_index()
        karr = np.frombuffer(b"".join(keys), dtype=np.uint8).reshape(len(keys), 32)
        lengths = np.array([r.shape[0] for r in rows], dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        data = np.ascontiguousarray(np.concatenate(rows, axis=0))
        path = self._write_chunk(karr, offsets, data) if self.enabled else None
        if path is None:
            path = Path(f"<memory-{uuid.uuid4().hex}>")
        self._loaded[path] = (offsets, data)
        for i, k in enumerate(keys):
            index[k] = (path, i)


def cached_encode(
    cache: EmbeddingCache,
    texts: Sequence[str],
    encode: Callable[[list[str]], list[np.ndarray]],
    *,
    block: int | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> tuple[list[np.ndarray], int]:
    """Return one array per text, encoding only texts the cache lacks.

    Identical texts are encoded once; missing texts are encoded longest first in blocks and
    each block is stored before the next starts, so a killed run loses at most one block.
    Returns (arrays, number of texts encoded).
    """
    block = block or encode_block_size()
    keys = [text_key(t) for t in texts]
    missing: dict[bytes, str] = {}
    for k, t in zip(keys, texts, strict=True):
        if k not in missing and not cache.has(k):
            missing[k] = t
    todo = sorted(missing.items(), key=lambda kv: -len(kv[1]))
    for start in range(0, len(todo), block):
        part = todo[start : start + block]
        rows = encode([t for _, t in part])
        cache.put_many([k for k, _ in part], rows)
        if on_progress:
            on_progress(len(part))
    return [cache.get(k) for k in keys], len(todo)
