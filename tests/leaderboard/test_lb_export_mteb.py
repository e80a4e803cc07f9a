"""MTEB export: the files load with mteb's own loader and the scores round-trip."""

from __future__ import annotations

import json

import pytest
from lb_helpers import nearmiss_results, retrieval_results, save

from harness.export_mteb import NANOBEIR_TASKS, export_mteb

mteb = pytest.importorskip("mteb", reason="mteb not installed (pip install -e '.[mteb]')")


REVISIONS = {
    "ArguAna": "8f4a982d470a32c45817738b9d29042ca55d75ad",
    "SciFact": "309f1d1ae3ae2e092444a8a0c25bed59b82318bc",
    "NQ": "77540146379abf95df8326a3c5bb9eb21c7146c3",
}


@pytest.fixture
def exported(tmp_path):
    results = tmp_path / "results"
    scores = {"ArguAna": 0.41234567, "SciFact": 0.6, "NQ": 0.55}
    alpha = retrieval_results("alpha", "nanobeir", {**scores, "FiQA2018": 0.3, "HotpotQA": 0.3}, skipped={"FEVER": "offline"})
    # the commits the run read; FiQA2018 from before the pins ("main"), HotpotQA a hand-made copy
    alpha.metadata.dataset_revisions = {**REVISIONS, "FiQA2018": "main", "HotpotQA": "sha256:0123456789abcdef"}
    alpha.metadata.cbench_version, alpha.metadata.git_commit = "0.1.0", "c" * 40
    save(results, alpha)
    save(results, retrieval_results("alpha", "classic-ir", {"cranfield": 0.3}))
    save(results, retrieval_results("beta", "nanobeir", {"NQ": 0.2}, limit_queries=5))
    save(results, nearmiss_results("alpha", "nearmiss", 0.5))
    cache = tmp_path / "mteb-cache"
    report = export_mteb(results, cache / "results")
    return cache, report, scores


def test_layout_and_notes(exported):
    cache, report, _ = exported
    folder = cache / "results" / "cbench__alpha" / "abc123"
    assert sorted(p.name for p in folder.iterdir()) == ["NanoArguAnaRetrieval.json", "NanoNQRetrieval.json", "NanoSciFactRetrieval.json", "model_meta.json"]
    assert report.models == {"cbench/alpha"}
    notes = "\n".join(report.notes)
    assert "suite 'classic-ir' (cranfield) has no MTEB task" in notes
    assert "--limit-queries 5" in notes
    assert "nearmiss is a nearmiss suite" in notes
    assert "dataset 'FEVER' not exported" in notes
    assert "dataset 'FiQA2018' skipped: its data revision 'main' is not a hub commit" in notes
    assert "dataset 'HotpotQA' skipped: its data revision 'sha256:0123456789abcdef' is not a hub commit" in notes


def test_records_the_real_producer_and_the_data_commit(exported):
    cache, _, scores = exported
    folder = cache / "results" / "cbench__alpha" / "abc123"
    for ds in scores:
        raw = json.loads((folder / f"{NANOBEIR_TASKS[ds]}.json").read_text())
        assert raw["mteb_version"] is None and "mteb_version" not in raw["scores"]["train"][0]  # mteb did not produce it
        assert raw["produced_by"] == {"name": "cbench", "version": "0.1.0", "git_commit": "c" * 40, "layout": "mteb 2.26.24 TaskResult"}
        assert raw["dataset_revision"] == REVISIONS[ds]
        res = mteb.TaskResult.from_disk(folder / f"{NANOBEIR_TASKS[ds]}.json")
        assert res.mteb_version is None and res.dataset_revision == REVISIONS[ds]


def test_task_results_load_with_mteb(exported):
    cache, _, scores = exported
    folder = cache / "results" / "cbench__alpha" / "abc123"
    for ds, score in scores.items():
        res = mteb.TaskResult.from_disk(folder / f"{NANOBEIR_TASKS[ds]}.json")
        assert res.task_name == NANOBEIR_TASKS[ds]
        assert res.main_score == score  # not rounded
        assert res.get_score(getter=lambda s: s["ndcg_at_10"]) == score
        entry = res.scores["train"][0]
        assert entry["hf_subset"] == "default" and entry["languages"] == ["eng-Latn"]
        assert entry["mrr_at_10"] == pytest.approx(score + 0.05) and "recall_at_100" in entry and "map_at_100" in entry
        # the task name is one mteb's registry knows, and the split/subset are the ones it evaluates
        task = mteb.get_task(res.task_name)
        assert task.metadata.eval_splits == ["train"] and task.metadata.main_score == "ndcg_at_10"
        filtered = res.validate_and_filter_scores(task)
        assert filtered.scores["train"][0]["main_score"] == score


def test_result_cache_loads_the_folder(exported):
    cache, _, scores = exported
    bench = mteb.ResultCache(cache).load_results(include_remote=False, validate_and_filter=True)
    (model,) = bench.model_results
    assert model.model_name == "cbench/alpha" and model.model_revision == "abc123"
    got = {t.task_name: t.main_score for t in model.task_results}
    assert got == {NANOBEIR_TASKS[ds]: s for ds, s in scores.items()}


def test_model_meta_validates(exported):
    cache, _, _ = exported
    text = (cache / "results" / "cbench__alpha" / "abc123" / "model_meta.json").read_text()
    meta = mteb.models.model_meta.ModelMeta.model_validate_json_resolved(text)
    assert meta.name == "cbench/alpha" and meta.revision == "abc123" and meta.n_parameters == 1000
    assert json.loads(text)["license"] == "apache-2.0"
