"""Fixtures for the fine-tuning tests: a tiny seeded BERT + mean-pooling sentence-transformer,
tiny near-miss items (train and test splits) and a suite YAML over them. Nothing is downloaded."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

SUBJECTS = ["cat", "dog", "bird", "horse", "child", "farmer", "doctor", "teacher"]
PLACES = ["garden", "kitchen", "station", "market", "river", "school"]


def make_items(split: str, n: int, offset: int = 0) -> list[dict]:
    """Five-text items in two categories (negation, swap)."""
    out = []
    for i in range(n):
        s = SUBJECTS[(i + offset) % len(SUBJECTS)]
        o = SUBJECTS[(i + offset + 3) % len(SUBJECTS)]
        p = PLACES[(i + offset) % len(PLACES)]
        if i % 2 == 0:
            cat = "negation"
            item = {
                "anchor": f"the {s} is in the {p}",
                "pos_close": f"the {s} is inside the {p}",
                "pos_far": f"in the {p} is the {s}",
                "neg_close": f"the {s} is not in the {p}",
                "neg_far": f"in the {p} is not the {s}",
            }
        else:
            cat = "swap"
            item = {
                "anchor": f"the {s} sees the {o} near the {p}",
                "pos_close": f"the {s} watches the {o} near the {p}",
                "pos_far": f"near the {p} the {o} is seen by the {s}",
                "neg_close": f"the {o} sees the {s} near the {p}",
                "neg_far": f"near the {p} the {s} is seen by the {o}",
            }
        out.append({"id": f"{split}-{i}", "category": cat, "split": split, **item})
    return out


def _vocab() -> list[str]:
    words = set(SUBJECTS + PLACES)
    for it in make_items("x", 16):
        for k in ("anchor", "pos_close", "pos_far", "neg_close", "neg_far"):
            words.update(re.findall(r"\w+", it[k]))
    words.update("what who where answer question a an of and to".split())
    return ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ".", ",", "?"] + sorted(words)


@pytest.fixture(autouse=True)
def _offline(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "false")
    monkeypatch.setenv("WANDB_DISABLED", "true")
    monkeypatch.setenv("CBENCH_CACHE", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.delenv("CBENCH_SUBMISSIONS", raising=False)


@pytest.fixture(scope="session")
def tiny_st(tmp_path_factory) -> Path:
    """A sentence-transformers folder: seeded BERT (hidden 32, 2 layers) + mean pooling."""
    import torch
    from sentence_transformers import SentenceTransformer, models
    from transformers import BertConfig, BertModel, BertTokenizerFast

    torch.set_num_threads(1)  # tiny matrices: one thread is ~10x faster than two on a busy shared CPU
    bert = tmp_path_factory.mktemp("tiny-bert")
    vocab = _vocab()
    (bert / "vocab.txt").write_text("\n".join(vocab) + "\n")
    BertTokenizerFast(vocab_file=str(bert / "vocab.txt"), do_lower_case=True).save_pretrained(str(bert))
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, max_position_embeddings=64)
    BertModel(cfg).save_pretrained(str(bert))
    word = models.Transformer(str(bert), max_seq_length=32)
    st = SentenceTransformer(modules=[word, models.Pooling(word.get_word_embedding_dimension(), pooling_mode="mean")], device="cpu")
    folder = tmp_path_factory.mktemp("tiny-st")
    st.save(str(folder), create_model_card=False)
    return folder


@pytest.fixture
def nearmiss_suite(tmp_path) -> Path:
    """A suite YAML over a five-text item file with 16 train and 8 test items (2 categories)."""
    folder = tmp_path / "suite"
    folder.mkdir()
    items = make_items("train", 16) + make_items("test", 8, offset=1)
    (folder / "items.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items))
    suite = {
        "name": "tinynm",
        "type": "nearmiss",
        "format": "items-jsonl",
        "datasets_from": "category",
        "split": "test",
        "main_metric": "triplet_accuracy",
        "files": [{"name": "tinynm", "path": "items.jsonl"}],
    }
    path = folder / "tinynm.yaml"
    path.write_text(yaml.safe_dump(suite, sort_keys=False))
    return path


def write_lines(path: Path, rows: list) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def cbench(*args: str):
    from typer.testing import CliRunner

    from harness.cli import app

    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


def one_line_error(result, *needles: str) -> str:
    err = result.stderr
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert result.exit_code == 2, (result.exit_code, err, result.stdout)
    assert "Traceback" not in err, err
    assert len(lines) == 1, lines
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]
