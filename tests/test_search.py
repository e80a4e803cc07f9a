import numpy as np

from harness.search import exact_search


def test_chunked_search_equals_brute_force():
    rng = np.random.default_rng(0)
    q, d = rng.normal(size=(7, 16)).astype(np.float32), rng.normal(size=(53, 16)).astype(np.float32)
    qids, dids = [f"q{i}" for i in range(7)], [f"d{i}" for i in range(53)]
    run = exact_search(q, d, qids, dids, top_k=5, doc_chunk=10, query_chunk=3)
    qn, dn = q / np.linalg.norm(q, axis=1, keepdims=True), d / np.linalg.norm(d, axis=1, keepdims=True)
    sims = qn @ dn.T
    for i, qid in enumerate(qids):
        expected = [dids[j] for j in np.argsort(-sims[i])[:5]]
        got = sorted(run[qid], key=lambda k: -run[qid][k])
        assert got == expected
        assert np.allclose([run[qid][k] for k in got], np.sort(sims[i])[::-1][:5], atol=1e-5)


def test_top_k_larger_than_corpus_and_dot_product():
    q, d = np.array([[1.0, 0.0]], dtype=np.float32), np.array([[2.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    run = exact_search(q, d, ["q"], ["a", "b"], top_k=100, cosine=False)
    assert run == {"q": {"a": 2.0, "b": 0.0}}
