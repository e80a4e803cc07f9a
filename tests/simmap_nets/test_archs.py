"""Verifier architectures: reference formulas, masking and padding invariance."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from harness.simmap_nets.archs import (
    ARCHS,
    REFERENCE_CONFIGS,
    MaskedBatchNorm2d,
    TransformerVerifier,
    build_verifier,
    pair_features,
)
from harness.simmap_nets.simmap import pad_tokens, score_pairs, similarity_map

TINY = {
    "cnn": {"h1": 8, "h2": 16, "mlp": 16},
    "transformer": {"d": 32, "layers": 2, "heads": 2, "ff": 32},
}


def _rand_tokens(lengths, d=16, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(n, d, generator=g) for n in lengths]


def _batch(q_lens, c_lens, d=16, seed=0):
    q = _rand_tokens(q_lens, d, seed)
    c = _rand_tokens(c_lens, d, seed + 1)
    Q, qm = pad_tokens(q)
    C, cm = pad_tokens(c)
    return q, c, similarity_map(Q, qm, C, cm), qm, cm


def _cos(a, b):
    return float(a @ b / (a.norm() * b.norm()))


# --- loop-based references (the formulas of the reference code's verifiers.py) --------------------


def ref_mean(q, c):
    vals = [_cos(q[i], c[j]) for i in range(len(q)) for j in range(len(c))]
    return sum(vals) / max(1, len(vals))


def ref_maxsim(q, c):
    if len(c) == 0:
        return 0.0
    rows = [max(_cos(q[i], c[j]) for j in range(len(c))) for i in range(len(q))]
    return sum(rows) / max(1, len(rows))


def ref_align(q, c, lam=0.1, tau=0.1):
    total = 0.0
    for i in range(len(q)):
        sims = [_cos(q[i], c[j]) for j in range(len(c))]
        logits = [(s - lam * abs(i - j)) / tau for j, s in enumerate(sims)]
        mx = max(logits)
        w = [math.exp(x - mx) for x in logits]
        z = sum(w)
        total += sum(wj / z * s for wj, s in zip(w, sims, strict=True))
    return total / max(1, len(q))


REFS = {"mean": ref_mean, "maxsim": ref_maxsim, "align": ref_align}


def test_registry_and_build():
    assert set(ARCHS) == {"mean", "maxsim", "align", "cnn", "transformer"}
    for name, cls in ARCHS.items():
        v = build_verifier(name)
        assert isinstance(v, cls) and v.arch == name
        assert v.trainable == (name in ("cnn", "transformer"))
        assert v.trainable == (v.num_parameters() > 0)
        again = build_verifier(name, **v.config)
        assert again.config == v.config
    assert isinstance(build_verifier("F1"), ARCHS["maxsim"])
    assert isinstance(build_verifier("f4", **TINY["transformer"]), TransformerVerifier)
    with pytest.raises(ValueError):
        build_verifier("nope")
    with pytest.raises(TypeError):
        build_verifier("mean", lam=1.0)


def test_reference_configs_constructible():
    cnn = build_verifier("cnn", **REFERENCE_CONFIGS["cnn"])
    tr = build_verifier("transformer", **REFERENCE_CONFIGS["transformer"])
    # parameter counts of the reference F3/F4 (verifiers.py of github.com/radoslavralev/limitations-text-retrieval)
    assert cnn.num_parameters() == 332_545
    assert tr.num_parameters() == 940_065
    for v in (cnn, tr):  # checkpoints must stay <= 10 MB (fp32)
        assert 4 * sum(t.numel() for t in v.state_dict().values()) < 10 * 1024 * 1024


def test_pad_tokens_shapes_and_truncation():
    embs = _rand_tokens([3, 10], d=5)
    X, mask = pad_tokens(embs)
    assert X.shape == (2, 16, 5) and mask.shape == (2, 16)
    assert mask.sum(1).tolist() == [3, 10]
    assert torch.equal(X[0, :3], embs[0]) and torch.all(X[0, 3:] == 0)
    X, mask = pad_tokens(embs, multiple=4)
    assert X.shape[1] == 12
    X, mask = pad_tokens(_rand_tokens([130, 5], d=5), multiple=8, max_len=128)
    assert X.shape == (2, 128, 5) and mask.sum(1).tolist() == [128, 5]
    X, mask = pad_tokens(_rand_tokens([125], d=5), multiple=8, max_len=128)
    assert X.shape[1] == 128  # 125 -> 128 (cap)
    assert mask.dtype == X.dtype


def test_similarity_map_matches_loop():
    q, c, M, qm, cm = _batch([4, 7], [6, 3])
    assert M.shape == (2, 8, 8)
    for b in range(2):
        for i in range(8):
            for j in range(8):
                if i < len(q[b]) and j < len(c[b]):
                    assert M[b, i, j].item() == pytest.approx(_cos(q[b][i], c[b][j]), abs=1e-5)
                else:
                    assert M[b, i, j].item() == 0.0


@pytest.mark.parametrize("arch", ["mean", "maxsim", "align"])
def test_parameter_free_match_loop_reference(arch):
    q_lens, c_lens = [5, 9, 1, 12], [7, 3, 11, 12]
    q, c, M, qm, cm = _batch(q_lens, c_lens, seed=3)
    got = build_verifier(arch)(M, qm, cm)
    for b in range(len(q)):
        assert got[b].item() == pytest.approx(REFS[arch](q[b], c[b]), abs=1e-5)
    # and through score_pairs (sorting/batching/restoring order)
    s = score_pairs(build_verifier(arch), q, c, batch_size=3)
    assert s.dtype == np.float64 and s.shape == (4,)
    np.testing.assert_allclose(s, [REFS[arch](q[b], c[b]) for b in range(4)], atol=1e-5)


def test_hand_made_cases():
    x = _rand_tokens([6], d=8, seed=5)[0]
    for arch in ("maxsim", "mean", "align"):
        s = score_pairs(build_verifier(arch), [x], [x.clone()])[0]
        if arch == "maxsim":
            assert s == pytest.approx(1.0, abs=1e-6)  # identical texts -> MaxSim 1
    # orthogonal tokens: every cosine 0
    e = torch.eye(6)
    assert score_pairs(build_verifier("maxsim"), [e[:3]], [e[3:]])[0] == pytest.approx(0.0, abs=1e-7)
    assert score_pairs(build_verifier("mean"), [e[:3]], [e[3:]])[0] == pytest.approx(0.0, abs=1e-7)
    # MaxSim is averaged (not summed) over query tokens and ignores extra candidate tokens
    q = e[:2]
    c = torch.stack([e[0], e[2], e[3]])
    assert score_pairs(build_verifier("maxsim"), [q], [c])[0] == pytest.approx(0.5, abs=1e-6)
    # mean of all valid-pair cosines: 1 of 6 pairs is 1
    assert score_pairs(build_verifier("mean"), [q], [c])[0] == pytest.approx(1 / 6, abs=1e-6)
    # align of orthonormal tokens: query token i matches one candidate token j* (cosine 1, 0 to the
    # others), so t_i is the softmax weight of j* over logits (M_ij - 0.1 |i - j|) / 0.1. Against
    # themselves (j* = i) each token (almost) fully attends to its own position; against the reversed
    # sequence (j* = 19 - i) the positional penalty spreads the attention (word-order reversal is
    # penalised by F2 but invisible to MaxSim)
    eye = torch.eye(20)

    def weight_on_match(i: int, match: int) -> float:
        w = [math.exp((float(j == match) - 0.1 * abs(i - j)) / 0.1) for j in range(20)]
        return w[match] / sum(w)

    in_order = sum(weight_on_match(i, i) for i in range(20)) / 20
    reversed_ = sum(weight_on_match(i, 19 - i) for i in range(20)) / 20
    assert (in_order, reversed_) == pytest.approx((0.99995134, 0.46160713), abs=1e-8)
    assert score_pairs(build_verifier("align"), [eye], [eye])[0] == pytest.approx(in_order, rel=1e-6)
    assert score_pairs(build_verifier("align"), [eye], [eye.flip(0)])[0] == pytest.approx(reversed_, rel=1e-6)
    assert score_pairs(build_verifier("maxsim"), [eye], [eye.flip(0)])[0] == pytest.approx(1.0)


def test_fully_masked_pairs_are_finite():
    M = torch.zeros(2, 8, 8)
    qm = torch.zeros(2, 8)
    cm = torch.zeros(2, 8)
    qm[1, :3] = 1  # query present, candidate empty
    for name in ARCHS:
        torch.manual_seed(0)
        v = build_verifier(name, **TINY.get(name, {})).eval()
        out = v(M, qm, cm)
        assert out.shape == (2,) and torch.isfinite(out).all(), name


def _seeded(name, **cfg):
    torch.manual_seed(0)
    v = build_verifier(name, **cfg)
    # non-trivial BatchNorm running statistics, so eval-mode BN is not the identity
    g = torch.Generator().manual_seed(1)
    for m in v.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.copy_(torch.randn(m.num_features, generator=g) * 0.3)
            m.running_var.copy_(torch.rand(m.num_features, generator=g) + 0.5)
            m.weight.data.copy_(torch.randn(m.num_features, generator=g))
            m.bias.data.copy_(torch.randn(m.num_features, generator=g))
    return v.eval()


ALL_CONFIGS = [
    ("mean", {}),
    ("maxsim", {}),
    ("align", {}),
    ("cnn", TINY["cnn"]),
    ("cnn", {}),
    ("transformer", TINY["transformer"]),
    ("transformer", {}),
]


@pytest.mark.parametrize("name,cfg", ALL_CONFIGS, ids=[f"{n}-{'tiny' if c else 'default'}" for n, c in ALL_CONFIGS])
def test_padding_never_changes_a_score(name, cfg):
    v = _seeded(name, **cfg)
    q = _rand_tokens([5, 40, 17, 3], d=16, seed=11)
    c = _rand_tokens([9, 128, 61, 2], d=16, seed=12)
    with torch.inference_mode():
        alone = [
            v(*_pair_map(q[i], c[i])).item()
            for i in range(4)
        ]
        # the short pair batched with longer pairs (padded far more)
        Q, qm = pad_tokens(q)
        C, cm = pad_tokens(c)
        batched = v(similarity_map(Q, qm, C, cm), qm, cm).tolist()
        # the short pair padded to the full 128 x 128 grid
        Q1, qm1 = pad_tokens([q[0]], multiple=128)
        C1, cm1 = pad_tokens([c[0]], multiple=128)
        padded = v(similarity_map(Q1, qm1, C1, cm1), qm1, cm1).item()
    np.testing.assert_allclose(batched, alone, atol=1e-5)
    assert padded == pytest.approx(alone[0], abs=1e-5)
    s = score_pairs(v, q, c, batch_size=2)
    np.testing.assert_allclose(s, alone, atol=1e-5)
    if v.trainable:  # tanh heads
        assert np.all(np.abs(s) <= 1.0)
        assert len(set(np.round(s, 6))) > 1  # not a constant function


def _pair_map(q, c):
    Q, qm = pad_tokens([q], multiple=1)
    C, cm = pad_tokens([c], multiple=1)
    return similarity_map(Q, qm, C, cm), qm, cm


def test_cnn_train_mode_is_padding_invariant_too():
    """Masked BatchNorm: training statistics (and outputs) ignore padding (dropout off)."""
    torch.manual_seed(0)
    a = build_verifier("cnn", dropout=0.0, **TINY["cnn"])
    b = build_verifier("cnn", dropout=0.0, **TINY["cnn"])
    b.load_state_dict(a.state_dict())
    a.train()
    b.train()
    q = _rand_tokens([5, 7], seed=2)
    c = _rand_tokens([6, 3], seed=3)
    out = []
    for v, mult in ((a, 1), (b, 32)):
        Q, qm = pad_tokens(q, multiple=mult)
        C, cm = pad_tokens(c, multiple=mult)
        out.append(v(similarity_map(Q, qm, C, cm), qm, cm))
    torch.testing.assert_close(out[0], out[1], atol=1e-5, rtol=0)
    torch.testing.assert_close(a.bn1.running_mean, b.bn1.running_mean, atol=1e-6, rtol=0)
    torch.testing.assert_close(a.bn2.running_var, b.bn2.running_var, atol=1e-6, rtol=0)


def test_masked_batchnorm_matches_batchnorm_on_valid_entries():
    torch.manual_seed(0)
    x = torch.randn(3, 4, 6, 6)
    mask = torch.zeros(3, 1, 6, 6)
    mask[0, :, :4, :5] = 1
    mask[1, :, :2, :6] = 1
    mask[2, :, :6, :1] = 1
    mbn = MaskedBatchNorm2d(4).train()
    bn = torch.nn.BatchNorm1d(4).train()
    y = mbn(x, mask)
    valid = x.permute(0, 2, 3, 1)[mask[:, 0] > 0]  # (n_valid, C)
    ref = bn(valid)
    torch.testing.assert_close(y.permute(0, 2, 3, 1)[mask[:, 0] > 0], ref, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(mbn.running_mean, bn.running_mean, atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(mbn.running_var, bn.running_var, atol=1e-6, rtol=1e-5)
    # same state-dict layout as nn.BatchNorm2d
    assert set(mbn.state_dict()) == set(torch.nn.BatchNorm2d(4).state_dict())


def test_transformer_equals_reference_full_grid_computation():
    """2-D positional indexing reproduces the reference's 128x128 / 16x16-grid forward."""
    torch.manual_seed(0)
    v = build_verifier("transformer", d=32, layers=1, heads=1, ff=32).eval()
    q, c, M, qm, cm = _batch([13, 30], [50, 9], seed=4)
    with torch.inference_mode():
        ours = v(M, qm, cm)
        # reference: pad everything to 128 x 128, all 256 patches, flattened positional index
        P = qm[:, :, None] * cm[:, None, :]
        feats = F.pad(pair_features(M, P), (0, 128 - M.shape[2], 0, 128 - M.shape[1]))
        Pp = F.pad(P, (0, 128 - M.shape[2], 0, 128 - M.shape[1]))
        x = v.patch_embed(feats).flatten(2).transpose(1, 2)  # (B, 256, d)
        B = x.shape[0]
        x = torch.cat([v.cls_token.expand(B, -1, -1), x], 1) + v.pos_embed
        x = v.norm(x)
        valid = F.max_pool2d(Pp[:, None], 8, 8).flatten(1) > 0
        kpm = torch.cat([torch.zeros(B, 1, dtype=torch.bool), ~valid], 1)
        for layer in v.layers:
            x = layer(x, src_key_padding_mask=kpm)
        ref = torch.tanh(v.head(x[:, 0]).squeeze(-1))
    torch.testing.assert_close(ours, ref, atol=1e-5, rtol=0)


def test_cnn_and_transformer_are_differentiable():
    for name in ("cnn", "transformer"):
        torch.manual_seed(0)
        v = build_verifier(name, **TINY[name]).train()
        q = [t.requires_grad_() for t in _rand_tokens([4, 9], seed=7)]
        c = _rand_tokens([6, 10], seed=8)
        Q, qm = pad_tokens(q)
        C, cm = pad_tokens(c)
        v(similarity_map(Q, qm, C, cm), qm, cm).sum().backward()
        assert q[0].grad is not None and torch.isfinite(q[0].grad).all()
        assert all(p.grad is not None for p in v.parameters() if p.requires_grad), name


def test_score_pairs_restores_mode_and_order():
    v = _seeded("cnn", **TINY["cnn"]).train()
    q = _rand_tokens([3, 30, 8, 8, 1], seed=9)
    c = _rand_tokens([100, 2, 8, 40, 7], seed=10)
    s = score_pairs(v, q, c, batch_size=2)
    assert v.training
    v.eval()
    with torch.inference_mode():
        single = [v(*_pair_map(a, b)).item() for a, b in zip(q, c, strict=True)]
    np.testing.assert_allclose(s, single, atol=1e-5)
    assert score_pairs(v, [], []).shape == (0,)
    with pytest.raises(ValueError):
        score_pairs(v, q, c[:2])


@pytest.mark.parametrize("heads,dropout", [(1, 0.1), (2, 0.0), (4, 0.0)])
def test_cls_only_last_layer_equals_full_layer(heads, dropout):
    from harness.simmap_nets.archs import _cls_only_layer

    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(
        32, heads, 16, dropout, activation="gelu", batch_first=True, norm_first=True
    )
    x = torch.randn(3, 7, 32)
    kpm = torch.zeros(3, 7, dtype=torch.bool)
    kpm[0, 4:] = True
    kpm[1, 1:] = True  # only CLS left
    layer.eval()
    torch.testing.assert_close(
        _cls_only_layer(layer, x, kpm), layer(x, src_key_padding_mask=kpm)[:, 0], atol=1e-5, rtol=0
    )
    if dropout == 0.0:  # training mode (slow path) too
        layer.train()
        torch.testing.assert_close(
            _cls_only_layer(layer, x, kpm), layer(x, src_key_padding_mask=kpm)[:, 0],
            atol=1e-5, rtol=0,
        )


def test_fast_max_pool_matches_max_pool2d():
    from harness.simmap_nets.archs import _max_pool2

    x = torch.randn(3, 4, 8, 12)
    with torch.no_grad():
        assert torch.equal(_max_pool2(x), F.max_pool2d(x, 2))
    xg = x.clone().requires_grad_()
    assert torch.equal(_max_pool2(xg), F.max_pool2d(x, 2))
