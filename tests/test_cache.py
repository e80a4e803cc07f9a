"""The embedding cache: round trip, dedup, longest-first blocks, corruption detection, temp files."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from harness import cache as cache_mod
from harness.cache import EmbeddingCache, cached_encode, namespace_id, remove_stale_temp_files, text_key
from harness.errors import CBenchError
from harness.scorers.base import RunContext

SPEC = {"kind": "test", "weights": "fake", "role": "document"}


def fake_vec(text: str, d: int = 8) -> np.ndarray:
    """A deterministic vector per text (so results can be compared bit for bit)."""
    rng = np.random.default_rng(int.from_bytes(text_key(text)[:8], "little"))
    return rng.standard_normal(d).astype(np.float32)


class Encoder:
    """Records every call; returns pooled (1, d) rows, or per-token (len, d) rows."""

    def __init__(self, per_token: bool = False):
        self.calls: list[list[str]] = []
        self.per_token = per_token

    def __call__(self, texts: list[str]) -> list[np.ndarray]:
        self.calls.append(list(texts))
        if self.per_token:
            return [np.stack([fake_vec(f"{t}#{i}") for i in range(max(1, len(t.split())))]) for t in texts]
        return [fake_vec(t)[None, :] for t in texts]

    @property
    def encoded(self) -> list[str]:
        return [t for call in self.calls for t in call]


TEXTS = [f"text number {i} " + "word " * (i % 7) for i in range(25)]


def chunks(root: Path) -> list[Path]:
    return sorted(root.rglob("*.npz"))


def test_round_trip_across_instances(tmp_path):
    enc = Encoder()
    rows, n = cached_encode(EmbeddingCache(tmp_path, SPEC), TEXTS, enc, block=10)
    assert n == len(TEXTS) and len(chunks(tmp_path)) == 3
    enc2 = Encoder()
    rows2, n2 = cached_encode(EmbeddingCache(tmp_path, SPEC), TEXTS, enc2, block=10)
    assert n2 == 0 and enc2.calls == []
    for a, b, t in zip(rows, rows2, TEXTS, strict=True):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(b[0], fake_vec(t))
    assert (tmp_path / namespace_id(SPEC) / "spec.json").is_file()


def test_round_trip_per_token_matrices(tmp_path):
    enc = Encoder(per_token=True)
    rows, _ = cached_encode(EmbeddingCache(tmp_path, SPEC), TEXTS, enc, block=4)
    rows2, n2 = cached_encode(EmbeddingCache(tmp_path, SPEC), TEXTS, Encoder(per_token=True), block=4)
    assert n2 == 0
    for a, b in zip(rows, rows2, strict=True):
        assert a.shape == b.shape and a.shape[0] >= 1
        np.testing.assert_array_equal(a, b)


def test_identical_texts_are_encoded_once(tmp_path):
    texts = ["alpha", "beta", "alpha", "gamma", "beta", "alpha", ""]
    enc = Encoder()
    rows, n = cached_encode(EmbeddingCache(tmp_path, SPEC), texts, enc, block=100)
    assert n == 4 and sorted(enc.encoded) == ["", "alpha", "beta", "gamma"]
    np.testing.assert_array_equal(rows[0], rows[2])
    np.testing.assert_array_equal(rows[0], rows[5])
    np.testing.assert_array_equal(rows[1], rows[4])
    # a second call with partly new texts encodes only the new ones
    enc2 = Encoder()
    _, n2 = cached_encode(EmbeddingCache(tmp_path, SPEC), ["alpha", "delta", "delta"], enc2, block=100)
    assert n2 == 1 and enc2.encoded == ["delta"]


def test_longest_first_in_blocks(tmp_path):
    enc = Encoder()
    cached_encode(EmbeddingCache(tmp_path, SPEC), TEXTS, enc, block=6)
    assert [len(c) for c in enc.calls] == [6, 6, 6, 6, 1]
    lengths = [len(t) for t in enc.encoded]
    assert lengths == sorted(lengths, reverse=True)


def test_block_size_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("CBENCH_ENCODE_BLOCK", "7")
    enc = Encoder()
    cached_encode(EmbeddingCache(tmp_path, SPEC), TEXTS, enc)
    assert [len(c) for c in enc.calls] == [7, 7, 7, 4]
    monkeypatch.setenv("CBENCH_ENCODE_BLOCK", "zero")
    with pytest.raises(CBenchError, match="CBENCH_ENCODE_BLOCK"):
        cached_encode(EmbeddingCache(tmp_path / "other", SPEC), TEXTS, Encoder())
    monkeypatch.delenv("CBENCH_ENCODE_BLOCK")
    assert cache_mod.encode_block_size() == cache_mod.DEFAULT_BLOCK


def test_namespaces_are_separate(tmp_path):
    cached_encode(EmbeddingCache(tmp_path, SPEC), TEXTS[:3], Encoder())
    enc = Encoder()
    _, n = cached_encode(EmbeddingCache(tmp_path, {**SPEC, "role": "query"}), TEXTS[:3], enc)
    assert n == 3


def test_disabled_cache_writes_nothing_but_still_dedups(tmp_path):
    enc = Encoder()
    rows, n = cached_encode(EmbeddingCache(tmp_path, SPEC, enabled=False), ["a", "b", "a"], enc)
    assert n == 2 and list(tmp_path.iterdir()) == []
    np.testing.assert_array_equal(rows[0], rows[2])


def test_surrogate_text_has_a_key(tmp_path):
    weird = "broken \ud800 surrogate"  # what json.loads makes of a lone "\\ud800"
    rows, n = cached_encode(EmbeddingCache(tmp_path, SPEC), [weird], Encoder())
    assert n == 1 and rows[0].shape == (1, 8)


def _flip(path: Path, where: float = 0.6) -> None:
    raw = bytearray(path.read_bytes())
    i = int(len(raw) * where)
    raw[i : i + 8] = bytes(b ^ 0xFF for b in raw[i : i + 8])
    path.write_bytes(bytes(raw))


@pytest.mark.parametrize("damage", ["flip-data", "flip-header", "truncate", "empty"])
def test_corrupt_chunk_is_reported_once_and_recomputed(damage, tmp_path, caplog):
    rows, _ = cached_encode(EmbeddingCache(tmp_path, SPEC), TEXTS, Encoder(), block=10)
    victim = chunks(tmp_path)[1]
    n_victim = len(np.load(victim)["keys"])
    if damage == "flip-data":
        _flip(victim, 0.6)
    elif damage == "flip-header":
        _flip(victim, 0.0)
    elif damage == "truncate":
        victim.write_bytes(victim.read_bytes()[: victim.stat().st_size // 2])
    else:
        victim.write_bytes(b"")
    caplog.set_level(logging.WARNING, logger="cbench")
    enc = Encoder()
    cache = EmbeddingCache(tmp_path, SPEC)
    rows2, n = cached_encode(cache, TEXTS, enc, block=10)
    assert n == n_victim
    for a, b in zip(rows, rows2, strict=True):
        np.testing.assert_array_equal(a, b)
    reports = [r for r in caplog.records if "corrupt" in r.getMessage()]
    assert len(reports) == 1 and victim.name in reports[0].getMessage()
    assert not victim.exists() and victim.with_suffix(".corrupt").exists()
    # the same cache object and a new one: no second report, nothing more to encode
    caplog.clear()
    for c in (cache, EmbeddingCache(tmp_path, SPEC)):
        _, n3 = cached_encode(c, TEXTS, Encoder(), block=10)
        assert n3 == 0
    assert not [r for r in caplog.records if "corrupt" in r.getMessage()]


def test_chunk_with_wrong_digest_is_rejected(tmp_path, caplog):
    cached_encode(EmbeddingCache(tmp_path, SPEC), TEXTS[:4], Encoder())
    victim = chunks(tmp_path)[0]
    with np.load(victim) as z:
        parts = {k: z[k] for k in z.files}
    parts["data"] = parts["data"] + 1.0  # a well-formed file whose payload no longer matches its digest
    with open(victim, "wb") as f:
        np.savez(f, **parts)
    caplog.set_level(logging.WARNING, logger="cbench")
    _, n = cached_encode(EmbeddingCache(tmp_path, SPEC), TEXTS[:4], Encoder())
    assert n == 4
    assert any("checksum mismatch" in r.getMessage() for r in caplog.records)


def test_stale_temp_files_of_dead_writers_are_removed(tmp_path):
    ns = tmp_path / namespace_id(SPEC)
    cached_encode(EmbeddingCache(tmp_path, SPEC), TEXTS[:2], Encoder())
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    host = cache_mod._HOST
    stale = ns / f".tmp-{host}-{dead.pid}-abc.npz"
    live = ns / f".tmp-{host}-{os.getpid()}-abc.npz"
    other_host = ns / f".tmp-0000beef-{dead.pid}-abc.npz"
    for p in (stale, live, other_host):
        p.write_bytes(b"partial")
    _, n = cached_encode(EmbeddingCache(tmp_path, SPEC), TEXTS[:2], Encoder())  # index build cleans
    assert n == 0
    assert not stale.exists() and live.exists() and other_host.exists()
    assert remove_stale_temp_files(ns) == 0


def test_run_context_reuses_one_cache_per_namespace(tmp_path):
    ctx = RunContext(cache_root=tmp_path)
    assert ctx.cache(SPEC) is ctx.cache(dict(SPEC))
    assert ctx.cache(SPEC) is not ctx.cache({**SPEC, "role": "query"})
    off = RunContext(cache_root=tmp_path, use_cache=False)
    assert off.cache(SPEC) is not off.cache(SPEC)  # --no-cache: nothing kept between calls


@pytest.mark.parametrize("where", ["enospc", "file-in-the-way"])
def test_unwritable_cache_warns_once_and_keeps_working_in_memory(tmp_path, monkeypatch, caplog, where):
    from cbench_testutil import enospc_open

    root = tmp_path / "cache"
    if where == "enospc":
        monkeypatch.setattr("harness.cache.open", enospc_open(after_bytes=64), raising=False)
    else:
        root.write_text("a file where the cache folder should be")
    enc = Encoder()
    cache = EmbeddingCache(root, SPEC)
    other = EmbeddingCache(root, {**SPEC, "role": "query"})
    with caplog.at_level(logging.WARNING, logger="cbench"):
        out, n = cached_encode(cache, TEXTS, enc, block=4)  # 7 chunks, each write refused
        out2, _ = cached_encode(other, TEXTS[:3], Encoder(), block=4)
    assert n == len(TEXTS) and all(np.array_equal(o, fake_vec(t)[None, :]) for o, t in zip(out, TEXTS, strict=True))
    warnings = [r.getMessage() for r in caplog.records if "cannot write" in r.getMessage()]
    assert len(warnings) == 1 and str(root) in warnings[0]
    assert ("No space left on device" if where == "enospc" else "Not a directory") in warnings[0]
    assert not cache.enabled and len(cache) == len(TEXTS)  # served from memory for the rest of the run
    again, n_again = cached_encode(cache, TEXTS, enc, block=4)
    assert n_again == 0
    if root.is_dir():
        assert list(root.rglob("*.npz")) == [] and list(root.rglob(".tmp-*")) == []
