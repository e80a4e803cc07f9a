"""Shared fixtures for the scorer-kind tests: a tiny BEIR folder, tiny seeded local models, a CLI runner.

Nothing is downloaded: the BERT-shaped models use a WordPiece vocabulary written here and random
(seeded) weights, so they rank arbitrarily but deterministically, and every code path runs.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
import yaml

DOCS = {
    "d01": ("Cats", "The cat sat on the warm mat."),
    "d02": ("", "Dogs bark loudly at the mailman."),
    "d03": ("", "A red car is parked outside the house."),
    "d04": ("Plants", "Photosynthesis converts sunlight into chemical energy in plants."),
    "d05": ("", "The stock market fell sharply on Monday."),
    "d06": ("Volcanoes", "Volcanoes erupt molten lava and ash."),
    "d07": ("", "Bread is baked in a hot oven."),
    "d08": ("", "The orchestra played a symphony by Beethoven."),
    "d09": ("", "Glaciers slowly carve valleys in the mountains."),
    "d10": ("Bees", "Bees collect nectar from flowers to make honey."),
}
QUERIES = {"q1": "photosynthesis sunlight", "q2": "volcanoes lava", "q3": "honey bees"}
QRELS = {"q1": "d04", "q2": "d06", "q3": "d10"}
EXTRA_WORDS = "a the red blue car bicycle is on in of and to".split()


@pytest.fixture(autouse=True)
def _offline_isolated(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "false")
    monkeypatch.setenv("CBENCH_CACHE", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.delenv("CBENCH_SUBMISSIONS", raising=False)


@pytest.fixture
def beir_dir(tmp_path: Path) -> Path:
    """A BEIR folder: 10 documents, 3 queries, one relevant document each."""
    d = tmp_path / "tinybeir"
    (d / "qrels").mkdir(parents=True)
    with open(d / "corpus.jsonl", "w") as f:
        for i, (title, text) in DOCS.items():
            f.write(json.dumps({"_id": i, "title": title, "text": text}) + "\n")
    with open(d / "queries.jsonl", "w") as f:
        for i, text in QUERIES.items():
            f.write(json.dumps({"_id": i, "text": text}) + "\n")
    (d / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{c}\t1\n" for q, c in QRELS.items()))
    return d


def corpus_texts() -> dict[str, str]:
    return {i: f"{t} {x}" if t else x for i, (t, x) in DOCS.items()}


def ndcg_at_10(run: dict[str, dict[str, float]]) -> float:
    """nDCG@10 of a run on the tiny collection, by hand (not through pytrec_eval): one relevant
    document per query, so a query scores 1 / log2(1 + its rank), 0 outside the top 10. Ranks
    follow trec_eval's order: score descending, ties by document id descending."""
    total = 0.0
    for qid, relevant in QRELS.items():
        by_id = sorted(run.get(qid, {}).items(), key=lambda kv: kv[0], reverse=True)
        ranked = [d for d, _ in sorted(by_id, key=lambda kv: -kv[1])][:10]  # stable: ties keep id order
        total += 1 / math.log2(ranked.index(relevant) + 2) if relevant in ranked else 0.0
    return total / len(QRELS)


def _vocab() -> list[str]:
    words: set[str] = set(EXTRA_WORDS)
    for title, text in DOCS.values():
        words.update(re.findall(r"\w+", f"{title} {text}".lower()))
    for text in QUERIES.values():
        words.update(re.findall(r"\w+", text.lower()))
    special = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "[unused0]", "[unused1]"]
    return special + [".", ",", "!", "?", "'", "-", "##s"] + sorted(words)


def write_tokenizer(folder: Path) -> None:
    from transformers import BertTokenizerFast

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vocab.txt").write_text("\n".join(_vocab()) + "\n")
    BertTokenizerFast(vocab_file=str(folder / "vocab.txt"), do_lower_case=True).save_pretrained(str(folder))


def _bert_config():
    from transformers import BertConfig

    return BertConfig(
        vocab_size=len(_vocab()),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=512,
    )


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory) -> Path:
    """A plain BertModel folder (hidden 32, 2 layers), seeded."""
    import torch
    from transformers import BertModel

    folder = tmp_path_factory.mktemp("tiny-bert")
    torch.manual_seed(0)
    BertModel(_bert_config()).save_pretrained(str(folder))
    write_tokenizer(folder)
    return folder


@pytest.fixture(scope="session")
def tiny_colbert(tiny_bert, tmp_path_factory) -> Path:
    """A pylate ColBERT folder built from the tiny BERT (its projection layer seeded) and saved."""
    import torch
    from pylate import models

    folder = tmp_path_factory.mktemp("tiny-colbert")
    torch.manual_seed(0)
    model = models.ColBERT(model_name_or_path=str(tiny_bert), device="cpu", embedding_size=16, local_files_only=True)
    model.save(str(folder))
    return folder


@pytest.fixture(scope="session")
def tiny_cross_encoder(tmp_path_factory) -> Path:
    """A BertForSequenceClassification folder with one output label, seeded."""
    import torch
    from transformers import BertForSequenceClassification

    folder = tmp_path_factory.mktemp("tiny-ce")
    cfg = _bert_config()
    cfg.num_labels = 1
    torch.manual_seed(0)
    BertForSequenceClassification(cfg).save_pretrained(str(folder))
    write_tokenizer(folder)
    return folder


def write_submission(folder: Path, data: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{data['name']}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def cbench(*args: str):
    """Run the CLI in-process; returns typer's Result (exit_code, stdout, stderr)."""
    from typer.testing import CliRunner

    from harness.cli import app

    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def run_submission(model: str, beir: Path, results: Path, subs_dir: Path | None = None, *extra: str):
    args = ["run", "--model", model, "--suite", str(beir), "--results-dir", str(results), "--top-k", "5", "--quiet"]
    if subs_dir is not None:
        args += ["--submissions-dir", str(subs_dir)]
    return cbench(*args, *extra)


def read_result(results: Path, name: str, suite: str = "tinybeir") -> dict:
    return json.loads((results / name / f"{suite}.json").read_text())


def assert_one_line_error(result, *needles: str) -> str:
    """Exit 2 with exactly one non-empty stderr line, no traceback, containing every needle."""
    err = result.stderr
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert result.exit_code == 2, (result.exit_code, err)
    assert "Traceback" not in err and "Traceback" not in result.output, err
    assert len(lines) == 1, lines
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]


def encoder_scorer(model: Path, backend: str, **extra):
    """An encoder scorer over ``model`` on ``backend`` (no embedding cache)."""
    from harness.run_context import RunContext
    from harness.scorers.encoder import EncoderConfig, EncoderScorer

    cfg = EncoderConfig(name=f"t-{backend}", kind="encoder", model=str(model), backend=backend, **extra)
    return EncoderScorer(cfg, RunContext(use_cache=False))


def assert_embeddings_equal_torch(model: Path, backend: str):
    """The corpus embedded on ``backend`` and on torch: same shape, within 1e-5. Gives the scorer."""
    import numpy as np

    texts = list(corpus_texts().values())
    torch_emb = encoder_scorer(model, "torch").embed(texts, "document")
    scorer = encoder_scorer(model, backend)
    emb = scorer.embed(texts, "document")
    assert emb.shape == torch_emb.shape
    assert np.abs(emb - torch_emb).max() < 1e-5
    return scorer


def run_torch_and_backend(model: Path, beir: Path, tmp_path: Path, backend: str) -> tuple[dict, dict]:
    """The same submission run on torch and with ``--backend``: every metric within 1e-4.
    Gives both results files (torch's, the backend's)."""
    subs = tmp_path / "subs"
    write_submission(subs, {"name": "tiny", "kind": "encoder", "model": str(model)})
    r = run_submission("tiny", beir, tmp_path / "res-torch", subs)
    assert r.exit_code == 0, r.stderr
    r = run_submission("tiny", beir, tmp_path / f"res-{backend}", subs, "--backend", backend)
    assert r.exit_code == 0, r.stderr
    t, o = read_result(tmp_path / "res-torch", "tiny"), read_result(tmp_path / f"res-{backend}", "tiny")
    for name, value in t["datasets"]["tinybeir"].items():
        assert abs(o["datasets"]["tinybeir"][name] - value) <= 1e-4, name
    return t, o
