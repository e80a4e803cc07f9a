"""The near-miss suite type through the runner and the CLI, with scorers that need no model."""

import hashlib
import json
import re

import numpy as np
import pytest
from typer.testing import CliRunner

from cbench_testutil import SHARED_DATA
from harness.cli import app
from harness.errors import CBenchError
from harness.paths import PROJECT_ROOT
from harness.run_context import RunContext
from harness.scorers.base import Scorer, SubmissionBase
from harness.suites.base import EvalOptions
from harness.suites.registry import load_suite_file, resolve_suite


class WordSetScorer(Scorer):
    """Sees only the set of lower-cased words: Jaccard similarity."""

    kind = "word-set"
    Config = SubmissionBase

    def retrieve(self, queries, corpus, top_k):  # pragma: no cover - not used
        raise NotImplementedError

    def score_pairs(self, a, b):
        def words(t):
            return set(re.findall(r"[a-z0-9']+", t.lower()))

        return np.array([len(words(x) & words(y)) / len(words(x) | words(y)) for x, y in zip(a, b, strict=True)])


def test_bag_of_words_never_wins_on_role_swap_and_binding():
    suite = resolve_suite("nearmiss-v1", None)
    assert set(suite.dataset_names()) == {"negation", "role_swap", "attribute_binding", "spatial", "quantity", "comparative", "temporal_order"}
    scorer = WordSetScorer(SubmissionBase(name="bow", kind="word-set"), RunContext())
    for category in ("role_swap", "attribute_binding"):
        data = suite.load(category)
        assert len(data.triplets) == 300 and all(t.split == "test" for t in data.triplets)
        metrics = suite.evaluate(scorer, data, EvalOptions()).metrics
        # every negative has exactly the anchor's words (Jaccard 1), which no positive reaches
        assert (metrics["triplet_accuracy"], metrics["mean_sim_negative"]) == (0.0, 1.0), (category, metrics)


@pytest.mark.skipif(not (SHARED_DATA / "sugarcrepe_pp").is_dir(), reason="shared SugarCrepe++ data not present")
def test_sugarcrepe_pp_suite_reads_the_five_files():
    suite = resolve_suite("sugarcrepe-pp", SHARED_DATA)
    assert suite.dataset_names() == ["replace_att", "replace_obj", "replace_rel", "swap_att", "swap_obj"]
    data = suite.load("swap_obj")
    assert data.two_positives and len(data.triplets) == 245
    scores = suite.evaluate(WordSetScorer(SubmissionBase(name="bow", kind="word-set"), RunContext()), data, EvalOptions()).metrics
    assert {"tot_accuracy", "triplet_accuracy", "auroc", "false_accept@95"} <= set(scores)


@pytest.mark.slow
def test_user_pair_csv_suite_through_the_cli(tmp_path, monkeypatch):
    monkeypatch.setenv("CBENCH_DATA_DIR", str(tmp_path))
    (tmp_path / "pairs.csv").write_text(
        "sentence1,sentence2,category,label\n"
        "The dog bit the man.,The man bit the dog.,role_swap,0\n"
        "The dog bit the man.,The man was bitten by the dog.,role_swap,1\n"
        "The food is safe.,The food is not safe.,negation,0\n"
        "The food is safe.,It is safe to eat the food.,negation,1\n"
    )
    (tmp_path / "mine.yaml").write_text(
        "name: my-pairs\ntype: nearmiss\nformat: pairs-csv\nmain_metric: auroc\nfiles:\n  - {name: pairs, path: pairs.csv}\n"
    )
    res = tmp_path / "results"
    r = CliRunner().invoke(app, ["run", "--model", "all-MiniLM-L6-v2", "--suite", str(tmp_path / "mine.yaml"), "--results-dir", str(res), "-q"])
    assert r.exit_code == 0, r.output
    out = json.loads((res / "all-MiniLM-L6-v2" / "my-pairs.json").read_text())
    assert set(out["datasets"]) == {"role_swap", "negation"}
    assert set(out["datasets"]["negation"]) == {"n", "mean_sim_negative", "mean_sim_positive", "sim_gap", "auroc", "false_accept@95"}
    assert out["main_metric"] == "auroc" and out["main_score"] is not None
    # no machine paths: project files relative to the project, data files under $CBENCH_DATA_DIR
    meta = out["metadata"]
    assert meta["submission_file"] == "submissions/all-MiniLM-L6-v2.yaml"
    assert meta["suite_file"] == "$CBENCH_DATA_DIR/mine.yaml"
    assert str(PROJECT_ROOT) not in json.dumps(out)


# -- the frozen v1 file: pinned by sha256 in its suite YAML (frozen_sha256), outside the suite hash -----

TRIPLET = '{"id": "t1", "category": "negation", "split": "test", "anchor": "It is safe.", "positive": "It is not dangerous.", "negative": "It is not safe."}\n'


def frozen_suite(folder, pin: str | None, *, file_sha256: str | None = None, pinned_name: str = "toy"):
    """A one-file triplet suite in ``folder`` (its data file: toy.jsonl), optionally with a frozen pin."""
    (folder / "toy.jsonl").write_text(TRIPLET)
    extra = f", sha256: '{file_sha256}'" if file_sha256 else ""
    text = f"name: toy\ntype: nearmiss\nformat: triplets-jsonl\nfiles:\n  - {{name: toy, path: toy.jsonl{extra}}}\n"
    if pin is not None:
        text += f"frozen_sha256:\n  {pinned_name}: '{pin}'\n"
    (folder / "toy.yaml").write_text(text)
    return folder / "toy.yaml"


def test_nearmiss_v1_keeps_its_suite_hash_and_loads_its_pinned_file():
    """Pinning the frozen v1 file changes no suite hash: the committed results made from it stay valid
    (their suite_hash was written before the pin; runner._compatible compares it)."""
    suite = resolve_suite("nearmiss-v1", None)
    assert suite.config.frozen_sha256 == {"nearmiss-v1": hashlib.sha256((PROJECT_ROOT / "suites" / "nearmiss" / "nearmiss-v1.jsonl").read_bytes()).hexdigest()}
    assert suite.hash == "15379ba6942ffe0d"
    committed = {json.loads(p.read_text())["metadata"]["suite_hash"] for p in (PROJECT_ROOT / "leaderboard" / "results").glob("*/nearmiss-v1.json")}
    assert committed == {suite.hash}
    assert suite.dataset_revision("negation") == "sha256:a59102a2a5b61fbb"


def test_a_frozen_pin_is_outside_the_suite_hash(tmp_path):
    digest = hashlib.sha256(TRIPLET.encode()).hexdigest()
    pinned = load_suite_file(frozen_suite(tmp_path, digest), None)
    assert pinned.dataset_names() == ["negation"]
    assert pinned.hash == load_suite_file(frozen_suite(tmp_path, None), None).hash


def test_a_changed_frozen_file_is_one_error_naming_the_file_and_both_hashes(tmp_path):
    digest = hashlib.sha256(TRIPLET.encode()).hexdigest()
    path = frozen_suite(tmp_path, "0" * 64)
    with pytest.raises(CBenchError) as e:
        load_suite_file(path, None).dataset_names()
    assert e.value.lines == [f"{path}: frozen_sha256.toy: sha256 mismatch for {tmp_path / 'toy.jsonl'} (expected {'0' * 12}…, got {digest[:12]}…)"]
    r = CliRunner().invoke(app, ["run", "--model", "control-jaccard", "--suite", str(path), "--results-dir", str(tmp_path / "results"), "-q"])
    assert r.exit_code == 2, r.output
    assert "frozen_sha256.toy: sha256 mismatch" in r.output
    assert not (tmp_path / "results").exists() or not any((tmp_path / "results").rglob("*.json"))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"pinned_name": "other"}, "frozen_sha256.other: no file of that name (files: toy)"),
        ({"file_sha256": "1" * 64}, "frozen_sha256.toy: the file already has a sha256; pin it once"),
    ],
)
def test_a_frozen_pin_names_a_file_pinned_nowhere_else(tmp_path, kwargs, message):
    with pytest.raises(CBenchError, match=re.escape(message)):
        load_suite_file(frozen_suite(tmp_path, "0" * 64, **kwargs), None)
