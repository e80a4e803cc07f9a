"""`cbench cost`: the cost file (schema 2: pairs, index, queries with the index built; schema-1
files still read), timing a scorer end to end on a tiny collection, nothing cached but the index,
a reranker's two parts, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

import numpy as np
import pytest
from pydantic import Field
from typer.testing import CliRunner

from cbench_testutil import TINY_DOCS, TINY_QRELS, TINY_QUERIES, write_beir
from harness.cli import app
from harness.costs.measure import MeasureContext
from harness.costs.record import CostRecord, read_cost, read_costs, write_cost
from harness.errors import CBenchError
from harness.paths import PROJECT_ROOT
from harness.scorers.base import EmbeddingScorer, Retrieval, Scorer, SubmissionBase
from harness.scorers.registry import SCORERS
from harness.search import rank

runner = CliRunner()
SMALL = ["--pairs", "8", "--queries", "3", "--repeats", "2"]


def invoke(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


@pytest.fixture
def data(tmp_path, monkeypatch) -> Path:
    """A data dir whose beir/medline is the tiny collection (6 documents, 3 judged queries)."""
    root = tmp_path / "data"
    write_beir(root / "beir" / "medline", TINY_DOCS, TINY_QUERIES, TINY_QRELS)
    monkeypatch.setenv("CBENCH_DATA_DIR", str(root))
    return root


# -- toy kinds: one that counts what it encodes, one that reranks a first stage ----------------


class CountingConfig(SubmissionBase):
    kind: Literal["counting"]
    batch_size: int = 4


class CountingScorer(EmbeddingScorer):
    """Bag-of-words vectors; every text it is asked to encode is logged, per role."""

    kind = "counting"
    Config = CountingConfig
    encoded: dict[str, list[str]] = {}

    def cache_spec(self, role):
        return {"kind": "counting", "role": role}

    def encode_batch(self, texts, role):
        type(self).encoded.setdefault(role, []).extend(texts)
        out = np.zeros((len(texts), 16), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in t.lower().split():
                out[i, hash(w) % 16] += 1.0
        return out + 1e-3


class RerankConfig(SubmissionBase):
    kind: Literal["toy-rerank"]
    first_stage: str
    rerank_depth: int = Field(default=2, gt=0)


class RerankScorer(Scorer):
    """Reranks its first stage's top ``rerank_depth`` by shared words; logs every pair it scores."""

    kind = "toy-rerank"
    Config = RerankConfig
    parts = ("first_stage",)
    scored: list[int] = []

    def __init__(self, config, ctx, base_dir=None, *, path=None, first_stage):
        super().__init__(config, ctx, base_dir, path=path)
        self.first_stage = first_stage

    def retrieve(self, queries, corpus, top_k):
        first = self.first_stage.retrieve(queries, corpus, self.config.rerank_depth).run
        return Retrieval({q: rank({d: float(self.score_pairs([queries[q]], [corpus[d]])[0]) for d in docs}, top_k) for q, docs in first.items()})

    def score_pairs(self, a, b):
        type(self).scored.append(len(a))
        return np.array([len(set(x.lower().split()) & set(y.lower().split())) for x, y in zip(a, b, strict=True)], dtype=np.float64)


@pytest.fixture
def toys(tmp_path, monkeypatch) -> Path:
    monkeypatch.setitem(SCORERS, "counting", CountingScorer)
    monkeypatch.setitem(SCORERS, "toy-rerank", RerankScorer)
    monkeypatch.setattr(CountingScorer, "encoded", {})
    monkeypatch.setattr(RerankScorer, "scored", [])
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "counter.yaml").write_text("name: counter\nkind: counting\nbatch_size: 4\n")
    (subs / "reranker.yaml").write_text("name: reranker\nkind: toy-rerank\nfirst_stage: bm25\nrerank_depth: 2\n")
    for name in ("over-counter-a", "over-counter-b"):
        (subs / f"{name}.yaml").write_text(f"name: {name}\nkind: toy-rerank\nfirst_stage: counter\nrerank_depth: 2\n")
    (subs / "missing.yaml").write_text("name: missing\nkind: encoder\nmodel: ./no-such-model\n")
    return subs


# -- end to end ----------------------------------------------------------------------------------


def test_bm25_cost_end_to_end(data, tmp_path):
    out = tmp_path / "cost"
    r = invoke("cost", "--model", "bm25", "--out", str(out), *SMALL)
    assert r.exit_code == 0, r.output
    assert "bm25:" in r.output and "ms/pair" in r.output and "ms/doc" in r.output and "KB/doc" in r.output
    assert "ms/query with the index built" in r.output
    path = out / "bm25.json"
    text = path.read_text()
    record = read_cost(path)  # validates against the model (extra="forbid")
    assert record.submission == "bm25" and record.kind == "lexical" and record.repeats == 2 and record.schema_version == 2
    p, i, q = record.pairs, record.index, record.queries
    assert p.pairs == 8 and p.suite == "nearmiss" and p.split == "test" and p.suite_file == "suites/nearmiss.yaml"
    assert len(p.timing.wall_ms) == 2 and all(t > 0 for t in p.timing.wall_ms)
    assert p.ms_per_pair == pytest.approx(float(np.median(p.timing.wall_ms)) / 8, abs=1e-3)
    assert q is not None and q.queries == 3 and q.corpus_docs == 6 and q.first_stage == "bm25" and q.rerank_depth is None
    assert q.collection == "classic-ir:medline" and q.source == "$CBENCH_DATA_DIR/beir/medline"
    assert len(q.search_all.wall_ms) == len(q.search_one.wall_ms) == 2
    # the index: the BM25 matrix over the 6 documents, built once, timed, its bytes per document
    assert i is not None and i.collection == "classic-ir:medline" and i.documents == 6 and [x.submission for x in i.parts] == ["bm25"]
    assert i.bytes > 0 and i.bytes_per_doc == pytest.approx(i.bytes / 6, abs=0.01) and i.stores.startswith("BM25 term-document scores")
    assert len(i.parts[0].build.wall_ms) == 1 and i.ms_per_doc == pytest.approx(i.parts[0].build.wall_ms[0] / 6, abs=1e-3)
    assert i.parts[0].built_for is None and json.loads(text)["schema_version"] == 2
    marginal = np.median([(a - o) / 2 for a, o in zip(q.search_all.wall_ms, q.search_one.wall_ms, strict=True)])
    assert q.search_ms_per_query == pytest.approx(marginal, abs=1e-3) and q.ms_per_query == q.search_ms_per_query
    assert record.batch_sizes == {} and record.machine.torch_threads >= 1 and record.machine.cpu
    assert len(record.machine.load_average_start) == 3 and record.packages
    assert record.command == "cbench cost --model bm25 --pairs 8 --queries 3 --repeats 2 --device cpu"
    # no path of this machine anywhere in the file
    assert str(tmp_path) not in text and str(PROJECT_ROOT) not in text and str(Path.home()) not in text


def test_a_control_has_pair_cost_only(data, tmp_path):
    r = invoke("cost", "--model", "control-jaccard", "--out", str(tmp_path / "cost"), *SMALL)
    assert r.exit_code == 0, r.output
    record = read_cost(tmp_path / "cost" / "control-jaccard.json")
    assert record.kind == "control" and record.queries is None and record.pairs.pairs == 8 and record.pairs.ms_per_pair > 0


def test_nothing_is_cached_but_the_first_stage_index(data, tmp_path, toys):
    """Every timed call encodes its texts again (the warm-up's and earlier repeats' embeddings are
    not reused, the disk cache is neither read nor written); only the documents, encoded when the
    index is built (no query then), are kept."""
    import os

    cache = Path(os.environ["CBENCH_CACHE"])
    before = sorted(cache.rglob("*"))
    r = invoke("cost", "--model", "counter", "--submissions-dir", str(toys), "--out", str(tmp_path / "cost"), *SMALL)
    assert r.exit_code == 0, r.output
    enc = CountingScorer.encoded
    # documents: the warm-up search (all 6: fewer than its 16; the index warm-up finds them cached) and
    # the index build; never in the timed searches
    assert len(enc["document"]) == 6 + 6
    # "query" role: pairs (2 anchors + 8 candidates) in the warm-up and both repeats; then the search's
    # warm-up (3 queries), and per repeat all 3 and the first alone
    assert len(enc["query"]) == 3 * (2 + 8) + 3 + 2 * (3 + 1)
    assert sorted(cache.rglob("*")) == before
    record = read_cost(tmp_path / "cost" / "counter.json")
    assert record.batch_sizes == {"counter": 4}
    assert record.index is not None and record.index.bytes == 6 * 16 * 4 and record.index.stores == "pooled vectors float32 (16 dims)"


def test_memory_context_forgets_all_but_what_is_pinned():
    ctx = MeasureContext()
    spec = {"kind": "t"}
    ctx.cache(spec).put_many([b"k" * 32], [np.ones((1, 2), dtype=np.float32)])
    ctx.pin()
    ctx.cache(spec).put_many([b"q" * 32], [np.zeros((1, 2), dtype=np.float32)])
    ctx.forget()
    assert ctx.cache(spec).has(b"k" * 32) and not ctx.cache(spec).has(b"q" * 32)
    ctx.reset()
    assert not ctx.cache(spec).has(b"k" * 32)


def test_a_reranker_costs_its_first_stage_plus_reranking(data, tmp_path, toys):
    r = invoke("cost", "--model", "reranker", "--submissions-dir", str(toys), "--out", str(tmp_path / "cost"), *SMALL)
    assert r.exit_code == 0, r.output
    record = read_cost(tmp_path / "cost" / "reranker.json")
    q, i = record.queries, record.index
    assert q is not None and q.first_stage == "bm25" and q.rerank_depth == 2 and q.top_k == 2
    # the toy reranker stores nothing per document: the index is its first stage's
    assert i is not None and [p.submission for p in i.parts] == ["bm25"] and i.stores.startswith("BM25")
    # the timed reranks score every candidate of the first stage's run (at most 2 per query) in one call
    assert q.rerank_pairs is not None and 0 < q.rerank_pairs <= 2 * 3
    assert RerankScorer.scored[-2:] == [q.rerank_pairs, q.rerank_pairs]
    assert q.rerank is not None and len(q.rerank.wall_ms) == 2
    assert q.rerank_ms_per_query == pytest.approx(float(np.median(q.rerank.wall_ms)) / 3, abs=1e-3)
    assert q.ms_per_query == pytest.approx(q.search_ms_per_query + q.rerank_ms_per_query, abs=1e-3)


def test_rerankers_timed_together_build_their_first_stage_index_once(data, tmp_path, toys):
    """Two rerankers over one embedding first stage in one `cbench cost`: its documents are encoded
    for the index once (each run still warms up on them), and both files record that build (the
    second naming the first as the submission it was built for)."""
    out = tmp_path / "cost"
    r = invoke("cost", "--model", "over-counter-a", "--model", "over-counter-b", "--submissions-dir", str(toys), "--out", str(out), *SMALL)
    assert r.exit_code == 0, r.output
    assert len(CountingScorer.encoded["document"]) == 6 + 6 + 6  # two warm-ups, one index build
    a, b = (read_cost(out / f"over-counter-{x}.json") for x in "ab")
    assert a.index is not None and b.index is not None and a.index.parts[0].build == b.index.parts[0].build
    assert a.index.parts[0].built_for is None and b.index.parts[0].built_for == "over-counter-a"
    assert a.index.bytes == b.index.bytes == 6 * 16 * 4 and a.index.ms_per_doc == b.index.ms_per_doc
    assert a.command == "cbench cost --model over-counter-a --pairs 8 --queries 3 --repeats 2 --device cpu"
    CountingScorer.encoded.clear()
    r = invoke("cost", "--model", "over-counter-a", "--submissions-dir", str(toys), "--out", str(tmp_path / "alone"), *SMALL)
    assert r.exit_code == 0 and len(CountingScorer.encoded["document"]) == 6 + 6  # alone: warm-up and its own build


def test_several_models_go_on_past_one_that_cannot_be_timed(data, tmp_path, toys):
    out = tmp_path / "cost"
    r = invoke("cost", "--model", "missing", "--model", "bm25", "--submissions-dir", str(toys), "--out", str(out), *SMALL)
    assert r.exit_code == 3 and "submission missing: model: weights unavailable" in r.stderr and "no-such-model" in r.stderr
    assert (out / "bm25.json").exists() and not (out / "missing.json").exists()
    r = invoke("cost", "--model", "bm25", "--model", "no-such-submission", "--submissions-dir", str(toys), "--out", str(out), *SMALL)
    assert r.exit_code == 2 and "no submission named 'no-such-submission'" in r.output  # names are resolved before any timing


# -- errors: one line, exit 2 (3: weights not here) ------------------------------------------------


def test_bad_out_is_one_line_exit_2(data, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    r = invoke("cost", "--model", "bm25", "--out", str(blocker), *SMALL)
    assert r.exit_code == 2
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and str(blocker) in lines[0] and "--out" in lines[0] and "not a folder" in lines[0]
    r = invoke("cost", "--model", "bm25", "--out", str(blocker / "sub"), *SMALL)
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1 and "Traceback" not in r.output
    assert blocker.read_text() == "x"


def test_unknown_model_and_missing_collection(tmp_path, monkeypatch):
    r = invoke("cost", "--model", "no-such-submission", "--out", str(tmp_path / "c"))
    assert r.exit_code == 2 and "no submission named 'no-such-submission'" in r.output
    monkeypatch.setenv("CBENCH_DATA_DIR", str(tmp_path / "empty"))
    r = invoke("cost", "--model", "bm25", "--out", str(tmp_path / "c"), *SMALL)
    assert r.exit_code == 3 and "BEIR folder not found" in r.output and len(r.output.strip().splitlines()) == 1
    assert not (tmp_path / "c" / "bm25.json").exists()


def test_no_data_dir_is_one_line_saying_where_it_looked(tmp_path, monkeypatch):
    """The same rule as `cbench run`: no --data-dir, no $CBENCH_DATA_DIR, no cbench.toml."""
    from harness import paths

    monkeypatch.delenv("CBENCH_DATA_DIR", raising=False)
    monkeypatch.setattr(paths, "config_files", lambda: [tmp_path / "cbench.toml"])
    r = invoke("cost", "--model", "bm25", "--out", str(tmp_path / "c"), *SMALL)
    assert r.exit_code == 3 and "Traceback" not in r.output
    (line,) = r.output.strip().splitlines()
    looked = f"no data directory (looked at --data-dir: not given; $CBENCH_DATA_DIR: not set; {tmp_path / 'cbench.toml'}: no such file)"
    assert "BEIR folder not found" in line and looked in line
    assert not (tmp_path / "c" / "bm25.json").exists()


def test_missing_weights_exit_3(data, tmp_path, toys):
    r = invoke("cost", "--model", "missing", "--submissions-dir", str(toys), "--out", str(tmp_path / "cost"), *SMALL)
    assert r.exit_code == 3 and "weights unavailable" in r.output and "no-such-model" in r.output
    assert not (tmp_path / "cost" / "missing.json").exists()


# -- the file ------------------------------------------------------------------------------------


def test_cost_file_validation(data, tmp_path):
    assert invoke("cost", "--model", "bm25", "--out", str(tmp_path / "cost"), *SMALL).exit_code == 0
    good = json.loads((tmp_path / "cost" / "bm25.json").read_text())
    CostRecord.model_validate(good)
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "bm25.json").write_text(json.dumps({**good, "surprise": 1}))
    with pytest.raises(CBenchError, match="surprise") as e:
        read_cost(bad / "bm25.json")
    assert str(bad / "bm25.json") in e.value.line
    (bad / "bm25.json").write_text(json.dumps({**good, "pairs": {**good["pairs"], "ms_per_pair": -1}}))
    with pytest.raises(CBenchError, match=r"pairs\.ms_per_pair"):
        read_cost(bad / "bm25.json")
    (bad / "bm25.json").unlink()
    (bad / "other.json").write_text(json.dumps(good))
    with pytest.raises(CBenchError, match="must be named bm25.json"):
        read_cost(bad / "other.json")
    (bad / "broken.json").write_text("{")
    found, warnings = read_costs(bad)
    assert found == {} and len(warnings) == 2 and all(w.endswith("(left out)") for w in warnings)
    assert read_costs(tmp_path / "none") == ({}, [])


def _as_schema_1(good: dict, kind: str, rerank: bool) -> dict:
    """A schema-2 file's content in schema 1's shape: no index; the query cost with its ``index``
    timing (the first search over the corpus) and, for a reranker, the reranking figures."""
    q = {k: v for k, v in good["queries"].items()}
    q["index"] = good["index"]["parts"][0]["build"]
    if rerank:
        t = {"wall_ms": [900.0], "cpu_ms": [800.0]}
        q.update(rerank_depth=100, rerank_pairs=300, rerank_ms_per_query=300.0, rerank_cpu_ms_per_query=270.0, rerank=t)
        q.update(ms_per_query=q["search_ms_per_query"] + 300.0, cpu_ms_per_query=q["search_cpu_ms_per_query"] + 270.0)
    old = {k: v for k, v in good.items() if k != "index"}
    return {**old, "schema_version": 1, "kind": kind, "queries": q}


def test_schema_1_files_are_read_and_converted(data, tmp_path):
    """A schema-1 file loads as a CostRecord of schema_version 1: no index, its query cost kept;
    its query time counts as measured with the documents re-encoded only for a reranker other than
    a cross-encoder. It is never written back; one with a field schema 1 lacks is refused."""
    assert invoke("cost", "--model", "bm25", "--out", str(tmp_path / "cost"), *SMALL).exit_code == 0
    good = json.loads((tmp_path / "cost" / "bm25.json").read_text())
    old = tmp_path / "old"
    old.mkdir()
    for name, kind, rerank in [("bm25", "lexical", False), ("verif", "verifier", True), ("ce", "cross-encoder", True), ("fused", "fusion", True)]:
        (old / f"{name}.json").write_text(json.dumps({**_as_schema_1(good, kind, rerank), "submission": name}))
    found, warnings = read_costs(old)
    assert warnings == [] and set(found) == {"bm25", "verif", "ce", "fused"}
    for r in found.values():
        assert r.schema_version == 1 and r.index is None and r.queries is not None and r.pairs.ms_per_pair == good["pairs"]["ms_per_pair"]
    assert found["verif"].queries.ms_per_query == pytest.approx(good["queries"]["search_ms_per_query"] + 300.0)
    assert {n for n, r in found.items() if r.documents_reencoded} == {"verif", "fused"}
    with pytest.raises(CBenchError, match="schema 1"):
        write_cost(tmp_path / "again.json", found["bm25"])
    (old / "bm25.json").write_text(json.dumps({**_as_schema_1(good, "lexical", False), "index": good["index"]}))  # a schema-2 field in a schema-1 file
    with pytest.raises(CBenchError, match="index"):
        read_cost(old / "bm25.json")
    (old / "bm25.json").write_text(json.dumps({k: v for k, v in good.items() if k != "index"}))  # schema 2 without its index
    with pytest.raises(CBenchError, match="index"):
        read_cost(old / "bm25.json")


def test_every_committed_cost_file_loads():
    """Whatever their schema (the committed ones are re-measured by the maintainer, not by the tests)."""
    found, warnings = read_costs(PROJECT_ROOT / "leaderboard" / "cost")
    assert warnings == [] and len(found) >= 30
    for r in found.values():
        assert r.schema_version in (1, 2) and (r.index is None) == (r.schema_version == 1 or r.queries is None)


# -- scripts/cost_all.sh ---------------------------------------------------------------------------


def test_cost_all_times_every_shipped_submission_in_one_process(tmp_path):
    """With a stand-in for cbench: one `cbench cost` call names every shipped YAML; its exit 3 (some
    skipped, named by it) is a success with a message, any other failure makes the script exit 1."""
    import subprocess

    log = tmp_path / "calls"
    fake = tmp_path / "cbench"
    fake.write_text(f'#!/usr/bin/env bash\necho "$@" >> {log}\nexit $FAKE_RC\n')
    fake.chmod(0o755)

    def cost_all(rc: int):
        log.unlink(missing_ok=True)
        env = {"PATH": "/usr/bin:/bin", "CBENCH": str(fake), "FAKE_RC": str(rc)}
        return subprocess.run(["bash", str(PROJECT_ROOT / "scripts" / "cost_all.sh"), "--repeats", "5"], env=env, capture_output=True, text=True)

    shipped = sorted(p.stem for p in (PROJECT_ROOT / "submissions").rglob("*.yaml"))
    r = cost_all(0)
    calls = log.read_text().splitlines()
    assert r.returncode == 0 and len(calls) == 1 and calls[0].startswith("cost --model ") and calls[0].endswith("--repeats 5")
    words = calls[0].split()
    assert sorted(words[i + 1] for i, w in enumerate(words) if w == "--model") == shipped
    r = cost_all(3)
    assert r.returncode == 0 and "some were skipped: their weights or data are not here" in r.stderr
    r = cost_all(2)
    assert r.returncode == 1 and "some failed (exit 2" in r.stderr
