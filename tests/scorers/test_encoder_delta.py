"""kind: encoder with weights_delta: a missing or unreadable delta file is one error naming the field."""

from __future__ import annotations

import pytest

from harness.errors import CBenchError
from harness.run_context import RunContext
from harness.scorers.encoder import EncoderConfig, EncoderScorer, apply_weights_delta


def test_missing_delta_is_one_error(tiny_bert, tmp_path):
    cfg = EncoderConfig(name="t-delta", kind="encoder", model=str(tiny_bert), weights_delta="no-such-delta.safetensors")
    sc = EncoderScorer(cfg, RunContext(use_cache=False), base_dir=tmp_path)
    with pytest.raises(CBenchError) as info:
        sc.weights_fingerprint  # noqa: B018
    assert info.value.field == "weights_delta"
    assert info.value.message == f"weights delta not found: {tmp_path / 'no-such-delta.safetensors'}"


def test_unreadable_delta_is_one_error(tmp_path):
    bad = tmp_path / "delta.safetensors"
    bad.write_text("not safetensors")
    with pytest.raises(CBenchError) as info:
        apply_weights_delta(object(), bad, "sub.yaml")
    assert info.value.field == "weights_delta" and info.value.source == "sub.yaml"
    assert info.value.message.startswith(f"cannot read weights delta {bad}: ")
