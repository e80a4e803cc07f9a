"""Verifier tests run on tiny tensors."""

import pytest
import torch


@pytest.fixture(autouse=True, scope="module")
def _single_thread():
    """Tiny tensors: one intra-op thread is faster, and immune to a busy shared CPU."""
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)
