"""`cbench fuse`: development queries disjoint from every test query, the dev rule, the YAML."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from cbench_testutil import SHARED_DATA
from harness.errors import CBenchError
from harness.fusion.fit import dev_queries, evaluation_suites
from harness.submissions import Registry
from harness.suites.registry import load_suite_file
from scorers.conftest import DOCS, cbench, write_submission

TEST_Q = {"q1": "photosynthesis sunlight", "q2": "volcanoes lava", "q3": "honey bees"}
DEV_Q = {"q4": "sunlight energy in plants", "q5": "molten ash eruption", "q6": "nectar from flowers", "q7": "volcanoes lava"}
TEST_QRELS = [("q1", "d04"), ("q2", "d06"), ("q3", "d10")]
DEV_QRELS = [("q4", "d04"), ("q5", "d06"), ("q6", "d10"), ("q7", "d06")]


def collection(folder: Path, dev_qrels=DEV_QRELS, dev_split: str = "dev") -> Path:
    (folder / "qrels").mkdir(parents=True, exist_ok=True)
    with open(folder / "corpus.jsonl", "w") as f:
        for i, (title, text) in DOCS.items():
            f.write(json.dumps({"_id": i, "title": title, "text": text}) + "\n")
    with open(folder / "queries.jsonl", "w") as f:
        for i, text in {**TEST_Q, **DEV_Q}.items():
            f.write(json.dumps({"_id": i, "text": text}) + "\n")
    for split, rows in (("test", TEST_QRELS), (dev_split, dev_qrels)):
        (folder / "qrels" / f"{split}.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{d}\t1\n" for q, d in rows))
    return folder


def suites(tmp_path: Path, folder: Path) -> tuple[Path, Path]:
    ev = tmp_path / "eval.yaml"
    ev.write_text(f"name: t-eval\ntype: beir\ndatasets:\n  - {{name: col, path: {folder}}}\n")
    dev = tmp_path / "dev.yaml"
    dev.write_text(f"name: t-dev\ntype: beir\nleaderboard: {{role: dev}}\ndatasets:\n  - {{name: col, path: {folder}, split: dev}}\n")
    return ev, dev


@pytest.fixture
def subs(tmp_path, tiny_bert):
    folder = tmp_path / "subs"
    write_submission(folder, {"name": "t-enc", "kind": "encoder", "model": str(tiny_bert)})
    write_submission(folder, {"name": "t-maxsim", "kind": "verifier", "first_stage": "t-enc", "encoder": "t-enc", "arch": "maxsim", "rerank_depth": 6})
    return folder


def fuse_args(subs: Path, tmp_path: Path, ev: Path, dev: Path, *extra: str) -> list[str]:
    return ["fuse", "--verifier", "t-maxsim", "--dev-suite", str(dev), "--test-suite", str(ev), "--submissions-dir", str(subs),
            "--results-dir", str(tmp_path / "devruns"), "--out", str(subs / "t-maxsim-fused.yaml"), "--quiet", *extra]


def test_dev_queries_leave_out_a_test_text_and_record_what_they_were_checked_against(tmp_path):
    folder = collection(tmp_path / "col")
    ev, dev = suites(tmp_path, folder)
    got = dev_queries(load_suite_file(dev, None), None, [load_suite_file(ev, None)])
    assert got.counts == {"col": 3} and got.excluded == {"col": 1}  # q7 asks what test q2 asks
    assert got.checked == ["t-eval/col (test)"] and got.ids_sha256.startswith("sha256:")


def test_a_planted_test_query_id_fails_the_command(subs, tmp_path):
    folder = collection(tmp_path / "col", dev_qrels=[*DEV_QRELS, ("q2", "d06")])
    ev, dev = suites(tmp_path, folder)
    r = cbench(*fuse_args(subs, tmp_path, ev, dev))
    assert r.exit_code == 2, r.output
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "'q2'" in lines[0] and "test.tsv" in lines[0] and "dev.tsv" in lines[0], r.stderr
    assert not (subs / "t-maxsim-fused.yaml").exists() and not (tmp_path / "devruns").exists()


def test_a_dev_split_that_an_evaluation_suite_scores_fails(subs, tmp_path):
    folder = collection(tmp_path / "col")
    ev, dev = suites(tmp_path, folder)
    dev.write_text(f"name: t-dev\ntype: beir\nleaderboard: {{role: dev}}\ndatasets:\n  - {{name: col, path: {folder}, split: test}}\n")
    r = cbench(*fuse_args(subs, tmp_path, ev, dev))
    assert r.exit_code == 2 and "is scored by the evaluation suite t-eval/col" in r.stderr, r.stderr


def test_an_evaluation_suite_is_not_a_dev_suite(subs, tmp_path):
    folder = collection(tmp_path / "col")
    ev, _dev = suites(tmp_path, folder)
    r = cbench(*fuse_args(subs, tmp_path, ev, ev))
    assert r.exit_code == 2 and "role dev" in r.stderr, r.stderr


def test_shipped_dev_suite_is_checked_against_the_shipped_test_suites(tmp_path, monkeypatch):
    """offline-ir-dev against offline-ir with a data dir whose SciFact train qrels hold a test id."""
    data = tmp_path / "data"
    for name in ("scifact", "nfcorpus"):
        split = "train" if name == "scifact" else "dev"
        collection(data / "beir" / name, dev_qrels=[*DEV_QRELS, ("q1", "d04")] if name == "scifact" else DEV_QRELS, dev_split=split)
    monkeypatch.setenv("CBENCH_DATA_DIR", str(data))
    r = cbench("fuse", "--verifier", "minilm-maxsim", "--name", "t-planted", "--out", str(tmp_path / "x.yaml"), "--results-dir", str(tmp_path / "r"), "--quiet")
    assert r.exit_code == 2, r.output
    assert "'q1'" in r.stderr and "offline-ir/scifact (test)" in r.stderr and "train.tsv" in r.stderr
    assert not (tmp_path / "x.yaml").exists()


@pytest.mark.skipif(not (SHARED_DATA / "beir" / "scifact").is_dir(), reason="the shared BEIR data is not here")
def test_the_real_dev_queries_are_disjoint_from_the_test_queries():
    data = SHARED_DATA
    dev = load_suite_file(Path(__file__).resolve().parents[2] / "suites" / "offline-ir-dev.yaml", data)
    got = dev_queries(dev, data, evaluation_suites(data))
    # 809 SciFact train and 324 NFCorpus dev queries; 2 and 1 repeat a test query's text
    assert got.counts == {"scifact": 807, "nfcorpus": 323} and got.excluded == {"scifact": 2, "nfcorpus": 1}
    assert {"offline-ir/scifact (test)", "offline-ir/nfcorpus (test)"} <= set(got.checked)


@pytest.mark.slow  # ranx compiles its numba kernels on first use (about 20-40 s)
def test_fuse_writes_a_loadable_yaml_by_the_dev_rule(subs, tmp_path):
    folder = collection(tmp_path / "col")
    ev, dev = suites(tmp_path, folder)
    r = cbench(*fuse_args(subs, tmp_path, ev, dev, "--grid", "0,0.5,1,2"))
    assert r.exit_code == 0, r.output
    data = yaml.safe_load((subs / "t-maxsim-fused.yaml").read_text())
    fit = data["fit"]
    assert data["kind"] == "fusion" and data["weight"] == fit["chosen"] and fit["grid"] == [0.0, 0.5, 1.0, 2.0]
    assert fit["dev_datasets"] == {"col": 3} and fit["dev_queries_excluded"] == {"col": 1}
    floor = fit["first_stage_dev"]["ndcg@10"] - 0.01
    ok = [p["weight"] for p in fit["dev"] if p["ndcg@10"] >= floor - 1e-12]
    assert fit["chosen"] == max(ok)
    assert data["first_stage_norm"]["n"] == 3 * 6 and data["verifier_norm"]["scale"] > 0  # 3 queries x 6 candidates
    reg = Registry([subs])
    assert reg.get("t-maxsim-fused").config.weight == fit["chosen"]
    assert os.path.isfile(tmp_path / "devruns" / "t-maxsim" / "t-dev.runs" / "col.first_stage.trec.gz")
    again = cbench(*fuse_args(subs, tmp_path, ev, dev))
    assert again.exit_code == 2 and "--force" in again.stderr
    # the ranx numbers equal the harness's own evaluation of the same runs (trec_eval)
    from harness.metrics.retrieval import evaluate
    from harness.runs import read_kept_runs

    res = tmp_path / "devruns" / "t-maxsim" / "t-dev.json"
    kept = read_kept_runs(res, json.loads(res.read_text())["details"], "col")
    qrels = {q: {d: 1} for q, d in DEV_QRELS[:3]}
    assert fit["first_stage_dev"]["ndcg@10"] == pytest.approx(evaluate(qrels, {q: kept.first_stage[q] for q in qrels})["ndcg@10"], abs=1e-9)


def test_unknown_verifier_and_non_reranker_are_one_line(subs, tmp_path):
    folder = collection(tmp_path / "col")
    ev, dev = suites(tmp_path, folder)
    args = fuse_args(subs, tmp_path, ev, dev)
    r = cbench(*[a if a != "t-maxsim" else "t-enc" for a in args])
    assert r.exit_code == 2 and "not a reranker" in r.stderr
    with pytest.raises(CBenchError):
        Registry([subs]).get("nope")
