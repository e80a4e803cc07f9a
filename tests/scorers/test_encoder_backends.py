"""What every exported backend (onnx, openvino) shares: the export carries a weights delta."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from .conftest import encoder_scorer

NEEDS = {"onnx": "onnxruntime", "openvino": "openvino"}


@pytest.mark.parametrize("backend", sorted(NEEDS))
def test_export_carries_the_weights_delta(backend, tiny_bert, tmp_path):
    if importlib.util.find_spec(NEEDS[backend]) is None:
        pytest.skip(f"the {backend} extra is not installed")
    import torch
    from safetensors.torch import save_file

    name = "0.auto_model.encoder.layer.1.output.dense.bias"
    torch.manual_seed(1)
    save_file({name: torch.randn(32)}, str(tmp_path / "delta.safetensors"))
    texts = ["The cat sat on the warm mat.", "Bees collect nectar"]
    delta = str(tmp_path / "delta.safetensors")
    plain = encoder_scorer(tiny_bert, "torch", max_seq_length=64).embed(texts, "query")
    t = encoder_scorer(tiny_bert, "torch", max_seq_length=64, weights_delta=delta).embed(texts, "query")
    exported = encoder_scorer(tiny_bert, backend, max_seq_length=64, weights_delta=delta).embed(texts, "query")
    assert np.abs(t - plain).max() > 1e-3  # the delta matters ...
    assert np.abs(exported - t).max() < 1e-5  # ... and the export has it
