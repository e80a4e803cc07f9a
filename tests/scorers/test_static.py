"""kind: static (model2vec) and `cbench distill`: end to end, relative model paths, pair scores, cache."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import numpy as np
import pytest

from harness.paths import PROJECT_ROOT, SUBMISSIONS_DIR
from harness.run_context import RunContext
from harness.scorers.static import StaticConfig, StaticScorer
from harness.submissions import load_submission

from .conftest import QUERIES, assert_one_line_error, cbench, corpus_texts, ndcg_at_10, read_result, run_submission, write_submission, write_tokenizer


def make_static_model(folder: Path, dim: int = 16) -> Path:
    """A model2vec StaticModel over the tiny WordPiece vocabulary, random (seeded) vectors."""
    from model2vec import StaticModel
    from transformers import AutoTokenizer

    tok_dir = folder.parent / f"{folder.name}-tok"
    write_tokenizer(tok_dir)
    backend = AutoTokenizer.from_pretrained(str(tok_dir)).backend_tokenizer
    vectors = np.random.default_rng(0).standard_normal((backend.get_vocab_size(), dim)).astype(np.float32)
    StaticModel(vectors=vectors, tokenizer=backend, config={"normalize": True}).save_pretrained(str(folder))
    return folder


@pytest.fixture
def static_model(tmp_path) -> Path:
    return make_static_model(tmp_path / "models" / "tiny-static")


def test_cli_end_to_end_relative_model_path(static_model, beir_dir, tmp_path, monkeypatch):
    subs = tmp_path / "subs"
    write_submission(subs, {"name": "t-static", "kind": "static", "model": "../models/tiny-static"})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the path is relative to the YAML, not to the working directory
    res = run_submission("t-static", beir_dir, tmp_path / "results", subs)
    assert res.exit_code == 0, res.output
    out = read_result(tmp_path / "results", "t-static")
    scorer = StaticScorer(StaticConfig(name="t-static", kind="static", model=str(static_model)), RunContext(use_cache=False))
    run = scorer.retrieve(QUERIES, corpus_texts(), 5).run
    assert out["datasets"]["tinybeir"]["ndcg@10"] == pytest.approx(ndcg_at_10(run))
    info = out["metadata"]["scorer"]
    assert info["model_source"] == "local" and info["dimensions"] == 16
    assert out["metadata"]["counters"]["tinybeir"]["texts_encoded"] == 13  # 10 documents + 3 queries

    again = run_submission("t-static", beir_dir, tmp_path / "results", subs, "--overwrite")
    assert again.exit_code == 0, again.output
    assert "texts_encoded" not in read_result(tmp_path / "results", "t-static")["metadata"]["counters"].get("tinybeir", {})


def test_pair_scores(static_model):
    sc = StaticScorer(StaticConfig(name="t-static", kind="static", model=str(static_model)), RunContext(use_cache=False))
    a = ["bees collect nectar", "the red car", "volcanoes erupt lava"]
    b = ["bees collect nectar", "a blue bicycle", "lava volcanoes erupt"]
    s = sc.score_pairs(a, b)
    assert s.shape == (3,)
    assert s[0] == pytest.approx(1.0, abs=1e-5)  # identical texts
    assert s[2] == pytest.approx(1.0, abs=1e-5)  # same bag of tokens: static models ignore order
    assert np.all(np.abs(s) <= 1 + 1e-6)
    assert np.allclose(sc.score_pairs(b, a), s)  # symmetric
    assert sc.cache_spec("query") == sc.cache_spec("document")  # one namespace for both roles


def test_missing_folder_is_one_line(beir_dir, tmp_path):
    path = write_submission(tmp_path / "subs", {"name": "t-static-missing", "kind": "static", "model": "../nowhere"})
    res = run_submission(str(path), beir_dir, tmp_path / "results")
    assert_one_line_error(res, "does not exist", "model")


def test_shipped_minilm_static():
    sub = load_submission(SUBMISSIONS_DIR / "minilm-static.yaml")
    sc = StaticScorer(sub.config, RunContext(use_cache=False), base_dir=SUBMISSIONS_DIR)
    assert Path(sc.resolved.location) == (PROJECT_ROOT / "models" / "minilm-static").resolve()
    s = sc.score_pairs(["A dog chases a ball.", "A dog chases a ball."], ["A dog chases a ball.", "Stock prices fell."])
    assert s[0] == pytest.approx(1.0, abs=1e-4) and s[1] < 0.5
    assert sc.info()["dimensions"] == 256


def test_distill_tiny_bert(tiny_bert, tmp_path):
    pytest.importorskip("skeletoken", reason="model2vec's distill extra is not installed")
    out = tmp_path / "distilled"
    res = cbench("distill", "--from", str(tiny_bert), "--out", str(out), "--pca-dims", "8", "--quiet")
    assert res.exit_code == 0, res.output
    assert (out / "model.safetensors").is_file() and (out / "tokenizer.json").is_file()
    sc = StaticScorer(StaticConfig(name="t-distilled", kind="static", model=str(out)), RunContext(use_cache=False))
    s = sc.score_pairs(["bees collect nectar"], ["bees collect nectar"])
    assert s[0] == pytest.approx(1.0, abs=1e-3)
    assert sc.info()["dimensions"] == 8
    again = cbench("distill", "--from", str(tiny_bert), "--out", str(out), "--quiet")
    assert_one_line_error(again, "--overwrite")


def test_distill_without_extra_is_one_line(tiny_bert, tmp_path, monkeypatch):
    """`make install` leaves skeletoken out (its declared transformers would replace the pinned one):
    the line names the pip of the Python running cbench (.venv's, whichever pip is on PATH), and it
    comes before any model is looked for."""
    for name in [m for m in sys.modules if m == "model2vec.distill" or m.startswith("model2vec.distill.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "skeletoken", None)  # import fails as when it is not installed
    install = shlex.join([sys.executable, "-m", "pip", "install", "--no-deps", "skeletoken>=0.4.1,<0.5"])
    line = f"error: distill: needs model2vec's distill extra; module 'skeletoken' is not installed: {install}"
    res = cbench("distill", "--from", str(tiny_bert), "--out", str(tmp_path / "x"), "--quiet")
    assert assert_one_line_error(res) == line
    res = cbench("distill", "--from", str(tmp_path / "no-such-model"), "--out", str(tmp_path / "x"), "--quiet")
    assert assert_one_line_error(res) == line


def test_distill_needs_an_encoder(tmp_path):
    res = cbench("distill", "--from", "bm25", "--out", str(tmp_path / "x"), "--quiet")
    assert_one_line_error(res, "lexical", "encoder")
